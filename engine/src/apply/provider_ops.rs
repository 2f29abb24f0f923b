//! The operations of an apply: create, update and delete through the provider (or, for a record-backed
//! type, through its record alone), each in its turn of the parallelism limit, with the records around
//! it: the create intent before a create, and the intent settled, `located` and residue records after.
//!
//! The create intent is written (compare-and-swap against the version the plan saw, so two applies of one
//! plan never create twice) before the provider call, and put back when the provider refuses. Throttled
//! calls are retried by the apply's one retrying decorator. A record write that fails after the provider
//! call did its work does not undo what the call did: the operation completes (its event and the summary
//! say so), and the write's failure is an error of its own, `record-write-failed`. This module never starts
//! a provider call after cancellation, and never aborts one in flight (a call waiting between its retries
//! is in flight).

use std::collections::BTreeMap;
use std::sync::PoisonError;

use admission::marker;
use admission::{Code, InstanceAddress, Value};
use execgraph::{Applied, Diagnostic as GraphDiagnostic};
use projection::record::{InstanceNamespace as Namespace, IntentState};
use provider::schema::{AttributeMode, DestroyMode, ResourceTypeSchema};
use provider::{AdmissionPath, LiveObject, ProviderError};
use provider::{Call, CreateRequest, Provider, TagChange, UpdateRequest};
use tokio::time::Instant;

use super::events::Op;
use super::turns::{Entry, not_started};
use super::{ApplyEventKind, Executor, gdiag, plan_again};
use crate::builtin::{self, entropy};
use crate::graph::{FinalKind, FinalPlan};
use crate::journal::{Lost, RecordError, located_record};
use crate::model::Action;

/// One operation under way: where it stands in the parallelism limit, and its events.
pub(super) struct Flight<'a> {
    exec: &'a Executor,
    entry: Entry<'a>,
    op: Op<'a>,
    /// The object's id the events name.
    id: Option<String>,
    /// Whether its `Started` event was reported.
    announced: bool,
    /// Its place in the order of provider calls, from its turn until it calls or gives up.
    ticket: Option<u64>,
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        // An operation that failed in its turn before calling lets the others call.
        self.give_up_place();
    }
}

impl Flight<'_> {
    /// Reports the start, once the operation holds its turn.
    fn announce(&mut self) {
        if !self.announced && matches!(self.entry, Entry::Turn { .. }) {
            self.ticket = Some(self.exec.turns.order.issue());
            self.op.started = Instant::now();
            self.exec
                .emit(ApplyEventKind::Started, &self.op, self.id.clone(), None);
            self.announced = true;
        }
    }

    /// Waits for the operation's turn and reports its start; the not-started diagnostic once the apply
    /// is cancelled.
    async fn take_turn(&mut self) -> Result<(), GraphDiagnostic> {
        if !self.exec.turns.take_turn(&mut self.entry).await {
            return Err(not_started(&self.op.change.address));
        }
        self.announce();
        Ok(())
    }

    /// Waits for the operations that took their turn before this one to call the provider.
    async fn in_order(&mut self) {
        if let Some(ticket) = self.ticket {
            self.exec.turns.order.wait(ticket).await;
            self.give_up_place();
        }
    }

    /// Lets the operations after this one call the provider.
    fn give_up_place(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            self.exec.turns.order.pass(ticket);
        }
    }

    /// Hands the turn on: the records after the call are written outside it.
    fn end_turn(&mut self) {
        self.give_up_place();
        if matches!(self.entry, Entry::Turn { .. }) {
            // A fresh place ahead is never waited for again: the operation already started.
            self.entry = Entry::Done;
        }
    }
}

impl Executor {
    fn schema_of(&self, address: &InstanceAddress) -> Result<&ResourceTypeSchema, GraphDiagnostic> {
        let type_name = address.type_name();
        self.schema(type_name).ok_or_else(|| {
            gdiag(
                Code::ApplyFailed,
                format!("{type_name} is not a known type"),
                "",
                address,
            )
        })
    }

