//! The differential journeys of the EC2 data sources, one per data source: the same configuration
//! planned, applied and re-planned on the simulated cloud and on the AWS provider against the local
//! AWS emulator, giving the same transcripts, and on each the same `ec2:Describe*` count per read.
//!
//! Where the two clouds' answers differ on purpose (README's known emulator differences), the journey
//! reads what both give: the image journey shows only what an Amazon Linux 2023 image has on both
//! (moto's images are other releases than the simulated cloud's built-in ones, all made at the
//! emulator's start), and the network journeys read objects the journey made, never the default
//! VPC's subnets (which moto makes and the simulated cloud does not model).

use crate::differential::{converged, differential, live, plan_and_apply};
use crate::differential_support::{Cloud, Transcript};

/// Asserts that the last plan of `config` on `cloud` cost `n` attempts of `operation`.
async fn reads(cloud: &Cloud, config: &str, operation: &str, n: u64) {
    let plan = cloud.plan(config).await;
    assert_eq!(
        plan.cost.api_calls_by_operation.get(operation),
        Some(&n),
        "{:?}: {:?}",
        cloud.kind,
        plan.cost
    );
}

fn zones_config(name: &str) -> String {
    format!(
        r#"{live}
data "aws_availability_zones" "available" {{
  state         = "available"
  exclude_names = ["us-east-1a"]
}}

resource "aws_vpc" "main" {{
  cidr_block = "10.40.0.0/16"
}}

resource "aws_subnet" "zone" {{
  count             = 2
  vpc_id            = aws_vpc.main.id
  cidr_block        = "10.40.${{count.index}}.0/24"
  availability_zone = data.aws_availability_zones.available.names[count.index]
  tags = {{
    ZoneId = data.aws_availability_zones.available.zone_ids[count.index]
    Zones  = length(data.aws_availability_zones.available.names)
  }}
}}
"#,
        live = live(name)
    )
}

async fn zones_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let config = zones_config(&cloud.name);
    let summary = "Plan: 3 to add, 0 to change, 0 to destroy.";
    plan_and_apply(&cloud, &mut t, "subnets by zone", &config, summary).await;
    converged(&cloud, &mut t, "subnets by zone", &config).await;
    reads(&cloud, &config, "ec2:DescribeAvailabilityZones", 1).await;
    t
}

#[tokio::test]
async fn differential_data_availability_zones_place_subnets_in_the_same_zones() {
    differential("dzones", &[], zones_journey).await;
}

fn ami_config(name: &str) -> String {
    format!(
        r#"{live}
data "aws_ami" "al2023" {{
  most_recent = true
  owners      = ["amazon"]

  filter {{
    name   = "name"
    values = ["al2023-ami-2023.*-kernel-6.1-x86_64"]
  }}

  filter {{
    name   = "virtualization-type"
    values = ["hvm"]
  }}
}}

resource "aws_security_group" "app" {{
  name = "{name}-app"
  tags = {{
    Named = tostring(can(regex("^al2023-ami-2023\\.[0-9.]+-kernel-6\\.1-x86_64$", data.aws_ami.al2023.name)))
    Owner = data.aws_ami.al2023.owner_id
    Arch  = data.aws_ami.al2023.architecture
    Root  = data.aws_ami.al2023.root_device_type
    Virt  = data.aws_ami.al2023.virtualization_type
    Image = tostring(startswith(data.aws_ami.al2023.id, "ami-"))
  }}
}}
"#,
        live = live(name)
    )
}

async fn ami_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let config = ami_config(&cloud.name);
    let summary = "Plan: 1 to add, 0 to change, 0 to destroy.";
    plan_and_apply(
        &cloud,
        &mut t,
        "a group tagged from an image",
        &config,
        summary,
    )
    .await;
    converged(&cloud, &mut t, "a group tagged from an image", &config).await;
    reads(&cloud, &config, "ec2:DescribeImages", 1).await;
    t
}

#[tokio::test]
async fn differential_data_ami_finds_amazon_linux_2023_on_both_clouds() {
    differential("dami", &[], ami_journey).await;
}

/// A VPC tagged for the journey, with two private subnets and a public one, and a bastion group.
fn network(name: &str) -> String {
    format!(
        r#"
resource "aws_vpc" "shared" {{
  cidr_block = "10.50.0.0/16"
  tags       = {{ Name = "{name}-shared" }}
}}

resource "aws_subnet" "private" {{
  count             = 2
  vpc_id            = aws_vpc.shared.id
  cidr_block        = "10.50.${{count.index}}.0/24"
  availability_zone = "us-east-1b"
  tags              = {{ Tier = "{name}-private" }}
}}

resource "aws_subnet" "public" {{
  vpc_id            = aws_vpc.shared.id
  cidr_block        = "10.50.9.0/24"
  availability_zone = "us-east-1c"
  tags              = {{ Tier = "{name}-public" }}
}}

resource "aws_security_group" "bastion" {{
  name   = "{name}-bastion"
  vpc_id = aws_vpc.shared.id
}}
"#
    )
}

