//! The EC2 data sources on the simulated cloud: `aws_availability_zones` and `aws_ami` over the
//! region's built-in zones and images (or a snapshot's), `aws_vpc`, `aws_subnet`, `aws_subnets` and
//! `aws_security_group` over the cloud's objects; each read is one `ec2:Describe*` in the plan's
//! cost, nothing is written, and a failed read or a singular data source without exactly one match
//! is `data-read-failed`, never an empty result.

use std::collections::BTreeMap;

use admission::Value;

use crate::support::{Bench, failing, text};

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

/// The discovery of one bucket `b` of the estate, as every plan here makes it.
const BUCKET_DISCOVERY: [(&str, u64); 3] = [
    ("s3:HeadBucket", 1),
    ("s3:ListBuckets", 1),
    ("tagging:GetResources", 1),
];

/// The planned tags of the one change (the bucket), as strings.
fn planned_tags(plan: &engine::Plan) -> BTreeMap<String, String> {
    let after = plan.changes[0].after.as_ref().expect("a create");
    after
        .get("tags")
        .and_then(Value::as_string_map)
        .unwrap_or_default()
}

fn read_failures(plan: &engine::Plan) -> Vec<String> {
    plan.diagnostics
        .iter()
        .filter(|d| d.code == admission::Code::DataReadFailed)
        .map(|d| d.summary.clone())
        .collect()
}

/// Asserts that the read failures are, in order, of `addresses` and end with the provider's messages.
fn assert_failures(plan: &engine::Plan, expected: &[(&str, &str)]) {
    let failures = read_failures(plan);
    assert_eq!(failures.len(), expected.len(), "{:?}", plan.diagnostics);
    for (got, (address, message)) in failures.iter().zip(expected) {
        assert!(
            got.starts_with(&format!("reading `{address}` failed: ")) && got.ends_with(message),
            "{got}"
        );
    }
}

fn expect(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[tokio::test]
async fn zones_and_the_newest_amazon_linux_image_are_read_with_one_describe_each() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_availability_zones" "available" {
  state = "available"
}
data "aws_ami" "al2023" {
  most_recent = true
  owners      = ["amazon"]
  filter {
    name   = "name"
    values = ["al2023-ami-2023.*-kernel-6.1-x86_64"]
  }
  filter {
    name   = "architecture"
    values = ["x86_64"]
  }
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_availability_zones.available.id}"
  tags = {
    names   = join(",", data.aws_availability_zones.available.names)
    ids     = join(",", data.aws_availability_zones.available.zone_ids)
    groups  = join(",", data.aws_availability_zones.available.group_names)
    ami     = data.aws_ami.al2023.name
    same    = tostring(data.aws_ami.al2023.id == data.aws_ami.al2023.image_id)
    arch    = data.aws_ami.al2023.architecture
    created = data.aws_ami.al2023.creation_date
    owner   = data.aws_ami.al2023.owner_id
    alias   = data.aws_ami.al2023.image_owner_alias
    root    = data.aws_ami.al2023.root_device_type
    virt    = data.aws_ami.al2023.virtualization_type
    arn     = replace(data.aws_ami.al2023.arn, data.aws_ami.al2023.id, "ID")
  }
}
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    assert!(text(&plan).contains(r#""b-us-east-1""#), "{}", text(&plan));
    assert_eq!(
        planned_tags(&plan),
        expect(&[
            (
                "names",
                "us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f"
            ),
            (
                "ids",
                "use1-az6,use1-az1,use1-az2,use1-az4,use1-az3,use1-az5"
            ),
            ("groups", "us-east-1"),
            ("ami", "al2023-ami-2023.6.20250115.0-kernel-6.1-x86_64"),
            ("same", "true"),
            ("arch", "x86_64"),
            ("created", "2025-01-15T20:41:50.000Z"),
            ("owner", "137112412989"),
            ("alias", "amazon"),
            ("root", "ebs"),
            ("virt", "hvm"),
            ("arn", "arn:aws:ec2:us-east-1::image/ID"),
        ])
    );
    let mut want = BUCKET_DISCOVERY.to_vec();
    want.extend([
        ("ec2:DescribeAvailabilityZones", 1),
        ("ec2:DescribeImages", 1),
    ]);
    assert_eq!(plan.cost.api_calls_by_operation, counts(&want));
    assert_eq!(plan.cost.api_calls, 5);
}

#[tokio::test]
async fn zones_are_excluded_by_name_and_id_and_all_zones_include_those_not_opted_in() {
    let bench = Bench::new(
        r#"{"resources": [], "availability_zones": {"us-east-1": [
  {"name": "us-east-1a", "zone_id": "use1-az6"},
  {"name": "us-east-1b", "zone_id": "use1-az1", "state": "impaired"},
  {"name": "us-east-1c", "zone_id": "use1-az2"},
  {"name": "us-east-1-bos-1a", "zone_id": "use1-bos1-az1", "opt_in_status": "not-opted-in",
   "zone_type": "local-zone", "group_name": "us-east-1-bos-1"}
]}}"#,
    );
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_availability_zones" "some" {
  exclude_names    = ["us-east-1a"]
  exclude_zone_ids = ["use1-az2"]
}
data "aws_availability_zones" "all" {
  all_availability_zones = true
}
data "aws_availability_zones" "local" {
  all_availability_zones = true
  filter {
    name   = "opt-in-status"
    values = ["not-opted-in"]
  }
}
data "aws_availability_zones" "available" {
  state = "available"
}
resource "aws_s3_bucket" "b" {
  bucket = "b"
  tags = {
    some      = join(",", data.aws_availability_zones.some.names)
    all       = join(",", data.aws_availability_zones.all.names)
    groups    = join(",", data.aws_availability_zones.all.group_names)
    local     = join(",", data.aws_availability_zones.local.zone_ids)
    available = join(",", data.aws_availability_zones.available.names)
  }
}
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    assert_eq!(
        planned_tags(&plan),
        expect(&[
            ("some", "us-east-1b"),
            ("all", "us-east-1-bos-1a,us-east-1a,us-east-1b,us-east-1c"),
            ("groups", "us-east-1,us-east-1-bos-1"),
            ("local", "use1-bos1-az1"),
            ("available", "us-east-1a,us-east-1c"),
        ])
    );
    assert_eq!(
        plan.cost
            .api_calls_by_operation
            .get("ec2:DescribeAvailabilityZones"),
        Some(&4)
    );
}

