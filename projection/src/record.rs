//! The record store: micro-state envelopes over a [`staterecord::Store`], keyed by namespace, type and
//! address, and loaded for a plan in one bulk trip.
//!
//! Keys, under an optional key prefix, for estate `E` (`b64` is unpadded base64url of the unescaped
//! canonical address):
//!
//! | key | holds |
//! |---|---|
//! | `E/records/<type>/<b64(address)>` | the whole object of a record-backed instance |
//! | `E/residue/<type>/<b64(address)>` | applied values a read never returns |
//! | `E/deposed/<type>/<b64(address)>` | the ids of deposed objects awaiting deletion |
//! | `E/intent/<type>/<b64(address)>` | the create intent, `pending` then `done` |
//! | `E/located/<type>/<b64(address)>` | the id and identity of an object the tagging sweep cannot see |
//! | `E/slots/<b64(block address)>` | the highest slot ever minted for a count block |
//! | `E/outputs/<b64(name)>` | the last applied output value |
//!
//! The last segment is `b64` of the address (or name) whenever the whole key fits the store's key rules
//! ([`staterecord::key`]: segments of 200 bytes, so 150 bytes of address, and keys of 768). A longer
//! address (the lint admits 1,024 escaped characters, several kilobytes of UTF-8) is keyed by `~` and the
//! hex SHA-256 of its text instead, and its record carries the text itself in an `address` field of the
//! envelope, which is how loading maps such a key back to its address. `~` is outside the base64url
//! alphabet, so the two forms never collide, and a key that fits is exactly what earlier versions wrote,
//! so their stores read unchanged.
//!
//! Every payload is JSON with `"format": "liveplan-record-v1"` and a `kind`. A record whose format or
//! shape this version cannot read is "no record" plus a `record-format` warning, never a crash. This
//! module encodes payloads for the writers (the engine) but must never write to a store itself, and must
//! never put a payload's content into a diagnostic (records may hold secrets).

use std::collections::BTreeMap;
use std::str::FromStr;

use admission::marker::{Estate, Slot};
use admission::{BlockAddress, InstanceAddress};
use admission::{Code, Diagnostic};
use admission::{Value, ValuePath};
use provider::Lineage;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use staterecord::key::{MAX_KEY_LEN, MAX_SEGMENT_LEN};
use staterecord::{Record, Store, TripLabel, Version, labeled};

use crate::b64;
use crate::error::ProjectionError;

/// The `format` of every record payload this version writes and reads.
pub const RECORD_FORMAT: &str = "liveplan-record-v1";

/// The longest key prefix, in bytes, that [`RecordKeys::new`] accepts. With the longest estate name (128)
/// and a digest segment, every key stays within the store's 768 bytes for any type name of at most 200
/// bytes (the store's segment limit).
pub const MAX_KEY_PREFIX_LEN: usize = 256;

/// What starts a digest segment: a character base64url never writes.
const DIGEST_MARK: char = '~';

/// The digest segment of `text`: `~` and the lowercase hex SHA-256 of its UTF-8 bytes.
fn digest_segment(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(1 + 2 * digest.len());
    out.push(DIGEST_MARK);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The namespaces of records kept per instance address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceNamespace {
    /// `records`: the whole object of a record-backed instance.
    Records,
    /// `residue`: applied values a read never returns.
    Residue,
    /// `deposed`: deposed objects awaiting deletion.
    Deposed,
    /// `intent`: the create intent.
    Intent,
    /// `located`: an owned object the tagging sweep cannot see.
    Located,
}

impl InstanceNamespace {
    /// Every instance namespace.
    pub const ALL: [InstanceNamespace; 5] = [
        InstanceNamespace::Records,
        InstanceNamespace::Residue,
        InstanceNamespace::Deposed,
        InstanceNamespace::Intent,
        InstanceNamespace::Located,
    ];

    /// The namespace's key segment.
    pub fn as_str(self) -> &'static str {
        match self {
            InstanceNamespace::Records => "records",
            InstanceNamespace::Residue => "residue",
            InstanceNamespace::Deposed => "deposed",
            InstanceNamespace::Intent => "intent",
            InstanceNamespace::Located => "located",
        }
    }

    fn from_segment(s: &str) -> Option<InstanceNamespace> {
        InstanceNamespace::ALL.into_iter().find(|n| n.as_str() == s)
    }
}

