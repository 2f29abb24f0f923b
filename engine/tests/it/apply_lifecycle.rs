//! End to end on the simulated cloud: drift, replaces in both orders, deposed objects, count changes.

use std::sync::Arc;

use expect_test::expect;

use crate::support::{Bench, Journal, JournaledStore, diagnostics, failing, live_tags, text};

const VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
}
"#;

#[tokio::test]
async fn drift_is_one_update_and_then_converges() {
    let world = Bench::empty();
    world.converge(VPC).await;
    // Someone flips an attribute by hand.
    let drifted = VPC.replace(
        "cidr_block = \"10.0.0.0/16\"",
        "cidr_block = \"10.0.0.0/16\"\n  enable_dns_hostnames = true",
    );
    let plan = world.plan(&drifted).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 1 to change, 0 to destroy."
    );
    let (_, calls) = world.apply_counted(plan).await;
    assert_eq!(
        calls.get("ec2:ModifyVpcAttribute"),
        Some(&1),
        "exactly one in-place update call"
    );
    assert!(world.plan(&drifted).await.summary().is_empty());
}

#[tokio::test]
async fn force_new_change_destroys_then_creates_by_default() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-a", "attributes": { "bucket": "acme-a" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_s3_bucket.b" } }
        ]}"#,
    );
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;
    world.converge(config).await;
    let changed = config.replace("10.0.0.0/16", "10.1.0.0/16");
    let plan = world.plan(&changed).await;
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    assert_eq!(diagnostics(&outcome), "");
    let lines: Vec<String> = journal
        .lines()
        .into_iter()
        .map(|l| l.replace(" after 0s", ""))
        .collect();
    assert_eq!(
        lines,
        [
            "aws_vpc.main: Destroying... [id=vpc-00000001]",
            "aws_vpc.main: Destruction complete [id=vpc-00000001]",
            "aws_vpc.main: Creating...",
            "aws_vpc.main: Creation complete [id=vpc-00000002]",
        ]
    );
    assert!(world.plan(&changed).await.summary().is_empty());
}

const CBD: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    create_before_destroy = true
  }
}
"#;

