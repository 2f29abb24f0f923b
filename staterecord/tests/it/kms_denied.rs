//! KMS denials read from AWS's access-denied messages, as recorded from real S3 responses.

use expect_test::expect;
use staterecord::{KmsDenialPolicy, KmsDenied};

/// `PutObject` into a bucket whose default key's policy does not name the role.
const GENERATE_DATA_KEY_BY_KEY_POLICY: &str = "User: arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42 \
     is not authorized to perform: kms:GenerateDataKey on resource: \
     arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab because no resource-based \
     policy allows the kms:GenerateDataKey action";

/// `GetObject` by a role whose IAM policies do not allow decrypting with a key that delegates to IAM.
const DECRYPT_BY_IDENTITY_POLICY: &str = "User: arn:aws:sts::111122223333:assumed-role/deployer/alice is not \
     authorized to perform: kms:Decrypt on resource: \
     arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321 because no identity-based \
     policy allows the kms:Decrypt action";

/// `GetObject` where KMS does not say which key (the ciphertext's key is named only inside the blob).
const DECRYPT_CIPHERTEXT: &str = "User: arn:aws:iam::111122223333:user/ci is not authorized to perform: \
     kms:Decrypt on the resource associated with this ciphertext because the resource does not exist in this \
     Region, no resource-based policies allow access, or a resource-based policy explicitly denies access";

/// A deny statement in the key policy.
const DECRYPT_EXPLICIT_DENY: &str = "User: arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-7 is not \
     authorized to perform: kms:Decrypt on resource: arn:aws:kms:us-east-2:111122223333:key/mrk-1 with an \
     explicit deny in a resource-based policy";

#[test]
fn kms_denied_generate_data_key_names_the_key_policy() {
    let denied = KmsDenied::parse(GENERATE_DATA_KEY_BY_KEY_POLICY).expect("a KMS denial");
    assert_eq!(denied.action, "kms:GenerateDataKey");
    assert_eq!(
        denied.key_arn.as_deref(),
        Some("arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    );
    assert_eq!(
        denied.principal.as_deref(),
        Some("arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42")
    );
    assert_eq!(denied.where_, KmsDenialPolicy::KeyPolicy);
    expect![[r#"S3 could not use the bucket's KMS key: kms:GenerateDataKey on arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab was denied to arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42: the key policy does not allow it"#]]
        .assert_eq(&denied.headline());
    expect![[r#"allow kms:GenerateDataKey for arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42 in the key policy of arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab; a customer managed key is usable only by the principals its key policy allows, and an IAM policy alone is not enough unless the key policy delegates to IAM"#]]
        .assert_eq(&denied.remedy());
    assert_eq!(denied.to_string(), denied.headline());
}

#[test]
fn kms_denied_decrypt_by_identity_policy() {
    let denied = KmsDenied::parse(DECRYPT_BY_IDENTITY_POLICY).expect("a KMS denial");
    assert_eq!(denied.action, "kms:Decrypt");
    assert_eq!(
        denied.key_arn.as_deref(),
        Some("arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321")
    );
    assert_eq!(
        denied.principal.as_deref(),
        Some("arn:aws:sts::111122223333:assumed-role/deployer/alice")
    );
    assert_eq!(denied.where_, KmsDenialPolicy::IdentityPolicy);
    expect![[r#"S3 could not use the bucket's KMS key: kms:Decrypt on arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321 was denied to arn:aws:sts::111122223333:assumed-role/deployer/alice: no IAM policy of the caller allows it"#]]
        .assert_eq(&denied.headline());
    expect![[r#"allow kms:Decrypt for arn:aws:sts::111122223333:assumed-role/deployer/alice in the key policy of arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321; a customer managed key is usable only by the principals its key policy allows, and an IAM policy alone is not enough unless the key policy delegates to IAM; AWS blamed the caller's IAM policies, so if the key policy does delegate to IAM, add kms:Decrypt on arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321 to the role's policy"#]]
        .assert_eq(&denied.remedy());
}

#[test]
fn kms_denied_without_a_key_arn_or_a_stated_policy() {
    let denied = KmsDenied::parse(DECRYPT_CIPHERTEXT).expect("a KMS denial");
    assert_eq!(denied.action, "kms:Decrypt");
    assert_eq!(denied.key_arn, None, "AWS did not name the key");
    assert_eq!(
        denied.principal.as_deref(),
        Some("arn:aws:iam::111122223333:user/ci")
    );
    assert_eq!(denied.where_, KmsDenialPolicy::Unstated);
    expect![[r#"S3 could not use the bucket's KMS key: kms:Decrypt on the bucket's KMS key was denied to arn:aws:iam::111122223333:user/ci"#]]
        .assert_eq(&denied.headline());

    let denied = KmsDenied::parse(DECRYPT_EXPLICIT_DENY).expect("a KMS denial");
    assert_eq!(denied.where_, KmsDenialPolicy::ExplicitDeny);
    assert_eq!(
        denied.key_arn.as_deref(),
        Some("arn:aws:kms:us-east-2:111122223333:key/mrk-1")
    );
    assert!(
        denied
            .remedy()
            .ends_with("find and narrow the deny statement first"),
        "{}",
        denied.remedy()
    );
}

#[test]
fn kms_denied_other_access_denials_are_not_kms() {
    for message in [
        "Access Denied",
        "",
        "User: arn:aws:sts::111122223333:assumed-role/r/s is not authorized to perform: s3:PutObject on \
         resource: arn:aws:s3:::bucket/key because no identity-based policy allows the s3:PutObject action",
        "is not authorized to perform: kms:",
    ] {
        assert!(KmsDenied::parse(message).is_none(), "{message:?}");
    }
}