/// What a record key names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordKey {
    /// A per-instance record.
    Instance {
        /// Its namespace.
        namespace: InstanceNamespace,
        /// The instance.
        address: InstanceAddress,
    },
    /// The slot record of a count block.
    Slots(BlockAddress),
    /// The record of an output.
    Output(String),
    /// The record of the (account, region) pairs the estate has written to.
    Regions,
}

/// The record keys of one estate under an optional key prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordKeys {
    prefix: String,
}

impl RecordKeys {
    /// The keys of `estate` under `key_prefix` (empty, or ending with `/`).
    pub fn new(key_prefix: &str, estate: &Estate) -> Result<RecordKeys, ProjectionError> {
        if !key_prefix.is_empty() && !key_prefix.ends_with('/') {
            return Err(ProjectionError::InvalidKeyPrefix {
                prefix: key_prefix.to_owned(),
            });
        }
        if key_prefix.len() > MAX_KEY_PREFIX_LEN {
            return Err(ProjectionError::KeyPrefixTooLong {
                len: key_prefix.len(),
            });
        }
        Ok(RecordKeys {
            prefix: format!("{key_prefix}{estate}/"),
        })
    }

    /// The prefix every key of the estate starts with (`E/`, or `team/E/` under a key prefix).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The key `{prefix}{directory}/{segment}` of `text`: base64url when that key fits the store's rules,
    /// the digest segment otherwise.
    fn keyed(&self, directory: &str, text: &str) -> String {
        // The length of unpadded base64url, known before encoding what may be kilobytes of address.
        let encoded_len = (text.len() * 4).div_ceil(3);
        let len = self.prefix.len() + directory.len() + 1 + encoded_len;
        let segment = if encoded_len <= MAX_SEGMENT_LEN && len <= MAX_KEY_LEN {
            b64::encode(text.as_bytes())
        } else {
            digest_segment(text)
        };
        format!("{}{directory}/{segment}", self.prefix)
    }

    /// The key of `address`'s record in `namespace`.
    pub fn instance(&self, namespace: InstanceNamespace, address: &InstanceAddress) -> String {
        let directory = format!("{}/{}", namespace.as_str(), address.type_name());
        self.keyed(&directory, &address.to_string())
    }

    /// The key of the slot record of the count block `block`.
    pub fn slots(&self, block: &BlockAddress) -> String {
        self.keyed("slots", &block.to_string())
    }

    /// The key of the record of output `name`.
    pub fn output(&self, name: &str) -> String {
        self.keyed("outputs", name)
    }

    /// The key of the record of the (account, region) pairs the estate has written to (`E/regions`).
    pub fn regions(&self) -> String {
        format!("{}regions", self.prefix)
    }

    /// The key of the record `what` names.
    pub fn key(&self, what: &RecordKey) -> String {
        match what {
            RecordKey::Instance { namespace, address } => self.instance(*namespace, address),
            RecordKey::Slots(block) => self.slots(block),
            RecordKey::Output(name) => self.output(name),
            RecordKey::Regions => self.regions(),
        }
    }

    /// What the record `key` holding `payload` names; `None` for a key outside the estate or one this
    /// version cannot read. A digest key is read through the text its payload carries, and only when it is
    /// the very key [`RecordKeys::key`] gives for that text, so a record copied under another key, or a
    /// digest written for an address that has a base64url key, is never taken for a second record.
    pub fn parse(&self, key: &str, payload: &[u8]) -> Option<RecordKey> {
        let rest = key.strip_prefix(&self.prefix)?;
        let segments: Vec<&str> = rest.split('/').collect();
        let digested = segments.last()?.starts_with(DIGEST_MARK);
        let text = |encoded: &str| {
            if digested {
                RecordBody::subject_of(payload)
            } else {
                String::from_utf8(b64::decode(encoded)?).ok()
            }
        };
        let parsed = match segments.as_slice() {
            ["slots", encoded] => BlockAddress::from_str(&text(encoded)?)
                .ok()
                .map(RecordKey::Slots),
            ["outputs", encoded] => Some(RecordKey::Output(text(encoded)?)),
            ["regions"] => Some(RecordKey::Regions),
            [namespace, type_name, encoded] => {
                let namespace = InstanceNamespace::from_segment(namespace)?;
                let address = InstanceAddress::from_str(&text(encoded)?).ok()?;
                (address.type_name() == *type_name)
                    .then_some(RecordKey::Instance { namespace, address })
            }
            _ => None,
        }?;
        (!digested || self.key(&parsed) == key).then_some(parsed)
    }
}

