//! `adopt` and `mv` end to end on the simulated cloud.

use engine::MvOptions;
use expect_test::expect;

use crate::support::{Bench, live_tags, text};

const BUCKET: &str = r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-data"
}
"#;

#[tokio::test]
async fn adopting_an_unowned_bucket_binds_it_with_no_change() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "Team": "data" } }
        ]}"#,
    );
    let plan = world.plan(BUCKET).await;
    assert!(plan.summary().is_empty());
    assert_eq!(plan.unowned.len(), 1);
    let outcome = world.adopt(BUCKET, "aws_s3_bucket.data", None).await;
    assert!(outcome.succeeded(), "{:?}", outcome.diagnostics);
    expect![[r#"
        aws_s3_bucket acme-data [Team=data tofu-address=aws_s3_bucket.data tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let plan = world.plan(BUCKET).await;
    expect![[r#"
        No changes. The live system matches the configuration.
    "#]]
    .assert_eq(&text(&plan));
}

#[tokio::test]
async fn adopting_another_estates_bucket_is_refused() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "tofu-estate": "other", "tofu-address": "aws_s3_bucket.data" } }
        ]}"#,
    );
    let outcome = world.adopt(BUCKET, "aws_s3_bucket.data", None).await;
    let lines: Vec<String> = outcome
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    expect![[r#"
        [
            "error [adopt-refused]: the object is owned by another estate, other",
        ]
    "#]]
    .assert_debug_eq(&lines);
}

#[tokio::test]
async fn mv_rewrites_the_address_marker_and_the_next_plan_is_empty() {
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.old" } }
        ]}"#,
    );
    let plan = world.plan(config).await;
    assert_eq!(plan.rename_hints.len(), 1);
    let outcome = world
        .mv(config, "aws_vpc.old", "aws_vpc.main", MvOptions::default())
        .await;
    assert!(outcome.succeeded(), "{:?}", outcome.diagnostics);
    assert_eq!(outcome.id.as_deref(), Some("vpc-00000001"));
    assert!(world.plan(config).await.summary().is_empty());
    let refused = world
        .mv(config, "aws_vpc.old", "aws_vpc.main", MvOptions::default())
        .await;
    assert_eq!(refused.diagnostics[0].code, admission::Code::MvRefused);
}

/// Adopts `address` (with `id`, if given) under `config`, returning the diagnostics one line each
/// (summary, then detail), empty when it succeeded.
async fn adopt(world: &Bench, config: &str, address: &str, id: Option<&str>) -> String {
    let outcome = world.adopt(config, address, id).await;
    outcome
        .diagnostics
        .iter()
        .map(|d| format!("{d}\n  {}\n", d.detail))
        .collect()
}

/// Creates an object with no markers, as someone working by hand would; returns its id.
async fn hand_made(world: &Bench, type_name: &str, attributes: &[(&str, &str)]) -> String {
    let attributes = attributes
        .iter()
        .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
        .collect();
    let tags = [("Owner".to_owned(), "ops".to_owned())].into();
    world
        .cloud
        .create(type_name, &attributes, &tags)
        .await
        .expect("the hand-made object is created")
        .object
        .id
}

#[tokio::test]
async fn adopting_a_bucket_other_than_the_declared_identity_is_refused() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "precious-prod-data",
            "attributes": { "bucket": "precious-prod-data" }, "tags": { "Owner": "prod" } }
        ]}"#,
    );
    let before = live_tags(&world).await;
    expect![[r#"
        error [adopt-refused]: precious-prod-data is not the object at the declared identity acme-data
          adopt takes only the object the configuration names, since the next apply would replace any other: run liveplan adopt without --id to adopt acme-data, or change the configuration to name this object; nothing was changed
    "#]]
    .assert_eq(&adopt(&world, BUCKET, "aws_s3_bucket.data", Some("precious-prod-data")).await);
    assert_eq!(live_tags(&world).await, before, "no tag was written");
    assert_eq!(world.record_keys().await, Vec::<String>::new());
    // The plan still creates the declared bucket and leaves the other one alone.
    let plan = world.plan(BUCKET).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
}

#[tokio::test]
async fn adopting_the_declared_identity_by_its_id_is_allowed() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" } }
        ]}"#,
    );
    assert_eq!(
        adopt(&world, BUCKET, "aws_s3_bucket.data", Some("acme-data")).await,
        ""
    );
    assert!(world.plan(BUCKET).await.summary().is_empty());
}

const VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;

#[tokio::test]
async fn adopting_an_object_that_is_not_a_bind_candidate_is_refused() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000006", "attributes": { "cidr_block": "10.9.0.0/16" },
            "tags": { "Name": "other" } }
        ]}"#,
    );
    let before = live_tags(&world).await;
    expect![[r#"
        error [adopt-refused]: vpc-00000006 is not a bind candidate of the address
          its bind-candidate fields do not equal the declared values, so the next apply would replace or change it: adopt one of the objects liveplan plan lists under Adoption candidates, or change the configuration to match this object; nothing was changed
    "#]]
    .assert_eq(&adopt(&world, VPC, "aws_vpc.main", Some("vpc-00000006")).await);
    assert_eq!(live_tags(&world).await, before, "no tag was written");
    assert_eq!(world.record_keys().await, Vec::<String>::new());
    let plan = world.plan(VPC).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
}

#[tokio::test]
async fn one_of_two_ambiguous_candidates_can_be_adopted_by_id() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" } },
          { "type": "aws_vpc", "id": "vpc-00000002", "attributes": { "cidr_block": "10.0.0.0/16" } }
        ]}"#,
    );
    let plan = world.plan(VPC).await;
    assert!(plan.bind_candidates.is_empty(), "neither is offered");
    assert_eq!(
        adopt(&world, VPC, "aws_vpc.main", Some("vpc-00000002")).await,
        ""
    );
    let plan = world.plan(VPC).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    assert_eq!(plan.foreign.len(), 1, "the other one stays foreign");
}

#[tokio::test]
async fn a_count_member_of_a_marker_type_is_never_a_bind_candidate() {
    // Count members bind by slot order, not by content, so the plan offers no candidate for them
    // (admission.md) and adopt refuses them alike.
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "s" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
"#;
    let world = Bench::empty();
    world
        .converge(&config.replace("count      = 2", "count      = 1"))
        .await;
    let plan = world.plan(config).await;
    let vpc = &plan
        .prior(&"aws_vpc.main".parse().unwrap())
        .expect("the VPC is bound")
        .id;
    let id = hand_made(
        &world,
        "aws_subnet",
        &[("vpc_id", vpc), ("cidr_block", "10.0.2.0/24")],
    )
    .await;
    let refused = adopt(&world, config, "aws_subnet.s[1]", Some(&id)).await;
    assert!(
        refused.starts_with(&format!(
            "error [adopt-refused]: {id} is not a bind candidate"
        )),
        "{refused}"
    );
}

const IAM: &str = r#"
live {
  estate = "acme"
}

resource "aws_iam_role" "r" {
  name               = "acme-r"
  assume_role_policy = "{}"
}

resource "aws_iam_user" "u" {
  name = "acme-u"
}
"#;

#[tokio::test]
async fn adopted_roles_and_users_are_located_and_deleted_once_undeclared() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_iam_role", "id": "acme-r",
            "attributes": { "name": "acme-r", "assume_role_policy": "{}" } },
          { "type": "aws_iam_user", "id": "acme-u", "attributes": { "name": "acme-u" } }
        ]}"#,
    );
    assert_eq!(adopt(&world, IAM, "aws_iam_role.r", None).await, "");
    assert_eq!(adopt(&world, IAM, "aws_iam_user.u", None).await, "");
    // The tagging API does not see IAM: the located records are how the estate finds them again. The
    // create intents are the claims adopt took before it wrote the tags, settled once they were.
    expect![[r#"
        [
            "acme/intent/aws_iam_role/YXdzX2lhbV9yb2xlLnI",
            "acme/intent/aws_iam_user/YXdzX2lhbV91c2VyLnU",
            "acme/located/aws_iam_role/YXdzX2lhbV9yb2xlLnI",
            "acme/located/aws_iam_user/YXdzX2lhbV91c2VyLnU",
        ]
    "#]]
    .assert_debug_eq(&world.record_keys().await);
    let plan = world.plan(IAM).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    let emptied = "live {\n  estate = \"acme\"\n}\n";
    let plan = world.plan(emptied).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 0 to change, 2 to destroy."
    );
    world.converge(emptied).await;
    assert_eq!(live_tags(&world).await, "");
    assert_eq!(world.record_keys().await, Vec::<String>::new());
}

const BUCKETS: &str = r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "b" {
  count  = 3
  bucket = "acme-${count.index}"
}
"#;

