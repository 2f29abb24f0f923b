//! How `adopt` and `mv` take an address before they change a tag: the address's create intent claimed in
//! the record store (the journal's compare-and-swap, as an apply writes it before a create), then a fresh
//! look that nothing else took the address before the claim, and the claim settled or put back after.
//!
//! A check of the live system alone cannot keep an apply from creating the address between the check and
//! the tag change; the intent can, since the apply writes it against the version its plan saw before it
//! creates. This module refuses while a create of the address is pending, never changes a tag itself,
//! and leaves the address as it found it when it refuses.

use admission::marker::{self, Estate};
use admission::{Code, InstanceAddress};
use projection::record::InstanceNamespace as Namespace;
use projection::{Binding, INTENT_PATIENCE_SECS, Projection, Withheld};
use provider::{Call, Provider};

use crate::adopt::{OwnershipOutcome, marked};
use crate::builtin::entropy;
use crate::journal::{Claim, ClaimRefusal, RecordError, RecordJournal};
use crate::render::utc_time;

/// The address to take, for which object, and how a refusal is worded.
pub(crate) struct Taking<'a> {
    /// The address.
    pub(crate) address: &'a InstanceAddress,
    /// The id of the object that is to carry it (never counted as having taken it).
    pub(crate) object: &'a str,
    /// Whether the type carries markers (else its objects are ours through their records).
    pub(crate) taggable: bool,
    /// `adopt-refused` or `mv-refused`.
    pub(crate) code: Code,
    /// The address the diagnostics name (the one the user typed).
    pub(crate) subject: &'a str,
    /// The summary of the refusal when another object already carries the address.
    pub(crate) taken: String,
}

impl Taking<'_> {
    fn refused(&self, summary: String, detail: &str) -> OwnershipOutcome {
        OwnershipOutcome::refused(self.code, summary, detail, self.subject)
    }

    /// Claims the address, then checks that no other object of this estate took it before the claim: an
    /// apply's object (created with the markers in the call), or a `located` or object record. The claim
    /// is put back when anything refuses.
    pub(crate) async fn take(
        &self,
        journal: &RecordJournal,
        provider: &dyn Provider,
        estate: &Estate,
    ) -> Result<Claim, OwnershipOutcome> {
        let token = entropy::bytes16().map(|b| entropy::hex(&b)).map_err(|e| {
            self.refused(
                format!("the operating system's random generator failed: {e}"),
                "retry; nothing was changed",
            )
        })?;
        let claim = match journal.claim(self.address, &token).await {
            Ok(Ok(claim)) => claim,
            Ok(Err(refusal)) => return Err(self.claim_refused(&refusal)),
            Err(e) => return Err(self.store_failed(&e)),
        };
        match self.taken_by(journal, provider, estate, &claim).await {
            Ok(None) => Ok(claim),
            Ok(Some(id)) => {
                let outcome = self.refused(
                    self.taken.clone(),
                    &format!("{id} carries it; nothing was changed"),
                );
                Err(self.give_back(journal, claim, outcome).await)
            }
            Err(summary) => {
                let outcome = self.refused(summary, "retry later; nothing was changed");
                Err(self.give_back(journal, claim, outcome).await)
            }
        }
    }

    /// The id of an object other than the one to tag that this estate holds at the address; `Err` with
    /// the summary of a failed look.
    async fn taken_by(
        &self,
        journal: &RecordJournal,
        provider: &dyn Provider,
        estate: &Estate,
        claim: &Claim,
    ) -> Result<Option<String>, String> {
        let type_name = self.address.type_name();
        let unreadable = |e: &dyn std::fmt::Display| format!("could not read the live system: {e}");
        if !self.taggable {
            for ns in [Namespace::Located, Namespace::Records] {
                let key = journal.keys().instance(ns, self.address);
                let found = journal
                    .fetch(&key)
                    .await
                    .map_err(|e| format!("reading the record {} failed: {}", e.key, e.error))?;
                if found.is_some() {
                    return Ok(Some(format!("the record {key}")));
                }
            }
            return Ok(None);
        }
        let escaped = marker::escape_address(self.address).map_err(|e| e.to_string())?;
        // The object an earlier create recorded, read by its id: a listing may lag behind a create.
        if let Some(id) = claim.replaced_id().filter(|id| *id != self.object) {
            let object = provider
                .read_by_id(&Call::unrecorded(), type_name, id)
                .await
                .map_err(|e| unreadable(&e))?;
            let carries = object.is_some_and(|o| {
                o.tag(marker::ESTATE_TAG) == Some(estate.as_str())
                    && marker::read_address(&o.tags).ok().flatten().as_deref()
                        == Some(escaped.as_str())
            });
            if carries {
                return Ok(Some(id.to_owned()));
            }
        }
        let carriers = marked(provider, estate, type_name, &escaped)
            .await
            .map_err(|e| unreadable(&e))?;
        Ok(carriers
            .into_iter()
            .find(|o| o.id != self.object)
            .map(|o| o.id))
    }

    fn claim_refused(&self, refusal: &ClaimRefusal) -> OwnershipOutcome {
        match refusal {
            ClaimRefusal::Pending { since } => {
                pending(self.code, self.subject, self.address, *since)
            }
            ClaimRefusal::Lost => self.refused(
                format!(
                    "another run wrote the create intent of {} at the same time",
                    self.address
                ),
                "an apply may be creating it: plan again to see what it did, then retry; nothing was changed",
            ),
        }
    }

    fn store_failed(&self, e: &RecordError) -> OwnershipOutcome {
        match crate::error::kms_denied(&e.error) {
            Some(d) => OwnershipOutcome {
                id: None,
                diagnostics: vec![d.with_address(self.subject)],
            },
            None => self.refused(
                format!("writing the record {} failed: {}", e.key, e.error),
                "check the record store and retry; nothing was changed",
            ),
        }
    }

    /// Puts the claim back and gives `outcome`, which says nothing was changed; when putting it back
    /// fails, the outcome says what stays behind.
    pub(crate) async fn give_back(
        &self,
        journal: &RecordJournal,
        claim: Claim,
        mut outcome: OwnershipOutcome,
    ) -> OwnershipOutcome {
        if let Err(e) = journal.release_claim(claim).await
            && let Some(first) = outcome.diagnostics.first_mut()
        {
            first.detail = format!(
                "{}; but putting back the create intent {} failed ({}): until it is older than {} seconds, \
                 plans withhold the create of {}",
                first.detail, e.key, e.error, INTENT_PATIENCE_SECS, self.address
            );
        }
        outcome
    }
}