/// The whole object of a record-backed instance (`random_id`, `terraform_data`): the record is the object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectRecord {
    /// The object's id, minted by the engine.
    pub id: String,
    /// Its attributes, as JSON.
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// The attribute paths whose values are sensitive (stored, never printed).
    #[serde(default)]
    pub sensitive_paths: Vec<String>,
}

/// Applied values a read never returns (`force_destroy`, an access key's `secret`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResidueRecord {
    /// The values, by attribute name, as JSON.
    pub values: BTreeMap<String, serde_json::Value>,
    /// The attribute paths whose values are sensitive.
    #[serde(default)]
    pub sensitive_paths: Vec<String>,
}

/// The deposed objects of one instance, awaiting deletion (create-before-destroy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeposedRecord {
    /// Their ids.
    pub ids: Vec<String>,
}

/// Where a create intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntentState {
    /// Written before the create call; the call may not have finished.
    Pending,
    /// The create finished with the recorded id.
    Done,
    /// Written before the delete of a destroy-before-create replace, with the instance's slot: the old
    /// object is (being) destroyed and the new one's create has not started. The slot stays the
    /// instance's while no object carries it, so the count set is not indexed again around the gap.
    Replacing,
}

/// The create intent of one instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntentRecord {
    /// Pending or done.
    pub state: IntentState,
    /// The client token of the create.
    pub client_token: String,
    /// When the intent was written, in seconds since the Unix epoch.
    pub time: u64,
    /// The created object's id, once done (the old object's, while replacing).
    #[serde(default)]
    pub id: Option<String>,
    /// The count slot the object is created with (pending, replacing): held for the instance while no
    /// live object carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Slot>,
}

/// An owned object the tagging sweep cannot see (IAM, routes, associations, access keys, versioning).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocatedRecord {
    /// The object's id.
    pub id: String,
    /// Its identity components, by argument name.
    #[serde(default)]
    pub identity: BTreeMap<String, String>,
}

/// The highest slot ever minted for a count block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotsRecord {
    /// The slot.
    pub highest: Slot,
}

/// The last applied value of an output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputRecord {
    /// The value, as JSON.
    pub value: serde_json::Value,
    /// Whether the output is sensitive.
    #[serde(default)]
    pub sensitive: bool,
}

/// One (account, region) pair an estate has written to; the account is `None` when the provider named
/// none (compared by region alone then).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RegionPair {
    /// The account, as the provider names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// The region.
    pub region: String,
}

impl RegionPair {
    /// Whether `self` and `other` name one place: the same region, and the same account when both name
    /// one.
    pub fn covers(&self, other: &RegionPair) -> bool {
        self.region == other.region
            && (self.account.is_none() || other.account.is_none() || self.account == other.account)
    }
}

/// The (account, region) pairs an estate has written to, sorted: discovery sweeps each of them, also
/// once no provider configuration names it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RegionsRecord {
    /// The pairs.
    pub pairs: Vec<RegionPair>,
}

/// The body of a record, tagged by `kind` in the payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RecordBody {
    /// A record-backed object.
    Object(ObjectRecord),
    /// Residue values.
    Residue(ResidueRecord),
    /// Deposed ids.
    Deposed(DeposedRecord),
    /// A create intent.
    Intent(IntentRecord),
    /// A located object.
    Located(LocatedRecord),
    /// A count block's slot high-water mark.
    Slots(SlotsRecord),
    /// An output value.
    Output(OutputRecord),
    /// The regions written to.
    Regions(RegionsRecord),
}

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    format: &'static str,
    /// The text a digest key stands for; absent under a base64url key, which holds the text itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<&'a str>,
    /// The live system the record was written for; absent when the provider names none.
    #[serde(skip_serializing_if = "Option::is_none")]
    lineage: Option<&'a Lineage>,
    #[serde(flatten)]
    body: &'a RecordBody,
}

#[derive(Deserialize)]
struct FormatOnly {
    format: Option<String>,
}

#[derive(Deserialize)]
struct SubjectOnly {
    address: Option<String>,
}

#[derive(Deserialize)]
struct LineageOnly {
    lineage: Option<Lineage>,
}

