//! Count sets bound by slot: the k-th lowest slot binds index k, deficits mint above the high-water mark,
//! surplus is the highest slots, unslotted and mixed sets migrate by address.

use admission::Slot;
use projection::record::{InstanceNamespace, IntentRecord, IntentState, RecordBody, SlotsRecord};
use projection::{Binding, Declared, Projection, RecordKeys, Removal, Repair, Withheld};
use serde_json::json;

use crate::support::*;

fn eip(id: &str, address: &str, slot: Option<&str>) -> serde_json::Value {
    let mut tags = vec![("tofu-estate", ESTATE), ("tofu-address", address)];
    if let Some(s) = slot {
        tags.push(("tofu-slot", s));
    }
    res("aws_eip", id, json!({}), &tags)
}

fn pool(n: u64) -> Declared {
    let mut d = Declared::new();
    d.count_block("aws_eip.pool".parse().unwrap(), n).unwrap();
    d
}

/// Per index: (bound id or "create"/"withheld", slot, repairs).
fn members(p: &Projection, n: u64) -> Vec<(String, Option<u32>, Vec<Repair>)> {
    (0..n)
        .map(|i| {
            let s = p.instance(&a(&format!("aws_eip.pool[{i}]"))).unwrap();
            let (what, repairs) = match &s.binding {
                Binding::Bound { object, repairs } => (object.id.clone(), repairs.clone()),
                Binding::Create => ("create".to_owned(), Vec::new()),
                other => (format!("{other:?}"), Vec::new()),
            };
            (what, s.slot.map(|s| s.0), repairs)
        })
        .collect()
}

fn m(id: &str, slot: u32, repairs: Vec<Repair>) -> (String, Option<u32>, Vec<Repair>) {
    (id.to_owned(), Some(slot), repairs)
}

fn three_slotted() -> Vec<serde_json::Value> {
    vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("0")),
        eip("eipalloc-00000002", "aws_eip.pool:1", Some("1")),
        eip("eipalloc-00000003", "aws_eip.pool:2", Some("2")),
    ]
}

#[tokio::test]
async fn three_slots_with_count_three_are_all_bound() {
    let p = run(&cloud(three_slotted()), &pool(3)).await;
    assert_eq!(
        members(&p, 3),
        [
            m("eipalloc-00000001", 0, vec![]),
            m("eipalloc-00000002", 1, vec![]),
            m("eipalloc-00000003", 2, vec![]),
        ]
    );
    assert!(p.owned_undeclared.is_empty() && p.diagnostics.is_empty());
}

#[tokio::test]
async fn with_count_two_the_highest_slot_is_the_surplus() {
    let p = run(&cloud(three_slotted()), &pool(2)).await;
    assert_eq!(
        members(&p, 2),
        [
            m("eipalloc-00000001", 0, vec![]),
            m("eipalloc-00000002", 1, vec![])
        ]
    );
    assert_eq!(p.owned_undeclared.len(), 1);
    assert_eq!(p.owned_undeclared[0].id, "eipalloc-00000003");
    assert_eq!(
        p.owned_undeclared[0].reason,
        Removal::CountSurplus {
            slot: Some(Slot(2))
        }
    );
    assert!(p.rename_hints.is_empty());
}

fn gapped() -> Vec<serde_json::Value> {
    vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("0")),
        eip("eipalloc-00000002", "aws_eip.pool:1", Some("3")),
    ]
}

#[tokio::test]
async fn a_deficit_mints_above_the_live_high_water_mark_never_filling_gaps() {
    let p = run(&cloud(gapped()), &pool(4)).await;
    assert_eq!(
        members(&p, 4),
        [
            m("eipalloc-00000001", 0, vec![]),
            m("eipalloc-00000002", 3, vec![]),
            m("create", 4, vec![]),
            m("create", 5, vec![]),
        ]
    );
}

