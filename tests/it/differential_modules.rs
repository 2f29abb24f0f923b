//! The differential journeys written as Terraform users write estates: a root module calling two local
//! modules (a network with a `count` of subnets, and the estate's storage and identities), planned,
//! applied, converged and scaled on the simulated cloud and on the emulator alike.

use crate::differential::{converged, differential, live, plan_and_apply};
use crate::differential_support::{Cloud, FILE_MARK, Transcript};

/// The root module and its two modules, with `subnets` subnets in the network.
fn modular(name: &str, subnets: usize) -> String {
    live(name)
        + &format!(
            r#"
module "network" {{
  source  = "./modules/network"
  cidr    = "10.40.0.0/16"
  subnets = {subnets}
}}

module "identity" {{
  source = "./modules/identity"
  prefix = "{name}"
}}

output "vpc_id" {{
  value = module.network.vpc_id
}}
{FILE_MARK}modules/network/main.tf
variable "cidr" {{
  type = string
}}

variable "subnets" {{
  type = number
}}

resource "aws_vpc" "this" {{
  cidr_block = var.cidr
}}

resource "aws_subnet" "part" {{
  count             = var.subnets
  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet(var.cidr, 8, count.index)
  availability_zone = "us-east-1a"
}}

resource "aws_internet_gateway" "gw" {{
  vpc_id = aws_vpc.this.id
}}

resource "aws_route_table" "public" {{
  vpc_id = aws_vpc.this.id
}}

resource "aws_route" "out" {{
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}}

resource "aws_security_group" "web" {{
  name   = "web"
  vpc_id = aws_vpc.this.id
}}

output "vpc_id" {{
  value = aws_vpc.this.id
}}
{FILE_MARK}modules/identity/main.tf
variable "prefix" {{
  type = string
}}

resource "aws_s3_bucket" "data" {{
  bucket = "${{var.prefix}}-data"
}}

resource "aws_iam_role" "deployer" {{
  name = "${{var.prefix}}-deployer"
  assume_role_policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = "sts:AssumeRole", Principal = {{ Service = "ec2.amazonaws.com" }} }}]
  }})
}}

resource "aws_cloudwatch_log_group" "app" {{
  name              = "${{var.prefix}}-app"
  retention_in_days = 14
}}
"#
        )
}

async fn modules_journey(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let two = modular(&cloud.name, 2);
    let three = modular(&cloud.name, 3);
    plan_and_apply(
        &cloud,
        &mut t,
        "greenfield in modules",
        &two,
        "Plan: 10 to add, 0 to change, 0 to destroy.",
    )
    .await;
    converged(&cloud, &mut t, "modules", &two).await;
    let grown = plan_and_apply(
        &cloud,
        &mut t,
        "a third subnet",
        &three,
        "Plan: 1 to add, 0 to change, 0 to destroy.",
    )
    .await;
    assert_eq!(
        grown.order,
        ["create module.network.aws_subnet.part[2]"],
        "{:?}",
        cloud.kind
    );
    let shrunk = plan_and_apply(
        &cloud,
        &mut t,
        "back to two",
        &two,
        "Plan: 0 to add, 0 to change, 1 to destroy.",
    )
    .await;
    assert_eq!(
        shrunk.order,
        ["delete module.network.aws_subnet.part[2]"],
        "only the highest slot leaves ({:?})",
        cloud.kind
    );
    converged(&cloud, &mut t, "modules again", &two).await;
    t
}

#[tokio::test]
async fn differential_an_estate_of_two_modules_applies_scales_and_converges() {
    differential("dmodules", &[], modules_journey).await;
}
