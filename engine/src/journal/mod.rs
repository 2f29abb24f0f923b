//! The one writer of an estate's records during `apply`, `adopt` and `mv`: every put and delete is a
//! compare-and-swap against the version last seen or written, kept here per key. The create intent of an
//! address is also how `adopt` and `mv` claim it before they change a tag (`claims.rs`).
//!
//! Writes of different keys overlap: no lock of this module is held across a store call but the turn of
//! the one key the call is about, so two records are written in parallel while two writes of one record
//! (the deposed set of an address, the slot high-water mark of a block) stay one at a time. This module
//! never writes a record without naming the version it replaces (`None`: none exists), and never retries
//! a lost compare-and-swap but the raise of a slot high-water mark, which only goes up (`slots.rs`): the
//! caller reports it.

mod claims;
mod records;
mod regions;
mod slots;
mod turns;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use admission::{Code, InstanceAddress};
use execgraph::Diagnostic as GraphDiagnostic;
use projection::record::{RecordBody, RecordKeys};
use provider::Lineage;
use staterecord::{Record, Store, StoreError, Version};

pub(crate) use claims::{Claim, ClaimRefusal};
pub(crate) use records::{located_record, records_seen};

use turns::KeyTurns;

/// A store call that failed, with the key it was about.
#[derive(Debug)]
pub(crate) struct RecordError {
    /// The record's key.
    pub key: String,
    /// What the store said.
    pub error: StoreError,
}

impl RecordError {
    /// The apply diagnostic of the failure on `address`: `kms-denied`, `version-conflict` for a lost
    /// compare-and-swap, else `apply-failed`.
    pub(crate) fn diagnostic(&self, address: &InstanceAddress) -> GraphDiagnostic {
        let (code, summary, detail) = if let Some(d) = crate::error::kms_denied(&self.error) {
            (d.code, d.summary, d.detail)
        } else if self.error.as_conflict().is_some() {
            (
                Code::VersionConflict,
                format!("the record {} changed since the plan read it", self.key),
                "another apply of this estate ran at the same time; plan again to see what it did"
                    .to_owned(),
            )
        } else {
            (
                Code::ApplyFailed,
                format!("writing the record {} failed: {}", self.key, self.error),
                "check the record store and plan again".to_owned(),
            )
        };
        GraphDiagnostic::error(code.as_str(), summary, detail).with_address(address)
    }

    /// The error of a record write after the provider call on `address` did its work (`done`: "created",
    /// "updated", "destroyed"): `record-write-failed`, apart from the operation, which succeeded. It names
    /// the key, the store's error and what the next plan does without the record.
    pub(crate) fn after_call(
        &self,
        address: &InstanceAddress,
        done: &str,
        lost: Lost<'_>,
    ) -> GraphDiagnostic {
        GraphDiagnostic::error(
            Code::RecordWriteFailed.as_str(),
            format!(
                "{address} was {done}, but its record {} could not be updated: {}",
                self.key, self.error
            ),
            format!(
                "{} Fix the record store before the next apply.",
                lost.consequence(address)
            ),
        )
        .with_address(address)
    }
}

/// A record the apply could not write after its provider call had done its work: what the next plan
/// does without it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lost<'a> {
    /// The intent of a create the provider made stays `pending`.
    CreateIntent,
    /// The `pending` intent of an interrupted create whose object was found and updated stays so.
    SettledIntent,
    /// The `located` record of an object the tagging sweep does not see.
    Located,
    /// The residue: the values the live system does not return.
    Residue,
    /// The deposed record, which should no longer name this object.
    Deposed(&'a str),
    /// The records of a destroyed instance.
    Destroyed,
}