#[tokio::test]
async fn an_image_query_matching_several_without_most_recent_or_none_fails_the_plan() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_ami" "several" {
  owners = ["amazon"]
  filter {
    name   = "name"
    values = ["al2023-ami-minimal-*"]
  }
}
data "aws_ami" "none" {
  owners = ["self"]
  filter {
    name   = "name"
    values = ["al2023-ami-*"]
  }
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_ami.several.id}-${data.aws_ami.none.id}"
}
"#,
        )
        .await;
    assert!(!plan.applicable());
    assert_failures(
        &plan,
        &[
            (
                "data.aws_ami.none",
                "Your query returned no results. Please change your search criteria and try again.",
            ),
            (
                "data.aws_ami.several",
                "Your query returned more than one result. Please try a more specific search \
                 criteria, or set `most_recent` attribute to true.",
            ),
        ],
    );
    assert!(plan.changes.is_empty(), "{}", text(&plan));
    assert_eq!(
        plan.cost.api_calls_by_operation.get("ec2:DescribeImages"),
        Some(&2)
    );
}

#[tokio::test]
async fn name_regex_narrows_the_images_most_recent_chooses_from() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_ami" "arm" {
  most_recent = true
  owners      = ["137112412989"]
  name_regex  = "^al2023-ami-minimal-2023\\.6\\.2025010.*-kernel-6\\.12-arm64$"
}
resource "aws_s3_bucket" "b" {
  bucket = "b"
  tags   = { ami = data.aws_ami.arm.name, arch = data.aws_ami.arm.architecture }
}
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    assert_eq!(
        planned_tags(&plan),
        expect(&[
            (
                "ami",
                "al2023-ami-minimal-2023.6.20250107.0-kernel-6.12-arm64"
            ),
            ("arch", "arm64"),
        ])
    );
}

/// A VPC tagged `Name = main` with two subnets and a security group, beside the default VPC.
const NETWORK: &str = r#"{"resources": [
  {"type": "aws_vpc", "id": "vpc-00000001", "attributes": {"cidr_block": "10.0.0.0/16"},
   "tags": {"Name": "main"}},
  {"type": "aws_vpc", "id": "vpc-00000002", "attributes": {"cidr_block": "10.1.0.0/16"},
   "tags": {"Name": "other"}},
  {"type": "aws_subnet", "id": "subnet-00000001",
   "attributes": {"vpc_id": "vpc-00000001", "cidr_block": "10.0.1.0/24", "availability_zone": "us-east-1a"},
   "tags": {"Tier": "private"}},
  {"type": "aws_subnet", "id": "subnet-00000002",
   "attributes": {"vpc_id": "vpc-00000001", "cidr_block": "10.0.2.0/24", "availability_zone": "us-east-1b"},
   "tags": {"Tier": "public"}},
  {"type": "aws_security_group", "id": "sg-00000001",
   "attributes": {"vpc_id": "vpc-00000001", "name": "web", "description": "web tier"}}
]}"#;

