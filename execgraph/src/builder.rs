//! The builder: records constants, operations and waiters, then seals them into an immutable [`Graph`].
//!
//! Building is pure bookkeeping in tables; nothing runs here. The builder must never hand out a reference to
//! a node that does not exist yet, so operations can only point backwards; the one way to point forwards is
//! a mutable waiter, which is why [`Builder::finish`] checks for cycles.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::graph::{GraphData, OpNode};
use crate::refs::{MAX_TABLE_LEN, RawRef, Target, kind};
use crate::{
    AnyResultRef, Family, Graph, GraphError, OpCode, ResourceInstanceResultRef, ResultRef,
    WaiterHandle,
};

/// Records the nodes of an execution graph. [`Builder::finish`] consumes it and returns the immutable graph.
///
/// Every table holds at most 2^29 - 1 entries; adding more is a caller bug and panics, as a `Vec` does when
/// its capacity overflows.
pub struct Builder<F: Family> {
    values: Vec<Arc<F::Value>>,
    addrs: Vec<Arc<F::Addr>>,
    keys: Vec<Arc<F::DeposedKey>>,
    ops: Vec<OpNode>,
    operands: Vec<RawRef>,
    waiters: Vec<Vec<RawRef>>,
    sinks: BTreeMap<Arc<F::Addr>, RawRef>,
}

impl<F: Family> Default for Builder<F> {
    fn default() -> Self {
        Self::new()
    }
}

fn next_index(len: usize, table: &str) -> u32 {
    assert!(
        len < MAX_TABLE_LEN,
        "an execution graph holds at most {MAX_TABLE_LEN} {table}"
    );
    // The assertion above keeps the index within 29 bits.
    len as u32
}

impl<F: Family> Builder<F> {
    /// An empty builder.
    pub fn new() -> Self {
        Builder {
            values: Vec::new(),
            addrs: Vec::new(),
            keys: Vec::new(),
            ops: Vec::new(),
            operands: Vec::new(),
            waiters: Vec::new(),
            sinks: BTreeMap::new(),
        }
    }

    /// Adds a constant value as a source node.
    pub fn constant_value(&mut self, value: F::Value) -> ResultRef<kind::Value> {
        let i = next_index(self.values.len(), "values");
        self.values.push(Arc::new(value));
        ResultRef::from_raw(RawRef::new(Target::Value(i)))
    }

    /// Adds a constant resource instance address as a source node.
    pub fn constant_resource_instance_addr(&mut self, addr: F::Addr) -> ResultRef<kind::Addr> {
        let i = next_index(self.addrs.len(), "addresses");
        self.addrs.push(Arc::new(addr));
        ResultRef::from_raw(RawRef::new(Target::Addr(i)))
    }

    /// Adds a constant deposed key as a source node.
    pub fn constant_deposed_key(&mut self, key: F::DeposedKey) -> ResultRef<kind::DeposedKey> {
        let i = next_index(self.keys.len(), "deposed keys");
        self.keys.push(Arc::new(key));
        ResultRef::from_raw(RawRef::new(Target::Key(i)))
    }

    pub(crate) fn push_op(&mut self, code: OpCode, operands: &[RawRef]) -> RawRef {
        debug_assert_eq!(operands.len(), code.operands().len());
        let i = next_index(self.ops.len(), "operations");
        let start = next_index(self.operands.len(), "operands");
        self.operands.extend_from_slice(operands);
        self.ops.push(OpNode { code, start });
        RawRef::new(Target::Op(i))
    }

    fn op<T>(&mut self, code: OpCode, operands: &[RawRef]) -> ResultRef<T> {
        ResultRef::from_raw(self.push_op(code, operands))
    }

    /// Reads the prior object of the instance at `addr` (nil if it has none).
    ///
    /// It reads what the prior state holds and waits for nothing else; order against other instances' changes
    /// belongs on the `wait_for` of the apply or depose that needs it.
    pub fn resource_instance_prior(
        &mut self,
        addr: ResultRef<kind::Addr>,
    ) -> ResourceInstanceResultRef {
        self.op(OpCode::ResourceInstancePrior, &[addr.raw()])
    }

