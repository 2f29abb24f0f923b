//! The AWS provider v5 arguments that change what an object is or how it is destroyed, end to end: the
//! `liveplan` binary with `provider "aws"` against the local AWS emulator (started by scripts/test). A
//! bucket with `force_destroy` is emptied of every object version before its delete; a role's `path`,
//! `description`, `max_session_duration` and `permissions_boundary` round-trip and its
//! `force_detach_policies` detaches what was attached by hand; a log group's `retention_in_days`,
//! `kms_key_id` and `log_group_class` round-trip and `skip_destroy` leaves it in place, only released from
//! the estate. Every name is unique to its test: the emulator's state is shared.

use aws_sdk_s3::types::{BucketVersioningStatus, VersioningConfiguration};
use serde_json::json;

use crate::aws_e2e::{Emulator, NO_CHANGES, live_block};
use crate::aws_provider_iam_logs::TRUST_EC2;
use crate::cli::{Dir, actions};

/// The reason the plan gives a destroy, by address.
fn reasons(plan: &serde_json::Value) -> Vec<String> {
    plan["resource_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{}: {}",
                c["address"].as_str().unwrap_or_default(),
                c["reason"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

fn sdk_config(emu: &Emulator) -> aws_config::SdkConfig {
    emu.runtime
        .block_on(staterecord::s3::sdk_config_from_env(None, None))
}

#[test]
fn aws_e2e_arguments_force_destroy_empties_a_versioned_bucket_before_its_delete() {
    let emu = Emulator::connect("fdestroy");
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let bucket = format!("{name}-data");
    let config = format!(
        "{live}\nresource \"aws_s3_bucket\" \"data\" {{\n  bucket        = \"{bucket}\"\n  force_destroy = true\n}}\n"
    );
    let dir = Dir::with_config(&config);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);

    // Objects written outside the estate, two versions of one key, and a delete marker.
    let s3 = &emu.client;
    emu.runtime.block_on(async {
        s3.put_bucket_versioning()
            .bucket(&bucket)
            .versioning_configuration(
                VersioningConfiguration::builder()
                    .status(BucketVersioningStatus::Enabled)
                    .build(),
            )
            .send()
            .await
            .unwrap();
        for key in ["a.txt", "a.txt", "logs/b.txt"] {
            s3.put_object()
                .bucket(&bucket)
                .key(key)
                .send()
                .await
                .unwrap();
        }
        s3.delete_object()
            .bucket(&bucket)
            .key("logs/b.txt")
            .send()
            .await
            .unwrap();
    });

    dir.write("main.tf", &live);
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(actions(&doc), ["aws_s3_bucket.data delete"]);
    assert_eq!(
        reasons(&doc),
        ["aws_s3_bucket.data: no longer declared; what it holds is deleted first"]
    );
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 1 destroyed."
    );
    let gone = emu
        .runtime
        .block_on(s3.head_bucket().bucket(&bucket).send());
    assert!(gone.is_err(), "the bucket is deleted");
}

#[test]
fn aws_e2e_arguments_role_settings_round_trip_and_force_detach_policies_detaches() {
    let emu = Emulator::connect("rolesettings");
    let iam = aws_sdk_iam::Client::new(&sdk_config(&emu));
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let role = format!("{name}-svc");
    let boundary = emu
        .runtime
        .block_on(
            iam.create_policy()
                .policy_name(format!("{name}-boundary"))
                .policy_document(r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#)
                .send(),
        )
        .unwrap()
        .policy()
        .and_then(|p| p.arn())
        .unwrap()
        .to_owned();
    let policy = TRUST_EC2.replace('"', "\\\"");
    let role_block = |duration: u32| {
        format!(
            r#"
resource "aws_iam_role" "svc" {{
  name                  = "{role}"
  path                  = "/services/"
  description           = "the service"
  assume_role_policy    = "{policy}"
  max_session_duration  = {duration}
  permissions_boundary  = "{boundary}"
  force_detach_policies = true
}}
"#
        )
    };
    let dir = Dir::with_config(&[live.as_str(), &role_block(7200)].concat());
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let read = || {
        let out = emu
            .runtime
            .block_on(iam.get_role().role_name(&role).send())
            .unwrap();
        let r = out.role().unwrap().clone();
        (
            r.path().to_owned(),
            r.description().map(str::to_owned),
            r.max_session_duration(),
            r.permissions_boundary()
                .and_then(|b| b.permissions_boundary_arn())
                .map(str::to_owned),
        )
    };
    assert_eq!(
        read(),
        (
            "/services/".to_owned(),
            Some("the service".to_owned()),
            Some(7200),
            Some(boundary.clone())
        )
    );
    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);

    // The session duration changes in place; the path would force a new role.
    dir.write("main.tf", &[live.as_str(), &role_block(10800)].concat());
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    assert_eq!(actions(&plan.json()), ["aws_iam_role.svc update"]);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    assert_eq!(read().2, Some(10800));
    assert_eq!(read().1.as_deref(), Some("the service"));
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);

    // Policies attached by hand would refuse a plain delete; force_detach_policies removes them first.
    emu.runtime.block_on(async {
        iam.attach_role_policy()
            .role_name(&role)
            .policy_arn(&boundary)
            .send()
            .await
            .unwrap();
        iam.put_role_policy()
            .role_name(&role)
            .policy_name("inline")
            .policy_document(r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"logs:*","Resource":"*"}]}"#)
            .send()
            .await
            .unwrap();
    });
    dir.write("main.tf", &live);
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert_eq!(
        applied.last_line(),
        "Apply complete! Resources: 0 added, 0 changed, 1 destroyed."
    );
    let gone = emu.runtime.block_on(iam.get_role().role_name(&role).send());
    assert!(gone.is_err(), "the role is deleted");
}

