//! Inline sets through plan and apply on the simulated cloud: a route table's `route` blocks and a
//! security group's `ingress` and `egress` blocks are the object's whole set when declared (an entry not
//! declared is removed, and the plan says why) and not managed when unset; a security group left unnamed
//! is named by the provider, and a new group loses AWS's allow-all outbound rule as the provider revokes
//! it. A foreign group is offered for adoption only when its name and VPC are both configured.

use expect_test::expect;
use serde_json::json;

use crate::support::{Bench, diagnostics, json, text};

const NETWORK: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
}
"#;

/// A route table in the network with `routes` as its body.
fn table(routes: &str) -> String {
    format!(
        "{NETWORK}\nresource \"aws_route_table\" \"public\" {{\n  vpc_id = aws_vpc.main.id\n{routes}}}\n"
    )
}

const TWO_ROUTES: &str = r#"
  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.gw.id
  }

  route {
    cidr_block           = "10.99.0.0/16"
    network_interface_id = "eni-0a1b2c3d"
  }
"#;

const ONE_ROUTE: &str = r#"
  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.gw.id
  }
"#;

/// Plans `config` and checks that it changes nothing and reports nothing.
async fn no_changes(world: &Bench, config: &str) {
    let plan = world.plan(config).await;
    let shown = text(&plan);
    assert!(
        shown.contains("No changes.") && plan.diagnostics.is_empty(),
        "{shown}"
    );
}

/// The routes of the cloud, as `table destination -> target` lines.
async fn routes(world: &Bench) -> Vec<String> {
    let snapshot = world.cloud.snapshot().await.unwrap();
    snapshot
        .resources
        .iter()
        .filter(|r| r.type_name == "aws_route")
        .map(|r| {
            let target = ["gateway_id", "network_interface_id"]
                .iter()
                .find_map(|t| r.attributes.get(*t).and_then(|v| v.as_str()))
                .unwrap_or("none");
            format!("{} -> {target}", r.id)
        })
        .collect()
}

/// The live attribute `name` of the security group `id`.
async fn group_attribute(world: &Bench, id: &str, name: &str) -> serde_json::Value {
    let snapshot = world.cloud.snapshot().await.unwrap();
    let group = snapshot.resources.iter().find(|r| r.id == id).unwrap();
    group.attributes[name].clone()
}