/// Makes the journey's network, then plans and applies `readers` beside it, then re-plans.
async fn network_journey(cloud: &Cloud, t: &mut Transcript, readers: &str, add: usize) {
    let name = &cloud.name;
    let base = format!("{}{}", live(name), network(name));
    let made = "Plan: 5 to add, 0 to change, 0 to destroy.";
    plan_and_apply(cloud, t, "the network", &base, made).await;
    let config = format!("{base}{readers}");
    let summary = format!("Plan: {add} to add, 0 to change, 0 to destroy.");
    plan_and_apply(cloud, t, "readers of the network", &config, &summary).await;
    converged(cloud, t, "readers of the network", &config).await;
}

async fn vpc_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let name = cloud.name.clone();
    let readers = format!(
        r#"
data "aws_vpc" "shared" {{
  tags = {{ Name = "{name}-shared" }}
}}

data "aws_vpc" "default" {{
  default = true
}}

resource "aws_route_table" "shared" {{
  vpc_id = data.aws_vpc.shared.id
  tags = {{
    Cidr        = data.aws_vpc.shared.cidr_block
    Default     = tostring(data.aws_vpc.shared.default)
    DefaultCidr = data.aws_vpc.default.cidr_block
  }}
}}
"#
    );
    network_journey(&cloud, &mut t, &readers, 1).await;
    let config = format!("{}{}{readers}", live(&name), network(&name));
    reads(&cloud, &config, "ec2:DescribeVpcs", 3).await;
    t
}

#[tokio::test]
async fn differential_data_vpc_reads_the_tagged_vpc_and_the_default_one() {
    differential("dvpc", &[], vpc_journey).await;
}

async fn subnet_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let name = cloud.name.clone();
    let readers = format!(
        r#"
data "aws_subnet" "public" {{
  availability_zone = "us-east-1c"
  tags              = {{ Tier = "{name}-public" }}
}}

resource "aws_route_table" "public" {{
  vpc_id = data.aws_subnet.public.vpc_id
  tags = {{
    Cidr   = data.aws_subnet.public.cidr_block
    ZoneId = data.aws_subnet.public.availability_zone_id
  }}
}}

resource "aws_route_table_association" "public" {{
  subnet_id      = data.aws_subnet.public.id
  route_table_id = aws_route_table.public.id
}}
"#
    );
    network_journey(&cloud, &mut t, &readers, 2).await;
    let config = format!("{}{}{readers}", live(&name), network(&name));
    // Discovery describes the subnets once too; the read is the other.
    reads(&cloud, &config, "ec2:DescribeSubnets", 2).await;
    t
}

#[tokio::test]
async fn differential_data_subnet_reads_the_one_subnet_its_arguments_name() {
    differential("dsubnet", &[], subnet_journey).await;
}

async fn subnets_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let name = cloud.name.clone();
    let readers = format!(
        r#"
data "aws_subnets" "private" {{
  tags = {{ Tier = "{name}-private" }}
}}

data "aws_subnets" "none" {{
  filter {{
    name   = "tag:Tier"
    values = ["{name}-nowhere"]
  }}
}}

resource "aws_route_table" "private" {{
  vpc_id = aws_vpc.shared.id
  tags = {{
    Private = length(data.aws_subnets.private.ids)
    None    = length(data.aws_subnets.none.ids)
  }}
}}
"#
    );
    network_journey(&cloud, &mut t, &readers, 1).await;
    let config = format!("{}{}{readers}", live(&name), network(&name));
    reads(&cloud, &config, "ec2:DescribeSubnets", 3).await;
    t
}

#[tokio::test]
async fn differential_data_subnets_counts_the_matching_subnets_and_none_is_empty() {
    differential("dsubnets", &[], subnets_journey).await;
}

async fn security_group_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let name = cloud.name.clone();
    let readers = format!(
        r#"
data "aws_security_group" "bastion" {{
  name = "{name}-bastion"
}}

resource "aws_security_group" "app" {{
  name   = "{name}-app"
  vpc_id = data.aws_security_group.bastion.vpc_id

  ingress {{
    from_port       = 22
    to_port         = 22
    protocol        = "tcp"
    security_groups = [data.aws_security_group.bastion.id]
  }}
}}
"#
    );
    network_journey(&cloud, &mut t, &readers, 1).await;
    let config = format!("{}{}{readers}", live(&name), network(&name));
    reads(&cloud, &config, "ec2:DescribeSecurityGroups", 2).await;
    t
}

#[tokio::test]
async fn differential_data_security_group_feeds_a_rule_of_another_group() {
    differential("dsg", &[], security_group_journey).await;
}
