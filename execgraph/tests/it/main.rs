//! Integration tests of the execution graph, one binary for the crate.

use execgraph::OpCode;

#[test]
fn only_prepare_depose_is_intrinsic() {
    let all = [
        OpCode::ResourceInstancePrior,
        OpCode::ResourceInstanceCurrentMeta,
        OpCode::ResourceInstanceDesired,
        OpCode::ManagedFinalPlan,
        OpCode::ManagedApply,
        OpCode::ManagedPrepareDepose,
        OpCode::ManagedPerformDepose,
        OpCode::ManagedDeposedMeta,
        OpCode::ManagedAlreadyDeposed,
        OpCode::ManagedChangeAddr,
        OpCode::DataRead,
    ];
    let intrinsic: Vec<&str> = all.iter().filter(|op| op.is_intrinsic()).map(|op| op.name()).collect();
    assert_eq!(intrinsic, ["ManagedPrepareDepose"]);
}