    fn record_backed(&self, address: &InstanceAddress) -> bool {
        self.schema(address.type_name()).and_then(|s| s.admission) == Some(AdmissionPath::Record)
    }

    /// Applies one final plan: `fallback` is the old object of a create-before-destroy, current again
    /// when the create makes nothing.
    pub(super) async fn run(
        &self,
        plan: &FinalPlan,
        fallback: Option<&LiveObject>,
    ) -> Applied<LiveObject> {
        let c = &plan.change;
        if let Some(refused) = self.slot_refusal(plan) {
            // Nothing of the operation started: a slot it would give out is not safely recorded.
            return Applied::failed(vec![refused]);
        }
        let (action, id) = match plan.kind {
            FinalKind::Create => (FinalKind::Create, None),
            kind => (kind, plan.prior.as_ref().map(|o| o.id.clone())),
        };
        let prepares = plan.kind == FinalKind::Create && !self.record_backed(&plan.address);
        let Some(entry) = self.turns.enter(prepares).await else {
            return Applied::failed(vec![not_started(&plan.address)]);
        };
        let mut flight = Flight {
            exec: self,
            entry,
            op: Op {
                change: c,
                action,
                started: Instant::now(),
            },
            id: id.clone(),
            announced: false,
            ticket: None,
        };
        if let (FinalKind::Create, Some(old)) = (plan.kind, fallback) {
            // The create leg of a create-before-destroy: the old object is recorded as deposed here, as the
            // create starts, and not when the graph deposes it. A create that never starts (cancelled, or
            // skipped after a failure upstream) then leaves the old object current, where a record written
            // earlier would have had the next plan destroy it. Recorded before the new object exists, so a
            // crash in between leaves a deposed object the next plan deletes instead of a marker collision.
            if let Err(e) = self.journal.add_deposed(&plan.address, &old.id).await {
                // Nothing was created: the graph keeps the old object as the instance's.
                self.keep_current(&plan.address, old);
                return Applied::failed(vec![e.diagnostic(&plan.address)]);
            }
        }
        flight.announce();
        let result = match plan.kind {
            FinalKind::Create => self.create(plan, &mut flight).await.map(Some),
            FinalKind::Update => self.update(plan, &mut flight).await.map(Some),
            FinalKind::Delete => self.delete(plan, &mut flight).await.map(|()| None),
        };
        match result {
            Ok(object) => {
                let shown = object.as_ref().map(|o| o.id.clone()).or(id);
                self.emit(ApplyEventKind::Completed, &flight.op, shown, None);
                if plan.deposed.is_none()
                    && !(plan.kind == FinalKind::Delete && c.action == Action::Replace)
                {
                    self.results
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(plan.address.clone(), object.clone());
                }
                Applied::ok(object)
            }
            Err(d) => self.failed(plan, fallback, &mut flight, d).await,
        }
    }

    /// The outcome of an operation that failed with `d` (or never started, when cancelled first).
    async fn failed(
        &self,
        plan: &FinalPlan,
        fallback: Option<&LiveObject>,
        flight: &mut Flight<'_>,
        d: GraphDiagnostic,
    ) -> Applied<LiveObject> {
        flight.give_up_place();
        let cancelled = d.code == Code::Cancelled.as_str();
        if !cancelled || flight.announced {
            // A create that failed while preparing ahead of its turn is told as started and failed too.
            if !flight.announced {
                self.emit(ApplyEventKind::Started, &flight.op, flight.id.clone(), None);
            }
            self.emit(
                ApplyEventKind::Errored,
                &flight.op,
                flight.id.clone(),
                Some(d.summary.clone()),
            );
        }
        if let Some(old) = fallback {
            // The create of a create-before-destroy made nothing: the deposed object is current again
            // (the graph restores it as the instance's object when this returns none).
            self.keep_current(&plan.address, old);
            if let Err(e) = self.journal.remove_deposed(&plan.address, &old.id).await {
                return Applied::failed(vec![d, e.diagnostic(&plan.address)]);
            }
        }
        Applied::failed(vec![d])
    }

