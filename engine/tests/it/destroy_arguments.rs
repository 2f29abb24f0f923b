//! The arguments that change what a destroy does, on the simulated cloud: a bucket whose applied
//! `force_destroy` is true is emptied before its delete (and one without it is refused while it holds
//! objects), a log group whose applied `skip_destroy` is true is left in place with this estate's markers
//! taken off, and the new arguments of roles, log groups, VPCs, elastic IPs and routes round-trip.

use std::sync::Arc;

use fixtures::{SimCloud, SimConfig};

use crate::support::{Bench, diagnostics, text};

const LIVE: &str = "live {\n  estate = \"acme\"\n}\n";

fn bucket(force_destroy: bool) -> String {
    format!(
        "{LIVE}\nresource \"aws_s3_bucket\" \"data\" {{\n  bucket        = \"acme-data\"\n  force_destroy = {force_destroy}\n}}\n"
    )
}

impl Bench {
    /// The same cloud with `keys` stored in the bucket `bucket` (the records stay).
    async fn with_contents(&mut self, bucket: &str, keys: &[&str]) {
        let mut snapshot = self.cloud.snapshot().await.expect("a snapshot");
        let res = snapshot
            .resources
            .iter_mut()
            .find(|r| r.id == bucket)
            .expect("the bucket exists");
        res.contents = keys.iter().map(|k| (*k).to_owned()).collect();
        self.cloud = Arc::new(
            SimCloud::from_snapshot(&snapshot, SimConfig::default()).expect("the snapshot loads"),
        );
    }

    /// The live resources of the cloud as `type id` lines.
    async fn objects(&self) -> Vec<String> {
        let snapshot = self.cloud.snapshot().await.expect("a snapshot");
        snapshot
            .resources
            .iter()
            .map(|r| format!("{} {}", r.type_name, r.id))
            .collect()
    }
}

#[tokio::test]
async fn destroy_arguments_force_destroy_empties_the_bucket_before_its_delete() {
    let mut bench = Bench::empty();
    bench.converge(&bucket(true)).await;
    bench
        .with_contents("acme-data", &["a.txt", "logs/b.txt"])
        .await;
    let plan = bench.plan(LIVE).await;
    let shown = text(&plan);
    assert!(
        shown.contains("# aws_s3_bucket.data will be destroyed")
            && shown.contains("(no longer declared; what it holds is deleted first)"),
        "{shown}"
    );
    let outcome = bench.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(bench.objects().await, Vec::<String>::new());
}

#[tokio::test]
async fn destroy_arguments_a_bucket_without_force_destroy_is_not_emptied() {
    let mut bench = Bench::empty();
    bench.converge(&bucket(false)).await;
    bench.with_contents("acme-data", &["a.txt"]).await;
    let plan = bench.plan(LIVE).await;
    assert!(!text(&plan).contains("what it holds"), "{}", text(&plan));
    let outcome = bench.apply(plan).await;
    let shown = diagnostics(&outcome);
    assert!(
        shown.contains("destroying aws_s3_bucket.data (acme-data) failed")
            && shown.contains("the bucket `acme-data` is not empty: it holds 1 object(s)"),
        "{shown}"
    );
    let snapshot = bench.cloud.snapshot().await.unwrap();
    assert_eq!(snapshot.resources[0].contents, ["a.txt"]);
}

#[tokio::test]
async fn destroy_arguments_force_destroy_set_later_takes_an_apply_first() {
    // As in Terraform, the value that counts is the applied one: set true, it is applied (an update with
    // no API call, kept as residue) before a destroy can use it.
    let mut bench = Bench::empty();
    bench.converge(&bucket(false)).await;
    let plan = bench.plan(&bucket(true)).await;
    assert!(
        text(&plan).contains("~ force_destroy = false -> true"),
        "{}",
        text(&plan)
    );
    assert_eq!(diagnostics(&bench.apply(plan).await), "");
    bench.with_contents("acme-data", &["a.txt"]).await;
    let outcome = bench.apply(bench.plan(LIVE).await).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(bench.objects().await, Vec::<String>::new());
}