#[tokio::test]
async fn an_adopted_count_member_gets_a_slot_never_used_before() {
    let world = Bench::empty();
    world.converge(BUCKETS).await;
    // The member with slot 2 is destroyed; its slot stays taken in the block's record.
    world
        .converge(&BUCKETS.replace("count  = 3", "count  = 2"))
        .await;
    hand_made(&world, "aws_s3_bucket", &[("bucket", "acme-2")]).await;
    assert_eq!(world.plan(BUCKETS).await.unowned.len(), 1);
    assert_eq!(adopt(&world, BUCKETS, "aws_s3_bucket.b[2]", None).await, "");
    expect![[r#"
        aws_s3_bucket acme-0 [tofu-address=aws_s3_bucket.b:0 tofu-estate=acme tofu-slot=0]
        aws_s3_bucket acme-1 [tofu-address=aws_s3_bucket.b:1 tofu-estate=acme tofu-slot=1]
        aws_s3_bucket acme-2 [Owner=ops tofu-address=aws_s3_bucket.b:2 tofu-estate=acme tofu-slot=3]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let plan = world.plan(BUCKETS).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    // The next member is minted above the adopted slot.
    let plan = world
        .plan(&BUCKETS.replace("count  = 3", "count  = 4"))
        .await;
    let created: Vec<_> = plan.effective_changes().collect();
    assert_eq!(created.len(), 1);
    let created = created[0];
    assert_eq!(created.address.to_string(), "aws_s3_bucket.b[3]");
    assert_eq!(created.slot.map(|s| s.to_string()).as_deref(), Some("4"));
}

#[tokio::test]
async fn a_malformed_marker_is_adopted_the_way_its_diagnostic_says() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "Team": "data" } }
        ]}"#,
    );
    let plan = world.plan(BUCKET).await;
    let malformed = plan
        .diagnostics
        .iter()
        .find(|d| d.code == admission::Code::MalformedMarker)
        .expect("the marker is reported malformed");
    expect![[r#"
        The object is bound to no instance and is never changed. Fix its tofu-* tags by hand, or remove them all so that it is foreign and run the liveplan adopt command the next plan offers for it."#]]
    .assert_eq(&malformed.detail);
    // Adopt does not take an object that carries this estate's tag, and says what to do instead.
    expect![[r#"
        error [adopt-refused]: the object already belongs to this estate
          it carries this estate's tofu-estate tag; if the plan reports its markers as malformed, fix its tofu-* tags by hand, or remove them all and adopt it then; nothing was changed
    "#]]
    .assert_eq(&adopt(&world, BUCKET, "aws_s3_bucket.data", None).await);
    // The step the diagnostic names: remove the markers, then run the command the plan offers.
    let change = provider::TagChange {
        set: Default::default(),
        remove: ["tofu-estate".to_owned(), "tofu-address".to_owned()].into(),
    };
    provider::Provider::update_tags(
        world.cloud.as_ref(),
        &provider::Call::unrecorded(),
        "aws_s3_bucket",
        "acme-data",
        change,
    )
    .await
    .expect("the tags are removed");
    let plan = world.plan(BUCKET).await;
    assert!(
        text(&plan).contains("to adopt it: liveplan adopt aws_s3_bucket.data"),
        "{}",
        text(&plan)
    );
    assert_eq!(adopt(&world, BUCKET, "aws_s3_bucket.data", None).await, "");
    let plan = world.plan(BUCKET).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
    assert!(plan.diagnostics.is_empty(), "{}", text(&plan));
}

#[tokio::test]
async fn adopt_retries_its_own_reads_as_a_plan_does() {
    let mut world = Bench::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "Team": "data" } }
        ]}"#,
    );
    // The look for objects already carrying the address (the tagging API) is throttled twice, as is the
    // read at the declared identity: both are retried, so the adoption goes through.
    let faults = fixtures::FaultPlan::none()
        .with(
            "tagging:GetResources",
            fixtures::FaultKind::Throttle,
            fixtures::Trigger::Times(2),
        )
        .and_then(|f| {
            f.with(
                "s3:HeadBucket",
                fixtures::FaultKind::Throttle,
                fixtures::Trigger::Times(2),
            )
        })
        .expect("known operations");
    world.with_faults(faults).await;
    assert_eq!(adopt(&world, BUCKET, "aws_s3_bucket.data", None).await, "");
    expect![[r#"
        aws_s3_bucket acme-data [Team=data tofu-address=aws_s3_bucket.data tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
}