    /// Runs a provider call (of the retrying provider, so with its retries) in the operation's turn,
    /// reporting progress while it runs. The call starts only once the operations before it called.
    async fn call<T>(
        &self,
        flight: &mut Flight<'_>,
        call: impl std::future::Future<Output = Result<T, ProviderError>>,
    ) -> Result<T, ProviderError> {
        flight.in_order().await;
        let out = self.ticking(&flight.op, flight.id.clone(), call).await;
        flight.end_turn();
        out
    }

    async fn create(
        &self,
        fp: &FinalPlan,
        flight: &mut Flight<'_>,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let schema = self.schema_of(address)?;
        let no_desired = BTreeMap::new();
        let desired = fp.desired.as_ref().unwrap_or(&no_desired);
        if schema.admission == Some(AdmissionPath::Record) {
            let object = self.create_record_backed(fp, schema, desired).await;
            flight.end_turn();
            return object;
        }
        // The create intent, compare-and-swap against the version the plan saw: a second apply of the same
        // view, or an apply racing `liveplan adopt` or `mv` (which claim the address through the same
        // intent before they retag), loses here instead of creating a duplicate.
        let token = entropy::bytes16().map(|b| entropy::hex(&b)).map_err(|e| {
            gdiag(
                Code::ApplyFailed,
                format!(
                    "creating {address} failed: the operating system's random generator failed: {e}"
                ),
                "nothing was created; apply again",
                address,
            )
        })?;
        // The intent carries the slot: while no object does, it keeps the slot the instance's.
        let pending = self
            .journal
            .intent(IntentState::Pending, &token, None, fp.change.slot);
        self.journal
            .write_intent_body(address, pending)
            .await
            .map_err(|e| intent_lost(&e, address))?;
        if let Err(cancelled) = flight.take_turn().await {
            // Cancelled before its turn: nothing was created, so the intent goes back to what it was,
            // once the operations in flight have ended.
            let _idle = self.turns.idle().await;
            return Err(match self.revert_intent(address).await {
                Ok(()) => cancelled,
                Err(revert) => revert,
            });
        }
        let request = create_request(schema, address, desired);
        let provider = self.provider_in(&self.region_of(address));
        let created = self
            .call(flight, provider.create(&Call::unrecorded(), request))
            .await;
        let created = match created {
            Ok(o) => o,
            Err(e) => {
                let e = withheld_if_sensitive(e, desired);
                return Err(self.create_refused(address, &e).await);
            }
        };
        // The object exists from here on, whatever happens to its records.
        let done = self
            .journal
            .write_intent(address, IntentState::Done, &token, Some(&created.id))
            .await;
        self.record_after(address, "created", Lost::CreateIntent, done);
        self.after_create(fp, schema, desired, &created).await;
        Ok(created)
    }

