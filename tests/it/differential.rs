//! The differential suite: the same journeys run against the simulated cloud and against the AWS
//! provider on the local AWS emulator (each run in an emulator account of its own, so no test sees
//! another's objects), and must give the same plans and reports. A journey is a function of a
//! [`Cloud`] that asserts what a user would notice (plan lines, reports, `No changes.`) and returns the
//! transcript of what it saw; the two transcripts are compared after normalising minted ids (`<vpc-1>`
//! by order of first appearance) and sorting each report's lines. Where the two clouds differ on
//! purpose, the journey asserts the documented difference (README's "Running against a local AWS
//! emulator").
//!
//! The same journeys written as modules are in `differential_modules`.

use std::future::Future;

use serde_json::json;

use crate::differential_support::{
    Cloud, Kind, KnownDifference, NO_CHANGES, Transcript, summary_line, unique_name,
};

/// Runs `journey` on the simulated cloud, then on the emulator, and compares the transcripts, the
/// `known` differences laid over the simulated cloud's (each must show). Both transcripts are written
/// under the test's temporary directory (`differential/HINT.*.txt`) for review.
pub(crate) async fn differential<F, Fut>(hint: &str, known: &'static [KnownDifference], journey: F)
where
    F: Fn(Cloud) -> Fut,
    Fut: Future<Output = Transcript>,
{
    let name = unique_name(hint);
    let expected = journey(Cloud::new(Kind::Sim, &name, known).await)
        .await
        .finished();
    let emulator = journey(Cloud::new(Kind::Emulator, &name, known).await)
        .await
        .finished();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("differential");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{hint}.sim.txt")), &expected);
    let _ = std::fs::write(dir.join(format!("{hint}.emulator.txt")), &emulator);
    if emulator != expected {
        let first = expected
            .lines()
            .zip(emulator.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let around = |t: &str| {
            let lines: Vec<&str> = t.lines().skip(first.saturating_sub(3)).take(7).collect();
            lines.join("\n")
        };
        panic!(
            "the transcripts differ from line {}; simulated cloud:\n{}\nemulator:\n{}\n(both in {})",
            first + 1,
            around(&expected),
            around(&emulator),
            dir.display()
        );
    }
}

/// The `live` block of the estate `name`.
pub(crate) fn live(name: &str) -> String {
    format!("live {{\n  estate = \"{name}\"\n}}\n")
}

/// Plans `config`, records the text under `title`, asserts its summary line, and applies it.
pub(crate) async fn plan_and_apply(
    cloud: &Cloud,
    transcript: &mut Transcript,
    title: &str,
    config: &str,
    summary: &str,
) -> crate::differential_support::Applied {
    let (plan, text) = cloud
        .plan_text(transcript, &format!("plan: {title}"), config)
        .await;
    assert_eq!(summary_line(&text), summary, "{:?}: {text}", cloud.kind);
    let applied = cloud.apply(plan).await;
    transcript.step(&format!("apply: {title}"), &applied.report);
    assert!(
        applied.report.ends_with(" destroyed.\n") && !applied.report.contains("error"),
        "{:?}: {}",
        cloud.kind,
        applied.report
    );
    applied
}

/// Plans `config` and asserts that it is converged; the text is recorded under `title`.
pub(crate) async fn converged(
    cloud: &Cloud,
    transcript: &mut Transcript,
    title: &str,
    config: &str,
) {
    let (_, text) = cloud
        .plan_text(transcript, &format!("re-plan: {title}"), config)
        .await;
    assert_eq!(summary_line(&text), NO_CHANGES, "{:?}: {text}", cloud.kind);
}

/// One object of every type both clouds serve, the network's objects tied together.
fn every_type(name: &str) -> String {
    format!(
        r#"
resource "aws_s3_bucket" "data" {{
  bucket = "{name}-data"
}}

resource "aws_s3_bucket_versioning" "data" {{
  bucket = aws_s3_bucket.data.id
  versioning_configuration {{
    status = "Enabled"
  }}
}}

resource "aws_vpc" "main" {{
  cidr_block = "10.20.0.0/16"
}}

resource "aws_subnet" "a" {{
  vpc_id            = aws_vpc.main.id
  cidr_block        = "10.20.1.0/24"
  availability_zone = "us-east-1a"
}}

resource "aws_security_group" "web" {{
  name   = "{name}-web"
  vpc_id = aws_vpc.main.id
}}

resource "aws_internet_gateway" "gw" {{
  vpc_id = aws_vpc.main.id
}}

resource "aws_route_table" "public" {{
  vpc_id = aws_vpc.main.id
}}

resource "aws_route" "out" {{
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}}

resource "aws_route_table_association" "a" {{
  subnet_id      = aws_subnet.a.id
  route_table_id = aws_route_table.public.id
}}

resource "aws_eip" "nat" {{
  domain = "vpc"
}}

resource "aws_iam_role" "deployer" {{
  name = "{name}-deployer"
  assume_role_policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = "sts:AssumeRole", Principal = {{ Service = "ec2.amazonaws.com" }} }}]
  }})
}}