impl Lost<'_> {
    /// What the next plan does without the record.
    fn consequence(self, address: &InstanceAddress) -> String {
        match self {
            Lost::CreateIntent => "The object exists, and its create intent stays pending: the next plan \
                finds the object by its markers, binds it and warns `interrupted-create`, and the next \
                apply marks the intent done."
                .to_owned(),
            Lost::SettledIntent => "The intent of the interrupted create stays pending: the next plan \
                binds the object as usual, and the next apply marks the intent done."
                .to_owned(),
            Lost::Located => format!(
                "What is lost: the tagging sweep does not see this object, and nothing but this record \
                 finds it once {address} is no longer declared. While {address} is declared, plans still \
                 find it; removed from the configuration, it would be left behind instead of destroyed."
            ),
            Lost::Residue => format!(
                "What is lost: the values the live system does not return. The next plan has nothing to \
                 compare them with and proposes to set them on {address} again."
            ),
            Lost::Deposed(id) => format!(
                "The deposed record still names {id}: the next plan finds it gone, and the next apply \
                 removes it from the record."
            ),
            Lost::Destroyed => "The record stays behind and names an object that no longer exists: \
                plans find nothing there and propose nothing for it."
                .to_owned(),
        }
    }
}

/// An estate's records as one run reads and writes them.
pub(crate) struct RecordJournal {
    store: Arc<dyn Store>,
    keys: RecordKeys,
    /// Every record as the run first saw it, by key (for a plan's apply: as the plan saw it).
    seen: BTreeMap<String, (RecordBody, Version)>,
    /// The version of every record as last seen or written: the compare side of every write. Locked only
    /// between store calls, never across one.
    versions: Mutex<HashMap<String, Option<Version>>>,
    /// One writer at a time per key.
    turns: KeyTurns,
    /// Where the time of an intent is read.
    clock: Arc<dyn crate::Clock>,
    /// The live system every record written names (none: as before lineages existed).
    lineage: Option<Lineage>,
}

impl RecordJournal {
    /// A journal writing to `store` (read past any cache), starting from the records `seen`, every record
    /// it writes naming `lineage` (the live system as it names itself now, not as a plan saw it: a
    /// simulated cloud's file may have been given its id since).
    pub(crate) fn new(
        store: &Arc<dyn Store>,
        keys: RecordKeys,
        seen: BTreeMap<String, (RecordBody, Version)>,
        lineage: Option<Lineage>,
    ) -> RecordJournal {
        let versions = seen
            .iter()
            .map(|(k, (_, v))| (k.clone(), Some(v.clone())))
            .collect();
        RecordJournal {
            store: staterecord::fresh(store),
            keys,
            seen,
            versions: Mutex::new(versions),
            turns: KeyTurns::default(),
            clock: Arc::new(crate::SystemClock),
            lineage,
        }
    }

    /// The same journal reading the time it writes into intents from `clock`.
    pub(crate) fn with_clock(self, clock: Arc<dyn crate::Clock>) -> RecordJournal {
        RecordJournal { clock, ..self }
    }

    /// Takes from the records a plan read what its writes need beyond the records themselves: the
    /// version of each record it could not read (a write of one of these keys replaces the unreadable
    /// bytes with compare-and-swap against that version).
    pub(crate) fn with_records_of(self, records: &projection::RecordSet) -> RecordJournal {
        {
            let mut versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
            for (key, version) in &records.unreadable {
                versions
                    .entry(key.clone())
                    .or_insert_with(|| Some(version.clone()));
            }
        }
        self
    }

    /// The estate's record keys.
    pub(crate) fn keys(&self) -> &RecordKeys {
        &self.keys
    }

    /// The payload of `body` as the record of `subject` at `key`, naming the journal's live system.
    pub(crate) fn payload(&self, key: &str, subject: &str, body: &RecordBody) -> Vec<u8> {
        body.to_payload_for(key, subject, self.lineage.as_ref())
    }

    /// The record at `key` as the run first saw it.
    pub(crate) fn seen(&self, key: &str) -> Option<&RecordBody> {
        self.seen.get(key).map(|(b, _)| b)
    }

    fn version(&self, key: &str) -> Option<Version> {
        self.versions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
            .flatten()
    }

