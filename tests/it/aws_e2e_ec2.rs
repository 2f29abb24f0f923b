//! The EC2 network types end to end: the `liveplan` binary with `provider "aws"` against the local AWS
//! emulator (started by scripts/test). A small network (VPC, subnet, internet gateway, route table, route,
//! association, security group, elastic IP) applies, re-plans to `No changes.` at a known cost by
//! operation, and a VPC, subnet and security group made directly through the SDK (no estate marker) are
//! reported as foreign and survive every apply, while the objects AWS makes by itself (the default VPC and
//! its subnets, main route tables, `default` groups) are no noise of the plan.
//!
//! The test runs in an emulator account of its own (moto keeps one state per account; the test reaches
//! its account through an assumed role), so the listings, and so the cost, hold only what it made.

use aws_sdk_s3::types::BucketVersioningStatus;
use serde_json::json;

use crate::aws_e2e::{Emulator, NO_CHANGES, live_block};
use crate::cli::{Dir, Run, actions};

/// An emulator account of the test's own: its SDK configuration and the environment the CLI runs with.
pub(crate) struct Account {
    pub(crate) config: aws_config::SdkConfig,
    env: Vec<(&'static str, String)>,
}

impl Account {
    /// Assumes a role in a fresh account (moto makes the account on first use).
    pub(crate) fn fresh(emu: &Emulator) -> Account {
        let (config, c) = emu
            .runtime
            .block_on(crate::aws_e2e::fresh_account(3, "liveplan-e2e"));
        let env = vec![
            ("AWS_ACCESS_KEY_ID", c.access_key_id().to_owned()),
            ("AWS_SECRET_ACCESS_KEY", c.secret_access_key().to_owned()),
            (
                "AWS_SESSION_TOKEN",
                c.session_token().unwrap_or_default().to_owned(),
            ),
        ];
        Account { config, env }
    }