resource "aws_iam_user" "ci" {{
  name = "{name}-ci"
}}

resource "aws_iam_access_key" "ci" {{
  user = aws_iam_user.ci.name
}}

resource "aws_cloudwatch_log_group" "app" {{
  name              = "{name}-app"
  retention_in_days = 30
}}
"#
    )
}

async fn greenfield(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let config = live(&cloud.name) + &every_type(&cloud.name);
    plan_and_apply(
        &cloud,
        &mut t,
        "greenfield",
        &config,
        "Plan: 14 to add, 0 to change, 0 to destroy.",
    )
    .await;
    converged(&cloud, &mut t, "greenfield", &config).await;
    t
}

#[tokio::test]
async fn differential_greenfield_applies_every_type_and_replans_to_no_changes() {
    differential("dgreen", &[], greenfield).await;
}

/// `count` subnets of one VPC.
fn counted_subnets(name: &str, count: usize) -> String {
    live(name)
        + &format!(
            r#"
resource "aws_vpc" "main" {{
  cidr_block = "10.30.0.0/16"
}}

resource "aws_subnet" "part" {{
  count             = {count}
  vpc_id            = aws_vpc.main.id
  cidr_block        = "10.30.${{count.index}}.0/24"
  availability_zone = "us-east-1a"
}}
"#
        )
}

async fn count_scaling(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let two = counted_subnets(&cloud.name, 2);
    let three = counted_subnets(&cloud.name, 3);
    let summary = "Plan: 3 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "two subnets", &two, summary).await;
    let up = "Plan: 1 to add, 0 to change, 0 to destroy.";
    let grown = plan_and_apply(&cloud, &mut t, "scale up to three", &three, up).await;
    assert_eq!(
        grown.order,
        ["create aws_subnet.part[2]"],
        "{:?}",
        cloud.kind
    );
    converged(&cloud, &mut t, "three subnets", &three).await;
    let down = "Plan: 0 to add, 0 to change, 1 to destroy.";
    let shrunk = plan_and_apply(&cloud, &mut t, "scale down to two", &two, down).await;
    assert_eq!(
        shrunk.order,
        ["delete aws_subnet.part[2]"],
        "only the highest slot leaves ({:?})",
        cloud.kind
    );
    converged(&cloud, &mut t, "two subnets again", &two).await;
    t
}

#[tokio::test]
async fn differential_count_scales_up_and_down_and_only_the_highest_slot_leaves() {
    differential("dcount", &[], count_scaling).await;
}

/// Makes one object of every type by hand (no tags), records each id in the transcript, and returns them
/// as `TYPE ID` lines.
async fn make_foreign(cloud: &Cloud, t: &mut Transcript) -> Vec<String> {
    let hand = format!("{}-hand", cloud.name);
    let policy = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Principal":{"Service":"ec2.amazonaws.com"}}]}"#;
    let mut made = Vec::new();
    let mut make = async |type_name: &str, attributes: serde_json::Value| {
        let id = cloud.make(type_name, attributes).await;
        made.push(format!("{type_name} {id}"));
        id
    };
    make("aws_s3_bucket", json!({ "bucket": hand })).await;
    let vpc = make("aws_vpc", json!({ "cidr_block": "10.99.0.0/16" })).await;
    let subnet = make(
        "aws_subnet",
        json!({ "vpc_id": vpc, "cidr_block": "10.99.1.0/24", "availability_zone": "us-east-1a" }),
    )
    .await;
    make(
        "aws_security_group",
        json!({ "vpc_id": vpc, "name": hand, "description": "made by hand" }),
    )
    .await;
    let gateway = make("aws_internet_gateway", json!({ "vpc_id": vpc })).await;
    let table = make("aws_route_table", json!({ "vpc_id": vpc })).await;
    make(
        "aws_route",
        json!({ "route_table_id": table, "destination_cidr_block": "0.0.0.0/0", "gateway_id": gateway }),
    )
    .await;
    make(
        "aws_route_table_association",
        json!({ "route_table_id": table, "subnet_id": subnet }),
    )
    .await;
    make("aws_eip", json!({ "domain": "vpc" })).await;
    make(
        "aws_iam_role",
        json!({ "name": hand, "assume_role_policy": policy }),
    )
    .await;
    make("aws_iam_user", json!({ "name": hand })).await;
    make("aws_iam_access_key", json!({ "user": hand })).await;
    make("aws_cloudwatch_log_group", json!({ "name": hand })).await;
    t.step("made by hand", &made.join("\n"));
    made
}