    /// Keeps the failure of a record write made after `address`'s provider call did its work (`done`:
    /// "created", "updated", "destroyed") as an error of its own: the operation still completed.
    fn record_after<T>(
        &self,
        address: &InstanceAddress,
        done: &str,
        lost: Lost<'_>,
        written: Result<T, RecordError>,
    ) {
        if let Err(e) = written {
            self.record_failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e.after_call(address, done, lost));
        }
    }

    /// Puts `address`'s create intent back to what the plan saw, or to the slot hold its replace wrote
    /// before the delete (the old object is gone; the slot stays the instance's).
    async fn revert_intent(&self, address: &InstanceAddress) -> Result<(), GraphDiagnostic> {
        let key = self.journal.keys().instance(Namespace::Intent, address);
        let held = self
            .holds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(address)
            .cloned();
        let previous = held.or_else(|| self.journal.seen(&key).cloned());
        self.journal
            .write_of(&key, address, previous.as_ref())
            .await
            .map_err(|e| e.diagnostic(address))
    }

    /// The provider refused a create: nothing was created, so the intent goes back to what it was.
    async fn create_refused(
        &self,
        address: &InstanceAddress,
        e: &ProviderError,
    ) -> GraphDiagnostic {
        let mut failed = gdiag(
            Code::ApplyFailed,
            format!("creating {address} failed: {e}"),
            "the next plan proposes the create again; fix the cause first",
            address,
        );
        // The create's error is what the user must see; a failed revert is told with it.
        if let Err(revert) = self.revert_intent(address).await {
            failed.detail = format!(
                "the create intent stays pending, because putting it back failed too ({}); the next \
                 plan waits for it for {} seconds and then proposes the create \
                 again; fix the cause first",
                revert.summary,
                projection::INTENT_PATIENCE_SECS
            );
        }
        failed
    }

    /// The records a new object needs: located and residue (its slot was recorded before the apply
    /// started, `super::slots`). Each is written even when the other could not be: a failure is kept as
    /// its own error.
    async fn after_create(
        &self,
        fp: &FinalPlan,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        created: &LiveObject,
    ) {
        let address = &fp.address;
        if let Some(located) = located_record(schema, created, desired) {
            let key = self.journal.keys().instance(Namespace::Located, address);
            let body = projection::record::RecordBody::Located(located);
            let written = self.journal.write_of(&key, address, Some(&body)).await;
            self.record_after(address, "created", Lost::Located, written);
        }
        let written = self
            .journal
            .write_residue(address, schema, desired, created)
            .await;
        self.record_after(address, "created", Lost::Residue, written);
    }

    async fn create_record_backed(
        &self,
        fp: &FinalPlan,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let mut attributes: BTreeMap<String, Value> = desired
            .iter()
            .filter(|(k, v)| {
                schema
                    .attribute(k)
                    .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed))
                    && !v.is_unknown()
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let behaviour = builtin_of(address)?;
        let id = behaviour
            .create(address, &mut attributes)
            .map_err(|e| gdiag(Code::ApplyFailed, e.summary, e.detail, address))?;
        attributes.insert("id".to_owned(), Value::from(id.clone()));
        let object = LiveObject {
            type_name: address.type_name().to_owned(),
            id,
            region: self.ctx.region.clone(),
            attributes,
            tags: BTreeMap::new(),
        };
        self.journal
            .write_object(address, &object)
            .await
            .map_err(|e| e.diagnostic(address))?;
        Ok(object)
    }

    async fn update(
        &self,
        fp: &FinalPlan,
        flight: &mut Flight<'_>,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let schema = self.schema_of(address)?;
        let prior = fp
            .prior
            .clone()
            .ok_or_else(|| plan_again(address, "has no object to update"))?;
        let desired = fp.desired.clone().unwrap_or_default();
        if schema.admission == Some(AdmissionPath::Record) {
            let mut object = prior.clone();
            for (k, v) in &desired {
                if schema
                    .attribute(k)
                    .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed))
                    && !v.is_unknown()
                {
                    object.attributes.insert(k.clone(), v.clone());
                }
            }
            builtin_of(address)?.update(&mut object.attributes);
            let written = self.journal.write_object(address, &object).await;
            flight.end_turn();
            written.map_err(|e| e.diagnostic(address))?;
            return Ok(object);
        }
        let object = self
            .update_call(fp, schema, &desired, &prior, flight)
            .await?;
        let written = self
            .journal
            .write_residue(address, schema, &desired, &object)
            .await;
        self.record_after(address, "updated", Lost::Residue, written);
        let settled = self.journal.settle_intent(address, &object.id).await;
        self.record_after(address, "updated", Lost::SettledIntent, settled);
        Ok(object)
    }

    /// The provider update of the changed arguments and tags (none when nothing it holds changed).
    async fn update_call(
        &self,
        fp: &FinalPlan,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        prior: &LiveObject,
        flight: &mut Flight<'_>,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let mut attributes = BTreeMap::new();
        for name in &fp.change.changed {
            if name == "tags" || name == provider::schema::TAGS_ALL {
                continue;
            }
            if let Some(a) = schema.attribute(name)
                && !a.residue
                && let Some(v) = desired.get(name)
            {
                attributes.insert(name.clone(), v.clone());
            }
        }
        if attributes.is_empty() && fp.tag_change.is_empty() {
            flight.end_turn();
            return Ok(prior.clone());
        }
        let request = UpdateRequest {
            type_name: address.type_name().to_owned(),
            id: prior.id.clone(),
            attributes,
            tags: fp.tag_change.clone(),
        };
        let provider = self.provider_in(&prior.region);
        self.call(flight, provider.update(&Call::unrecorded(), request))
            .await
            .map_err(|e| {
                let e = withheld_if_sensitive(e, desired);
                gdiag(
                    Code::ApplyFailed,
                    format!("updating {address} failed: {e}"),
                    "the next plan proposes the update again; fix the cause first",
                    address,
                )
            })
    }

    async fn delete(&self, fp: &FinalPlan, flight: &mut Flight<'_>) -> Result<(), GraphDiagnostic> {
        let address = &fp.address;
        let prior = fp
            .prior
            .clone()
            .ok_or_else(|| plan_again(address, "has no object to delete"))?;
        if self.record_backed(address) {
            // The record is the object: deleting it is the operation.
            flight.end_turn();
            return self.delete_records(fp).await;
        } else {
            let held = self.hold_slot(fp, &prior).await?;
            let result = self.delete_call(fp, &prior, flight).await;
            match result {
                Ok(()) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => {
                    if held {
                        // The old object is still there and carries the slot: no hold is needed.
                        self.holds
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .remove(address);
                        self.revert_intent(address).await?;
                    }
                    return Err(gdiag(
                        Code::ApplyFailed,
                        format!("destroying {address} ({}) failed: {e}", prior.id),
                        "the next plan proposes the delete again; fix the cause first",
                        address,
                    ));
                }
            }
        }
        // The object is gone from here on, whatever happens to its records.
        if let Some(key) = &fp.deposed {
            let removed = self.journal.remove_deposed(address, key).await;
            self.record_after(address, "destroyed", Lost::Deposed(key), removed);
            return Ok(());
        }
        // The instance is gone: its records go with it, except while a replace's new object lives on.
        if fp.change.action == Action::Replace {
            return Ok(());
        }
        for ns in INSTANCE_RECORDS {
            let key = self.journal.keys().instance(ns, address);
            let deleted = self.journal.delete(&key).await;
            self.record_after(address, "destroyed", Lost::Destroyed, deleted);
        }
        Ok(())
    }

    /// The provider call that deletes `prior` as the change's destroy mode asks: a delete, a delete of
    /// what the object holds first, or a release that only takes this estate's markers off (the object
    /// stays; a deposed object is always deleted).
    async fn delete_call(
        &self,
        fp: &FinalPlan,
        prior: &LiveObject,
        flight: &mut Flight<'_>,
    ) -> Result<(), ProviderError> {
        let context = Call::unrecorded();
        let type_name = fp.address.type_name();
        let provider = self.provider_in(&prior.region);
        let mode = match fp.deposed {
            Some(_) => DestroyMode::Delete,
            None => fp.change.destroy,
        };
        match mode {
            DestroyMode::Delete => {
                let call = provider.delete(&context, type_name, &prior.id);
                self.call(flight, call).await
            }
            DestroyMode::DeleteWithContents => {
                let call = provider.delete_with_contents(&context, type_name, &prior.id);
                self.call(flight, call).await
            }
            DestroyMode::Release => {
                let change = TagChange {
                    set: BTreeMap::new(),
                    remove: prior
                        .tags
                        .keys()
                        .filter(|k| marker::is_marker_key(k))
                        .cloned()
                        .collect(),
                };
                let call = provider.update_tags(&context, type_name, &prior.id, change);
                self.call(flight, call).await
            }
        }
    }

    /// Before the delete of a destroy-before-create replace of a count member, holds its slot: the
    /// intent written `replacing` with the slot (compare-and-swap against the version the plan saw), so
    /// that the next plan keeps the slot for the instance if the create never happens, instead of
    /// binding every higher member one index down. Whether it wrote one.
    async fn hold_slot(&self, fp: &FinalPlan, prior: &LiveObject) -> Result<bool, GraphDiagnostic> {
        let c = &fp.change;
        let Some(slot) = c.slot else {
            return Ok(false);
        };
        if c.action != Action::Replace
            || fp.deposed.is_some()
            || c.replace_order == Some(crate::model::ReplaceOrder::CreateBeforeDestroy)
        {
            return Ok(false);
        }
        let hold = self
            .journal
            .intent(IntentState::Replacing, "", Some(&prior.id), Some(slot));
        self.journal
            .write_intent_body(&fp.address, hold.clone())
            .await
            .map_err(|e| e.diagnostic(&fp.address))?;
        self.holds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(fp.address.clone(), hold);
        Ok(true)
    }

    /// Deletes a record-backed instance: its records are its object, so a failure fails the delete.
    async fn delete_records(&self, fp: &FinalPlan) -> Result<(), GraphDiagnostic> {
        let address = &fp.address;
        let diag = |e: RecordError| e.diagnostic(address);
        if let Some(key) = &fp.deposed {
            return self
                .journal
                .remove_deposed(address, key)
                .await
                .map_err(diag);
        }
        if fp.change.action == Action::Replace {
            return Ok(());
        }
        self.journal
            .delete_instance(address, &INSTANCE_RECORDS)
            .await
            .map_err(diag)
    }

    /// Records `object` as `address`'s object after the apply: the old object of a create-before-destroy
    /// whose create made nothing, which stays current.
    pub(super) fn keep_current(&self, address: &InstanceAddress, object: &LiveObject) {
        self.results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(address.clone(), Some(object.clone()));
    }
}