#[tokio::test]
async fn plan_inline_sets_a_table_is_created_with_its_inline_routes() {
    let world = Bench::empty();
    let config = table(TWO_ROUTES);
    let plan = world.plan(&config).await;
    let shown = text(&plan);
    let created = shown
        .split("  # ")
        .find(|s| s.starts_with("aws_route_table.public"))
        .unwrap();
    expect![[r#"
        aws_route_table.public will be created
          + resource "aws_route_table" "public" {
              + arn      = (known after apply)
              + id       = (known after apply)
              + tags_all = { tofu-address = "aws_route_table.public", tofu-estate = "acme" }
              + vpc_id   = (known after apply)

              + route {
                  + cidr_block           = "0.0.0.0/0"
                  + gateway_id           = (known after apply)
                  + network_interface_id = ""
                }

              + route {
                  + cidr_block           = "10.99.0.0/16"
                  + gateway_id           = ""
                  + network_interface_id = "eni-0a1b2c3d"
                }
            }

    "#]]
    .assert_eq(created);
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(
        routes(&world).await,
        [
            "rtb-00000001_0.0.0.0/0 -> igw-00000001",
            "rtb-00000001_10.99.0.0/16 -> eni-0a1b2c3d"
        ]
    );
    no_changes(&world, &config).await;
}

#[tokio::test]
async fn plan_inline_sets_a_route_not_declared_is_removed_and_the_plan_says_why() {
    let world = Bench::empty();
    world.converge(&table(TWO_ROUTES)).await;
    let config = table(ONE_ROUTE);
    let plan = world.plan(&config).await;
    expect![[r#"
        liveplan will perform the following actions:

          # aws_route_table.public will be updated in place
          ~ resource "aws_route_table" "public" {
                id       = "rtb-00000001"
                # (4 unchanged attributes hidden)

              - route { # not declared: the configured `route` blocks are the whole set
                  - cidr_block           = "10.99.0.0/16"
                  - gateway_id           = ""
                  - network_interface_id = "eni-0a1b2c3d"
                }

                # (1 unchanged block hidden)
            }

        Plan: 0 to add, 1 to change, 0 to destroy.
    "#]]
    .assert_eq(&text(&plan));
    let doc: serde_json::Value = serde_json::from_str(&json(&plan)).unwrap();
    assert_eq!(
        doc["resource_changes"][0]["removed_entries"],
        json!([{
            "block": "route",
            "cause": "not-declared",
            "entry": { "cidr_block": "10.99.0.0/16", "gateway_id": "", "network_interface_id": "eni-0a1b2c3d" },
            "reason": "not declared: the configured `route` blocks are the whole set"
        }])
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(
        routes(&world).await,
        ["rtb-00000001_0.0.0.0/0 -> igw-00000001"]
    );
    no_changes(&world, &config).await;
}

#[tokio::test]
async fn plan_inline_sets_unset_route_blocks_are_not_managed_and_an_empty_list_removes_all() {
    let world = Bench::empty();
    world.converge(&table(TWO_ROUTES)).await;
    // No route blocks at all: the table's routes are left alone.
    no_changes(&world, &table("")).await;
    // A changed target is replaced in place; ignoring the set keeps it.
    let moved = TWO_ROUTES.replace("eni-0a1b2c3d", "eni-0f0f0f0f");
    let ignored = format!("{moved}\n  lifecycle {{\n    ignore_changes = [route]\n  }}\n");
    no_changes(&world, &table(&ignored)).await;
    world.converge(&table(&moved)).await;
    assert_eq!(
        routes(&world).await,
        [
            "rtb-00000001_0.0.0.0/0 -> igw-00000001",
            "rtb-00000001_10.99.0.0/16 -> eni-0f0f0f0f"
        ]
    );
    // `route = []` declares the set empty.
    world.converge(&table("  route = []\n")).await;
    assert!(routes(&world).await.is_empty());
    no_changes(&world, &table("  route = []\n")).await;
}

const GROUP: &str = r#"
resource "aws_security_group" "web" {
  vpc_id = aws_vpc.main.id

  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}
"#;

#[tokio::test]
async fn plan_inline_sets_an_unnamed_group_is_named_by_the_provider_and_loses_the_default_egress() {
    let world = Bench::empty();
    let config = format!("{NETWORK}{GROUP}");
    let plan = world.plan(&config).await;
    let shown = text(&plan);
    let created = shown
        .split("  # ")
        .find(|s| s.starts_with("aws_security_group.web"))
        .unwrap();
    expect![[r#"
        aws_security_group.web will be created
          + resource "aws_security_group" "web" {
              + arn         = (known after apply)
              + description = "Managed by Terraform"
              + id          = (known after apply)
              + name        = (known after apply)
              + name_prefix = (known after apply)
              + tags_all    = { tofu-address = "aws_security_group.web", tofu-estate = "acme" }
              + vpc_id      = (known after apply)

              + ingress {
                  + cidr_blocks      = ["0.0.0.0/0"]
                  + description      = ""
                  + from_port        = 443
                  + ipv6_cidr_blocks = []
                  + prefix_list_ids  = []
                  + protocol         = "tcp"
                  + security_groups  = []
                  + self             = false
                  + to_port          = 443
                }
            }

    "#]]
    .assert_eq(created);
    let (outcome, calls) = world.apply_counted(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let rules: Vec<(&str, u64)> = calls
        .iter()
        .filter(|(op, _)| op.contains("SecurityGroup"))
        .map(|(op, n)| (op.as_str(), *n))
        .collect();
    assert_eq!(
        rules,
        [
            ("ec2:AuthorizeSecurityGroupIngress", 1),
            ("ec2:CreateSecurityGroup", 1),
            ("ec2:RevokeSecurityGroupEgress", 1),
        ]
    );
    let name = group_attribute(&world, "sg-00000001", "name").await;
    assert_eq!(name, json!("terraform-00000000000000000000000001"));
    assert_eq!(
        group_attribute(&world, "sg-00000001", "egress").await,
        json!([])
    );
    no_changes(&world, &config).await;
}

#[tokio::test]
async fn plan_inline_sets_declared_egress_is_the_whole_set_and_a_prefix_names_the_group() {
    let world = Bench::empty();
    let egress = r#"
  name_prefix = "web-"

  egress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/16"]
  }
"#;
    let config = format!(
        "{NETWORK}{}",
        GROUP.replace(
            "  vpc_id = aws_vpc.main.id\n",
            &format!("  vpc_id = aws_vpc.main.id\n{egress}")
        )
    );
    world.converge(&config).await;
    let name = group_attribute(&world, "sg-00000001", "name").await;
    assert_eq!(name, json!("web-00000000000000000000000001"));
    assert_eq!(
        group_attribute(&world, "sg-00000001", "egress").await,
        json!([{
            "cidr_blocks": ["10.0.0.0/16"], "description": "", "from_port": 443, "ipv6_cidr_blocks": [],
            "prefix_list_ids": [], "protocol": "tcp", "security_groups": [], "self": false, "to_port": 443
        }])
    );
    no_changes(&world, &config).await;
    // Another ingress port: one revoke of the rule that goes, one authorize of the one that comes.
    let moved = config.replace("443\n    to_port     = 443\n    protocol    = \"tcp\"\n    cidr_blocks = [\"0.0.0.0/0\"]", "8443\n    to_port     = 8443\n    protocol    = \"tcp\"\n    cidr_blocks = [\"0.0.0.0/0\"]");
    let plan = world.plan(&moved).await;
    let shown = text(&plan);
    assert!(
        shown.contains(
            "- ingress { # not declared: the configured `ingress` blocks are the whole set"
        ),
        "{shown}"
    );
    let (outcome, calls) = world.apply_counted(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(calls.get("ec2:RevokeSecurityGroupIngress"), Some(&1));
    assert_eq!(calls.get("ec2:AuthorizeSecurityGroupIngress"), Some(&1));
    no_changes(&world, &moved).await;
}

#[tokio::test]
async fn plan_inline_sets_a_group_without_a_vpc_is_refused_where_there_is_no_default_vpc() {
    let world = Bench::new(r#"{"resources": [], "default_vpc": false}"#);
    let config = format!(
        "{NETWORK}{}",
        GROUP.replace("  vpc_id = aws_vpc.main.id\n", "  name = \"web\"\n")
    );
    let plan = world.plan(&config).await;
    assert!(
        text(&plan).contains("+ vpc_id      = (known after apply)"),
        "{}",
        text(&plan)
    );
    let outcome = world.apply(plan).await;
    let shown = diagnostics(&outcome);
    assert!(shown.contains("VPCIdNotSpecified"), "{shown}");
}

#[tokio::test]
async fn plan_inline_sets_protocols_are_planned_as_the_provider_keeps_them_and_converge() {
    let world = Bench::empty();
    let group = r#"
resource "aws_security_group" "web" {
  vpc_id = aws_vpc.main.id

  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "TCP"
    cidr_blocks = ["0.0.0.0/0"]
  }

  ingress {
    from_port   = 53
    to_port     = 53
    protocol    = 17
    cidr_blocks = ["10.0.0.0/8"]
  }
}
"#;
    let config = format!("{NETWORK}{group}");
    let plan = world.plan(&config).await;
    let shown = text(&plan);
    assert!(shown.contains("+ protocol         = \"tcp\""), "{shown}");
    assert!(shown.contains("+ protocol         = \"udp\""), "{shown}");
    assert!(!shown.contains("TCP"), "{shown}");
    let created = world.apply(plan).await;
    assert_eq!(diagnostics(&created), "");
    no_changes(&world, &config).await;
    // Written as Terraform's `all`, all traffic is `-1`, the form AWS answers.
    let all = config.replace("protocol    = 17", "protocol    = \"all\"");
    let plan = world.plan(&all).await;
    assert!(
        text(&plan).contains("+ protocol         = \"-1\""),
        "{}",
        text(&plan)
    );
}

#[tokio::test]
async fn plan_inline_sets_a_foreign_group_is_a_bind_candidate_only_when_name_and_vpc_are_configured()
 {
    let world = Bench::new(
        r#"{ "resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
          { "type": "aws_security_group", "id": "sg-00000007",
            "attributes": { "name": "web", "vpc_id": "vpc-00000001" } }
        ] }"#,
    );
    let vpc = "live {\n  estate = \"acme\"\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n";
    let named = format!(
        "{vpc}\nresource \"aws_security_group\" \"web\" {{\n  name   = \"web\"\n  vpc_id = aws_vpc.main.id\n}}\n"
    );
    let plan = world.plan(&named).await;
    let offered: Vec<(String, &str)> = plan
        .bind_candidates
        .iter()
        .map(|b| (b.address.to_string(), b.id.as_str()))
        .collect();
    assert_eq!(
        offered,
        [("aws_security_group.web".to_owned(), "sg-00000007")]
    );
    // Without a name the group's name is the provider's to choose: nothing to match on.
    let unnamed = format!(
        "{vpc}\nresource \"aws_security_group\" \"web\" {{\n  vpc_id = aws_vpc.main.id\n}}\n"
    );
    let plan = world.plan(&unnamed).await;
    assert!(
        plan.bind_candidates.is_empty(),
        "{:?}",
        plan.bind_candidates
    );
    assert!(
        text(&plan).contains("aws_security_group.web will be created"),
        "{}",
        text(&plan)
    );
}
