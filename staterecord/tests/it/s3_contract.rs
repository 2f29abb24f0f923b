//! The bucket contract against the emulator: each unmet setting is a refusal quoting what was found, and
//! a waived setting moves to the waived list.

use aws_sdk_s3::types::{
    BucketLifecycleConfiguration, BucketVersioningStatus, ExpirationStatus, LifecycleRule,
    LifecycleRuleFilter, NoncurrentVersionExpiration, PublicAccessBlockConfiguration,
    VersioningConfiguration,
};
use expect_test::{Expect, expect};
use staterecord::testkit::emulator::S3Emulator;
use staterecord::{BucketFinding, BucketSetting, S3Store, split_waived};

async fn bucket(hint: &str) -> (S3Emulator, String) {
    let emu = S3Emulator::from_env()
        .await
        .expect("the AWS emulator must be running");
    let bucket = emu.fresh_bucket(hint).await.expect("bucket");
    (emu, bucket)
}

async fn versioning(emu: &S3Emulator, bucket: &str, status: BucketVersioningStatus) {
    emu.client
        .put_bucket_versioning()
        .bucket(bucket)
        .versioning_configuration(VersioningConfiguration::builder().status(status).build())
        .send()
        .await
        .unwrap();
}

async fn lifecycle(emu: &S3Emulator, bucket: &str, prefix: &str) {
    let rule = LifecycleRule::builder()
        .id("expire-old-records")
        .status(ExpirationStatus::Enabled)
        .filter(LifecycleRuleFilter::builder().prefix(prefix).build())
        .noncurrent_version_expiration(
            NoncurrentVersionExpiration::builder()
                .noncurrent_days(30)
                .build(),
        )
        .build()
        .unwrap();
    emu.client
        .put_bucket_lifecycle_configuration()
        .bucket(bucket)
        .lifecycle_configuration(
            BucketLifecycleConfiguration::builder()
                .rules(rule)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

async fn public_access_block(emu: &S3Emulator, bucket: &str, on: bool) {
    emu.client
        .put_public_access_block()
        .bucket(bucket)
        .public_access_block_configuration(
            PublicAccessBlockConfiguration::builder()
                .block_public_acls(on)
                .ignore_public_acls(on)
                .block_public_policy(on)
                .restrict_public_buckets(on)
                .build(),
        )
        .send()
        .await
        .unwrap();
}

fn check(findings: &[BucketFinding], expected: Expect) {
    let text: String = findings
        .iter()
        .map(|f| format!("{} ok={} unreadable={}\n", f, f.ok, f.unreadable))
        .collect();
    expected.assert_eq(&text);
}

#[tokio::test]
async fn s3_contract_bare_bucket_refuses_every_setting() {
    let (emu, bucket) = bucket("contract-bare").await;
    let store = S3Store::new(emu.client.clone(), &bucket);
    let findings = store.check_bucket_contract(&["estate/"]).await.unwrap();
    check(
        &findings,
        expect![[r#"
            versioning: versioning was never enabled ok=false unreadable=false
            lifecycle: no lifecycle configuration ok=false unreadable=false
            public_access_block: no public access block ok=false unreadable=false
        "#]],
    );
    let (refused, waived) = split_waived(&findings, &[BucketSetting::Versioning]);
    assert_eq!(
        refused.iter().map(|f| f.setting).collect::<Vec<_>>(),
        [BucketSetting::Lifecycle, BucketSetting::PublicAccessBlock]
    );
    assert_eq!(waived.len(), 1);
    assert_eq!(waived[0].found, "versioning was never enabled");
}

#[tokio::test]
async fn s3_contract_suspended_versioning_and_open_public_access_are_quoted() {
    let (emu, bucket) = bucket("contract-weak").await;
    versioning(&emu, &bucket, BucketVersioningStatus::Enabled).await;
    versioning(&emu, &bucket, BucketVersioningStatus::Suspended).await;
    lifecycle(&emu, &bucket, "records/").await;
    public_access_block(&emu, &bucket, false).await;
    let store = S3Store::new(emu.client.clone(), &bucket).with_key_prefix("records");
    let findings = store
        .check_bucket_contract(&["estate-a/", "estate-b/"])
        .await
        .unwrap();
    check(
        &findings,
        expect![[r#"
            versioning: versioning is Suspended ok=false unreadable=false
            lifecycle: a lifecycle rule expires noncurrent versions under every record namespace ok=true unreadable=false
            public_access_block: public access block leaves BlockPublicAcls, IgnorePublicAcls, BlockPublicPolicy, RestrictPublicBuckets off ok=false unreadable=false
        "#]],
    );
    let (refused, waived) = split_waived(
        &findings,
        &[BucketSetting::Versioning, BucketSetting::PublicAccessBlock],
    );
    assert!(refused.is_empty(), "every failure was waived: {refused:?}");
    assert_eq!(
        waived.iter().map(|f| f.setting).collect::<Vec<_>>(),
        [BucketSetting::Versioning, BucketSetting::PublicAccessBlock]
    );
}

#[tokio::test]
async fn s3_contract_sound_bucket_passes_and_lifecycle_must_cover_each_namespace() {
    let (emu, bucket) = bucket("contract-sound").await;
    versioning(&emu, &bucket, BucketVersioningStatus::Enabled).await;
    lifecycle(&emu, &bucket, "records/estate-a/").await;
    public_access_block(&emu, &bucket, true).await;
    let store = S3Store::new(emu.client.clone(), &bucket).with_key_prefix("records/");
    let findings = store.check_bucket_contract(&["estate-a/"]).await.unwrap();
    check(
        &findings,
        expect![[r#"
            versioning: versioning is Enabled ok=true unreadable=false
            lifecycle: a lifecycle rule expires noncurrent versions under every record namespace ok=true unreadable=false
            public_access_block: all four public access block settings are on ok=true unreadable=false
        "#]],
    );
    assert_eq!(split_waived(&findings, &[]), (vec![], vec![]));

    let findings = store
        .check_bucket_contract(&["estate-a/", "estate-b/"])
        .await
        .unwrap();
    assert_eq!(
        findings[1].found,
        "no lifecycle rule expires noncurrent versions under \"records/estate-b/\""
    );
    assert!(!findings[1].ok);
}

#[test]
fn s3_contract_setting_names_are_the_configuration_words() {
    for setting in BucketSetting::ALL {
        assert_eq!(setting.as_str().parse::<BucketSetting>(), Ok(setting));
    }
    assert_eq!(
        "encryption"
            .parse::<BucketSetting>()
            .unwrap_err()
            .to_string(),
        "\"encryption\" is not a bucket setting (expected versioning, lifecycle or public_access_block)"
    );
}