/// The hand-made objects a configuration names by their names: a bucket, a role, a user, a log group.
fn hand_named(name: &str) -> String {
    format!(
        r#"
resource "aws_s3_bucket" "hand" {{
  bucket = "{name}-hand"
}}

resource "aws_iam_role" "hand" {{
  name               = "{name}-hand"
  assume_role_policy = "{{}}"
}}

resource "aws_iam_user" "hand" {{
  name = "{name}-hand"
}}

resource "aws_cloudwatch_log_group" "hand" {{
  name = "{name}-hand"
}}
"#
    )
}

async fn foreign_objects(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let made = make_foreign(&cloud, &mut t).await;
    let config = live(&cloud.name) + &every_type(&cloud.name);
    let summary = "Plan: 14 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "beside foreign objects", &config, summary).await;
    let (_, text) = cloud
        .plan_text(&mut t, "re-plan: beside foreign objects", &config)
        .await;
    assert_eq!(summary_line(&text), NO_CHANGES, "{:?}: {text}", cloud.kind);
    // The objects of the marker types are reported, still untagged after the apply; a client-named
    // object is no one's business but the configuration that names it, and a table's children are
    // inside a foreign table.
    let reported: Vec<&String> = made
        .iter()
        .filter(|m| text.contains(&format!("\n  {m}\n")))
        .collect();
    let types: Vec<&str> = reported
        .iter()
        .filter_map(|m| m.split(' ').next())
        .collect();
    assert_eq!(
        types,
        [
            "aws_vpc",
            "aws_subnet",
            "aws_security_group",
            "aws_internet_gateway",
            "aws_route_table",
            "aws_eip"
        ],
        "{:?}: {text}",
        cloud.kind
    );
    // A key made by hand under the estate's own user is foreign too, and stays.
    let key = cloud
        .make(
            "aws_iam_access_key",
            json!({ "user": format!("{}-ci", cloud.name) }),
        )
        .await;
    t.step("made by hand", &format!("aws_iam_access_key {key}"));
    let (_, again) = cloud
        .plan_text(
            &mut t,
            "re-plan: a hand-made key of the estate's user",
            &config,
        )
        .await;
    assert!(
        again.contains(&format!("  aws_iam_access_key {key}\n")),
        "{:?}: {again}",
        cloud.kind
    );
    assert_eq!(summary_line(&again), NO_CHANGES, "{:?}", cloud.kind);
    // Named in the configuration, the hand-made bucket, role, user and log group are still there,
    // carrying no marker: the plan blocks each and offers to adopt it.
    let named = config + &hand_named(&cloud.name);
    let (_, blocked) = cloud
        .plan_text(&mut t, "plan: the hand-made named objects declared", &named)
        .await;
    let hand = format!("{}-hand", cloud.name);
    for address in [
        "aws_s3_bucket.hand",
        "aws_iam_role.hand",
        "aws_iam_user.hand",
        "aws_cloudwatch_log_group.hand",
    ] {
        let line = format!(
            "  {address}: {hand} has no estate marker; to adopt it: liveplan adopt {address}\n"
        );
        assert!(blocked.contains(&line), "{:?}: {blocked}", cloud.kind);
    }
    assert_eq!(summary_line(&blocked), NO_CHANGES, "{:?}", cloud.kind);
    t
}

#[tokio::test]
async fn differential_foreign_objects_of_every_type_are_reported_and_left_untouched() {
    differential("dforeign", &[], foreign_objects).await;
}

/// A bucket and a log group at identities the configuration names.
fn client_named(name: &str) -> String {
    live(name)
        + &format!(
            r#"
resource "aws_s3_bucket" "kept" {{
  bucket = "{name}-kept"
}}

resource "aws_cloudwatch_log_group" "kept" {{
  name = "{name}-kept"
}}
"#
        )
}