/// The refusal of `address` while an apply is creating it: its create intent is `pending` since `since`
/// (seconds since the Unix epoch), younger than its patience.
fn pending(code: Code, subject: &str, address: &InstanceAddress, since: u64) -> OwnershipOutcome {
    OwnershipOutcome::refused(
        code,
        format!(
            "an apply is creating {address}: its create intent is pending since {}",
            utc_time(since)
        ),
        &format!(
            "wait for that apply to end, then plan again: if it created {address}, taking the address now \
             would leave two objects claiming it; if no apply is running (one was cut off), the intent may \
             be retried after {}; nothing was changed",
            utc_time(since.saturating_add(INTENT_PATIENCE_SECS))
        ),
        subject,
    )
}

/// The refusal of an address a projection withholds for a young `pending` create intent, if it does: an
/// apply is creating it, and the projection offers nothing to adopt for it meanwhile.
pub(crate) fn pending_in(
    projected: &Projection,
    address: &InstanceAddress,
    code: Code,
    subject: &str,
) -> Option<OwnershipOutcome> {
    match projected.instance(address).map(|s| &s.binding) {
        Some(Binding::Withheld(Withheld::CreateInProgress { retry_after })) => Some(pending(
            code,
            subject,
            address,
            retry_after.saturating_sub(INTENT_PATIENCE_SECS),
        )),
        _ => None,
    }
}

/// Marks the claim done for `id`, the object that now carries the address. A failure is only logged: the
/// intent stays `pending` with the object live, which a plan binds as usual and the next apply marks done.
pub(crate) async fn settle(journal: &RecordJournal, claim: Claim, id: &str) {
    if let Err(e) = journal.settle_claim(claim, id).await {
        tracing::warn!(key = %e.key, error = %e.error, "the create intent of a claimed address stays pending");
    }
}
