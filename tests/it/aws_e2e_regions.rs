//! Two regions of one account through a provider alias, end to end: the `liveplan` binary with
//! `provider "aws"` blocks against the local AWS emulator (started by scripts/test, which serves every
//! region). Each object lands in the region of its provider configuration, the converged plan costs what
//! the cost model predicts in each region, a region dropped from the configuration is still swept (its
//! objects kept, with an error naming it), and an alias that reaches it again deletes them.
//!
//! The test runs in an emulator account of its own, so the listings, and so the cost, hold only what it
//! made.

use aws_sdk_s3::types::BucketVersioningStatus;
use serde_json::json;

use crate::aws_e2e::{Emulator, NO_CHANGES, live_block};
use crate::aws_e2e_ec2::Account;
use crate::cli::{Dir, actions, codes};

const WEST: &str = r#"
provider "aws" {
  alias  = "west"
  region = "us-west-2"
}
"#;

fn blocks(name: &str, west: bool) -> String {
    let east = "\nresource \"aws_vpc\" \"east\" {\n  cidr_block = \"10.80.0.0/16\"\n}\n";
    let second = format!(
        r#"
resource "aws_vpc" "west" {{
  provider   = aws.west
  cidr_block = "10.81.0.0/16"
}}

resource "aws_cloudwatch_log_group" "west" {{
  provider = aws.west
  name     = "{name}-west"
}}
"#
    );
    [east, if west { second.as_str() } else { "" }].concat()
}

/// The CIDR blocks of the VPCs the account has in `region`, the default VPC left out.
fn vpcs_in(emu: &Emulator, account: &Account, region: &str) -> Vec<String> {
    let config = aws_sdk_ec2::config::Builder::from(&account.config)
        .region(aws_sdk_ec2::config::Region::new(region.to_owned()))
        .build();
    let ec2 = aws_sdk_ec2::Client::from_conf(config);
    emu.runtime.block_on(async {
        let out = ec2.describe_vpcs().send().await.unwrap();
        let mut cidrs: Vec<String> = out
            .vpcs()
            .iter()
            .filter(|v| v.is_default() != Some(true))
            .filter_map(|v| v.cidr_block().map(str::to_owned))
            .collect();
        cidrs.sort();
        cidrs
    })
}

#[test]
fn aws_e2e_a_second_region_through_an_alias_is_planned_applied_and_swept_per_region() {
    let emu = Emulator::connect("regions");
    let account = Account::fresh(&emu);
    let emu = emu.in_account(&account.config);
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    // The live block's `provider "aws" {}` is the home region's (the environment's, us-east-1).
    let both = [live.as_str(), WEST, &blocks(&name, true)].concat();
    let dir = Dir::with_config(&both);

    let applied = account.run(&dir, &["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 3 added, 0 changed, 0 destroyed."
    );
    assert_eq!(vpcs_in(&emu, &account, "us-east-1"), ["10.80.0.0/16"]);
    assert_eq!(vpcs_in(&emu, &account, "us-west-2"), ["10.81.0.0/16"]);

    // Converged, at the cost model's price in each region: one sweep page each; us-east-1 lists its VPCs
    // (one, with its two DNS settings); us-west-2 lists its VPCs (one, two DNS settings) and its log
    // groups (one page).
    let costed = account.run(&dir, &["plan", "--detailed-exitcode", "--json"]);
    costed.expect_code(0);
    let doc = costed.json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    assert_eq!(
        doc["cost"]["api_calls_by_operation"],
        json!({
            "ec2:DescribeVpcAttribute": 4,
            "ec2:DescribeVpcs": 2,
            "logs:DescribeLogGroups": 1,
            "tagging:GetResources": 2,
        }),
        "{}",
        doc["cost"]
    );
    assert_eq!(
        doc["cost"]["api_calls_by_region"],
        json!({ "us-east-1": 4, "us-west-2": 5 })
    );
    assert_eq!(doc["cost"]["api_calls"], 9);
    assert_eq!(doc["cost"]["store_trips"], 1);

    // The second region dropped from the configuration altogether: still swept, its objects reported
    // and kept, and the plan is refused with an error naming the region.
    let east_only = [live.as_str(), &blocks(&name, false)].concat();
    dir.write("main.tf", &east_only);
    let dropped = account.run(&dir, &["plan", "--json"]);
    dropped.expect_code(1);
    let doc = dropped.json();
    assert_eq!(codes(&doc), ["region-not-configured"]);
    assert!(
        doc["diagnostics"][0]["summary"]
            .as_str()
            .unwrap()
            .contains("us-west-2"),
        "{doc}"
    );
    assert_eq!(actions(&doc), Vec::<String>::new());
    let kept: Vec<&str> = doc["owned_undeclared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["action"].as_str().unwrap())
        .collect();
    assert_eq!(kept, ["unreachable", "unreachable"]);

    // An alias reaches us-west-2 again: the objects there are deleted, the home region's kept.
    dir.write("main.tf", &[east_only.as_str(), WEST].concat());
    let removal = account.run(&dir, &["apply", "--auto-approve"]);
    removal.expect_code(0);
    assert_eq!(
        removal.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 2 destroyed."
    );
    assert_eq!(vpcs_in(&emu, &account, "us-west-2"), Vec::<String>::new());
    assert_eq!(vpcs_in(&emu, &account, "us-east-1"), ["10.80.0.0/16"]);
    let converged = account.run(&dir, &["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert!(
        converged.stdout.ends_with(NO_CHANGES),
        "{}",
        converged.stdout
    );
}
