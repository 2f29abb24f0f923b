//! The differential journeys of the EC2 data sources, one per data source: the same configuration
//! planned on the simulated cloud and on the AWS provider against the local AWS emulator, giving the
//! same plans (text and JSON, minted ids named by first appearance), and on each the same
//! `ec2:Describe*` count per read.
//!
//! Where the two clouds' answers differ on purpose (README's known emulator differences), the journey
//! reads what both give: the image journey shows only what an Amazon Linux 2023 image has on both
//! (moto's images are other releases than the simulated cloud's built-in ones, all made at the
//! emulator's start), and the network journeys read objects made by hand for the journey (a VPC, its
//! subnets and a security group), never the default VPC's subnets, which moto makes and the simulated
//! cloud does not model. The journeys plan and do not apply: what they test is the read, and the
//! emulator's rediscovery of objects an apply made in a fresh account is not dependable (README).

use crate::differential::{differential, live};
use crate::differential_support::{Cloud, Transcript, summary_line};

/// Plans `config` on `cloud`, records it under `title`, and asserts its summary line and that the plan
/// cost `n` attempts of `operation`.
async fn planned(
    cloud: &Cloud,
    t: &mut Transcript,
    title: &str,
    config: &str,
    summary: &str,
    (operation, n): (&str, u64),
) {
    let (plan, text) = cloud.plan_text(t, &format!("plan: {title}"), config).await;
    assert!(plan.applicable(), "{:?}: {text}", cloud.kind);
    assert_eq!(summary_line(&text), summary, "{:?}: {text}", cloud.kind);
    assert_eq!(
        plan.cost.api_calls_by_operation.get(operation),
        Some(&n),
        "{:?}: {:?}",
        cloud.kind,
        plan.cost
    );
}

const ONE: &str = "Plan: 1 to add, 0 to change, 0 to destroy.";

fn zones_config(name: &str) -> String {
    format!(
        r#"{live}
data "aws_availability_zones" "available" {{
  state         = "available"
  exclude_names = ["us-east-1a"]
}}

resource "aws_security_group" "zones" {{
  name = "{name}-zones"
  tags = {{
    First   = data.aws_availability_zones.available.names[0]
    Names   = join(",", data.aws_availability_zones.available.names)
    ZoneIds = join(",", data.aws_availability_zones.available.zone_ids)
  }}
}}
"#,
        live = live(name)
    )
}

