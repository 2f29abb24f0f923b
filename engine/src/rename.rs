//! The steps of `liveplan mv` that change something, once its checks allowed the rename: NEW claimed
//! (its create intent, as `claim` takes it), OLD's records copied to NEW, the object's address marker
//! rewritten, then OLD's records removed and the claim settled.
//!
//! Everything that can lose to another run happens before the tag changes, and is undone when it does:
//! a refusal up to there changed nothing. Once the object carries NEW, a failure is reported as what it
//! is, a rename done with a record left behind, and never as "nothing was changed" or a conflict to retry.

use admission::marker::{self, Estate, RenameRefusal};
use admission::{Code, Diagnostic, InstanceAddress};
use projection::record::InstanceNamespace as Namespace;
use provider::{Call, LiveObject, Provider};

use crate::adopt::OwnershipOutcome;
use crate::claim::{self, Taking};
use crate::journal::{Claim, RecordError, RecordJournal};

/// A rename every check allowed.
pub(crate) struct Rename<'a> {
    /// The address the object carries now.
    pub(crate) old: &'a InstanceAddress,
    /// The address it is to carry.
    pub(crate) new: &'a InstanceAddress,
    /// The object's id.
    pub(crate) id: &'a str,
    /// The live object to retag (none for a type without markers: its records are the object's).
    pub(crate) object: Option<&'a LiveObject>,
    /// Whether the type carries markers.
    pub(crate) taggable: bool,
    /// Whether the type lives only in its record (`random_id`): the record written at NEW claims it, since
    /// an apply writes it against the version its plan saw, and no create intent is involved.
    pub(crate) record_backed: bool,
}

/// A record copied to NEW, whose original at OLD goes once the object carries NEW.
struct Copied {
    from: String,
    to: String,
}