    /// Asks the evaluator for the configured metadata of the instance's current object and combines it with
    /// `prior` (nil when the object does not exist yet).
    pub fn resource_instance_current_meta(
        &mut self,
        addr: ResultRef<kind::Addr>,
        prior: ResourceInstanceResultRef,
    ) -> ResultRef<kind::Meta> {
        self.op(
            OpCode::ResourceInstanceCurrentMeta,
            &[addr.raw(), prior.raw()],
        )
    }

    /// Asks the evaluator for the desired state of the instance whose metadata is given. The evaluation waits
    /// for the values of the instances its configuration refers to, and fails (silently) when one of them
    /// failed. Only current objects are desired: never pass the result of a deposed-meta operation.
    pub fn resource_instance_desired(
        &mut self,
        meta: ResultRef<kind::Meta>,
    ) -> ResultRef<kind::Desired> {
        self.op(OpCode::ResourceInstanceDesired, &[meta.raw()])
    }

    /// Decides the final plan of a managed object. A nil `desired` plans a delete, a nil `prior` a create;
    /// both set is an in-place update. A replace is two chains: one with nil desired, one with nil prior.
    pub fn managed_final_plan(
        &mut self,
        meta: ResultRef<kind::Meta>,
        desired: ResultRef<kind::Desired>,
        prior: ResourceInstanceResultRef,
        planned: ResultRef<kind::Value>,
    ) -> ResultRef<kind::FinalPlan> {
        self.op(
            OpCode::ManagedFinalPlan,
            &[meta.raw(), desired.raw(), prior.raw(), planned.raw()],
        )
    }

    /// Applies a final plan. `fallback` is nil except on the create leg of a create-before-destroy replace,
    /// where it is the deposed object: if the create produces no object, that object is current again.
    pub fn managed_apply(
        &mut self,
        plan: ResultRef<kind::FinalPlan>,
        fallback: ResourceInstanceResultRef,
        wait_for: AnyResultRef,
    ) -> ResourceInstanceResultRef {
        self.op(
            OpCode::ManagedApply,
            &[plan.raw(), fallback.raw(), wait_for.raw()],
        )
    }

    /// The first half of deposing, an intrinsic with no side effect: turns the destroy plan of a current
    /// object into the plan to destroy it once deposed under `key`. Send the result to both
    /// [`Builder::managed_perform_depose`] and [`Builder::managed_apply`].
    pub fn managed_prepare_depose(
        &mut self,
        plan: ResultRef<kind::FinalPlan>,
        key: ResultRef<kind::DeposedKey>,
    ) -> ResultRef<kind::FinalPlan> {
        self.op(OpCode::ManagedPrepareDepose, &[plan.raw(), key.raw()])
    }

    /// Deposes the current object, after `wait_for`; the result is the deposed object.
    pub fn managed_perform_depose(
        &mut self,
        current: ResourceInstanceResultRef,
        delete_plan: ResultRef<kind::FinalPlan>,
        wait_for: AnyResultRef,
    ) -> ResourceInstanceResultRef {
        self.op(
            OpCode::ManagedPerformDepose,
            &[current.raw(), delete_plan.raw(), wait_for.raw()],
        )
    }

    /// Builds the metadata of the object deposed under `key` at `addr`, from its prior state.
    pub fn managed_deposed_meta(
        &mut self,
        addr: ResultRef<kind::Addr>,
        key: ResultRef<kind::DeposedKey>,
        prior: ResourceInstanceResultRef,
    ) -> ResultRef<kind::Meta> {
        self.op(
            OpCode::ManagedDeposedMeta,
            &[addr.raw(), key.raw(), prior.raw()],
        )
    }

    /// Reads the object an earlier apply deposed under `key` at `addr`.
    pub fn managed_already_deposed(
        &mut self,
        addr: ResultRef<kind::Addr>,
        key: ResultRef<kind::DeposedKey>,
    ) -> ResourceInstanceResultRef {
        self.op(OpCode::ManagedAlreadyDeposed, &[addr.raw(), key.raw()])
    }