/// Why a payload could not be read as a record of this version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordProblem {
    /// The payload is empty (an empty file, or on the local store a symbolic link in the record's place).
    Empty,
    /// The payload is not a JSON object with a `format`.
    NotAnEnvelope,
    /// The `format` is one this version does not know.
    UnknownFormat(String),
    /// The format is known but the body does not fit it.
    BadBody,
    /// The body's kind does not belong in the record's namespace.
    WrongKind,
}

impl std::fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordProblem::Empty => f.write_str("it is empty or not a plain file"),
            RecordProblem::NotAnEnvelope => f.write_str("the payload is not a record envelope"),
            RecordProblem::UnknownFormat(fmt) => write!(f, "the format {fmt:?} is not known"),
            RecordProblem::BadBody => {
                write!(f, "the body does not fit the format {RECORD_FORMAT}")
            }
            RecordProblem::WrongKind => f.write_str("the record kind does not fit its key"),
        }
    }
}

impl RecordBody {
    /// The payload of a record whose key holds its subject in base64url: the envelope with `format` and
    /// `kind`, as compact JSON. A writer that may meet a long address uses [`RecordBody::to_payload_at`].
    pub fn to_payload(&self) -> Vec<u8> {
        self.envelope(None)
    }

    /// The payload to store under `key`, the key [`RecordKeys`] gave for `subject` (an instance address,
    /// a count block's address, or an output's name): when the key is a digest, the payload carries
    /// `subject`, without which the record could not be read back.
    pub fn to_payload_at(&self, key: &str, subject: &str) -> Vec<u8> {
        self.to_payload_for(key, subject, None)
    }

    /// [`RecordBody::to_payload_at`], the envelope naming `lineage`, the live system the record is
    /// written for (none: the envelope names none, as before lineages existed).
    pub fn to_payload_for(&self, key: &str, subject: &str, lineage: Option<&Lineage>) -> Vec<u8> {
        let digested = key
            .rsplit('/')
            .next()
            .is_some_and(|s| s.starts_with(DIGEST_MARK));
        serde_json::to_vec(&EnvelopeOut {
            format: RECORD_FORMAT,
            address: digested.then_some(subject),
            lineage,
            body: self,
        })
        .unwrap_or_default()
    }

    fn envelope(&self, address: Option<&str>) -> Vec<u8> {
        serde_json::to_vec(&EnvelopeOut {
            format: RECORD_FORMAT,
            address,
            lineage: None,
            body: self,
        })
        .unwrap_or_default()
    }

    /// The live system a payload names, if it names one (records written before lineages name none).
    pub fn lineage_of(payload: &[u8]) -> Option<Lineage> {
        serde_json::from_slice::<LineageOnly>(payload).ok()?.lineage
    }

    /// The subject a payload carries for its digest key, if any.
    fn subject_of(payload: &[u8]) -> Option<String> {
        serde_json::from_slice::<SubjectOnly>(payload).ok()?.address
    }

    /// Reads a payload; a foreign or future format is a [`RecordProblem`], never a panic.
    pub fn from_payload(payload: &[u8]) -> Result<RecordBody, RecordProblem> {
        if payload.is_empty() {
            return Err(RecordProblem::Empty);
        }
        let envelope: FormatOnly =
            serde_json::from_slice(payload).map_err(|_| RecordProblem::NotAnEnvelope)?;
        match envelope.format.as_deref() {
            Some(RECORD_FORMAT) => {}
            Some(other) => return Err(RecordProblem::UnknownFormat(other.to_owned())),
            None => return Err(RecordProblem::NotAnEnvelope),
        }
        let mut json: serde_json::Value =
            serde_json::from_slice(payload).map_err(|_| RecordProblem::BadBody)?;
        if let Some(map) = json.as_object_mut() {
            map.remove("format");
            map.remove("address");
            map.remove("lineage");
        }
        serde_json::from_value(json).map_err(|_| RecordProblem::BadBody)
    }
}