    fn remember(&self, key: &str, version: Option<Version>) {
        self.versions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), version);
    }

    /// Writes `body` as the record of `subject` (the text `key` was made from: an instance address, a count
    /// block's address, an output's name), or with `None` deletes it, against the version last seen.
    pub(crate) async fn write(
        &self,
        key: &str,
        subject: &str,
        body: Option<&RecordBody>,
    ) -> Result<(), RecordError> {
        let _turn = self.turns.take(key).await;
        match body {
            Some(b) => self
                .put_payload_now(key, &self.payload(key, subject, b))
                .await
                .map(|_| ()),
            None => self.delete_now(key).await,
        }
    }

    /// Writes `body` as `address`'s record at `key` (or deletes it), against the version last seen.
    pub(crate) async fn write_of(
        &self,
        key: &str,
        address: &InstanceAddress,
        body: Option<&RecordBody>,
    ) -> Result<(), RecordError> {
        self.write(key, &address.to_string(), body).await
    }

    /// Writes `body` as the record of `subject` against the version last seen, and gives the new version.
    pub(crate) async fn put(
        &self,
        key: &str,
        subject: &str,
        body: &RecordBody,
    ) -> Result<Version, RecordError> {
        let _turn = self.turns.take(key).await;
        self.put_payload_now(key, &self.payload(key, subject, body))
            .await
    }

    /// Writes `payload` as it is (a record this version may not read) against the version last seen.
    pub(crate) async fn put_payload(
        &self,
        key: &str,
        payload: &[u8],
    ) -> Result<Version, RecordError> {
        let _turn = self.turns.take(key).await;
        self.put_payload_now(key, payload).await
    }

    /// Deletes the record at `key` against the version last seen; nothing to do when none was seen.
    pub(crate) async fn delete(&self, key: &str) -> Result<(), RecordError> {
        let _turn = self.turns.take(key).await;
        self.delete_now(key).await
    }

    /// Reads the record at `key` past every cache, remembering its version.
    pub(crate) async fn fetch(&self, key: &str) -> Result<Option<Record>, RecordError> {
        let _turn = self.turns.take(key).await;
        self.fetch_now(key).await
    }

    /// Reads and decodes the record at `key` past every cache, remembering its version (`None` also for
    /// a payload this version cannot read).
    pub(crate) async fn read(&self, key: &str) -> Result<Option<RecordBody>, RecordError> {
        let _turn = self.turns.take(key).await;
        self.read_now(key).await
    }

    /// The put of `payload` at `key`, with the key's turn already held.
    async fn put_payload_now(&self, key: &str, payload: &[u8]) -> Result<Version, RecordError> {
        let expected = self.version(key);
        match self
            .store
            .put_if_version(key, payload, expected.as_ref())
            .await
        {
            Ok(v) => {
                self.remember(key, Some(v.clone()));
                Ok(v)
            }
            Err(error) => Err(RecordError {
                key: key.to_owned(),
                error,
            }),
        }
    }

    /// The delete of `key`, with the key's turn already held.
    async fn delete_now(&self, key: &str) -> Result<(), RecordError> {
        let Some(expected) = self.version(key) else {
            return Ok(());
        };
        match self.store.delete(key, Some(&expected)).await {
            Ok(()) => {
                self.remember(key, None);
                Ok(())
            }
            Err(error) => Err(RecordError {
                key: key.to_owned(),
                error,
            }),
        }
    }

    /// The read of `key`, with the key's turn already held.
    async fn fetch_now(&self, key: &str) -> Result<Option<Record>, RecordError> {
        let got = self.store.get(key).await.map_err(|error| RecordError {
            key: key.to_owned(),
            error,
        })?;
        self.remember(key, got.as_ref().map(|r| r.version.clone()));
        Ok(got)
    }

    /// The decoded read of `key`, with the key's turn already held.
    async fn read_now(&self, key: &str) -> Result<Option<RecordBody>, RecordError> {
        Ok(self
            .fetch_now(key)
            .await?
            .and_then(|r| RecordBody::from_payload(&r.payload).ok()))
    }
}