    pub(crate) fn run(&self, dir: &Dir, args: &[&str]) -> Run {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        dir.run_with_env(args, &env)
    }
}

/// The foreign network made through the SDK: a VPC, a subnet and a security group, with no tags.
struct Foreign {
    vpc: String,
    subnet: String,
    group: String,
}

fn make_foreign(emu: &Emulator, ec2: &aws_sdk_ec2::Client, name: &str) -> Foreign {
    emu.runtime.block_on(async {
        let vpc = ec2
            .create_vpc()
            .cidr_block("10.99.0.0/16")
            .send()
            .await
            .unwrap();
        let vpc = vpc.vpc().unwrap().vpc_id().unwrap().to_owned();
        let subnet = ec2
            .create_subnet()
            .vpc_id(&vpc)
            .cidr_block("10.99.1.0/24")
            .send()
            .await
            .unwrap();
        let subnet = subnet.subnet().unwrap().subnet_id().unwrap().to_owned();
        let group = ec2
            .create_security_group()
            .group_name(format!("{name}-hand"))
            .description("made by hand")
            .vpc_id(&vpc)
            .send()
            .await
            .unwrap();
        let group = group.group_id().unwrap().to_owned();
        // The gateway AWS gives the default VPC (the emulator's default VPC has none): made here.
        let default_vpc = ec2
            .describe_vpcs()
            .filters(
                aws_sdk_ec2::types::Filter::builder()
                    .name("is-default")
                    .values("true")
                    .build(),
            )
            .send()
            .await
            .unwrap();
        let default_vpc = default_vpc.vpcs()[0].vpc_id().unwrap().to_owned();
        let gateway = ec2.create_internet_gateway().send().await.unwrap();
        let gateway = gateway.internet_gateway().unwrap();
        ec2.attach_internet_gateway()
            .internet_gateway_id(gateway.internet_gateway_id().unwrap())
            .vpc_id(&default_vpc)
            .send()
            .await
            .unwrap();
        Foreign { vpc, subnet, group }
    })
}

/// Whether the foreign network is still there, untagged, as it was made.
fn foreign_intact(emu: &Emulator, ec2: &aws_sdk_ec2::Client, foreign: &Foreign) -> bool {
    emu.runtime.block_on(async {
        let vpcs = ec2
            .describe_vpcs()
            .vpc_ids(&foreign.vpc)
            .send()
            .await
            .unwrap();
        let subnets = ec2
            .describe_subnets()
            .subnet_ids(&foreign.subnet)
            .send()
            .await
            .unwrap();
        let groups = ec2
            .describe_security_groups()
            .group_ids(&foreign.group)
            .send()
            .await
            .unwrap();
        vpcs.vpcs().len() == 1
            && vpcs.vpcs()[0].tags().is_empty()
            && subnets.subnets().len() == 1
            && subnets.subnets()[0].tags().is_empty()
            && groups.security_groups().len() == 1
            && groups.security_groups()[0].tags().is_empty()
    })
}

/// The ids of the account's VPCs, default VPC left out.
fn vpc_ids(emu: &Emulator, ec2: &aws_sdk_ec2::Client) -> Vec<String> {
    let out = emu.runtime.block_on(ec2.describe_vpcs().send()).unwrap();
    let mut ids: Vec<String> = out
        .vpcs()
        .iter()
        .filter(|v| v.is_default() != Some(true))
        .filter_map(|v| v.vpc_id().map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

/// The eight declared objects of the network.
fn network(name: &str) -> String {
    format!(
        r#"
resource "aws_vpc" "main" {{
  cidr_block = "10.20.0.0/16"
}}

resource "aws_subnet" "a" {{
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.20.1.0/24"
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

resource "aws_security_group" "web" {{
  name   = "{name}-web"
  vpc_id = aws_vpc.main.id
}}

resource "aws_eip" "nat" {{
  domain = "vpc"
}}
"#
    )
}

#[test]
fn aws_e2e_network_converges_at_a_known_cost_and_leaves_foreign_objects_alone() {
    let emu = Emulator::connect("ec2");
    let account = Account::fresh(&emu);
    let emu = emu.in_account(&account.config);
    let ec2 = aws_sdk_ec2::Client::new(&account.config);
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let config = [live.as_str(), &network(&name)].concat();
    let dir = Dir::with_config(&config);
    let foreign = make_foreign(&emu, &ec2, &name);

    let plan = account.run(&dir, &["plan", "--json"]);
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(
        actions(&doc),
        [
            "aws_eip.nat create",
            "aws_internet_gateway.gw create",
            "aws_route.out create",
            "aws_route_table.public create",
            "aws_route_table_association.a create",
            "aws_security_group.web create",
            "aws_subnet.a create",
            "aws_vpc.main create",
        ]
    );
    // Only the hand-made network is foreign: the default VPC, its subnets and internet gateway and every
    // VPC's main route table and default group are not reported.
    let foreign_ids = |doc: &serde_json::Value| -> Vec<(String, String)> {
        doc["foreign"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["type"].as_str().unwrap().to_owned(),
                    f["id"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let expected_foreign = vec![
        ("aws_security_group".to_owned(), foreign.group.clone()),
        ("aws_subnet".to_owned(), foreign.subnet.clone()),
        ("aws_vpc".to_owned(), foreign.vpc.clone()),
    ];
    assert_eq!(foreign_ids(&doc), expected_foreign);

    let applied = account.run(&dir, &["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 8 added, 0 changed, 0 destroyed."
    );
    let made = vpc_ids(&emu, &ec2);
    assert_eq!(
        made.len(),
        2,
        "the estate's VPC beside the foreign one: {made:?}"
    );
    let estate_vpc = made.iter().find(|v| **v != foreign.vpc).unwrap().clone();
    let tags = emu.runtime.block_on(async {
        let out = ec2
            .describe_vpcs()
            .vpc_ids(&estate_vpc)
            .send()
            .await
            .unwrap();
        let mut tags: Vec<String> = out.vpcs()[0]
            .tags()
            .iter()
            .map(|t| format!("{}={}", t.key().unwrap(), t.value().unwrap()))
            .collect();
        tags.sort();
        tags
    });
    assert!(
        tags.contains(&format!("tofu-estate={name}"))
            && tags.contains(&"tofu-address=aws_vpc.main".to_owned()),
        "the markers came with the create: {tags:?}"
    );

    let converged = account.run(&dir, &["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(
        converged.stdout,
        format!(
            "Foreign objects (not managed; never changed):\n  aws_security_group {}\n  aws_subnet {}\n  aws_vpc {}\n\n{NO_CHANGES}",
            foreign.group, foreign.subnet, foreign.vpc
        )
    );
    let costed = account.run(&dir, &["plan", "--detailed-exitcode", "--json"]);
    costed.expect_code(0);
    let doc = costed.json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    assert_eq!(foreign_ids(&doc), expected_foreign);
    // One sweep page and one listing per declared type with a listing; routes and the association come
    // inline with their table; each of the two VPCs costs its two DNS settings; the gateways' listing
    // asks which VPC is the default one (one more `DescribeVpcs`).
    assert_eq!(
        doc["cost"]["api_calls_by_operation"],
        json!({
            "ec2:DescribeAddresses": 1,
            "ec2:DescribeInternetGateways": 1,
            "ec2:DescribeRouteTables": 1,
            "ec2:DescribeSecurityGroups": 1,
            "ec2:DescribeSubnets": 1,
            "ec2:DescribeVpcAttribute": 4,
            "ec2:DescribeVpcs": 2,
            "tagging:GetResources": 1,
        }),
    );
    assert_eq!(doc["cost"]["api_calls"], 12);

    // Undeclared, the estate's network is removed in dependency order; the foreign one stays. The
    // address stays declared: the emulator's tagging index holds no elastic IPs, so there an owned
    // address no longer declared is not found (against AWS the estate's sweep finds it).
    let eip = "\nresource \"aws_eip\" \"nat\" {\n  domain = \"vpc\"\n}\n";
    dir.write("main.tf", &[live.as_str(), eip].concat());
    let removal = account.run(&dir, &["plan", "--json"]);
    removal.expect_code(0);
    assert_eq!(
        actions(&removal.json()),
        [
            "aws_internet_gateway.gw delete",
            "aws_route.out delete",
            "aws_route_table.public delete",
            "aws_route_table_association.a delete",
            "aws_security_group.web delete",
            "aws_subnet.a delete",
            "aws_vpc.main delete",
        ]
    );
    let applied = account.run(&dir, &["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 7 destroyed."
    );
    assert_eq!(vpc_ids(&emu, &ec2), vec![foreign.vpc.clone()]);
    assert!(
        foreign_intact(&emu, &ec2, &foreign),
        "the foreign VPC, subnet and group survive every apply, untagged"
    );
    let converged = account.run(&dir, &["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert!(
        converged.stdout.ends_with(NO_CHANGES),
        "{}",
        converged.stdout
    );
}

/// The quickstart of README, with the provider block that sends it to the emulator and nothing else
/// changed (its names prefixed with the test's own, as `-var name=...` does).
#[test]
fn aws_e2e_quickstart_applies_on_the_emulator_and_replans_to_no_changes() {
    let emu = Emulator::connect("qs");
    let account = Account::fresh(&emu);
    let dir = Dir::quickstart();
    dir.write(
        "provider.tf",
        "provider \"aws\" {\n  region = \"us-east-1\"\n}\n",
    );
    let name = format!("-var=name={}", emu.name);

    let plan = account.run(&dir, &["plan", "-json", &name]);
    plan.expect_code(0);
    assert_eq!(
        actions(&plan.json()),
        [
            "aws_iam_role.deployer create",
            "aws_internet_gateway.gw create",
            "aws_route.internet create",
            "aws_route_table.public create",
            "aws_route_table_association.public[0] create",
            "aws_route_table_association.public[1] create",
            "aws_s3_bucket.artifacts create",
            "aws_subnet.public[0] create",
            "aws_subnet.public[1] create",
            "aws_subnet.public[2] create",
            "aws_vpc.main create",
            "random_id.suffix create",
        ]
    );
    let applied = account.run(&dir, &["apply", "-auto-approve", &name]);
    applied.expect_code(0);
    assert!(
        applied
            .stdout
            .contains("Apply complete! Resources: 12 added, 0 changed, 0 destroyed."),
        "{}",
        applied.stdout
    );
    assert!(
        applied.stdout.contains(&format!(
            "bucket_arn = \"arn:aws:s3:::{}-artifacts\"",
            emu.name
        )),
        "{}",
        applied.stdout
    );
    assert!(
        !dir.cloud_file().exists(),
        "the simulated cloud is not used"
    );

    let converged = account.run(&dir, &["plan", "-detailed-exitcode", &name]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);

    // README's next step: one more subnet is exactly one create.
    let grown = account.run(&dir, &["plan", "-json", &name, "-var=subnet_count=4"]);
    grown.expect_code(0);
    assert_eq!(actions(&grown.json()), ["aws_subnet.public[3] create"]);
}

/// A security group with no `vpc_id`, as tutorials write it: on both clouds it joins the region's default
/// VPC and re-plans to `No changes.`; the default VPC is never shown as a foreign object.
#[test]
fn aws_e2e_a_security_group_without_a_vpc_joins_the_default_vpc_on_both_clouds() {
    let emu = Emulator::connect("dvpc");
    let account = Account::fresh(&emu);
    let group = format!(
        "resource \"aws_security_group\" \"web\" {{\n  name = \"{}\"\n}}\n\nresource \"aws_vpc\" \"other\" {{\n  cidr_block = \"10.40.0.0/16\"\n}}\n",
        emu.name
    );
    let live = format!("live {{\n  estate = \"{}\"\n}}\n\n", emu.name);
    let sim = Dir::with_config(&[live.as_str(), &group].concat());
    let aws = Dir::with_config(&[live.as_str(), "provider \"aws\" {}\n\n", &group].concat());
    for (dir, run) in [
        (
            &sim,
            &(|d: &Dir, a: &[&str]| d.run(a)) as &dyn Fn(&Dir, &[&str]) -> Run,
        ),
        (&aws, &|d: &Dir, a: &[&str]| account.run(d, a)),
    ] {
        let plan = run(dir, &["plan", "-json"]);
        plan.expect_code(0);
        let doc = plan.json();
        assert_eq!(
            actions(&doc),
            ["aws_security_group.web create", "aws_vpc.other create"]
        );
        assert_eq!(
            doc["foreign"],
            json!([]),
            "the default VPC is no foreign object"
        );
        run(dir, &["apply", "-auto-approve"]).expect_code(0);
        let again = run(dir, &["plan", "-detailed-exitcode"]);
        again.expect_code(0);
        assert_eq!(again.stdout, NO_CHANGES);
    }
}
