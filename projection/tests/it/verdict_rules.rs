use projection::Verdict;

#[test]
fn only_owned_objects_may_ever_be_changed() {
    let changeable: Vec<Verdict> = [
        Verdict::Owned,
        Verdict::Adoptable,
        Verdict::InTheWay,
        Verdict::Foreign,
        Verdict::Malformed,
    ]
    .into_iter()
    .filter(|v| v.may_change())
    .collect();
    assert_eq!(changeable, [Verdict::Owned]);
}
