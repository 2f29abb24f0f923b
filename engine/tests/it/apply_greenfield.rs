//! A greenfield apply of a small network, a bucket and a random id, then a converged plan.

use expect_test::expect;

use crate::support::{Bench, diagnostics, live_tags, text};

const NETWORK: &str = r#"
live {
  estate = "acme-net"
}

resource "aws_vpc" "main" {
  cidr_block = "10.42.0.0/16"
}

resource "aws_subnet" "public" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.42.0.0/16", 8, count.index)
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
}

resource "aws_route" "default" {
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}

resource "aws_route_table_association" "public" {
  count          = 2
  subnet_id      = aws_subnet.public[count.index].id
  route_table_id = aws_route_table.public.id
}

resource "random_id" "suffix" {
  byte_length = 4
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
  tags   = { Team = "net" }
}

output "vpc_id" {
  value = aws_vpc.main.id
}

output "subnet_ids" {
  value = aws_subnet.public[*].id
}
"#;

#[tokio::test]
async fn greenfield_apply_then_no_changes() {
    let world = Bench::empty();
    let plan = world.plan(NETWORK).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 10 to add, 0 to change, 0 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let again = world.plan(NETWORK).await;
    expect![[r#"
        No changes. The live system matches the configuration.
    "#]]
    .assert_eq(&text(&again));
    expect![[r#"
        aws_internet_gateway igw-00000001 [tofu-address=aws_internet_gateway.gw tofu-estate=acme-net]
        aws_route rtb-00000001_0.0.0.0/0 []
        aws_route_table rtb-00000001 [tofu-address=aws_route_table.public tofu-estate=acme-net]
        aws_route_table_association rtbassoc-00000001 []
        aws_route_table_association rtbassoc-00000002 []
        aws_s3_bucket acme-logs [Team=net tofu-address=aws_s3_bucket.logs tofu-estate=acme-net]
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.public:0 tofu-estate=acme-net tofu-slot=0]
        aws_subnet subnet-00000002 [tofu-address=aws_subnet.public:1 tofu-estate=acme-net tofu-slot=1]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme-net]
    "#]]
    .assert_eq(&live_tags(&world).await);
    assert_eq!(outcome.outputs["vpc_id"].to_string(), r#""vpc-00000001""#);
    assert_eq!(
        outcome.outputs["subnet_ids"].to_string(),
        r#"["subnet-00000001", "subnet-00000002"]"#
    );
    // The random id lives in its record; the untaggable route and associations are located by records.
    let keys = world.record_keys().await;
    assert!(
        keys.iter()
            .any(|k| k.starts_with("acme-net/records/random_id/"))
    );
    assert_eq!(
        keys.iter()
            .filter(|k| k.starts_with("acme-net/located/"))
            .count(),
        3
    );
    assert!(keys.contains(&"acme-net/slots/YXdzX3N1Ym5ldC5wdWJsaWM".to_owned()));
}