#[test]
fn aws_e2e_arguments_log_group_settings_round_trip_and_skip_destroy_keeps_it() {
    let emu = Emulator::connect("logsettings");
    let logs = aws_sdk_cloudwatchlogs::Client::new(&sdk_config(&emu));
    let name = emu.name.clone();
    let records = emu.record_bucket(BucketVersioningStatus::Enabled);
    let live = live_block(&name, &records, "");
    let group = format!("/liveplan/{name}/audit");
    let key = "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555";
    let config = format!(
        r#"{live}
resource "aws_cloudwatch_log_group" "audit" {{
  name              = "{group}"
  retention_in_days = 30
  kms_key_id        = "{key}"
  log_group_class   = "STANDARD"
  skip_destroy      = true
}}
"#
    );
    let dir = Dir::with_config(&config);
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let described = || {
        emu.runtime.block_on(async {
            let out = logs
                .describe_log_groups()
                .log_group_name_prefix(&group)
                .send()
                .await
                .unwrap();
            let found = out
                .log_groups()
                .iter()
                .find(|g| g.log_group_name() == Some(group.as_str()))
                .cloned();
            let tags = match &found {
                Some(g) => {
                    let arn = g.log_group_arn().unwrap().to_owned();
                    let tags = logs
                        .list_tags_for_resource()
                        .resource_arn(arn)
                        .send()
                        .await
                        .unwrap();
                    let mut keys: Vec<String> = tags
                        .tags()
                        .into_iter()
                        .flatten()
                        .map(|(k, _)| k.clone())
                        .collect();
                    keys.sort();
                    keys
                }
                None => Vec::new(),
            };
            (found, tags)
        })
    };
    let (found, tags) = described();
    let found = found.expect("the log group exists");
    assert_eq!(found.retention_in_days(), Some(30));
    assert_eq!(found.kms_key_id(), Some(key));
    assert_eq!(tags, ["tofu-address", "tofu-estate"]);
    let converged = dir.run(&["plan", "--detailed-exitcode"]);
    converged.expect_code(0);
    assert_eq!(converged.stdout, NO_CHANGES);

    // Undeclared, the log group leaves the estate and stays.
    dir.write("main.tf", &live);
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(actions(&doc), ["aws_cloudwatch_log_group.audit delete"]);
    assert_eq!(
        reasons(&doc),
        [
            "aws_cloudwatch_log_group.audit: no longer declared; kept in place: only this estate's ownership tags are removed"
        ]
    );
    let applied = dir.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    let (found, tags) = described();
    assert_eq!(
        found.map(|g| g.retention_in_days()),
        Some(Some(30)),
        "the log group stays"
    );
    assert_eq!(tags, Vec::<String>::new(), "without this estate's markers");
    let after = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    after.expect_code(0);
    assert_eq!(actions(&after.json()), Vec::<String>::new());
    assert_eq!(after.json()["resource_changes"], json!([]));
}
