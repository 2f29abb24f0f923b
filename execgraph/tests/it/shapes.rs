//! The subgraph shapes the planner builds for each kind of change, written the way the engine will.

use execgraph::{AnyResultRef, ResourceInstanceResultRef, ResultRef, WaiterHandle};

use crate::support::{B, Val};

fn planned(b: &mut B, addr: &str) -> ResultRef<execgraph::kind::Value> {
    let name = addr.rsplit('.').next().unwrap_or(addr);
    b.constant_value(Val::obj([("name", name)]))
}

/// Create: metadata with no prior, desired, plan, apply after `after`.
pub fn create(b: &mut B, addr: &str, after: AnyResultRef) -> ResourceInstanceResultRef {
    let planned = planned(b, addr);
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let meta = b.resource_instance_current_meta(a, ResultRef::nil());
    let desired = b.resource_instance_desired(meta);
    let plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
    let applied = b.managed_apply(plan, ResultRef::nil(), after);
    b.set_resource_instance_final_state_result(addr.to_owned(), applied);
    applied
}

/// Update in place.
pub fn update(b: &mut B, addr: &str, after: AnyResultRef) -> ResourceInstanceResultRef {
    let planned = planned(b, addr);
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let prior = b.resource_instance_prior(a);
    let meta = b.resource_instance_current_meta(a, prior);
    let desired = b.resource_instance_desired(meta);
    let plan = b.managed_final_plan(meta, desired, prior, planned);
    let applied = b.managed_apply(plan, ResultRef::nil(), after);
    b.set_resource_instance_final_state_result(addr.to_owned(), applied);
    applied
}

/// Update after moving the object through each address of `moves` in turn (the last is its new address).
pub fn update_moved(b: &mut B, from: &str, moves: &[&str]) -> ResourceInstanceResultRef {
    let old = b.constant_resource_instance_addr(from.to_owned());
    let mut current = b.resource_instance_prior(old);
    for to in moves {
        let new = b.constant_resource_instance_addr((*to).to_owned());
        current = b.managed_change_addr(current, new);
    }
    let last = moves.last().copied().unwrap_or(from);
    let planned = planned(b, last);
    let a = b.constant_resource_instance_addr(last.to_owned());
    let meta = b.resource_instance_current_meta(a, current);
    let desired = b.resource_instance_desired(meta);
    let plan = b.managed_final_plan(meta, desired, current, planned);
    let after = b.waiter([]);
    let applied = b.managed_apply(plan, ResultRef::nil(), after);
    b.set_resource_instance_final_state_result(last.to_owned(), applied);
    applied
}

/// Delete of a current object, after `after`.
pub fn delete(b: &mut B, addr: &str, after: AnyResultRef) -> ResourceInstanceResultRef {
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let prior = b.resource_instance_prior(a);
    let meta = b.resource_instance_current_meta(a, prior);
    let plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
    let applied = b.managed_apply(plan, ResultRef::nil(), after);
    b.set_resource_instance_final_state_result(addr.to_owned(), applied);
    applied
}

/// Delete of an object an earlier apply left deposed.
pub fn deposed_orphan(b: &mut B, addr: &str, key: &str) -> ResourceInstanceResultRef {
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let k = b.constant_deposed_key(key.to_owned());
    let prior = b.managed_already_deposed(a, k);
    let meta = b.managed_deposed_meta(a, k, prior);
    let plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
    let after = b.waiter([]);
    b.managed_apply(plan, ResultRef::nil(), after)
}

/// Replace, destroy before create: both plans first, the delete once the create plan succeeded, the create
/// after the delete.
pub fn destroy_before_create(b: &mut B, addr: &str) -> ResourceInstanceResultRef {
    let planned = planned(b, addr);
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let prior = b.resource_instance_prior(a);
    let meta = b.resource_instance_current_meta(a, prior);
    let desired = b.resource_instance_desired(meta);
    let create_plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
    let delete_plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
    let after_plan = b.waiter([create_plan.any()]);
    let deleted = b.managed_apply(delete_plan, ResultRef::nil(), after_plan);
    let after_delete = b.waiter([deleted.any()]);
    let created = b.managed_apply(create_plan, ResultRef::nil(), after_delete);
    b.set_resource_instance_final_state_result(addr.to_owned(), created);
    created
}

/// Replace, create before destroy: depose the current object once the create plan succeeded, create with the
/// deposed object as fallback, then destroy the deposed object.
pub fn create_before_destroy(b: &mut B, addr: &str, key: &str) -> ResourceInstanceResultRef {
    let planned = planned(b, addr);
    let a = b.constant_resource_instance_addr(addr.to_owned());
    let prior = b.resource_instance_prior(a);
    let meta = b.resource_instance_current_meta(a, prior);
    let desired = b.resource_instance_desired(meta);
    let create_plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
    let destroy_plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
    let k = b.constant_deposed_key(key.to_owned());
    let prepared = b.managed_prepare_depose(destroy_plan, k);
    let after_plan = b.waiter([create_plan.any()]);
    let deposed = b.managed_perform_depose(prior, prepared, after_plan);
    let no_wait = b.waiter([]);
    let created = b.managed_apply(create_plan, deposed, no_wait);
    let after_create = b.waiter([created.any()]);
    b.managed_apply(prepared, ResultRef::nil(), after_create);
    b.set_resource_instance_final_state_result(addr.to_owned(), created);
    created
}

/// A mutable waiter to be filled once later subgraphs exist.
pub fn later(b: &mut B) -> (AnyResultRef, WaiterHandle) {
    b.mutable_waiter()
}