    /// Moves an object to a new address.
    pub fn managed_change_addr(
        &mut self,
        current: ResourceInstanceResultRef,
        new_addr: ResultRef<kind::Addr>,
    ) -> ResourceInstanceResultRef {
        self.op(OpCode::ManagedChangeAddr, &[current.raw(), new_addr.raw()])
    }

    /// Reads a data source, after `wait_for`.
    pub fn data_read(
        &mut self,
        meta: ResultRef<kind::Meta>,
        desired: ResultRef<kind::Desired>,
        planned: ResultRef<kind::Value>,
        wait_for: AnyResultRef,
    ) -> ResourceInstanceResultRef {
        self.op(
            OpCode::DataRead,
            &[meta.raw(), desired.raw(), planned.raw(), wait_for.raw()],
        )
    }

    /// A fan-in node that completes once every dependency has, and succeeds only if all of them did. The
    /// dependencies' values are discarded: this only says "after".
    pub fn waiter(&mut self, dependencies: impl IntoIterator<Item = AnyResultRef>) -> AnyResultRef {
        let i = next_index(self.waiters.len(), "waiters");
        self.waiters
            .push(dependencies.into_iter().map(AnyResultRef::raw).collect());
        AnyResultRef::from_raw(RawRef::new(Target::Waiter(i)))
    }

    /// A waiter with no dependencies yet, and the handle to add them with
    /// [`Builder::add_waiter_dependency`] once they are known (a dependency on a subgraph built later).
    pub fn mutable_waiter(&mut self) -> (AnyResultRef, WaiterHandle) {
        let waiter = self.waiter([]);
        let handle = match waiter.raw().target() {
            Target::Waiter(index) => WaiterHandle { index },
            _ => unreachable!("a waiter reference points into the waiter table"),
        };
        (waiter, handle)
    }

    /// Adds a dependency to a mutable waiter. This can close a cycle, which [`Builder::finish`] reports.
    ///
    /// # Panics
    ///
    /// If the handle comes from another builder and names no waiter of this one.
    pub fn add_waiter_dependency(
        &mut self,
        waiter: WaiterHandle,
        dependency: impl Into<AnyResultRef>,
    ) {
        let deps = self
            .waiters
            .get_mut(waiter.index as usize)
            .expect("the waiter handle belongs to this builder");
        deps.push(dependency.into().raw());
    }

    /// Registers which result is the final state of the instance at `addr`: the object whose value other
    /// instances read through [`CompiledGraph::resource_instance_value`](crate::CompiledGraph::resource_instance_value).
    ///
    /// # Panics
    ///
    /// If a final state is already registered for `addr`: subgraphs for one instance were built twice, a bug
    /// in the calling planner.
    pub fn set_resource_instance_final_state_result(
        &mut self,
        addr: F::Addr,
        result: ResourceInstanceResultRef,
    ) {
        if let Some(existing) = self.sinks.get(&addr) {
            panic!("resource instance {addr} already has a final state result ({existing})");
        }
        self.sinks.insert(Arc::new(addr), result.raw());
    }

    /// The final state result registered for `addr`, for use as a waiter dependency; `None` if none is
    /// registered yet (the subgraphs were built in the wrong order).
    pub fn resource_instance_final_state_result(&self, addr: &F::Addr) -> Option<AnyResultRef> {
        self.sinks.get(addr).map(|raw| AnyResultRef::from_raw(*raw))
    }

    /// Seals the builder into an immutable graph. Refuses references that name no node of this builder and
    /// dependency cycles (closed through mutable waiters), naming every member of every cycle.
    pub fn finish(self) -> Result<Graph<F>, GraphError> {
        let mut data = GraphData::new(
            self.values,
            self.addrs,
            self.keys,
            self.ops,
            self.operands,
            self.waiters,
            self.sinks.into_iter().collect(),
        );
        data.check_references()?;
        data.check_acyclic()?;
        Ok(Graph::from_data(data))
    }
}