#[tokio::test]
async fn a_deficit_mints_above_the_recorded_high_water_mark() {
    let keys = RecordKeys::new("", &estate()).unwrap();
    let slots = (
        keys.slots(&"aws_eip.pool".parse().unwrap()),
        RecordBody::Slots(SlotsRecord { highest: Slot(7) }).to_payload(),
    );
    let p = run_with(&cloud(gapped()), &pool(4), vec![slots])
        .await
        .projection;
    let minted: Vec<(String, Option<u32>, Vec<Repair>)> = members(&p, 4).split_off(2);
    assert_eq!(minted, [m("create", 8, vec![]), m("create", 9, vec![])]);
}

#[tokio::test]
async fn an_unslotted_set_binds_by_address_and_gets_slot_i_for_index_i() {
    let live = vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", None),
        eip("eipalloc-00000002", "aws_eip.pool:1", None),
        eip("eipalloc-00000003", "aws_eip.pool:2", None),
    ];
    let p = run(&cloud(live), &pool(3)).await;
    assert_eq!(
        members(&p, 3),
        [
            m("eipalloc-00000001", 0, vec![Repair::Slot(Slot(0))]),
            m("eipalloc-00000002", 1, vec![Repair::Slot(Slot(1))]),
            m("eipalloc-00000003", 2, vec![Repair::Slot(Slot(2))]),
        ]
    );
    let change = p.marker_change(&a("aws_eip.pool[1]")).unwrap().unwrap();
    assert_eq!(change.set.get("tofu-slot").map(String::as_str), Some("1"));
}

#[tokio::test]
async fn a_mixed_set_binds_both_and_gives_the_unslotted_member_the_next_slot() {
    let live = vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("0")),
        eip("eipalloc-00000002", "aws_eip.pool:1", None),
    ];
    let p = run(&cloud(live), &pool(2)).await;
    assert_eq!(
        members(&p, 2),
        [
            m("eipalloc-00000001", 0, vec![]),
            m("eipalloc-00000002", 1, vec![Repair::Slot(Slot(1))])
        ]
    );
}

#[tokio::test]
async fn a_stale_address_is_flagged_for_repair_not_treated_as_a_rival() {
    let live = vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("0")),
        eip("eipalloc-00000002", "aws_eip.pool:5", Some("1")),
    ];
    let p = run(&cloud(live), &pool(2)).await;
    assert_eq!(
        members(&p, 2),
        [
            m("eipalloc-00000001", 0, vec![]),
            m(
                "eipalloc-00000002",
                1,
                vec![Repair::Address {
                    from: Some("aws_eip.pool:5".into())
                }]
            ),
        ]
    );
    let change = p.marker_change(&a("aws_eip.pool[1]")).unwrap().unwrap();
    assert_eq!(change.set["tofu-address"], "aws_eip.pool:1");
    assert!(p.diagnostics.is_empty());
}

async fn refused(live: Vec<serde_json::Value>) -> Projection {
    let p = run(&cloud(live), &pool(2)).await;
    for i in 0..2 {
        assert_eq!(
            p.instance(&a(&format!("aws_eip.pool[{i}]")))
                .unwrap()
                .binding,
            Binding::Withheld(Withheld::CountSet)
        );
    }
    assert!(
        p.owned_undeclared.is_empty(),
        "nothing of a refused set is deleted"
    );
    p
}

#[tokio::test]
async fn a_slot_outside_the_grammar_is_malformed_slot() {
    let p = refused(vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("0")),
        eip("eipalloc-00000002", "aws_eip.pool:1", Some("007")),
    ])
    .await;
    assert_eq!(
        codes(&p),
        [diag(
            "malformed-slot",
            Some("aws_eip.pool"),
            &["eipalloc-00000002"]
        )]
    );
}

