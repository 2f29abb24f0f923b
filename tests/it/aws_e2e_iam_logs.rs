//! The IAM and CloudWatch Logs types end to end: the `liveplan` binary with `provider "aws"` against the
//! local AWS emulator (started by scripts/test). A role, a user, an access key and a log group apply,
//! re-plan to `No changes.` at a known cost by operation, and a role and a log group made directly through
//! the SDK (no estate marker) survive every apply and are reported once declared. Every name is unique to
//! this test: the emulator's state is shared.

use aws_sdk_s3::types::BucketVersioningStatus;
use serde_json::json;

use crate::aws_e2e::{Emulator, NO_CHANGES, live_block};
use crate::aws_provider_iam_logs::TRUST_EC2;
use crate::cli::{Dir, actions, codes};

/// The IAM and Logs clients of the emulator, for objects made outside the engine.
struct Direct {
    iam: aws_sdk_iam::Client,
    logs: aws_sdk_cloudwatchlogs::Client,
}

impl Direct {
    fn connect(emu: &Emulator) -> Direct {
        let config = emu
            .runtime
            .block_on(staterecord::s3::sdk_config_from_env(None, None));
        Direct {
            iam: aws_sdk_iam::Client::new(&config),
            logs: aws_sdk_cloudwatchlogs::Client::new(&config),
        }
    }

    fn create_role(&self, emu: &Emulator, name: &str) {
        emu.runtime
            .block_on(
                self.iam
                    .create_role()
                    .role_name(name)
                    .assume_role_policy_document(TRUST_EC2)
                    .description("made by hand")
                    .send(),
            )
            .unwrap();
    }

    /// The role's description, `None` when the role is gone.
    fn role_description(&self, emu: &Emulator, name: &str) -> Option<String> {
        match emu
            .runtime
            .block_on(self.iam.get_role().role_name(name).send())
        {
            Ok(out) => Some(
                out.role()
                    .and_then(|r| r.description())
                    .unwrap_or_default()
                    .to_owned(),
            ),
            Err(err)
                if err
                    .as_service_error()
                    .is_some_and(|e| e.is_no_such_entity_exception()) =>
            {
                None
            }
            Err(err) => panic!(
                "GetRole {name}: {}",
                aws_sdk_iam::error::DisplayErrorContext(&err)
            ),
        }
    }

    fn create_log_group(&self, emu: &Emulator, name: &str) {
        emu.runtime
            .block_on(self.logs.create_log_group().log_group_name(name).send())
            .unwrap();
    }

    /// The log group's tags as `key=value` lines, sorted; `None` when the group is gone.
    fn log_group_tags(&self, emu: &Emulator, name: &str) -> Option<Vec<String>> {
        emu.runtime.block_on(async {
            let out = self
                .logs
                .describe_log_groups()
                .log_group_name_prefix(name)
                .send()
                .await
                .unwrap();
            let group = out
                .log_groups()
                .iter()
                .find(|g| g.log_group_name() == Some(name))?;
            let arn = group.log_group_arn().unwrap().to_owned();
            let tags = self
                .logs
                .list_tags_for_resource()
                .resource_arn(arn)
                .send()
                .await
                .unwrap();
            let mut lines: Vec<String> = tags
                .tags()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            lines.sort();
            Some(lines)
        })
    }

    /// The ids of the user's access keys.
    fn access_keys(&self, emu: &Emulator, user: &str) -> Vec<String> {
        let out = emu
            .runtime
            .block_on(self.iam.list_access_keys().user_name(user).send())
            .unwrap();
        out.access_key_metadata()
            .iter()
            .filter_map(|k| k.access_key_id().map(str::to_owned))
            .collect()
    }
}

/// The four declared objects, named after `name`.
fn estate_body(name: &str) -> String {
    let policy = TRUST_EC2.replace('"', "\\\"");
    format!(
        r#"
resource "aws_iam_role" "app" {{
  name               = "{name}-app"
  assume_role_policy = "{policy}"
  description        = "the application"
}}

resource "aws_iam_user" "ci" {{
  name = "{name}-ci"
}}

resource "aws_iam_access_key" "ci" {{
  user = aws_iam_user.ci.name
}}

resource "aws_cloudwatch_log_group" "app" {{
  name              = "/liveplan/{name}/app"
  retention_in_days = 14
}}
"#
    )
}

fn role_block(label: &str, name: &str) -> String {
    let policy = TRUST_EC2.replace('"', "\\\"");
    format!(
        "\nresource \"aws_iam_role\" \"{label}\" {{\n  name               = \"{name}\"\n  assume_role_policy = \"{policy}\"\n  description        = \"made by hand\"\n}}\n"
    )
}