async fn zones_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let config = zones_config(&cloud.name);
    let reads = ("ec2:DescribeAvailabilityZones", 1);
    planned(
        &cloud,
        &mut t,
        "a group tagged by zone",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_availability_zones_name_the_same_zones() {
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
    let reads = ("ec2:DescribeImages", 1);
    planned(
        &cloud,
        &mut t,
        "a group tagged from an image",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_ami_finds_amazon_linux_2023_on_both_clouds() {
    differential("dami", &[], ami_journey).await;
}

/// What the network journeys make by hand: a VPC, two private subnets and a public one, and (when
/// asked) a group.
struct Network {
    vpc: String,
    group: Option<String>,
}

/// Makes the journey's network by hand and records its ids in the transcript. The group is made only
/// for a journey that declares no group of its own: the two clouds list a hand-made group beside
/// declared ones differently (the simulated cloud reports it as foreign in any VPC).
async fn network(cloud: &Cloud, t: &mut Transcript, with_group: bool) -> Network {
    let hand = format!("{}-hand", cloud.name);
    let vpc = cloud
        .make(
            "aws_vpc",
            serde_json::json!({ "cidr_block": "10.77.0.0/16" }),
        )
        .await;
    let mut made = vec![format!("aws_vpc {vpc}")];
    for (cidr, zone) in [
        ("10.77.0.0/24", "us-east-1b"),
        ("10.77.1.0/24", "us-east-1b"),
        ("10.77.9.0/24", "us-east-1c"),
    ] {
        let subnet = cloud
            .make(
                "aws_subnet",
                serde_json::json!({ "vpc_id": vpc, "cidr_block": cidr, "availability_zone": zone }),
            )
            .await;
        made.push(format!("aws_subnet {subnet}"));
    }
    let mut group = None;
    if with_group {
        let id = cloud
            .make(
                "aws_security_group",
                serde_json::json!({ "vpc_id": vpc, "name": hand, "description": "bastion hosts" }),
            )
            .await;
        made.push(format!("aws_security_group {id}"));
        group = Some(id);
    }
    t.step("made by hand", &made.join("\n"));
    Network { vpc, group }
}

async fn vpc_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let net = network(&cloud, &mut t, false).await;
    let (name, vpc) = (&cloud.name, &net.vpc);
    let config = format!(
        r#"{live}
data "aws_vpc" "made" {{
  id = "{vpc}"
}}

data "aws_vpc" "by_cidr" {{
  cidr_block = "10.77.0.0/16"
  state      = "available"
}}

data "aws_vpc" "default" {{
  default = true
}}

resource "aws_security_group" "app" {{
  name   = "{name}-app"
  vpc_id = data.aws_vpc.made.id
  tags = {{
    Cidr        = data.aws_vpc.made.cidr_block
    Default     = tostring(data.aws_vpc.made.default)
    Same        = tostring(data.aws_vpc.by_cidr.id == data.aws_vpc.made.id)
    DefaultCidr = data.aws_vpc.default.cidr_block
    IsDefault   = tostring(data.aws_vpc.default.default)
    Tenancy     = data.aws_vpc.made.instance_tenancy
  }}
}}
"#,
        live = live(name)
    );
    let reads = ("ec2:DescribeVpcs", 3);
    planned(
        &cloud,
        &mut t,
        "a group in the VPC read",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_vpc_reads_a_vpc_by_id_by_cidr_and_the_default_one() {
    differential("dvpc", &[], vpc_journey).await;
}

async fn subnet_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let net = network(&cloud, &mut t, false).await;
    let (name, vpc) = (&cloud.name, &net.vpc);
    let config = format!(
        r#"{live}
data "aws_subnet" "public" {{
  vpc_id            = "{vpc}"
  availability_zone = "us-east-1c"
}}

resource "aws_security_group" "public" {{
  name   = "{name}-public"
  vpc_id = data.aws_subnet.public.vpc_id
  tags = {{
    Subnet = data.aws_subnet.public.id
    Cidr   = data.aws_subnet.public.cidr_block
    ZoneId = data.aws_subnet.public.availability_zone_id
    Public = tostring(data.aws_subnet.public.map_public_ip_on_launch)
  }}
}}
"#,
        live = live(name)
    );
    // The read, and discovery's listing of the declared group's type costs none of these.
    let reads = ("ec2:DescribeSubnets", 1);
    planned(
        &cloud,
        &mut t,
        "a group tagged from a subnet",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_subnet_reads_the_one_subnet_its_arguments_name() {
    differential("dsubnet", &[], subnet_journey).await;
}

async fn subnets_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let net = network(&cloud, &mut t, false).await;
    let (name, vpc) = (&cloud.name, &net.vpc);
    let config = format!(
        r#"{live}
data "aws_subnets" "all" {{
  filter {{
    name   = "vpc-id"
    values = ["{vpc}"]
  }}
}}

data "aws_subnets" "private" {{
  filter {{
    name   = "vpc-id"
    values = ["{vpc}"]
  }}
  filter {{
    name   = "cidr-block"
    values = ["10.77.0.0/24", "10.77.1.0/24"]
  }}
}}

data "aws_subnets" "none" {{
  filter {{
    name   = "vpc-id"
    values = ["{vpc}"]
  }}
  filter {{
    name   = "availability-zone"
    values = ["us-east-1f"]
  }}
}}

resource "aws_security_group" "private" {{
  name   = "{name}-private"
  vpc_id = "{vpc}"
  tags = {{
    All     = length(data.aws_subnets.all.ids)
    Private = length(data.aws_subnets.private.ids)
    None    = length(data.aws_subnets.none.ids)
    First   = data.aws_subnets.private.ids[0] == data.aws_subnets.all.ids[0] || data.aws_subnets.private.ids[0] == data.aws_subnets.all.ids[1]
  }}
}}
"#,
        live = live(name)
    );
    let reads = ("ec2:DescribeSubnets", 3);
    planned(
        &cloud,
        &mut t,
        "a group tagged from subnet counts",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_subnets_counts_the_matching_subnets_and_none_is_empty() {
    differential("dsubnets", &[], subnets_journey).await;
}

async fn security_group_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let net = network(&cloud, &mut t, true).await;
    let (name, vpc) = (&cloud.name, &net.vpc);
    let group = net.group.as_deref().unwrap_or_default();
    let config = format!(
        r#"{live}
data "aws_security_group" "bastion" {{
  name   = "{name}-hand"
  vpc_id = "{vpc}"
}}

data "aws_security_group" "by_id" {{
  id = "{group}"
}}

# A role (read by name, no listing) carries what the groups read give.
resource "aws_iam_role" "app" {{
  name               = "{name}-app"
  description        = "reached from ${{data.aws_security_group.bastion.description}}"
  assume_role_policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = "sts:AssumeRole", Principal = {{ Service = "ec2.amazonaws.com" }} }}]
  }})
  tags = {{
    Group = data.aws_security_group.by_id.id
    Same  = tostring(data.aws_security_group.by_id.id == data.aws_security_group.bastion.id)
    Vpc   = data.aws_security_group.bastion.vpc_id
    Name  = data.aws_security_group.by_id.name
  }}
}}
"#,
        live = live(name)
    );
    // The two reads; no group is declared, so discovery lists none.
    let reads = ("ec2:DescribeSecurityGroups", 2);
    planned(
        &cloud,
        &mut t,
        "a role tagged from the groups read",
        &config,
        ONE,
        reads,
    )
    .await;
    t
}

#[tokio::test]
async fn differential_data_security_group_reads_a_group_by_name_and_by_id() {
    differential("dsg", &[], security_group_journey).await;
}
