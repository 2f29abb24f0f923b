//! The `Operations` trait: the side of execution the graph delegates to (evaluator, provider, records).
//!
//! The graph decides when each operation runs and with which operands; the operations decide what it does.
//! The graph never calls them while compiling, and calls each at most once per operation node while executing.
//! This module must never know how an operation is carried out.

use async_trait::async_trait;

use crate::{Diagnostic, Family, ValueSource};

/// What a non-apply operation returns: its result, or the diagnostics saying why it failed. An empty
/// diagnostics list is a silent failure, for a failure already reported elsewhere (an upstream evaluation
/// error, for instance).
pub type OpResult<T> = Result<T, Vec<Diagnostic>>;

/// What applying a final plan returned: the object that now exists (if any) and the diagnostics. The apply
/// failed if any diagnostic is an error; an object may come back even then (a partly created object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied<O> {
    /// The object after the apply: `None` after a delete, or when a create made nothing.
    pub object: Option<O>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl<O> Applied<O> {
    /// A successful apply that leaves `object` (or no object, for a delete).
    pub fn ok(object: Option<O>) -> Self {
        Applied {
            object,
            diagnostics: Vec::new(),
        }
    }

    /// A failed apply with the given diagnostics and no object.
    pub fn failed(diagnostics: Vec<Diagnostic>) -> Self {
        Applied {
            object: None,
            diagnostics,
        }
    }
}

/// The work behind each non-intrinsic opcode. Object operands are `Option` because a reference to an
/// object may resolve to nil (an instance with no prior object, a delete's result).
///
/// Every call's future is polled by the task running [`CompiledGraph::execute`](crate::CompiledGraph::execute),
/// so calls overlap while they wait on I/O or timers; a call with heavy CPU work should move it off that task
/// itself (for instance with `tokio::task::spawn_blocking`), and no call may block the thread.
#[async_trait]
pub trait Operations<F: Family>: Send + Sync {
    /// Reads the prior object at `addr`, `None` if there is none.
    async fn resource_instance_prior(&self, addr: &F::Addr) -> OpResult<Option<F::Object>>;

    /// Builds the metadata of the current object at `addr` from the configuration and `prior`.
    async fn resource_instance_current_meta(
        &self,
        addr: &F::Addr,
        prior: Option<&F::Object>,
    ) -> OpResult<F::Meta>;

    /// Evaluates the desired state of the instance `meta` describes. `values` gives the final values of the
    /// instances the configuration refers to, waiting for them; on a value marked
    /// [`Unavailable::EvaluationError`](crate::Unavailable::EvaluationError) the evaluation should fail
    /// silently (an empty error list), since the failure was reported where it happened.
    async fn resource_instance_desired(
        &self,
        meta: &F::Meta,
        values: &ValueSource<F>,
    ) -> OpResult<F::Desired>;

    /// Decides the final plan: nil `desired` deletes, nil `prior` creates, both set update in place.
    async fn managed_final_plan(
        &self,
        meta: &F::Meta,
        desired: Option<&F::Desired>,
        prior: Option<&F::Object>,
        planned: Option<&F::Value>,
    ) -> OpResult<F::FinalPlan>;

    /// Applies a final plan. `fallback` is the deposed object on the create leg of a create-before-destroy
    /// replace: when the create makes no object, the operations must record `fallback` as current again and
    /// return no object (the graph then treats `fallback` as the instance's object and skips the destroy of
    /// the deposed object).
    async fn managed_apply(
        &self,
        plan: &F::FinalPlan,
        fallback: Option<&F::Object>,
    ) -> Applied<F::Object>;

    /// Deposes `current` under the key the plan carries; returns the deposed object. Operations may record
    /// the depose here or when the create leg starts (its `managed_apply` gets the object as `fallback`):
    /// recorded with the create, a create that never starts (cancelled, or skipped after a failure upstream)
    /// leaves nothing deposed.
    async fn managed_perform_depose(
        &self,
        current: Option<&F::Object>,
        delete_plan: &F::FinalPlan,
    ) -> OpResult<F::Object>;

    /// Builds the metadata of the object deposed under `key` at `addr`.
    async fn managed_deposed_meta(
        &self,
        addr: &F::Addr,
        key: &F::DeposedKey,
        prior: Option<&F::Object>,
    ) -> OpResult<F::Meta>;

    /// Reads the object an earlier apply deposed under `key` at `addr`.
    async fn managed_already_deposed(
        &self,
        addr: &F::Addr,
        key: &F::DeposedKey,
    ) -> OpResult<F::Object>;

    /// Moves `current` to `new_addr`; returns the object at its new address.
    async fn managed_change_addr(
        &self,
        current: Option<&F::Object>,
        new_addr: &F::Addr,
    ) -> OpResult<F::Object>;

    /// Reads a data source.
    async fn data_read(
        &self,
        meta: &F::Meta,
        desired: Option<&F::Desired>,
        planned: Option<&F::Value>,
    ) -> OpResult<F::Object>;
}
