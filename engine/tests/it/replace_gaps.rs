//! A destroy-before-create replace of a count member whose create fails or is cut off after the delete:
//! the member's slot is held by its create intent (written before the delete), so the next plan creates
//! only that member in its own slot, and never binds the higher members one index down (which would
//! replace every one of them).

use crate::support::*;

/// Four subnets; member `[0]`'s range is `FIRST` (changing it replaces `[0]` alone).
fn subnets(first: u64) -> String {
    format!(
        r#"
live {{
  estate = "acme"
}}

resource "aws_vpc" "main" {{
  cidr_block = "10.40.0.0/16"
}}

resource "aws_subnet" "s" {{
  count      = 4
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.40.0.0/16", 8, count.index == 0 ? {first} : count.index)
}}
"#
    )
}

/// The plan's `action address slot` lines of its effective changes.
fn changes(plan: &engine::Plan) -> Vec<String> {
    plan.effective_changes()
        .map(|c| {
            format!(
                "{} {} {}",
                c.action.as_str(),
                c.address,
                c.slot.map_or("-".to_owned(), |s| s.to_string())
            )
        })
        .collect()
}

/// After the gap, the next plan creates `[0]` in slot 0 alone; applied, the estate converges.
async fn creates_only_the_missing_member(world: &Bench) {
    let plan = world.plan(&subnets(9)).await;
    assert_eq!(
        changes(&plan),
        ["create aws_subnet.s[0] 0"],
        "{}",
        text(&plan)
    );
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    assert_eq!(diagnostics(&world.apply(plan).await), "");
    assert!(world.plan(&subnets(9)).await.summary().is_empty());
    let tags = live_tags(world).await;
    for (index, slot) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
        assert!(
            tags.contains(&format!(
                "tofu-address=aws_subnet.s:{index} tofu-estate=acme tofu-slot={slot}]"
            )),
            "{tags}"
        );
    }
}

#[tokio::test]
async fn replace_whose_create_fails_after_the_delete_keeps_the_slot_and_reindexes_nothing() {
    let mut world = Bench::empty();
    world.converge(&subnets(0)).await;
    world.with_faults(failing("ec2:CreateSubnet", 1)).await;
    let plan = world.plan(&subnets(9)).await;
    assert_eq!(
        changes(&plan),
        ["replace aws_subnet.s[0] 0"],
        "{}",
        text(&plan)
    );
    let outcome = world
        .apply_attempts(plan, engine::ApplyConfig::default(), 1)
        .await;
    assert!(
        diagnostics(&outcome).starts_with("error [apply-failed]: creating aws_subnet.s[0] failed"),
        "{}",
        diagnostics(&outcome)
    );
    assert_eq!(
        world.cloud.snapshot().await.unwrap().resources.len(),
        4,
        "the old [0] is destroyed"
    );
    world.with_faults(fixtures::FaultPlan::none()).await;
    creates_only_the_missing_member(&world).await;
}

#[tokio::test]
async fn replace_interrupted_between_its_delete_and_its_create_keeps_the_slot() {
    let world = Bench::empty();
    world.converge(&subnets(0)).await;
    let plan = world.plan(&subnets(9)).await;
    // Cancelled as the delete completes, as a Ctrl-C during the delete: the create never starts.
    let outcome = world.apply_interrupted(plan).await;
    assert!(only_cancellations(&outcome), "{}", diagnostics(&outcome));
    assert_eq!(world.cloud.snapshot().await.unwrap().resources.len(), 4);
    creates_only_the_missing_member(&world).await;
}