#[tokio::test]
async fn two_members_with_one_slot_are_duplicate_slot() {
    let p = refused(vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", Some("1")),
        eip("eipalloc-00000002", "aws_eip.pool:1", Some("1")),
    ])
    .await;
    assert_eq!(
        codes(&p),
        [diag(
            "duplicate-slot",
            Some("aws_eip.pool"),
            &["eipalloc-00000001", "eipalloc-00000002"]
        )]
    );
}

#[tokio::test]
async fn unslotted_members_at_one_address_are_indistinguishable() {
    let p = refused(vec![
        eip("eipalloc-00000001", "aws_eip.pool:0", None),
        eip("eipalloc-00000002", "aws_eip.pool:0", None),
    ])
    .await;
    assert_eq!(
        codes(&p),
        [diag(
            "indistinguishable-instances",
            Some("aws_eip.pool"),
            &["eipalloc-00000001", "eipalloc-00000002"]
        )]
    );
}

/// The create intent of `aws_eip.pool[index]` in `state`, written `age` seconds ago, holding `slot`.
fn held(index: u64, state: IntentState, age: u64, slot: u32) -> (String, Vec<u8>) {
    record(
        InstanceNamespace::Intent,
        &format!("aws_eip.pool[{index}]"),
        RecordBody::Intent(IntentRecord {
            state,
            client_token: String::new(),
            time: NOW - age,
            id: None,
            slot: Some(Slot(slot)),
        }),
    )
}

/// Slots 1, 2 and 3 live: member `[0]`'s object (slot 0) was destroyed by a replace.
fn gap_at_zero() -> Vec<serde_json::Value> {
    vec![
        eip("eipalloc-00000002", "aws_eip.pool:1", Some("1")),
        eip("eipalloc-00000003", "aws_eip.pool:2", Some("2")),
        eip("eipalloc-00000004", "aws_eip.pool:3", Some("3")),
    ]
}

#[tokio::test]
async fn a_slot_held_by_a_replace_keeps_its_index_and_shifts_no_member() {
    let records = vec![held(0, IntentState::Replacing, 5, 0)];
    let p = run_with(&cloud(gap_at_zero()), &pool(4), records)
        .await
        .projection;
    assert_eq!(
        members(&p, 4),
        [
            m("create", 0, vec![]),
            m("eipalloc-00000002", 1, vec![]),
            m("eipalloc-00000003", 2, vec![]),
            m("eipalloc-00000004", 3, vec![]),
        ]
    );
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[tokio::test]
async fn a_slot_held_by_a_create_cut_off_withholds_only_its_index() {
    let records = vec![held(0, IntentState::Pending, 5, 0)];
    let p = run_with(&cloud(gap_at_zero()), &pool(4), records)
        .await
        .projection;
    let first = p.instance(&a("aws_eip.pool[0]")).unwrap();
    assert!(
        matches!(
            first.binding,
            Binding::Withheld(Withheld::CreateInProgress { .. })
        ),
        "{:?}",
        first.binding
    );
    assert_eq!(
        members(&p, 4).split_off(1),
        [
            m("eipalloc-00000002", 1, vec![]),
            m("eipalloc-00000003", 2, vec![]),
            m("eipalloc-00000004", 3, vec![]),
        ]
    );
}

#[tokio::test]
async fn a_held_slot_a_live_member_carries_holds_nothing() {
    let records = vec![held(0, IntentState::Replacing, 5, 1)];
    let p = run_with(&cloud(gap_at_zero()), &pool(3), records)
        .await
        .projection;
    assert_eq!(
        members(&p, 3),
        [
            m(
                "eipalloc-00000002",
                1,
                vec![Repair::Address {
                    from: Some("aws_eip.pool:1".into())
                }]
            ),
            m(
                "eipalloc-00000003",
                2,
                vec![Repair::Address {
                    from: Some("aws_eip.pool:2".into())
                }]
            ),
            m(
                "eipalloc-00000004",
                3,
                vec![Repair::Address {
                    from: Some("aws_eip.pool:3".into())
                }]
            ),
        ]
    );
}
