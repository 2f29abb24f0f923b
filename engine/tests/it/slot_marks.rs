//! The slot high-water mark of a count block: raised before an apply changes anything, repaired when an
//! interrupted run left it below the live slots, and never letting a slot be given out twice, even by two
//! applies that planned from different views.

use std::sync::Arc;

use admission::Slot;
use projection::record::{RecordBody, RecordKeys, SlotsRecord};
use provider::{Call, Provider};

use crate::support::*;

fn eips(n: u64) -> String {
    format!(
        "live {{\n  estate = \"acme\"\n}}\n\nresource \"aws_eip\" \"e\" {{\n  count = {n}\n}}\n"
    )
}

fn key() -> String {
    let keys = RecordKeys::new("", &admission::Estate::new("acme").unwrap()).unwrap();
    keys.slots(&"aws_eip.e".parse().unwrap())
}

/// The block's recorded mark.
async fn mark(world: &Bench) -> Option<u32> {
    let record = world.store.get(&key()).await.unwrap()?;
    match RecordBody::from_payload(&record.payload).unwrap() {
        RecordBody::Slots(s) => Some(s.highest.0),
        other => panic!("not a slots record: {other:?}"),
    }
}

/// Writes the block's mark as `highest`, as a run cut off before raising it leaves it.
async fn set_mark(world: &Bench, highest: u32) {
    let current = world.store.get(&key()).await.unwrap().map(|r| r.version);
    let payload = RecordBody::Slots(SlotsRecord {
        highest: Slot(highest),
    })
    .to_payload();
    world
        .store
        .put_if_version(&key(), &payload, current.as_ref())
        .await
        .unwrap();
}

/// The `tofu-slot` of every live EIP, sorted.
async fn live_slots(world: &Bench) -> Vec<u32> {
    let snapshot = world.cloud.snapshot().await.unwrap();
    let mut slots: Vec<u32> = snapshot
        .resources
        .iter()
        .filter_map(|r| r.tags.get("tofu-slot")?.parse().ok())
        .collect();
    slots.sort_unstable();
    slots
}

#[tokio::test]
async fn slot_mark_left_below_the_live_slots_is_repaired_by_an_apply_with_nothing_to_change() {
    let world = Bench::empty();
    world.converge(&eips(5)).await;
    set_mark(&world, 2).await;
    let plan = world.plan(&eips(5)).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    assert!(plan.has_record_work(), "the repair is work for the apply");
    assert_eq!(diagnostics(&world.apply(plan).await), "");
    assert_eq!(mark(&world).await, Some(4));
    // The finding's sequence: shrink, then grow. Slots 3 and 4 were given out once and never again.
    world.converge(&eips(3)).await;
    world.converge(&eips(5)).await;
    assert_eq!(live_slots(&world).await, [0, 1, 2, 5, 6]);
}

#[tokio::test]
async fn slot_mark_below_the_live_slots_is_repaired_before_the_surplus_is_destroyed() {
    let world = Bench::empty();
    world.converge(&eips(5)).await;
    set_mark(&world, 2).await;
    // The shrink destroys slots 3 and 4: the mark must cover them before they are gone.
    world.converge(&eips(3)).await;
    assert_eq!(mark(&world).await, Some(4));
    world.converge(&eips(4)).await;
    assert_eq!(live_slots(&world).await, [0, 1, 2, 5]);
}

#[tokio::test]
async fn slot_given_out_by_another_run_since_the_plan_is_never_given_out_again() {
    let world = Bench::empty();
    world.converge(&eips(3)).await;
    // A plans from slots 0, 1 and 2: index 3 gets slot 3.
    let first = world.plan(&eips(4)).await;
    // Then slot 1's member is deleted by hand, and B plans from 0 and 2: index 2 gets slot 3 too.
    let snapshot = world.cloud.snapshot().await.unwrap();
    let one = snapshot
        .resources
        .iter()
        .find(|r| r.tags.get("tofu-slot").map(String::as_str) == Some("1"))
        .unwrap()
        .id
        .clone();
    world
        .cloud
        .delete(&Call::unrecorded(), "aws_eip", &one)
        .await
        .unwrap();
    let second = world.plan(&eips(3)).await;
    assert_eq!(diagnostics(&world.apply(second).await), "");
    assert_eq!(live_slots(&world).await, [0, 2, 3]);
    let outcome = world.apply(first).await;
    assert_eq!(
        diagnostics(&outcome),
        "error [version-conflict]: aws_eip.e[3] was given up: another run gave out the slots of \
         aws_eip.e up to 3 since the plan read them, and this plan gave it slot 3 aws_eip.e[3]\n"
    );
    assert_eq!(
        live_slots(&world).await,
        [0, 2, 3],
        "slot 3 is on one object"
    );
    world.converge(&eips(4)).await;
    assert_eq!(live_slots(&world).await, [0, 2, 3, 4]);
}

#[tokio::test]
async fn two_applies_growing_one_count_set_at_once_never_give_out_a_slot_twice() {
    for trial in 0..12u64 {
        let world = Arc::new(Bench::empty());
        world.converge(&eips(2)).await;
        // Both plan from one view, then apply at once; one of them may also plan after the other began.
        let (a, b) = if trial % 2 == 0 {
            (world.plan(&eips(4)).await, world.plan(&eips(6)).await)
        } else {
            let a = world.plan(&eips(5)).await;
            let b = world.plan(&eips(3)).await;
            (a, b)
        };
        let (wa, wb) = (Arc::clone(&world), Arc::clone(&world));
        let (ra, rb) = tokio::join!(
            tokio::spawn(async move { wa.apply(a).await }),
            tokio::spawn(async move { wb.apply(b).await })
        );
        for outcome in [ra.unwrap(), rb.unwrap()] {
            let text = diagnostics(&outcome);
            assert!(
                text.is_empty()
                    || text
                        .lines()
                        .all(|l| l.starts_with("error [version-conflict]")),
                "trial {trial}: {text}"
            );
        }
        let slots = live_slots(&world).await;
        let mut unique = slots.clone();
        unique.dedup();
        assert_eq!(slots, unique, "trial {trial}: a slot on two objects");
        let high = *slots.last().unwrap();
        assert!(
            mark(&world).await >= Some(high),
            "trial {trial}: the mark is below {high}"
        );
        // Shrinking and growing again never hands out a slot that was live.
        world.converge(&eips(1)).await;
        world.converge(&eips(3)).await;
        let regrown = live_slots(&world).await;
        assert!(
            regrown[1..].iter().all(|s| *s > high),
            "trial {trial}: {regrown:?} after {slots:?}"
        );
    }
}