/// The records of one instance that go with its object, in the order they are deleted.
const INSTANCE_RECORDS: [Namespace; 4] = [
    Namespace::Records,
    Namespace::Residue,
    Namespace::Located,
    Namespace::Intent,
];

/// The provider's error as the apply may show it: when the call's arguments hold a sensitive value (any
/// desired argument or tag marked), the API's own message is left out, since an API may quote an argument
/// back in any form (whole, escaped, or a fragment of a JSON document); the operation and the kind of
/// failure stay.
fn withheld_if_sensitive(e: ProviderError, desired: &BTreeMap<String, Value>) -> ProviderError {
    if e.message.is_empty() || !desired.values().any(Value::contains_sensitive) {
        return e;
    }
    ProviderError {
        message:
            "the provider's message is not shown, since the call's arguments hold a sensitive value"
                .to_owned(),
        ..e
    }
}

/// The diagnostic of a create intent that could not be written, so nothing was created: a lost
/// compare-and-swap means another run took the address since the plan read it.
fn intent_lost(e: &crate::journal::RecordError, address: &InstanceAddress) -> GraphDiagnostic {
    if !e.error.is_conflict() {
        return e.diagnostic(address);
    }
    gdiag(
        Code::VersionConflict,
        format!(
            "creating {address} was given up: its create intent changed since the plan read it"
        ),
        "another run took the address at the same time (an apply, or liveplan adopt or mv); nothing was \
         created: plan again to see what it did",
        address,
    )
}

/// The behaviour of `address`'s record-backed type.
fn builtin_of(address: &InstanceAddress) -> Result<&'static dyn builtin::Builtin, GraphDiagnostic> {
    builtin::behaviour(address.type_name()).ok_or_else(|| {
        gdiag(
            Code::ApplyFailed,
            format!(
                "{} is not a record-backed type this version serves",
                address.type_name()
            ),
            "",
            address,
        )
    })
}

/// The provider request creating `address`: the known, configured, non-residue arguments and the tags.
fn create_request(
    schema: &ResourceTypeSchema,
    address: &InstanceAddress,
    desired: &BTreeMap<String, Value>,
) -> CreateRequest {
    let mut attributes = desired.clone();
    let tags: BTreeMap<String, String> = match attributes.remove("tags").as_ref().map(Value::peel) {
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.peel()
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    attributes.retain(|k, v| {
        schema
            .attribute(k)
            .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed) && !a.residue)
            && !v.is_unknown()
    });
    CreateRequest {
        type_name: address.type_name().to_owned(),
        attributes,
        tags,
    }
}
