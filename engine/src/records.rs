//! Micro-state record keys and payloads: where each fact the live system cannot give back is kept, and the
//! JSON envelope around it.
//!
//! Keys follow the namespaces of the product (`E/records/<type>/<b64url(address)>`, ...); payloads are JSON
//! with a `format` field. A payload with an unknown format reads as "no record" plus a warning. This module
//! only names and encodes: it must never talk to a store itself.

use std::collections::BTreeMap;

use admission::{Code, Diagnostic, InstanceAddress, Value};
use serde::{Deserialize, Serialize};
use staterecord::{Record, Version};

/// The format tag every payload carries.
pub const FORMAT: &str = "liveplan-record-v1";

/// Unpadded base64url of `bytes`.
pub fn b64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The record namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Namespace {
    /// The whole object of a record-backed instance.
    Records,
    /// Applied values a live read never returns.
    Residue,
    /// Deposed objects awaiting deletion.
    Deposed,
    /// Create intents.
    Intent,
    /// Owned objects the tagging sweep cannot see.
    Located,
}

impl Namespace {
    fn as_str(self) -> &'static str {
        match self {
            Namespace::Records => "records",
            Namespace::Residue => "residue",
            Namespace::Deposed => "deposed",
            Namespace::Intent => "intent",
            Namespace::Located => "located",
        }
    }
}

/// The key of an instance's record in `namespace`.
pub fn instance_key(estate: &str, namespace: Namespace, address: &InstanceAddress) -> String {
    format!(
        "{estate}/{}/{}/{}",
        namespace.as_str(),
        address.type_name(),
        b64url(address.to_string().as_bytes())
    )
}

/// The key of a count block's slot record.
pub fn slots_key(estate: &str, block: &str) -> String {
    format!("{estate}/slots/{}", b64url(block.as_bytes()))
}

/// The key of an output's record.
pub fn output_key(estate: &str, name: &str) -> String {
    format!("{estate}/outputs/{}", b64url(name.as_bytes()))
}

/// The prefix holding every record of an estate.
pub fn estate_prefix(estate: &str) -> String {
    format!("{estate}/")
}

/// A record payload: the envelope and its body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Payload {
    /// A record-backed object: its attributes, sensitive ones listed by name.
    Object {
        /// The instance address.
        address: String,
        /// The object's id.
        id: String,
        /// Its attributes as JSON.
        attributes: BTreeMap<String, serde_json::Value>,
        /// The attributes that are sensitive.
        #[serde(default)]
        sensitive: Vec<String>,
    },
    /// Residue: applied values a read never returns.
    Residue {
        /// The object's id the values belong to.
        id: String,
        /// The values as JSON.
        values: BTreeMap<String, serde_json::Value>,
    },
    /// Deposed objects of an instance.
    Deposed {
        /// The ids awaiting deletion, sorted.
        ids: Vec<String>,
    },
    /// A create intent.
    Intent {
        /// `pending` before the create call, `done` after.
        state: IntentState,
        /// The id of the object created (when done).
        #[serde(default)]
        id: Option<String>,
        /// Seconds since the Unix epoch when the intent was written.
        at: u64,
    },
    /// An owned object the tagging sweep cannot see.
    Located {
        /// The resource type.
        #[serde(rename = "type")]
        type_name: String,
        /// The object's id.
        id: String,
        /// Its identity values.
        identity: BTreeMap<String, String>,
    },
    /// The highest slot ever minted for a count block.
    Slots {
        /// The slot.
        highest: u32,
    },
    /// An output's last applied value.
    Output {
        /// The value as JSON.
        value: serde_json::Value,
        /// Whether it is sensitive.
        sensitive: bool,
    },
}

/// Where a create intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentState {
    /// Written before the create call.
    Pending,
    /// Rewritten after the create returned.
    Done,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    format: String,
    #[serde(flatten)]
    payload: Payload,
}

/// Encodes a payload in its envelope.
pub fn encode(payload: &Payload) -> Vec<u8> {
    let envelope = Envelope {
        format: FORMAT.to_owned(),
        payload: payload.clone(),
    };
    // Serializing plain maps and strings to a vector cannot fail.
    serde_json::to_vec(&envelope).unwrap_or_default()
}

/// Decodes a payload; `None` when the format is unknown or the body does not parse.
pub fn decode(bytes: &[u8]) -> Option<Payload> {
    let envelope: Envelope = serde_json::from_slice(bytes).ok()?;
    (envelope.format == FORMAT).then_some(envelope.payload)
}

/// Every record of an estate as one plan saw it, read in one bulk trip.
#[derive(Debug, Clone, Default)]
pub struct RecordSet {
    /// The decoded records by key, with the version seen.
    pub records: BTreeMap<String, (Payload, Version)>,
    /// The versions of records whose payload could not be read (kept so writes still compare-and-swap).
    pub unreadable: BTreeMap<String, Version>,
}

impl RecordSet {
    /// Decodes the raw records; each unreadable one gives a `record-format` warning.
    pub fn from_raw(raw: BTreeMap<String, Record>, diagnostics: &mut Vec<Diagnostic>) -> RecordSet {
        let mut set = RecordSet::default();
        for (key, record) in raw {
            match decode(&record.payload) {
                Some(p) => {
                    set.records.insert(key, (p, record.version));
                }
                None => {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::RecordFormat,
                            format!("the record {key} has an unknown format and was read as no record"),
                            "a newer version of the tool may have written it; upgrade, or delete the record",
                        )
                        .with_ids([key.clone()]),
                    );
                    set.unreadable.insert(key, record.version);
                }
            }
        }
        set
    }

    /// The payload at `key`.
    pub fn get(&self, key: &str) -> Option<&Payload> {
        self.records.get(key).map(|(p, _)| p)
    }

    /// The version seen at `key` (also for unreadable records).
    pub fn version(&self, key: &str) -> Option<Version> {
        self.records
            .get(key)
            .map(|(_, v)| v.clone())
            .or_else(|| self.unreadable.get(key).cloned())
    }

    /// The keys and payloads under `prefix`.
    pub fn under<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a Payload)> + 'a {
        self.records
            .range(prefix.to_owned()..)
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(k, (p, _))| (k.as_str(), p))
    }
}

/// A record-backed object's attributes as values, sensitive ones marked.
pub fn object_attributes(
    attributes: &BTreeMap<String, serde_json::Value>,
    sensitive: &[String],
) -> BTreeMap<String, Value> {
    attributes
        .iter()
        .map(|(k, v)| {
            let value = Value::from_json(v.clone());
            (k.clone(), value.mark_sensitive_if(sensitive.contains(k)))
        })
        .collect()
}