#[tokio::test]
async fn create_before_destroy_records_the_deposed_object_around_the_create() {
    let journal = Journal::default();
    let mut world = Bench::empty();
    world.converge(CBD).await;
    world.store = Arc::new(JournaledStore {
        inner: Arc::clone(&world.store),
        journal: journal.clone(),
    });
    let changed = CBD.replace("10.0.0.0/16", "10.1.0.0/16");
    let plan = world.plan(&changed).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 1 to destroy."
    );
    let outcome = world.apply_journaled(plan, &journal).await;
    assert_eq!(diagnostics(&outcome), "");
    let lines: Vec<String> = journal
        .lines()
        .into_iter()
        .map(|l| l.replace(" after 0s", ""))
        .collect();
    expect![[r#"
        put acme/deposed/aws_vpc
        aws_vpc.main: Creating...
        put acme/intent/aws_vpc
        put acme/intent/aws_vpc
        aws_vpc.main: Creation complete [id=vpc-00000002]
        aws_vpc.main: Destroying... [id=vpc-00000001]
        delete acme/deposed/aws_vpc
        aws_vpc.main: Destruction complete [id=vpc-00000001]
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
    assert!(world.plan(&changed).await.summary().is_empty());
}

#[tokio::test]
async fn a_failed_destroy_leaves_the_deposed_object_for_the_next_apply() {
    let mut world = Bench::empty();
    world.converge(CBD).await;
    world.with_faults(failing("ec2:DeleteVpc", 1)).await;
    let changed = CBD.replace("10.0.0.0/16", "10.1.0.0/16");
    let outcome = world.apply(world.plan(&changed).await).await;
    expect![[r#"
        error [apply-failed]: destroying aws_vpc.main (vpc-00000001) failed: ec2:DeleteVpc: invalid argument: ec2:DeleteVpc: request failed aws_vpc.main
    "#]]
    .assert_eq(&diagnostics(&outcome));
    // Both objects carry the address; the deposed record says which one is old.
    let plan = world.plan(&changed).await;
    expect![[r#"
        liveplan will perform the following actions:

          # aws_vpc.main (deposed object vpc-00000001) will be destroyed
          # (deposed object)
          - resource "aws_vpc" "main" {
              - id = "vpc-00000001"
            }

        Plan: 0 to add, 0 to change, 1 to destroy.
    "#]]
    .assert_eq(&text(&plan));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&changed).await.summary().is_empty());
    assert!(
        !world
            .record_keys()
            .await
            .iter()
            .any(|k| k.contains("/deposed/"))
    );
    expect![[r#"
        aws_vpc vpc-00000002 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
}

/// A create-before-destroy VPC that also waits for a role, and a description that changes with the CIDR.
const CBD_AFTER_ROLE: &str = r#"
live {
  estate = "acme"
}

resource "aws_iam_role" "r" {
  name               = "acme-r"
  assume_role_policy = "{}"
  description        = "10.0.0.0/16"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    create_before_destroy = true
  }
  depends_on = [aws_iam_role.r]
}
"#;

#[tokio::test]
async fn a_create_before_destroy_whose_create_never_starts_deposes_nothing() {
    let mut world = Bench::empty();
    world.converge(CBD_AFTER_ROLE).await;
    world.with_faults(failing("iam:UpdateRole", 1)).await;
    let changed = CBD_AFTER_ROLE.replace("10.0.0.0/16", "10.1.0.0/16");
    let outcome = world.apply(world.plan(&changed).await).await;
    // The role fails, so the VPC's create is skipped: its old object is still the current one.
    assert!(diagnostics(&outcome).contains("aws_iam_role.r"));
    assert!(!diagnostics(&outcome).contains("aws_vpc.main"));
    assert!(
        !world
            .record_keys()
            .await
            .iter()
            .any(|k| k.contains("/deposed/")),
        "nothing was deposed"
    );
    // Back to the old configuration, nothing is to be done: the old VPC was never given up.
    assert!(world.plan(CBD_AFTER_ROLE).await.summary().is_empty());
    let plan = world.plan(&changed).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 1 to change, 1 to destroy."
    );
    assert!(!text(&plan).contains("deposed"));
}

#[tokio::test]
async fn a_failed_create_before_destroy_create_keeps_the_old_object_current() {
    let mut world = Bench::empty();
    world.converge(CBD).await;
    world.with_faults(failing("ec2:CreateVpc", 1)).await;
    let changed = CBD.replace("10.0.0.0/16", "10.1.0.0/16");
    let outcome = world.apply(world.plan(&changed).await).await;
    assert!(diagnostics(&outcome).contains("creating aws_vpc.main"));
    // The outcome names the old object as the instance's, and the store no longer holds it as deposed.
    let main: admission::InstanceAddress = "aws_vpc.main".parse().unwrap();
    let object = outcome.objects.get(&main).cloned().flatten();
    assert_eq!(object.map(|o| o.id), Some("vpc-00000001".to_owned()));
    assert!(
        !world
            .record_keys()
            .await
            .iter()
            .any(|k| k.contains("/deposed/"))
    );
    expect![[r#"
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    assert_eq!(
        world.plan(&changed).await.summary().to_string(),
        "Plan: 1 to add, 0 to change, 1 to destroy."
    );
}

/// A subnet replaced destroy-before-create (its CIDR) inside a VPC updated in place (DNS hostnames).
const DBD_AFTER_UPDATE: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block           = "10.0.0.0/16"
  enable_dns_hostnames = false
}

resource "aws_subnet" "s" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
}
"#;

#[tokio::test]
async fn a_destroy_before_create_deletes_only_once_its_create_could_start() {
    let mut world = Bench::empty();
    world.converge(DBD_AFTER_UPDATE).await;
    world
        .with_faults(failing("ec2:ModifyVpcAttribute", 1))
        .await;
    let changed = DBD_AFTER_UPDATE
        .replace(
            "enable_dns_hostnames = false",
            "enable_dns_hostnames = true",
        )
        .replace("10.0.1.0/24", "10.0.2.0/24");
    let plan = world.plan(&changed).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 1 to change, 1 to destroy."
    );
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    // The VPC's update fails, so the subnet's create cannot run, and its delete never starts either.
    assert!(diagnostics(&outcome).contains("aws_vpc.main"));
    assert!(
        !journal
            .lines()
            .iter()
            .any(|l| l.starts_with("aws_subnet.s")),
        "{:?}",
        journal.lines()
    );
    expect![[r#"
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.s tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    // Once the VPC can be updated, the replace goes through.
    let outcome = world.apply(world.plan(&changed).await).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&changed).await.summary().is_empty());
}

const SUBNETS: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "s" {
  count      = COUNT
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
"#;

#[tokio::test]
async fn count_shrinks_from_the_top_and_grows_above_the_high_water_mark() {
    let world = Bench::empty();
    world.converge(&SUBNETS.replace("COUNT", "3")).await;
    let plan = world.plan(&SUBNETS.replace("COUNT", "2")).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 0 to change, 1 to destroy."
    );
    world.apply(plan).await;
    expect![[r#"
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.s:0 tofu-estate=acme tofu-slot=0]
        aws_subnet subnet-00000002 [tofu-address=aws_subnet.s:1 tofu-estate=acme tofu-slot=1]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    world.converge(&SUBNETS.replace("COUNT", "4")).await;
    // Slot 2 was minted once and is never reused: the new members get 3 and 4.
    expect![[r#"
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.s:0 tofu-estate=acme tofu-slot=0]
        aws_subnet subnet-00000002 [tofu-address=aws_subnet.s:1 tofu-estate=acme tofu-slot=1]
        aws_subnet subnet-00000004 [tofu-address=aws_subnet.s:2 tofu-estate=acme tofu-slot=3]
        aws_subnet subnet-00000005 [tofu-address=aws_subnet.s:3 tofu-estate=acme tofu-slot=4]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    assert!(
        world
            .plan(&SUBNETS.replace("COUNT", "4"))
            .await
            .summary()
            .is_empty()
    );
}

#[tokio::test]
async fn many_count_members_created_in_parallel_share_one_slot_record() {
    let world = Bench::empty();
    world.converge(&SUBNETS.replace("COUNT", "24")).await;
    let config = SUBNETS.replace("COUNT", "24");
    assert!(world.plan(&config).await.summary().is_empty());
    // Slots 0..=23 were minted; growing by one mints 24.
    let plan = world.plan(&SUBNETS.replace("COUNT", "25")).await;
    let created = plan.effective_changes().next().expect("one create");
    assert_eq!(created.slot.map(|s| s.0), Some(24));
}

#[tokio::test]
async fn a_deposed_record_of_a_vanished_object_is_dropped_by_the_next_apply() {
    let mut world = Bench::empty();
    world.converge(CBD).await;
    world.with_faults(failing("ec2:DeleteVpc", 1)).await;
    let changed = CBD.replace("10.0.0.0/16", "10.1.0.0/16");
    world.apply(world.plan(&changed).await).await;
    // Someone deletes the deposed VPC by hand.
    world
        .cloud
        .delete("aws_vpc", "vpc-00000001")
        .await
        .expect("the VPC is deleted");
    let plan = world.plan(&changed).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    assert_eq!(diagnostics(&world.apply(plan).await), "");
    assert!(
        !world
            .record_keys()
            .await
            .iter()
            .any(|k| k.contains("/deposed/"))
    );
}

#[tokio::test]
async fn a_pending_intent_whose_object_was_found_is_marked_done_by_an_apply_with_nothing_to_change()
{
    let world = Bench::empty();
    world.converge(CBD).await;
    // An apply cut off after the create, before its intent was marked done.
    let keys = world.record_keys().await;
    let key = keys
        .iter()
        .find(|k| k.contains("/intent/"))
        .expect("the create wrote an intent");
    let record = world.store.get(key).await.unwrap().unwrap();
    let mut intent: serde_json::Value = serde_json::from_slice(&record.payload).unwrap();
    assert_eq!(intent["state"], "done");
    intent["state"] = "pending".into();
    world
        .store
        .put_if_version(
            key,
            &serde_json::to_vec(&intent).unwrap(),
            Some(&record.version),
        )
        .await
        .unwrap();
    let plan = world.plan(CBD).await;
    assert!(plan.summary().is_empty());
    assert!(
        plan.diagnostics
            .iter()
            .any(|d| d.code.as_str() == "interrupted-create"),
        "{:?}",
        plan.diagnostics
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let record = world.store.get(key).await.unwrap().unwrap();
    let intent: serde_json::Value = serde_json::from_slice(&record.payload).unwrap();
    assert_eq!(intent["state"], "done");
    assert_eq!(intent["id"], "vpc-00000001");
    // The warning is gone.
    assert!(world.plan(CBD).await.diagnostics.is_empty());
}

const ACCESS_KEY: &str = r#"
live {
  estate = "acme"
}

resource "aws_iam_user" "u" {
  name = "acme-u"
}

resource "aws_iam_access_key" "k" {
  user   = aws_iam_user.u.name
  status = "Active"
}
"#;

#[tokio::test]
async fn an_access_keys_status_changes_in_place_on_the_key_it_was_created_as() {
    let world = Bench::empty();
    world.converge(ACCESS_KEY).await;
    let inactive = ACCESS_KEY.replace("\"Active\"", "\"Inactive\"");
    let plan = world.plan(&inactive).await;
    expect![[r#"
        liveplan will perform the following actions:

          # aws_iam_access_key.k will be updated in place
          ~ resource "aws_iam_access_key" "k" {
                id     = "AKIA0000000000000001"
              ~ status = "Active" -> "Inactive"
                # (2 unchanged attributes hidden)
            }

        Plan: 0 to add, 1 to change, 0 to destroy.
    "#]]
    .assert_eq(&text(&plan));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&inactive).await.summary().is_empty());
    let keys: Vec<String> = world
        .cloud
        .snapshot()
        .await
        .expect("a snapshot")
        .resources
        .iter()
        .filter(|r| r.type_name == "aws_iam_access_key")
        .map(|r| format!("{} {}", r.id, r.attributes["status"]))
        .collect();
    assert_eq!(keys, ["AKIA0000000000000001 \"Inactive\""]);
}

#[tokio::test]
async fn a_removed_output_loses_its_record() {
    let world = Bench::empty();
    let with_output = format!("{CBD}\noutput \"cidr\" {{\n  value = aws_vpc.main.cidr_block\n}}\n");
    world.converge(&with_output).await;
    let outputs = |keys: Vec<String>| -> Vec<String> {
        keys.into_iter()
            .filter(|k| k.contains("/outputs/"))
            .collect()
    };
    // `cidr` in base64url.
    assert_eq!(outputs(world.record_keys().await), ["acme/outputs/Y2lkcg"]);
    let renamed = with_output.replace("output \"cidr\"", "output \"range\"");
    world.converge(&renamed).await;
    assert_eq!(outputs(world.record_keys().await), ["acme/outputs/cmFuZ2U"]);
    // With no output left, an apply with nothing to change still drops the record.
    let plan = world.plan(CBD).await;
    assert!(plan.summary().is_empty());
    assert!(plan.has_record_work());
    world.apply(plan).await;
    assert_eq!(outputs(world.record_keys().await), Vec::<String>::new());
    assert!(!world.plan(CBD).await.has_record_work());
}
