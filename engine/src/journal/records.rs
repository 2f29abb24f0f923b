//! The records of one instance as apply, adopt and mv write them: intents, deposed sets, residue, the
//! object record of a record-backed instance, and the `located` record of an object the tagging sweep
//! cannot see; and the records a plan saw, by key.
//!
//! Each write goes through the journal's compare-and-swap. Read-modify-write sites (the deposed set) hold
//! the key's turn from the read to the write; nothing here ever holds a turn of another key meanwhile.

use std::collections::BTreeMap;

use admission::{InstanceAddress, Slot, Value};
use projection::record::{
    DeposedRecord, InstanceNamespace as Namespace, IntentRecord, IntentState, LocatedRecord,
    ObjectRecord, RecordBody, RecordKeys, ResidueRecord,
};
use provider::LiveObject;
use provider::schema::ResourceTypeSchema;
use staterecord::Version;

use super::{RecordError, RecordJournal};

impl RecordJournal {
    /// Writes `address`'s create intent in `state`, with the client token of its create and, once known,
    /// the object's id.
    pub(crate) async fn write_intent(
        &self,
        address: &InstanceAddress,
        state: IntentState,
        client_token: &str,
        id: Option<&str>,
    ) -> Result<(), RecordError> {
        self.write_intent_body(address, self.intent(state, client_token, id, None))
            .await
    }

    /// The intent record of `address` in `state`, written now.
    pub(crate) fn intent(
        &self,
        state: IntentState,
        client_token: &str,
        id: Option<&str>,
        slot: Option<Slot>,
    ) -> RecordBody {
        RecordBody::Intent(IntentRecord {
            state,
            client_token: client_token.to_owned(),
            time: self.clock.unix_secs(),
            id: id.map(str::to_owned),
            slot,
        })
    }

    /// Writes `body` as `address`'s create intent, against the version last seen.
    pub(crate) async fn write_intent_body(
        &self,
        address: &InstanceAddress,
        body: RecordBody,
    ) -> Result<(), RecordError> {
        let key = self.keys.instance(Namespace::Intent, address);
        self.write_of(&key, address, Some(&body)).await
    }

    /// Marks done a pending intent left by an interrupted apply, now that `address`'s object (`id`) is
    /// known; nothing when the run saw no pending intent.
    pub(crate) async fn settle_intent(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), RecordError> {
        let key = self.keys.instance(Namespace::Intent, address);
        match self.seen(&key) {
            Some(RecordBody::Intent(intent)) if intent.state == IntentState::Pending => {
                let token = intent.client_token.clone();
                self.write_intent(address, IntentState::Done, &token, Some(id))
                    .await
            }
            _ => Ok(()),
        }
    }

    /// Adds `id` to `address`'s deposed objects.
    pub(crate) async fn add_deposed(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), RecordError> {
        self.change_deposed(address, |ids| {
            if !ids.iter().any(|x| x == id) {
                ids.push(id.to_owned());
                ids.sort();
            }
        })
        .await
    }

    /// Removes `id` from `address`'s deposed objects (the record goes with the last one).
    pub(crate) async fn remove_deposed(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), RecordError> {
        self.change_deposed(address, |ids| ids.retain(|x| x != id))
            .await
    }

    /// Changes the ids of `address`'s deposed record, read now in the record's turn (none when there is no
    /// record): the record is written back, deleted when no id is left, and left alone when there was
    /// none and none is added.
    async fn change_deposed(
        &self,
        address: &InstanceAddress,
        change: impl FnOnce(&mut Vec<String>),
    ) -> Result<(), RecordError> {
        let key = self.keys.instance(Namespace::Deposed, address);
        let _turn = self.turns.take(&key).await;
        let (mut ids, recorded) = match self.read_now(&key).await? {
            Some(RecordBody::Deposed(r)) => (r.ids, true),
            _ => (Vec::new(), false),
        };
        change(&mut ids);
        if ids.is_empty() {
            return if recorded {
                self.delete_now(&key).await
            } else {
                Ok(())
            };
        }
        let body = RecordBody::Deposed(DeposedRecord { ids });
        self.put_payload_now(&key, &self.payload(&key, &address.to_string(), &body))
            .await
            .map(|_| ())
    }

    /// Writes `address`'s residue: the values of the schema's residue attributes the live system does not
    /// return, from the object, else from the desired values. Nothing when there are none or the record
    /// already holds them.
    pub(crate) async fn write_residue(
        &self,
        address: &InstanceAddress,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        object: &LiveObject,
    ) -> Result<(), RecordError> {
        let mut values = BTreeMap::new();
        let mut sensitive_paths = Vec::new();
        for name in schema.residue_attributes() {
            let v = object.attribute(name).or_else(|| desired.get(name));
            if let Some(v) = v
                && let Ok(json) = v.to_json()
            {
                if v.contains_sensitive() {
                    sensitive_paths.push(name.to_owned());
                }
                values.insert(name.to_owned(), json);
            }
        }
        if values.is_empty() {
            return Ok(());
        }
        let key = self.keys.instance(Namespace::Residue, address);
        let payload = RecordBody::Residue(ResidueRecord {
            values,
            sensitive_paths,
        });
        if self.seen(&key) == Some(&payload) {
            return Ok(());
        }
        self.write_of(&key, address, Some(&payload)).await
    }