/// Attributes stored as JSON with sensitive paths, as a value map with the sensitive marks restored.
/// Paths that do not parse are ignored for marking only if they are empty; any other unreadable path
/// marks the whole attribute it starts with, so that a damaged record never un-hides a secret.
pub fn marked_attributes(
    attributes: &BTreeMap<String, serde_json::Value>,
    sensitive_paths: &[String],
) -> BTreeMap<String, Value> {
    let value = Value::from_json(serde_json::Value::Object(
        attributes.clone().into_iter().collect(),
    ));
    let mut paths = Vec::new();
    for p in sensitive_paths {
        match ValuePath::from_str(p) {
            Ok(path) => paths.push(path),
            Err(_) => {
                let head: String = p.chars().take_while(|c| *c != '.' && *c != '[').collect();
                if !head.is_empty() {
                    paths.push(ValuePath::root().key(head));
                }
            }
        }
    }
    match value.mark_paths(&paths) {
        Value::Map(m) => m,
        _ => BTreeMap::new(),
    }
}

/// A record as loaded: its body and the version a compare-and-swap must name to replace it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored<T> {
    /// The body.
    pub body: T,
    /// The version the plan saw.
    pub version: Version,
}

/// Every record of an estate, loaded in one bulk trip and sorted by what it is about.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordSet {
    /// Record-backed objects, by instance.
    pub objects: BTreeMap<InstanceAddress, Stored<ObjectRecord>>,
    /// Residue, by instance.
    pub residue: BTreeMap<InstanceAddress, Stored<ResidueRecord>>,
    /// Deposed sets, by instance.
    pub deposed: BTreeMap<InstanceAddress, Stored<DeposedRecord>>,
    /// Create intents, by instance.
    pub intents: BTreeMap<InstanceAddress, Stored<IntentRecord>>,
    /// Located objects, by instance.
    pub located: BTreeMap<InstanceAddress, Stored<LocatedRecord>>,
    /// Slot high-water marks, by count block.
    pub slots: BTreeMap<BlockAddress, Stored<SlotsRecord>>,
    /// Outputs, by name.
    pub outputs: BTreeMap<String, Stored<OutputRecord>>,
    /// The (account, region) pairs written to, when the estate has the record.
    pub regions: Option<Stored<RegionsRecord>>,
    /// The records this version cannot read (read as "no record"), by key, with the version the plan saw:
    /// the apply that writes one of these keys replaces the damaged bytes with compare-and-swap against
    /// that version, so a damaged record never blocks its own rewrite.
    pub unreadable: BTreeMap<String, Version>,
    /// The live system the records were read for, which every record written back names; `None` when the
    /// provider names none (records are then neither checked nor stamped).
    pub lineage: Option<Lineage>,
    /// `record-format` warnings for records read as "no record", and `record-lineage` errors for
    /// records of another live system.
    pub diagnostics: Vec<Diagnostic>,
    /// How many calls reached the store to load them.
    pub store_trips: u64,
    /// How many requests the store's backend made for those calls (every page of a listing).
    pub store_requests: u64,
}

impl RecordSet {
    /// Reads the record at `key` (stored at `location`) as "no record", with a `record-format` warning
    /// naming both, and keeps its version for the apply that rewrites it.
    fn unreadable(
        &mut self,
        key: &str,
        location: &str,
        version: Version,
        problem: &dyn std::fmt::Display,
    ) {
        self.unreadable.insert(key.to_owned(), version);
        self.diagnostics.push(
            Diagnostic::new(
                Code::RecordFormat,
                format!("record {key} ({location}) was read as no record: {problem}"),
                "The record was damaged or written by another version. It is ignored for this plan; the \
                 next apply that needs the record overwrites it. To keep what it held, restore it from a \
                 backup before applying.",
            )
            .with_ids([key.to_owned()]),
        );
    }

