//! The operation vocabulary.

use execgraph::OpCode;

#[test]
fn only_prepare_depose_is_intrinsic() {
    let intrinsic: Vec<&str> = OpCode::ALL
        .iter()
        .filter(|op| op.is_intrinsic())
        .map(|op| op.name())
        .collect();
    assert_eq!(intrinsic, ["ManagedPrepareDepose"]);
}

#[test]
fn names_read_back_and_unknown_names_do_not() {
    for op in OpCode::ALL {
        assert_eq!(OpCode::from_name(op.name()), Some(op));
    }
    assert_eq!(OpCode::from_name("managedApply"), None);
}

#[test]
fn evaluator_calls_hold_no_parallelism_permit() {
    let without: Vec<&str> = OpCode::ALL
        .iter()
        .filter(|op| !op.holds_permit())
        .map(|op| op.name())
        .collect();
    assert_eq!(
        without,
        [
            "ResourceInstanceCurrentMeta",
            "ResourceInstanceDesired",
            "ManagedPrepareDepose"
        ]
    );
}
