//! The claim of an address by `adopt` and `mv`: the address's create intent written `pending` with
//! compare-and-swap before either changes a tag (the apply's own create-intent protocol), marked `done`
//! once the object carries the address, and put back when it never does.
//!
//! The intent key is where an apply and an ownership operation meet: an apply writes it against the
//! version its plan saw before it creates, so a claim made since makes that create lose its
//! compare-and-swap instead of making a second object, and a claim finds the pending intent of a create
//! under way. A claim never writes over a young pending intent, and never retries a lost write.

use projection::INTENT_PATIENCE_SECS;
use projection::record::{InstanceNamespace as Namespace, IntentState, RecordBody};

use admission::InstanceAddress;

use super::{RecordError, RecordJournal};

/// An address claimed by this run: its create intent is `pending` under this run's token.
#[derive(Debug)]
pub(crate) struct Claim {
    address: InstanceAddress,
    token: String,
    /// The payload the claim wrote over (`None`: there was no intent), put back on release.
    previous: Option<Vec<u8>>,
    /// The id a `done` intent written over named: the object an earlier create made for the address.
    replaced_id: Option<String>,
}

impl Claim {
    /// The id the `done` intent the claim wrote over named, if it named one.
    pub(crate) fn replaced_id(&self) -> Option<&str> {
        self.replaced_id.as_deref()
    }
}

/// Why an address could not be claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClaimRefusal {
    /// A young `pending` create intent: an apply may be creating the address right now.
    Pending {
        /// When the intent was written, in seconds since the Unix epoch.
        since: u64,
    },
    /// Another run wrote the intent between this run's read and its write.
    Lost,
}

impl RecordJournal {
    /// Claims `address` under `token`: reads its create intent past every cache and, unless it is a young
    /// `pending` one, writes a `pending` intent over it against the version read.
    pub(crate) async fn claim(
        &self,
        address: &InstanceAddress,
        token: &str,
    ) -> Result<Result<Claim, ClaimRefusal>, RecordError> {
        let key = self.keys.instance(Namespace::Intent, address);
        let _turn = self.turns.take(&key).await;
        let previous = self.fetch_now(&key).await?.map(|r| r.payload);
        let intent = match previous.as_deref().map(RecordBody::from_payload) {
            Some(Ok(RecordBody::Intent(intent))) => Some(intent),
            _ => None,
        };
        let now = self.clock.unix_secs();
        if let Some(i) = &intent
            && i.state == IntentState::Pending
            && now.saturating_sub(i.time) < INTENT_PATIENCE_SECS
        {
            return Ok(Err(ClaimRefusal::Pending { since: i.time }));
        }
        let body = RecordBody::Intent(projection::record::IntentRecord {
            state: IntentState::Pending,
            client_token: token.to_owned(),
            time: now,
            id: None,
            slot: None,
        });
        let payload = self.payload(&key, &address.to_string(), &body);
        match self.put_payload_now(&key, &payload).await {
            Ok(_) => Ok(Ok(Claim {
                address: address.clone(),
                token: token.to_owned(),
                previous,
                replaced_id: intent
                    .filter(|i| i.state == IntentState::Done)
                    .and_then(|i| i.id),
            })),
            Err(e) if e.error.is_conflict() => Ok(Err(ClaimRefusal::Lost)),
            Err(e) => Err(e),
        }
    }

    /// Marks the claim's intent `done` with the id of the object that now carries the address: an apply
    /// that planned to create the address before the claim still loses its compare-and-swap on it.
    pub(crate) async fn settle_claim(&self, claim: Claim, id: &str) -> Result<(), RecordError> {
        self.write_intent(&claim.address, IntentState::Done, &claim.token, Some(id))
            .await
    }

    /// Puts back the intent the claim wrote over (or deletes the claim's, when there was none), against
    /// the claim's version: the address is as it was before the claim.
    pub(crate) async fn release_claim(&self, claim: Claim) -> Result<(), RecordError> {
        let key = self.keys.instance(Namespace::Intent, &claim.address);
        match &claim.previous {
            Some(payload) => self.put_payload(&key, payload).await.map(|_| ()),
            None => self.delete(&key).await,
        }
    }
}