async fn adoption(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let kept = format!("{}-kept", cloud.name);
    cloud.make("aws_s3_bucket", json!({ "bucket": kept })).await;
    cloud
        .make("aws_cloudwatch_log_group", json!({ "name": kept }))
        .await;
    let config = client_named(&cloud.name);
    let (_, text) = cloud
        .plan_text(&mut t, "plan: identities held by unowned objects", &config)
        .await;
    // Nothing is planned for either: the plan says so, and how to adopt them.
    assert_eq!(summary_line(&text), NO_CHANGES, "{:?}: {text}", cloud.kind);
    assert!(
        text.contains(&format!(
            "  aws_s3_bucket.kept: {kept} has no estate marker; to adopt it: liveplan adopt aws_s3_bucket.kept\n"
        )),
        "{:?}: {text}",
        cloud.kind
    );
    for address in ["aws_s3_bucket.kept", "aws_cloudwatch_log_group.kept"] {
        let line = cloud.adopt(&config, address).await;
        assert_eq!(
            line,
            format!("{address}: adopted ({kept})"),
            "{:?}",
            cloud.kind
        );
        t.step("adopt", &line);
    }
    converged(&cloud, &mut t, "adopted", &config).await;
    t
}

#[tokio::test]
async fn differential_an_unowned_client_named_object_is_adopted() {
    differential("dadopt", &[], adoption).await;
}

/// A VPC and a log group, the VPC under the block name `vpc`.
fn renamable(name: &str, vpc: &str) -> String {
    live(name)
        + &format!(
            r#"
resource "aws_vpc" "{vpc}" {{
  cidr_block = "10.40.0.0/16"
}}

resource "aws_security_group" "web" {{
  name   = "{name}-web"
  vpc_id = aws_vpc.{vpc}.id
}}
"#
        )
}

async fn rename(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let before = renamable(&cloud.name, "main");
    let summary = "Plan: 2 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "a VPC named main", &before, summary).await;
    let after = renamable(&cloud.name, "core");
    let (plan, text) = cloud
        .plan_text(&mut t, "plan: the VPC renamed core", &after)
        .await;
    assert!(
        plan.rename_hints.len() == 1
            && text.contains("; to rename: liveplan mv aws_vpc.main aws_vpc.core\n"),
        "{:?}: {text}",
        cloud.kind
    );
    let line = cloud.mv(&after, "aws_vpc.main", "aws_vpc.core").await;
    assert!(
        line.starts_with("aws_vpc.main: moved to aws_vpc.core (vpc-"),
        "{line}"
    );
    t.step("mv", &line);
    converged(&cloud, &mut t, "renamed, no churn", &after).await;
    t
}

#[tokio::test]
async fn differential_mv_renames_with_no_churn() {
    differential("dmv", &[], rename).await;
}

/// A log group, a user and a security group in a VPC; `all` false leaves the group and the user out.
fn removable(name: &str, all: bool) -> String {
    let kept = "\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.60.0.0/16\"\n}\n";
    let leaving = format!(
        r#"
resource "aws_cloudwatch_log_group" "old" {{
  name = "{name}-old"
}}

resource "aws_iam_user" "old" {{
  name = "{name}-old"
}}

resource "aws_security_group" "old" {{
  name   = "{name}-old"
  vpc_id = aws_vpc.main.id
}}
"#
    );
    live(name) + kept + if all { leaving.as_str() } else { "" }
}

async fn removal(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let all = removable(&cloud.name, true);
    let summary = "Plan: 4 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "four objects", &all, summary).await;
    let fewer = removable(&cloud.name, false);
    let summary = "Plan: 0 to add, 0 to change, 3 to destroy.";
    let (_, text) = cloud
        .plan_text(&mut t, "plan: three no longer declared (checked)", &fewer)
        .await;
    assert!(
        text.contains("Owned but no longer declared:\n")
            && text.contains(&format!(
                "  aws_cloudwatch_log_group.old: {}-old will be destroyed\n",
                cloud.name
            )),
        "{:?}: {text}",
        cloud.kind
    );
    plan_and_apply(&cloud, &mut t, "three no longer declared", &fewer, summary).await;
    converged(&cloud, &mut t, "removed", &fewer).await;
    t
}

#[tokio::test]
async fn differential_an_owned_object_no_longer_declared_is_removed() {
    differential("dremove", &[], removal).await;
}

/// A log group keeping its events `days` days.
fn retained(name: &str, days: u32) -> String {
    live(name)
        + &format!(
            "\nresource \"aws_cloudwatch_log_group\" \"app\" {{\n  name              = \"{name}-app\"\n  retention_in_days = {days}\n}}\n"
        )
}