    fn insert(&mut self, keys: &RecordKeys, key: &str, location: &str, record: Record) {
        let Some(parsed) = keys.parse(key, &record.payload) else {
            let problem = match RecordBody::from_payload(&record.payload) {
                Err(problem) => problem.to_string(),
                Ok(_) => "the key does not name a record of this version".to_owned(),
            };
            self.unreadable(key, location, record.version, &problem);
            return;
        };
        let body = match RecordBody::from_payload(&record.payload) {
            Ok(body) => body,
            Err(problem) => {
                self.unreadable(key, location, record.version, &problem);
                return;
            }
        };
        if let (Some(ours), Some(theirs)) = (&self.lineage, RecordBody::lineage_of(&record.payload))
            && *ours != theirs
        {
            self.diagnostics.push(
                Diagnostic::new(
                    Code::RecordLineage,
                    format!(
                        "record {key} ({location}) was written for {theirs}, not for {ours}, which \
                         this run reads and writes"
                    ),
                    "Two live systems share this record store under one estate, and their records \
                     must not mix. Give each live system its own record store or key prefix; remove \
                     the record only if that live system is gone.",
                )
                .with_ids([key.to_owned()]),
            );
            return;
        }
        let version = record.version;
        use InstanceNamespace as N;
        match (parsed, body) {
            (
                RecordKey::Instance {
                    namespace: N::Records,
                    address,
                },
                RecordBody::Object(body),
            ) => {
                self.objects.insert(address, Stored { body, version });
            }
            (
                RecordKey::Instance {
                    namespace: N::Residue,
                    address,
                },
                RecordBody::Residue(body),
            ) => {
                self.residue.insert(address, Stored { body, version });
            }
            (
                RecordKey::Instance {
                    namespace: N::Deposed,
                    address,
                },
                RecordBody::Deposed(body),
            ) => {
                self.deposed.insert(address, Stored { body, version });
            }
            (
                RecordKey::Instance {
                    namespace: N::Intent,
                    address,
                },
                RecordBody::Intent(body),
            ) => {
                self.intents.insert(address, Stored { body, version });
            }
            (
                RecordKey::Instance {
                    namespace: N::Located,
                    address,
                },
                RecordBody::Located(body),
            ) => {
                self.located.insert(address, Stored { body, version });
            }
            (RecordKey::Slots(block), RecordBody::Slots(body)) => {
                self.slots.insert(block, Stored { body, version });
            }
            (RecordKey::Output(name), RecordBody::Output(body)) => {
                self.outputs.insert(name, Stored { body, version });
            }
            (RecordKey::Regions, RecordBody::Regions(body)) => {
                self.regions = Some(Stored { body, version });
            }
            (_, _) => self.unreadable(key, location, version, &RecordProblem::WrongKind),
        }
    }
}

/// Loads every record of the estate named by `keys` from `store` in one bulk trip (`get_all` of the
/// estate's prefix; a store without a bulk reader costs one `list` and one `get` per key).
///
/// Pass the plan's [`RunCache`](staterecord::RunCache) as `store`, so that later reads of the run are
/// served from the same snapshot. Unreadable records become `record-format` warnings.
pub async fn load_records(
    store: &dyn Store,
    keys: &RecordKeys,
) -> Result<RecordSet, ProjectionError> {
    load_records_for(store, keys, || None).await
}

/// [`load_records`] for the live system `lineage` names once the records are read: a record that names
/// another is refused with a `record-lineage` error (never read, never written over), and the set carries
/// the lineage. `None` checks nothing. The live system is asked after the read, so that a record written
/// meanwhile by a run that named the live system first (a simulated cloud's new file given its id) is
/// checked against that name.
#[tracing::instrument(name = "load_records", skip_all, fields(prefix = %keys.prefix()), err)]
pub async fn load_records_for(
    store: &dyn Store,
    keys: &RecordKeys,
    lineage: impl FnOnce() -> Option<Lineage>,
) -> Result<RecordSet, ProjectionError> {
    let label = TripLabel::new("records", "projection::load_records");
    let unreadable = |source| ProjectionError::RecordsUnreadable {
        estate: keys.prefix().trim_end_matches('/').to_owned(),
        source,
    };
    let mut set = RecordSet::default();
    let (all, requests) = staterecord::count_requests(async {
        let all: BTreeMap<String, Record> = match store.bulk_reader() {
            Some(bulk) => {
                set.store_trips = 1;
                labeled(label, bulk.get_all(keys.prefix()))
                    .await
                    .map_err(unreadable)?
            }
            None => labeled(label, async {
                let listed = store.list(keys.prefix()).await?;
                set.store_trips = 1 + listed.len() as u64;
                let mut all = BTreeMap::new();
                for key in listed {
                    if let Some(record) = store.get(&key).await? {
                        all.insert(key, record);
                    }
                }
                Ok(all)
            })
            .await
            .map_err(unreadable)?,
        };
        Ok::<_, ProjectionError>(all)
    })
    .await;
    let all = all?;
    set.store_requests = requests;
    set.lineage = lineage();
    for (key, record) in all {
        let location = store.location(&key);
        set.insert(keys, &key, &location, record);
    }
    Ok(set)
}