fn log_group_block(label: &str, name: &str) -> String {
    format!("\nresource \"aws_cloudwatch_log_group\" \"{label}\" {{\n  name = \"{name}\"\n}}\n")
}

#[test]
fn aws_e2e_iam_and_logs_estate_converges_and_leaves_foreign_objects_alone() {
    let emu = Emulator::connect("iamlogs");
    let direct = Direct::connect(&emu);
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let config = [live.as_str(), &estate_body(&name)].concat();
    let dir = Dir::with_config(&config);

    // Made by hand before the first apply, with no marker: not this estate's.
    let (hand_role, hand_group) = (format!("{name}-hand"), format!("/liveplan/{name}/hand"));
    direct.create_role(&emu, &hand_role);
    direct.create_log_group(&emu, &hand_group);

    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    assert_eq!(
        actions(&plan.json()),
        [
            "aws_cloudwatch_log_group.app create",
            "aws_iam_access_key.ci create",
            "aws_iam_role.app create",
            "aws_iam_user.ci create",
        ]
    );
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 4 added, 0 changed, 0 destroyed."
    );
    assert_eq!(
        direct
            .role_description(&emu, &format!("{name}-app"))
            .as_deref(),
        Some("the application")
    );
    assert_eq!(direct.access_keys(&emu, &format!("{name}-ci")).len(), 1);
    let tags = direct
        .log_group_tags(&emu, &format!("/liveplan/{name}/app"))
        .expect("the log group exists");
    assert!(
        tags.contains(&format!("tofu-estate={name}"))
            && tags.contains(&"tofu-address=aws_cloudwatch_log_group.app".to_owned()),
        "the markers came with the create: {tags:?}"
    );

    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);
    let costed = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    costed.expect_code(0);
    let doc = costed.json();
    assert_eq!(actions(&doc), Vec::<String>::new());
    // The estate's tagging sweep (one page: the log group is its one tagged object) and one bulk listing
    // of log groups bind the log group; the role and the user are read by name, the key listed under
    // its user.
    assert_eq!(
        doc["cost"]["api_calls_by_operation"],
        json!({
            "iam:GetRole": 1,
            "iam:GetUser": 1,
            "iam:ListAccessKeys": 1,
            "logs:DescribeLogGroups": 1,
            "tagging:GetResources": 1,
        }),
    );
    assert_eq!(doc["cost"]["api_calls"], 5);

    // Declared, the hand-made role and log group are reported as adoptable and nothing is planned.
    let declared = [
        config.as_str(),
        &role_block("hand", &hand_role),
        &log_group_block("hand", &hand_group),
    ]
    .concat();
    dir.write("main.tf", &declared);
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(codes(&doc), ["unowned", "unowned"]);
    assert_eq!(actions(&doc), Vec::<String>::new());
    assert_eq!(
        doc["unowned"],
        json!([
            {
                "address": "aws_cloudwatch_log_group.hand",
                "type": "aws_cloudwatch_log_group",
                "id": hand_group,
                "verdict": "adoptable",
                "estate": null,
                "command": "liveplan adopt aws_cloudwatch_log_group.hand",
            },
            {
                "address": "aws_iam_role.hand",
                "type": "aws_iam_role",
                "id": hand_role,
                "verdict": "adoptable",
                "estate": null,
                "command": "liveplan adopt aws_iam_role.hand",
            },
        ])
    );
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."
    );

    // Undeclared again, and the estate's own objects removed: only what it owns is deleted.
    dir.write("main.tf", &live);
    let removal = dir.run(&["plan", "--json"]);
    removal.expect_code(0);
    assert_eq!(
        actions(&removal.json()),
        [
            "aws_cloudwatch_log_group.app delete",
            "aws_iam_access_key.ci delete",
            "aws_iam_role.app delete",
            "aws_iam_user.ci delete",
        ]
    );
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(direct.role_description(&emu, &format!("{name}-app")), None);
    assert_eq!(
        direct.log_group_tags(&emu, &format!("/liveplan/{name}/app")),
        None
    );
    assert_eq!(
        direct.role_description(&emu, &hand_role).as_deref(),
        Some("made by hand"),
        "the foreign role survives every apply"
    );
    assert_eq!(
        direct.log_group_tags(&emu, &hand_group),
        Some(Vec::new()),
        "the foreign log group survives every apply, untagged"
    );
    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);
}
