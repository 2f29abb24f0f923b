//! End to end on the simulated cloud: the tags a configuration writes, from plan text and JSON to what apply
//! leaves on the live objects, and the plan after that.

use expect_test::expect;

use crate::support::{Bench, diagnostics, json, live_tags, text};

/// The `tags_all` line of the plan text for `address` (the line after its resource header holding
/// `tags_all`: every tag, markers included).
fn tags_all_line(plan_text: &str, address: &str) -> String {
    let header = format!("# {address} ");
    plan_text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&header))
        .find(|l| {
            l.trim_start()
                .trim_start_matches(['+', '~', ' '])
                .starts_with("tags_all ")
        })
        .map(|l| l.trim().to_owned())
        .unwrap_or_default()
}

/// The `after_unknown` list of `address` in the plan JSON.
fn after_unknown(plan_json: &str, address: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(plan_json).expect("plan JSON");
    doc["resource_changes"]
        .as_array()
        .expect("a change list")
        .iter()
        .find(|c| c["address"] == address)
        .map(|c| {
            c["after_unknown"]
                .as_array()
                .expect("after_unknown")
                .iter()
                .map(|p| p.as_str().expect("a path").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

const SUBNET_TAGGED_WITH_VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.0.1.0/24"
  tags       = { VpcId = aws_vpc.main.id, Name = "a", Rank = 5, Public = false }
}
"#;

#[tokio::test]
async fn tag_unknown_at_plan_time_is_planned_unknown_and_created_with_its_value() {
    let world = Bench::empty();
    let plan = world.plan(SUBNET_TAGGED_WITH_VPC).await;
    // Unknown, not the text of the placeholder; numbers and bools are converted as for `map(string)`.
    expect![[r#"+ tags_all                = { Name = "a", Public = "false", Rank = "5", VpcId = (known after apply), tofu-address = "aws_subnet.a", tofu-estate = "acme" }"#]]
        .assert_eq(&tags_all_line(&text(&plan), "aws_subnet.a"));
    let unknown = after_unknown(&json(&plan), "aws_subnet.a");
    assert!(
        unknown.contains(&"tags.VpcId".to_owned()),
        "after_unknown lists the tag: {unknown:?}"
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_subnet subnet-00000001 [Name=a Public=false Rank=5 VpcId=vpc-00000001 tofu-address=aws_subnet.a tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(SUBNET_TAGGED_WITH_VPC).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn tag_unknown_at_plan_time_is_an_update_that_writes_its_value() {
    let world = Bench::empty();
    world.converge(SUBNET_TAGGED_WITH_VPC).await;
    // The subnet's tag now names a VPC the same apply creates.
    let config = SUBNET_TAGGED_WITH_VPC.replace(
        "VpcId = aws_vpc.main.id",
        "VpcId = aws_vpc.main.id, Peer = aws_vpc.peer.id",
    ) + r#"
resource "aws_vpc" "peer" {
  cidr_block = "10.1.0.0/16"
}
"#;
    let plan = world.plan(&config).await;
    expect![[r#"~ tags_all                = { Name = "a", Public = "false", Rank = "5", VpcId = "vpc-00000001", tofu-address = "aws_subnet.a", tofu-estate = "acme" } -> { Name = "a", Peer = (known after apply), Public = "false", Rank = "5", VpcId = "vpc-00000001", tofu-address = "aws_subnet.a", tofu-estate = "acme" }"#]]
        .assert_eq(&tags_all_line(&text(&plan), "aws_subnet.a"));
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 1 to change, 0 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_subnet subnet-00000001 [Name=a Peer=vpc-00000002 Public=false Rank=5 VpcId=vpc-00000001 tofu-address=aws_subnet.a tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
        aws_vpc vpc-00000002 [tofu-address=aws_vpc.peer tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

const VPC_IGNORING_NAME: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = { Name = "cfg-name", Owner = "net", Env = "prod" }

  lifecycle {
    ignore_changes = [tags["Name"], tags["Owner"]]
  }
}
"#;

#[tokio::test]
async fn ignored_tag_keeps_its_live_value_and_absence_through_apply() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "Name": "live-name", "Env": "dev" } }
        ]}"#,
    );
    let plan = world.plan(VPC_IGNORING_NAME).await;
    expect![[r#"~ tags_all             = { Env = "dev", Name = "live-name", tofu-address = "aws_vpc.main", tofu-estate = "acme" } -> { Env = "prod", Name = "live-name", tofu-address = "aws_vpc.main", tofu-estate = "acme" }"#]]
        .assert_eq(&tags_all_line(&text(&plan), "aws_vpc.main"));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_vpc vpc-00000001 [Env=prod Name=live-name tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(VPC_IGNORING_NAME).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn ignored_tag_is_written_from_the_configuration_on_create() {
    let world = Bench::empty();
    world.converge(VPC_IGNORING_NAME).await;
    expect![[r#"
        aws_vpc vpc-00000001 [Env=prod Name=cfg-name Owner=net tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    // Changing an ignored tag in the configuration plans nothing for the existing object.
    let renamed = VPC_IGNORING_NAME.replace("cfg-name", "other-name");
    let again = world.plan(&renamed).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

#[tokio::test]
async fn older_grammar_marker_is_kept_through_an_update() {
    let world = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
          { "type": "aws_subnet", "id": "subnet-00000001",
            "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.1.0/24" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.this:alice.smith" } }
        ]}"#,
    );
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "this" {
  for_each   = { "alice.smith" = "10.0.1.0/24" }
  vpc_id     = aws_vpc.main.id
  cidr_block = each.value
  tags       = { Team = "net" }
}
"#;
    let plan = world.plan(config).await;
    // The tag the configuration adds is the only change: the marker stays as the object carries it.
    expect![[r#"~ tags_all                = { tofu-address = "aws_subnet.this:alice.smith", tofu-estate = "acme" } -> { Team = "net", tofu-address = "aws_subnet.this:alice.smith", tofu-estate = "acme" }"#]]
        .assert_eq(&tags_all_line(&text(&plan), r#"aws_subnet.this["alice.smith"]"#));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    expect![[r#"
        aws_subnet subnet-00000001 [Team=net tofu-address=aws_subnet.this:alice.smith tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let again = world.plan(config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
}

/// `timestamp()` as Terraform writes it: RFC 3339, UTC, to the second.
fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 20
        && text.ends_with('Z')
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && b.iter()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19].contains(&i) || c.is_ascii_digit())
}

#[tokio::test]
async fn timestamp_and_uuid_are_unknown_in_the_plan_and_written_by_apply() {
    let world = Bench::empty();
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = { Stamp = timestamp() }
}

output "id" {
  value = uuid()
}
"#;
    let plan = world.plan(config).await;
    assert_eq!(
        tags_all_line(&text(&plan), "aws_vpc.main"),
        "+ tags_all             = { Stamp = (known after apply), tofu-address = \"aws_vpc.main\", tofu-estate = \"acme\" }"
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    let stamp = &snapshot.resources[0].tags["Stamp"];
    assert!(is_timestamp(stamp), "{stamp}");
    let id = outcome.outputs["id"].as_str().expect("a string").to_owned();
    // A version 4 UUID: 8-4-4-4-12 hexadecimal digits, version digit 4, variant 8 to b.
    assert_eq!(
        id.split('-').map(str::len).collect::<Vec<_>>(),
        [8, 4, 4, 4, 12],
        "{id}"
    );
    assert_eq!(&id[14..15], "4", "{id}");
    assert!("89ab".contains(&id[19..20]), "{id}");
}

#[tokio::test]
async fn a_key_whose_current_marker_is_another_keys_older_form_binds_to_its_own_object() {
    // `x+y` is marked `x++y` today, which is also how the grammar before separator escaping wrote the key
    // `x++y`: each object must still go to the key it was created for.
    let world = Bench::empty();
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "v" {
  for_each   = { "x+y" = "10.1.0.0/16", "x++y" = "10.2.0.0/16" }
  cidr_block = each.value
}
"#;
    world.converge(config).await;
    let plan = world.plan(config).await;
    assert_eq!(
        text(&plan),
        "No changes. The live system matches the configuration.\n"
    );
    expect![[r#"
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.v:x++++y tofu-estate=acme]
        aws_vpc vpc-00000002 [tofu-address=aws_vpc.v:x++y tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
}