#[tokio::test]
async fn network_data_sources_read_the_clouds_objects_with_one_describe_each() {
    let bench = Bench::new(NETWORK);
    let before = bench.cloud.snapshot().await.unwrap();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_vpc" "main" {
  tags = { Name = "main" }
}
data "aws_vpc" "default" {
  default = true
}
data "aws_subnets" "main" {
  filter {
    name   = "vpc-id"
    values = [data.aws_vpc.main.id]
  }
}
data "aws_subnets" "none" {
  tags = { Tier = "nowhere" }
}
data "aws_subnet" "private" {
  vpc_id = data.aws_vpc.main.id
  tags   = { Tier = "private" }
}
data "aws_security_group" "web" {
  name   = "web"
  vpc_id = data.aws_vpc.main.id
}
resource "aws_s3_bucket" "b" {
  bucket = "b"
  tags = {
    vpc      = data.aws_vpc.main.id
    cidr     = data.aws_vpc.main.cidr_block
    default  = data.aws_vpc.default.cidr_block
    isdef    = tostring(data.aws_vpc.default.default)
    subnets  = join(",", data.aws_subnets.main.ids)
    none     = length(data.aws_subnets.none.ids)
    subnet   = data.aws_subnet.private.id
    zone     = data.aws_subnet.private.availability_zone
    zone_id  = data.aws_subnet.private.availability_zone_id
    sg       = data.aws_security_group.web.id
    sg_desc  = data.aws_security_group.web.description
    sg_arn   = data.aws_security_group.web.arn
  }
}
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    assert_eq!(
        planned_tags(&plan),
        expect(&[
            ("vpc", "vpc-00000001"),
            ("cidr", "10.0.0.0/16"),
            ("default", "172.31.0.0/16"),
            ("isdef", "true"),
            ("subnets", "subnet-00000001,subnet-00000002"),
            ("none", "0"),
            ("subnet", "subnet-00000001"),
            ("zone", "us-east-1a"),
            ("zone_id", "use1-az6"),
            ("sg", "sg-00000001"),
            ("sg_desc", "web tier"),
            (
                "sg_arn",
                "arn:aws:ec2:us-east-1:123456789012:security-group/sg-00000001"
            ),
        ])
    );
    let mut want = BUCKET_DISCOVERY.to_vec();
    want.extend([
        ("ec2:DescribeVpcs", 2),
        ("ec2:DescribeSubnets", 3),
        ("ec2:DescribeSecurityGroups", 1),
    ]);
    assert_eq!(plan.cost.api_calls_by_operation, counts(&want));
    // A read never writes.
    assert_eq!(bench.cloud.snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_singular_network_data_source_without_exactly_one_match_fails_the_plan() {
    let bench = Bench::new(NETWORK);
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_vpc" "any" {
  filter {
    name   = "cidr"
    values = ["10.*"]
  }
}
data "aws_subnet" "missing" {
  id = "subnet-0000ffff"
}
data "aws_security_group" "missing" {
  name = "nope"
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_vpc.any.id}-${data.aws_subnet.missing.id}-${data.aws_security_group.missing.id}"
}
"#,
        )
        .await;
    assert!(!plan.applicable());
    assert_failures(
        &plan,
        &[
            (
                "data.aws_security_group.missing",
                "no matching EC2 Security Group found",
            ),
            ("data.aws_subnet.missing", "no matching EC2 Subnet found"),
            (
                "data.aws_vpc.any",
                "multiple EC2 VPCs matched; use additional constraints to reduce matches to a \
                 single EC2 VPC",
            ),
        ],
    );
    assert!(plan.changes.is_empty(), "{}", text(&plan));
}

#[tokio::test]
async fn a_failed_describe_fails_the_read_after_its_retries_and_each_attempt_is_counted() {
    let mut bench = Bench::empty();
    // Throttled more often than the bench's four attempts: each attempt is in the cost.
    let throttled = fixtures::FaultPlan::none()
        .with(
            "ec2:DescribeAvailabilityZones",
            fixtures::FaultKind::Throttle,
            fixtures::Trigger::Times(10),
        )
        .expect("a known operation");
    bench.with_faults(throttled).await;
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_availability_zones" "available" {}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_availability_zones.available.names[0]}"
}
"#,
        )
        .await;
    assert!(!plan.applicable());
    let failures = read_failures(&plan);
    assert_eq!(failures.len(), 1, "{:?}", plan.diagnostics);
    assert!(
        failures[0].starts_with("reading `data.aws_availability_zones.available` failed"),
        "{failures:?}"
    );
    assert!(plan.changes.is_empty(), "{}", text(&plan));
    assert_eq!(
        plan.cost
            .api_calls_by_operation
            .get("ec2:DescribeAvailabilityZones"),
        Some(&4)
    );
}

#[tokio::test]
async fn a_failed_image_describe_is_not_retried_and_fails_the_plan() {
    let mut bench = Bench::empty();
    bench.with_faults(failing("ec2:DescribeImages", 1)).await;
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_ami" "x" {
  most_recent = true
  owners      = ["amazon"]
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_ami.x.id}"
}
"#,
        )
        .await;
    assert_eq!(read_failures(&plan).len(), 1, "{:?}", plan.diagnostics);
    assert!(plan.changes.is_empty(), "{}", text(&plan));
    assert_eq!(
        plan.cost.api_calls_by_operation.get("ec2:DescribeImages"),
        Some(&1)
    );
}

#[tokio::test]
async fn an_unknown_filter_name_is_the_apis_error() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_ami" "x" {
  owners = ["amazon"]
  filter {
    name   = "no-such-filter"
    values = ["x"]
  }
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_ami.x.id}"
}
"#,
        )
        .await;
    assert_failures(
        &plan,
        &[(
            "data.aws_ami.x",
            "InvalidParameterValue: the filter `no-such-filter` is invalid for ec2:DescribeImages",
        )],
    );
}
