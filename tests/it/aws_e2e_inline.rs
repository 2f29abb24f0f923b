//! Inline sets on the real AWS provider against the emulator, beside the simulated cloud: a route table's
//! `route` blocks and a security group's `ingress`/`egress` blocks (protocols written as users write
//! them, a group named by its `name_prefix`) apply and re-plan to `No changes.` on both clouds; on the
//! emulator, a rule and a route added by hand to the owned objects are planned for removal and removed,
//! and a changed rule costs one revoke and one authorize.

use aws_sdk_ec2::types::{IpPermission, IpRange};

use crate::aws_e2e::{Emulator, NO_CHANGES};
use crate::aws_e2e_ec2::Account;
use crate::cli::{Dir, Run, actions};

/// A network with inline sets, as tutorials write it.
fn network(ssh_port: u16) -> String {
    format!(
        r#"
resource "aws_vpc" "main" {{
  cidr_block = "10.30.0.0/16"
}}

resource "aws_internet_gateway" "gw" {{
  vpc_id = aws_vpc.main.id
}}

resource "aws_route_table" "public" {{
  vpc_id = aws_vpc.main.id

  route {{
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.gw.id
  }}
}}

resource "aws_security_group" "web" {{
  name_prefix = "web-"
  vpc_id      = aws_vpc.main.id

  ingress {{
    description = "HTTPS"
    from_port   = 443
    to_port     = 443
    protocol    = "TCP"
    cidr_blocks = ["0.0.0.0/0"]
  }}

  ingress {{
    from_port   = {ssh_port}
    to_port     = {ssh_port}
    protocol    = "6"
    cidr_blocks = ["10.0.0.0/8"]
  }}

  egress {{
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }}
}}
"#
    )
}

/// The plan's actions and its JSON, after a successful plan.
fn planned(run: &dyn Fn(&[&str]) -> Run) -> Vec<String> {
    let plan = run(&["plan", "-json"]);
    plan.expect_code(0);
    actions(&plan.json())
}

#[test]
fn aws_e2e_inline_routes_and_rules_converge_on_both_clouds() {
    let emu = Emulator::connect("inline");
    let account = Account::fresh(&emu);
    let live = format!("live {{\n  estate = \"{}\"\n}}\n", emu.name);
    let sim = Dir::with_config(&[live.as_str(), &network(22)].concat());
    let aws = Dir::with_config(&[live.as_str(), "provider \"aws\" {}\n", &network(22)].concat());
    let on_sim = |a: &[&str]| sim.run(a);
    let on_aws = |a: &[&str]| account.run(&aws, a);
    for run in [&on_sim as &dyn Fn(&[&str]) -> Run, &on_aws] {
        assert_eq!(
            planned(run),
            [
                "aws_internet_gateway.gw create",
                "aws_route_table.public create",
                "aws_security_group.web create",
                "aws_vpc.main create",
            ]
        );
        run(&["apply", "-auto-approve"]).expect_code(0);
        let again = run(&["plan", "-detailed-exitcode"]);
        again.expect_code(0);
        assert_eq!(again.stdout, NO_CHANGES);
    }

    // On the emulator: what AWS holds is what was declared, the group named by its prefix.
    let ec2 = aws_sdk_ec2::Client::new(&account.config);
    let group = emu
        .runtime
        .block_on(
            ec2.describe_security_groups()
                .filters(
                    aws_sdk_ec2::types::Filter::builder()
                        .name("tag:tofu-address")
                        .values("aws_security_group.web")
                        .build(),
                )
                .send(),
        )
        .unwrap()
        .security_groups()[0]
        .clone();
    let group_id = group.group_id().unwrap().to_owned();
    assert!(group.group_name().unwrap().starts_with("web-"), "{group:?}");
    let mut ports: Vec<(Option<i32>, String)> = group
        .ip_permissions()
        .iter()
        .map(|p| (p.from_port(), p.ip_protocol().unwrap().to_owned()))
        .collect();
    ports.sort();
    assert_eq!(
        ports,
        [(Some(22), "tcp".to_owned()), (Some(443), "tcp".to_owned())]
    );
    assert_eq!(group.ip_permissions_egress().len(), 1, "{group:?}");
    let table = emu
        .runtime
        .block_on(
            ec2.describe_route_tables()
                .filters(
                    aws_sdk_ec2::types::Filter::builder()
                        .name("tag:tofu-address")
                        .values("aws_route_table.public")
                        .build(),
                )
                .send(),
        )
        .unwrap()
        .route_tables()[0]
        .clone();
    let table_id = table.route_table_id().unwrap().to_owned();
    let gateway = table
        .routes()
        .iter()
        .find(|r| r.destination_cidr_block() == Some("0.0.0.0/0"))
        .and_then(|r| r.gateway_id())
        .unwrap()
        .to_owned();

    // A rule and a route added by hand: the declared sets are the whole sets, so both go.
    emu.runtime.block_on(async {
        ec2.authorize_security_group_ingress()
            .group_id(&group_id)
            .ip_permissions(
                IpPermission::builder()
                    .ip_protocol("tcp")
                    .from_port(3389)
                    .to_port(3389)
                    .ip_ranges(IpRange::builder().cidr_ip("0.0.0.0/0").build())
                    .build(),
            )
            .send()
            .await
            .unwrap();
        ec2.create_route()
            .route_table_id(&table_id)
            .destination_cidr_block("192.168.0.0/16")
            .gateway_id(&gateway)
            .send()
            .await
            .unwrap();
    });
    let drifted = on_aws(&["plan"]);
    drifted.expect_code(0);
    assert!(
        drifted
            .stdout
            .contains("# not declared: the configured `ingress` blocks are the whole set"),
        "{}",
        drifted.stdout
    );
    assert!(
        drifted.stdout.contains("192.168.0.0/16"),
        "{}",
        drifted.stdout
    );
    assert_eq!(
        planned(&on_aws),
        [
            "aws_route_table.public update",
            "aws_security_group.web update"
        ]
    );
    on_aws(&["apply", "-auto-approve"]).expect_code(0);
    assert_eq!(on_aws(&["plan"]).stdout, NO_CHANGES);
    let after = emu
        .runtime
        .block_on(ec2.describe_security_groups().group_ids(&group_id).send())
        .unwrap();
    let ports: Vec<Option<i32>> = after.security_groups()[0]
        .ip_permissions()
        .iter()
        .map(IpPermission::from_port)
        .collect();
    assert!(!ports.contains(&Some(3389)), "{ports:?}");

    // Another SSH port: one update of the group, and the re-plan is clean.
    aws.write(
        "main.tf",
        &[live.as_str(), "provider \"aws\" {}\n", &network(2222)].concat(),
    );
    assert_eq!(planned(&on_aws), ["aws_security_group.web update"]);
    on_aws(&["apply", "-auto-approve"]).expect_code(0);
    let again = on_aws(&["plan", "-detailed-exitcode"]);
    again.expect_code(0);
    assert_eq!(again.stdout, NO_CHANGES);
}