    /// Writes the object record of a record-backed instance: its attributes, the sensitive ones named.
    pub(crate) async fn write_object(
        &self,
        address: &InstanceAddress,
        object: &LiveObject,
    ) -> Result<(), RecordError> {
        let mut json = BTreeMap::new();
        let mut sensitive = Vec::new();
        for (k, v) in &object.attributes {
            if v.contains_sensitive() {
                sensitive.push(k.clone());
            }
            let (plain, _) = v.clone().unmark_deep();
            if let Ok(j) = plain.to_json() {
                json.insert(k.clone(), j);
            }
        }
        let payload = RecordBody::Object(ObjectRecord {
            id: object.id.clone(),
            attributes: json,
            sensitive_paths: sensitive,
        });
        let key = self.keys.instance(Namespace::Records, address);
        self.write_of(&key, address, Some(&payload)).await
    }

    /// Writes `address`'s `located` record when it differs from the one the run saw; gives its key and
    /// new version when written.
    pub(crate) async fn write_located(
        &self,
        address: &InstanceAddress,
        located: LocatedRecord,
    ) -> Result<Option<(String, Version)>, RecordError> {
        let key = self.keys.instance(Namespace::Located, address);
        let body = RecordBody::Located(located);
        if self.seen(&key) == Some(&body) {
            return Ok(None);
        }
        let version = self.put(&key, &address.to_string(), &body).await?;
        Ok(Some((key, version)))
    }

    /// Deletes every record of `address` in `namespaces`, in that order.
    pub(crate) async fn delete_instance(
        &self,
        address: &InstanceAddress,
        namespaces: &[Namespace],
    ) -> Result<(), RecordError> {
        for &ns in namespaces {
            self.delete(&self.keys.instance(ns, address)).await?;
        }
        Ok(())
    }

    /// Copies `record` (read at another instance's key) to `to_key` as `to`'s, where no record was seen: a
    /// payload this version cannot read is copied as it is.
    pub(crate) async fn copy_record(
        &self,
        record: &staterecord::Record,
        to_key: &str,
        to: &InstanceAddress,
    ) -> Result<(), RecordError> {
        // A digest key's record names its address inside, so it is written again for the new address.
        let payload = match RecordBody::from_payload(&record.payload) {
            Ok(body) => self.payload(to_key, &to.to_string(), &body),
            Err(_) => record.payload.clone(),
        };
        self.put_payload(to_key, &payload).await.map(|_| ())
    }
}

/// The `located` record of an object the tagging sweep cannot see (untaggable, or outside the tagging
/// index, like IAM roles and users): without it, the estate would never find the object again once its
/// address is no longer declared. `None` for a type the sweep sees. The identity is read from the object,
/// else from the desired values.
pub(crate) fn located_record(
    schema: &ResourceTypeSchema,
    object: &LiveObject,
    desired: &BTreeMap<String, Value>,
) -> Option<LocatedRecord> {
    if schema.taggable && schema.in_tagging_index {
        return None;
    }
    let identity = schema
        .identity_arguments()
        .iter()
        .filter_map(|a| {
            object
                .attribute_str(a)
                .or_else(|| desired.get(a).and_then(Value::as_str))
                .map(|v| (a.clone(), v.to_owned()))
        })
        .collect();
    Some(LocatedRecord {
        id: object.id.clone(),
        identity,
    })
}

/// Every record of a record set by key, with the version it was read at.
pub(crate) fn records_seen(
    keys: &RecordKeys,
    records: &projection::RecordSet,
) -> BTreeMap<String, (RecordBody, Version)> {
    let mut seen = Seen {
        keys,
        out: BTreeMap::new(),
    };
    seen.instances(&records.objects, Namespace::Records, RecordBody::Object);
    seen.instances(&records.residue, Namespace::Residue, RecordBody::Residue);
    seen.instances(&records.deposed, Namespace::Deposed, RecordBody::Deposed);
    seen.instances(&records.intents, Namespace::Intent, RecordBody::Intent);
    seen.instances(&records.located, Namespace::Located, RecordBody::Located);
    seen.add(&records.slots, |b| keys.slots(b), RecordBody::Slots);
    seen.add(&records.outputs, |n| keys.output(n), RecordBody::Output);
    if let Some(r) = &records.regions {
        seen.out.insert(
            keys.regions(),
            (RecordBody::Regions(r.body.clone()), r.version.clone()),
        );
    }
    seen.out
}

/// Records by key with the version each was read at, gathered one map of a record set at a time.
struct Seen<'a> {
    keys: &'a RecordKeys,
    out: BTreeMap<String, (RecordBody, Version)>,
}

impl Seen<'_> {
    /// The records of one per-instance namespace.
    fn instances<T: Clone>(
        &mut self,
        stored: &BTreeMap<InstanceAddress, projection::record::Stored<T>>,
        namespace: Namespace,
        wrap: fn(T) -> RecordBody,
    ) {
        let keys = self.keys;
        self.add(stored, |a| keys.instance(namespace, a), wrap);
    }

    fn add<K, T: Clone>(
        &mut self,
        stored: &BTreeMap<K, projection::record::Stored<T>>,
        key: impl Fn(&K) -> String,
        wrap: fn(T) -> RecordBody,
    ) {
        for (k, r) in stored {
            self.out
                .insert(key(k), (wrap(r.body.clone()), r.version.clone()));
        }
    }
}