async fn drift(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let config = retained(&cloud.name, 30);
    let summary = "Plan: 1 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "a log group", &config, summary).await;
    cloud.set_retention(&format!("{}-app", cloud.name), 7).await;
    t.step("drift", "retention set to 7 days by hand");
    let summary = "Plan: 0 to add, 1 to change, 0 to destroy.";
    let (_, text) = cloud.plan_text(&mut t, "plan: drifted", &config).await;
    assert!(
        text.contains("      ~ retention_in_days = 7 -> 30\n"),
        "{:?}: {text}",
        cloud.kind
    );
    plan_and_apply(&cloud, &mut t, "drift corrected", &config, summary).await;
    converged(&cloud, &mut t, "corrected", &config).await;
    t
}

#[tokio::test]
async fn differential_drift_is_corrected_by_an_update() {
    differential("ddrift", &[], drift).await;
}

/// A VPC with one subnet of `cidr`.
fn one_subnet(name: &str, cidr: &str) -> String {
    live(name)
        + &format!(
            r#"
resource "aws_vpc" "main" {{
  cidr_block = "10.50.0.0/16"
}}

resource "aws_subnet" "a" {{
  vpc_id            = aws_vpc.main.id
  cidr_block        = "{cidr}"
  availability_zone = "us-east-1a"
}}
"#
        )
}

async fn replacement(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let first = one_subnet(&cloud.name, "10.50.1.0/24");
    let summary = "Plan: 2 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "a subnet", &first, summary).await;
    let moved = one_subnet(&cloud.name, "10.50.2.0/24");
    let (_, text) = cloud
        .plan_text(&mut t, "plan: a new range (checked)", &moved)
        .await;
    assert!(
        text.contains("  # aws_subnet.a must be replaced\n")
            && text.lines().any(|l| l.starts_with("      ~ cidr_block ")
                && l.ends_with(" = \"10.50.1.0/24\" -> \"10.50.2.0/24\" # forces replacement")),
        "{:?}: {text}",
        cloud.kind
    );
    let summary = "Plan: 1 to add, 0 to change, 1 to destroy.";
    let applied = plan_and_apply(&cloud, &mut t, "a new range", &moved, summary).await;
    assert_eq!(
        applied.order,
        ["delete aws_subnet.a", "create aws_subnet.a"],
        "destroy before create ({:?})",
        cloud.kind
    );
    converged(&cloud, &mut t, "replaced", &moved).await;
    t
}

#[tokio::test]
async fn differential_a_forced_replacement_destroys_then_creates() {
    differential("dreplace", &[], replacement).await;
}

/// Whether every `(first, then)` pair of deletes completed in that order.
fn ordered(order: &[String], pairs: &[(&str, &str)]) -> String {
    let at = |address: &str| order.iter().position(|o| *o == format!("delete {address}"));
    let lines: Vec<String> = pairs
        .iter()
        .map(|(first, then)| {
            let yes = matches!((at(first), at(then)), (Some(a), Some(b)) if a < b);
            format!(
                "{first} destroyed before {then}: {}",
                if yes { "yes" } else { "no" }
            )
        })
        .collect();
    lines.join("\n") + "\n"
}

async fn blocking_dependency(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let all = live(&cloud.name) + &every_type(&cloud.name);
    let summary = "Plan: 14 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "every type", &all, summary).await;
    // The address stays declared: the emulator cannot find an undeclared one (see the next journey).
    let none = live(&cloud.name) + EIP;
    let summary = "Plan: 0 to add, 0 to change, 13 to destroy.";
    let applied = plan_and_apply(&cloud, &mut t, "nothing declared", &none, summary).await;
    let pairs = [
        ("aws_subnet.a", "aws_vpc.main"),
        ("aws_security_group.web", "aws_vpc.main"),
        ("aws_internet_gateway.gw", "aws_vpc.main"),
        ("aws_route.out", "aws_internet_gateway.gw"),
        ("aws_route.out", "aws_route_table.public"),
        ("aws_route_table_association.a", "aws_subnet.a"),
        ("aws_route_table.public", "aws_vpc.main"),
        ("aws_iam_access_key.ci", "aws_iam_user.ci"),
        ("aws_s3_bucket_versioning.data", "aws_s3_bucket.data"),
    ];
    let report = ordered(&applied.order, &pairs);
    assert!(!report.contains(": no"), "{:?}: {report}", cloud.kind);
    t.step("order of the deletes", &report);
    converged(&cloud, &mut t, "nothing left", &none).await;
    t
}