#[tokio::test]
async fn destroy_arguments_skip_destroy_releases_the_log_group_and_keeps_it() {
    let bench = Bench::empty();
    let config = format!(
        "{LIVE}\nresource \"aws_cloudwatch_log_group\" \"audit\" {{\n  name              = \"/acme/audit\"\n  retention_in_days = 30\n  log_group_class   = \"INFREQUENT_ACCESS\"\n  skip_destroy      = true\n}}\n"
    );
    bench.converge(&config).await;
    assert!(bench.plan(&config).await.summary().is_empty());
    let plan = bench.plan(LIVE).await;
    let shown = text(&plan);
    assert!(
        shown.contains(
            "(no longer declared; kept in place: only this estate's ownership tags are removed)"
        ),
        "{shown}"
    );
    let outcome = bench.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let snapshot = bench.cloud.snapshot().await.unwrap();
    let group = &snapshot.resources[0];
    assert_eq!(group.id, "/acme/audit");
    assert_eq!(group.tags, Default::default(), "the markers are gone");
    assert_eq!(group.attributes["retention_in_days"], 30);
    assert_eq!(group.attributes["log_group_class"], "INFREQUENT_ACCESS");
    // Released, it is no longer this estate's: nothing is planned for it.
    assert!(bench.plan(LIVE).await.summary().is_empty());
}

#[tokio::test]
async fn destroy_arguments_new_arguments_round_trip_on_the_simulated_cloud() {
    let bench = Bench::empty();
    let config = format!(
        r#"{LIVE}
resource "aws_iam_role" "svc" {{
  name                  = "acme-svc"
  path                  = "/services/"
  assume_role_policy    = "{{}}"
  max_session_duration  = 7200
  permissions_boundary  = "arn:aws:iam::123456789012:policy/boundary"
  force_detach_policies = true
}}

resource "aws_cloudwatch_log_group" "app" {{
  name       = "/acme/app"
  kms_key_id = "arn:aws:kms:us-east-1:123456789012:key/k1"
}}

resource "aws_vpc" "main" {{
  cidr_block       = "10.0.0.0/16"
  instance_tenancy = "dedicated"
}}

resource "aws_route_table" "rt" {{
  vpc_id = aws_vpc.main.id
}}

resource "aws_route" "eni" {{
  route_table_id         = aws_route_table.rt.id
  destination_cidr_block = "10.1.0.0/16"
  network_interface_id   = "eni-00000001"
}}

resource "aws_eip" "ip" {{
  network_interface = "eni-00000001"
}}
"#
    );
    bench.converge(&config).await;
    let snapshot = bench.cloud.snapshot().await.unwrap();
    let attr = |ty: &str, name: &str| {
        let r = snapshot
            .resources
            .iter()
            .find(|r| r.type_name == ty)
            .unwrap();
        r.attributes[name].clone()
    };
    assert_eq!(attr("aws_iam_role", "path"), "/services/");
    assert_eq!(attr("aws_iam_role", "max_session_duration"), 7200);
    assert_eq!(
        attr("aws_iam_role", "permissions_boundary"),
        "arn:aws:iam::123456789012:policy/boundary"
    );
    assert_eq!(
        attr("aws_cloudwatch_log_group", "kms_key_id"),
        "arn:aws:kms:us-east-1:123456789012:key/k1"
    );
    assert_eq!(
        attr("aws_cloudwatch_log_group", "log_group_class"),
        "STANDARD"
    );
    assert_eq!(attr("aws_vpc", "instance_tenancy"), "dedicated");
    assert_eq!(attr("aws_route", "network_interface_id"), "eni-00000001");
    assert_eq!(attr("aws_eip", "network_interface"), "eni-00000001");
    let again = bench.plan(&config).await;
    assert!(again.summary().is_empty(), "{}", text(&again));
    // In place: the session duration; forcing a new role: its path.
    let changed = config
        .replace(
            "max_session_duration  = 7200",
            "max_session_duration  = 3600",
        )
        .replace("\"/services/\"", "\"/jobs/\"");
    let shown = text(&bench.plan(&changed).await);
    assert!(
        shown.contains("~ max_session_duration  = 7200 -> 3600")
            && shown.contains(
                "~ path                  = \"/services/\" -> \"/jobs/\" # forces replacement"
            ),
        "{shown}"
    );
}