impl Rename<'_> {
    /// Runs the rename; the outcome's diagnostics are empty when it was done whole.
    pub(crate) async fn run(
        &self,
        journal: &RecordJournal,
        provider: &dyn Provider,
        estate: &Estate,
    ) -> OwnershipOutcome {
        let subject = self.old.to_string();
        let taking = Taking {
            address: self.new,
            object: self.id,
            taggable: self.taggable,
            code: Code::MvRefused,
            subject: &subject,
            taken: RenameRefusal::NewClaimed.to_string(),
        };
        let claim = if self.record_backed {
            None
        } else {
            match taking.take(journal, provider, estate).await {
                Ok(claim) => Some(claim),
                Err(refused) => return refused,
            }
        };
        let mut copied = Vec::new();
        if let Err(d) = self
            .copy_records(journal, claim.is_none(), &mut copied)
            .await
        {
            let outcome = OwnershipOutcome {
                id: None,
                diagnostics: vec![d.with_address(subject.clone())],
            };
            return self.undo(journal, &taking, claim, &copied, outcome).await;
        }
        if let Some(object) = self.object
            && let Err(outcome) = self.retag(provider, object).await
        {
            return self.undo(journal, &taking, claim, &copied, outcome).await;
        }
        // The object carries NEW from here on: the rename is done, whatever is left to tidy.
        let diagnostics = self.remove_old(journal, claim.is_some(), &copied).await;
        if let Some(claim) = claim {
            claim::settle(journal, claim, self.id).await;
        }
        OwnershipOutcome {
            id: Some(self.id.to_owned()),
            diagnostics,
        }
    }

    /// The namespaces whose records move. NEW's create intent is the claim, so OLD's is not copied over
    /// it (it goes with the rest of OLD's records), except for a record-backed type, which is not claimed.
    fn namespaces(with_intent: bool) -> Vec<Namespace> {
        let mut namespaces = vec![
            Namespace::Records,
            Namespace::Residue,
            Namespace::Deposed,
            Namespace::Located,
        ];
        if with_intent {
            namespaces.push(Namespace::Intent);
        }
        namespaces
    }

    /// Copies every record of OLD to NEW (written only where NEW has none), noting each in `copied`.
    async fn copy_records(
        &self,
        journal: &RecordJournal,
        with_intent: bool,
        copied: &mut Vec<Copied>,
    ) -> Result<(), Diagnostic> {
        for ns in Self::namespaces(with_intent) {
            let from = journal.keys().instance(ns, self.old);
            let to = journal.keys().instance(ns, self.new);
            let failed = |e: RecordError| copy_failed(&from, &to, &e);
            let Some(record) = journal.fetch(&from).await.map_err(failed)? else {
                continue;
            };
            journal
                .copy_record(&record, &to, self.new)
                .await
                .map_err(failed)?;
            copied.push(Copied { from, to });
        }
        Ok(())
    }

    /// Takes back what a rename refused after its claim wrote: the copies at NEW, then the claim.
    async fn undo(
        &self,
        journal: &RecordJournal,
        taking: &Taking<'_>,
        claim: Option<Claim>,
        copied: &[Copied],
        mut outcome: OwnershipOutcome,
    ) -> OwnershipOutcome {
        for c in copied {
            if let Err(e) = journal.delete(&c.to).await
                && let Some(first) = outcome.diagnostics.first_mut()
            {
                first.detail = format!(
                    "{}; but removing the copy {} failed ({}): remove it before the next apply",
                    first.detail, c.to, e.error
                );
            }
        }
        match claim {
            Some(claim) => taking.give_back(journal, claim, outcome).await,
            None => outcome,
        }
    }

    /// Rewrites the object's address marker from OLD to NEW (dropping its slot when it leaves its block).
    async fn retag(
        &self,
        provider: &dyn Provider,
        obj: &LiveObject,
    ) -> Result<(), OwnershipOutcome> {
        let refuse = |summary: String, detail: &str| {
            OwnershipOutcome::refused(Code::MvRefused, summary, detail, &self.old.to_string())
        };
        let nothing = "nothing was changed";
        let escaped =
            marker::escape_address(self.new).map_err(|e| refuse(e.to_string(), nothing))?;
        let mut change = marker::address_tag_change(&obj.tags, &escaped)
            .map_err(|e| refuse(e.to_string(), nothing))?;
        if self.old.block() != self.new.block() {
            change.remove.insert(marker::SLOT_TAG.to_owned());
        }
        provider
            .update_tags(&Call::unrecorded(), obj.type_name.as_str(), &obj.id, change)
            .await
            .map_err(|e| {
                refuse(
                    format!("retagging {} failed: {e}", obj.id),
                    "nothing was changed; retry",
                )
            })
    }

    /// Removes OLD's records now that their copies are NEW's (and OLD's create intent, when NEW was
    /// claimed); each failure is a diagnostic on NEW saying the rename is done.
    async fn remove_old(
        &self,
        journal: &RecordJournal,
        claimed: bool,
        copied: &[Copied],
    ) -> Vec<Diagnostic> {
        let mut keys: Vec<String> = copied.iter().map(|c| c.from.clone()).collect();
        let mut diagnostics = Vec::new();
        if claimed {
            let intent = journal.keys().instance(Namespace::Intent, self.old);
            match journal.fetch(&intent).await {
                Ok(Some(_)) => keys.push(intent),
                Ok(None) => {}
                Err(e) => diagnostics.push(self.left_behind(&e)),
            }
        }
        for key in keys {
            if let Err(e) = journal.delete(&key).await {
                diagnostics.push(self.left_behind(&e));
            }
        }
        diagnostics
    }

    /// The diagnostic of OLD's record that could not be removed once the object carried NEW.
    fn left_behind(&self, e: &RecordError) -> Diagnostic {
        Diagnostic::new(
            Code::MvRefused,
            format!(
                "{} now carries {}, but removing the record {} failed: {}",
                self.id, self.new, e.key, e.error
            ),
            "the rename is done: do not run it again. The record may still name the object at the old \
             address: remove it (liveplan records lists it) and read the next plan before applying it",
        )
        .with_address(self.new.to_string())
    }
}

/// The diagnostic of a record that could not be copied to NEW (nothing was changed yet): `kms-denied`,
/// `version-conflict` for a lost compare-and-swap, else `mv-refused`.
fn copy_failed(from: &str, to: &str, e: &RecordError) -> Diagnostic {
    if let Some(d) = crate::error::kms_denied(&e.error) {
        return d;
    }
    let summary = format!("moving the record {from} to {to} failed: {}", e.error);
    if e.error.is_conflict() {
        Diagnostic::new(
            Code::VersionConflict,
            summary,
            "another run changed the records at the same time; nothing was changed: check `liveplan \
             records` and retry",
        )
    } else {
        Diagnostic::new(
            Code::MvRefused,
            summary,
            "check the record store and retry; nothing was changed",
        )
    }
}