#[tokio::test]
async fn differential_deletes_blocked_by_dependents_run_in_dependency_order() {
    differential("dorder", &[], blocking_dependency).await;
}

/// An elastic IP, alone.
const EIP: &str = "\nresource \"aws_eip\" \"nat\" {\n  domain = \"vpc\"\n}\n";

/// A known difference (README): the emulator's tagging index holds no elastic IPs, so an owned address
/// no longer declared is destroyed on the simulated cloud (as on AWS) and not found on the emulator.
async fn undeclared_address(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let declared = live(&cloud.name) + EIP;
    let summary = "Plan: 1 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "an address", &declared, summary).await;
    converged(&cloud, &mut t, "an address", &declared).await;
    // Not recorded: the plans differ on purpose.
    let text = cloud.unrecorded_plan_text(&live(&cloud.name)).await;
    let expected = match cloud.kind {
        Kind::Sim => "Plan: 0 to add, 0 to change, 1 to destroy.",
        Kind::Emulator => NO_CHANGES,
    };
    assert_eq!(summary_line(&text), expected, "{:?}: {text}", cloud.kind);
    t.step(
        "plan: the address no longer declared",
        "destroyed on the simulated cloud, not found on the emulator (known difference)",
    );
    t
}

#[tokio::test]
async fn differential_known_difference_an_undeclared_address_is_not_found_on_the_emulator() {
    differential("deip", &[], undeclared_address).await;
}

/// The normalising itself: ids named by kind in order of first appearance (the same id keeps its name,
/// a route id's table too), account ids named, and a report's lines sorted after naming.
#[test]
fn differential_normalising_names_ids_by_first_appearance_and_sorts_reports() {
    let mut t = Transcript::default();
    t.step(
        "made",
        "aws_vpc vpc-0f3a9c2b7d1e4a5b6\naws_vpc vpc-01234567\n",
    );
    t.step(
        "plan",
        "Foreign objects (not managed; never changed):\n  aws_vpc vpc-01234567\n  aws_vpc vpc-0f3a9c2b7d1e4a5b6\n  aws_route rtb-0aa11bb22cc33dd44_0.0.0.0/0\n\narn:aws:ec2:us-east-1:123456789012:vpc/vpc-01234567 AKIAIOSFODNN7EXAMPLE\n",
    );
    assert_eq!(
        t.finished(),
        "== made\naws_vpc <vpc-1>\naws_vpc <vpc-2>\n== plan\nForeign objects (not managed; never changed):\n  aws_route <rtb-1>_0.0.0.0/0\n  aws_vpc <vpc-1>\n  aws_vpc <vpc-2>\n\narn:aws:ec2:us-east-1:<account-1>:vpc/<vpc-2> <AKIA-1>\n"
    );
}

/// A VPC in the home region and, through the alias `west`, a VPC and a log group in `us-west-2`
/// (the second region's objects only when `west`).
fn two_regions(name: &str, west: bool) -> String {
    let providers = "\nprovider \"aws\" {\n  region = \"us-east-1\"\n}\n\nprovider \"aws\" {\n  alias  = \"west\"\n  region = \"us-west-2\"\n}\n\nresource \"aws_vpc\" \"east\" {\n  cidr_block = \"10.70.0.0/16\"\n}\n";
    let second = format!(
        r#"
resource "aws_vpc" "west" {{
  provider   = aws.west
  cidr_block = "10.71.0.0/16"
}}

resource "aws_cloudwatch_log_group" "west" {{
  provider = aws.west
  name     = "{name}-west"
}}
"#
    );
    live(name) + providers + if west { second.as_str() } else { "" }
}

async fn second_region(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let both = two_regions(&cloud.name, true);
    let summary = "Plan: 3 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "two regions", &both, summary).await;
    converged(&cloud, &mut t, "two regions", &both).await;
    // The alias still reaches us-west-2: the estate's objects there leave with their blocks.
    let east = two_regions(&cloud.name, false);
    let summary = "Plan: 0 to add, 0 to change, 2 to destroy.";
    plan_and_apply(
        &cloud,
        &mut t,
        "the second region's blocks gone",
        &east,
        summary,
    )
    .await;
    converged(&cloud, &mut t, "one region left", &east).await;
    t
}

#[tokio::test]
async fn differential_a_second_region_through_a_provider_alias() {
    differential("dregions", &[], second_region).await;
}
