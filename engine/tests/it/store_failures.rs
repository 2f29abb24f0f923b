//! A record store that refuses: the plan and the apply say so with a stable code, and the KMS key's
//! refusal of an S3 record bucket is `kms-denied` with what to change in the key policy.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use staterecord::{KmsDenied, Record, Store, StoreError, Version};

use crate::support::{Bench, diagnostics, failing};

const VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;

/// How S3 words a refusal by the bucket's key (recorded from AWS).
const DECRYPT_DENIED: &str = "User: arn:aws:sts::111122223333:assumed-role/deployer/alice is not \
     authorized to perform: kms:Decrypt on resource: \
     arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321 because no resource-based \
     policy allows the kms:Decrypt action";

/// What a [`RefusingStore`] refuses once it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refuses {
    Everything,
    Writes,
    Deletes,
}

/// A store that passes everything on until `refuse` is set, then fails what `refuses` says with `error`.
#[derive(Debug)]
pub(crate) struct RefusingStore {
    inner: Arc<dyn Store>,
    /// Whether it refuses yet.
    pub(crate) refuse: AtomicBool,
    kms: bool,
    refuses: Refuses,
}

impl RefusingStore {
    fn error(&self, key: &str) -> StoreError {
        if self.kms {
            StoreError::KmsDenied(KmsDenied::parse(DECRYPT_DENIED).expect("a KMS denial"))
        } else {
            StoreError::Io {
                op: "read",
                path: key.into(),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }
        }
    }

    fn refusing(&self) -> bool {
        self.refuse.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl Store for RefusingStore {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        if self.refusing() && self.refuses == Refuses::Everything {
            return Err(self.error(key));
        }
        self.inner.get(key).await
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        if self.refusing() && self.refuses != Refuses::Deletes {
            return Err(self.error(key));
        }
        self.inner.put_if_version(key, payload, expected).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        if self.refusing() {
            return Err(self.error(key));
        }
        self.inner.delete(key, expected).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        if self.refusing() && self.refuses == Refuses::Everything {
            return Err(self.error(prefix));
        }
        self.inner.list(prefix).await
    }
}

/// An empty bench whose store refuses what `refuses` says once its `refuse` is set.
pub(crate) fn refusing_world(kms: bool, refuses: Refuses) -> (Bench, Arc<RefusingStore>) {
    let mut world = Bench::empty();
    let store = Arc::new(RefusingStore {
        inner: Arc::clone(&world.store),
        refuse: AtomicBool::new(false),
        kms,
        refuses,
    });
    world.store = Arc::clone(&store) as Arc<dyn Store>;
    (world, store)
}

async fn plan_error(world: &Bench) -> engine::Error {
    let files = [admission::SourceFile::new("main.tf", VPC)];
    let inputs = admission::VariableInputs::default();
    world
        .engine(3)
        .plan(engine::Sources::new(&files, &inputs))
        .await
        .expect_err("the records cannot be read")
}

#[tokio::test]
async fn a_plan_whose_records_cannot_be_read_is_discovery_incomplete() {
    let (world, store) = refusing_world(false, Refuses::Everything);
    store.refuse.store(true, Ordering::SeqCst);
    let d = plan_error(&world).await.to_diagnostic();
    assert_eq!(d.code.as_str(), "discovery-incomplete");
    assert!(
        d.summary.starts_with("the record store could not be read")
            && d.summary.contains("permission denied"),
        "{}",
        d.summary
    );
}

#[tokio::test]
async fn a_plan_refused_by_the_record_buckets_kms_key_is_kms_denied() {
    let (world, store) = refusing_world(true, Refuses::Everything);
    store.refuse.store(true, Ordering::SeqCst);
    let d = plan_error(&world).await.to_diagnostic();
    assert_eq!(d.code.as_str(), "kms-denied");
    assert!(d.summary.contains("kms:Decrypt"), "{}", d.summary);
    assert!(d.detail.contains("key policy"), "{}", d.detail);
}

#[tokio::test]
async fn an_apply_refused_by_the_record_buckets_kms_key_is_kms_denied_and_creates_nothing() {
    let (world, store) = refusing_world(true, Refuses::Everything);
    let plan = world.plan(VPC).await;
    store.refuse.store(true, Ordering::SeqCst);
    let outcome = world.apply(plan).await;
    let text = diagnostics(&outcome);
    assert!(
        text.starts_with("error [kms-denied]: S3 could not use the bucket's KMS key: kms:Decrypt"),
        "{text}"
    );
    // The create intent could not be written, so nothing was created.
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    assert!(snapshot.resources.is_empty());
}

#[tokio::test]
async fn a_failed_create_keeps_its_error_when_its_intent_cannot_be_put_back() {
    let (mut world, store) = refusing_world(false, Refuses::Deletes);
    world.with_faults(failing("ec2:CreateVpc", 1)).await;
    let plan = world.plan(VPC).await;
    store.refuse.store(true, Ordering::SeqCst);
    let outcome = world.apply(plan).await;
    let text = diagnostics(&outcome);
    assert!(
        text.starts_with("error [apply-failed]: creating aws_vpc.main failed: ec2:CreateVpc"),
        "{text}"
    );
    let detail = &outcome.diagnostics[0].detail;
    assert!(
        detail.starts_with("the create intent stays pending, because putting it back failed too"),
        "{detail}"
    );
}

#[tokio::test]
async fn mv_names_a_store_failure_as_such_not_as_another_runs_change() {
    let (world, store) = refusing_world(false, Refuses::Writes);
    let old = "live {\n  estate = \"acme\"\n}\n\nresource \"random_id\" \"old\" {\n  byte_length = 4\n}\n";
    world.converge(old).await;
    let new = old.replace("\"old\"", "\"new\"");
    store.refuse.store(true, Ordering::SeqCst);
    let outcome = world
        .mv(
            &new,
            "random_id.old",
            "random_id.new",
            engine::MvOptions::default(),
        )
        .await;
    let codes: Vec<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["mv-refused"], "{:?}", outcome.diagnostics);
    assert!(
        outcome.diagnostics[0]
            .detail
            .starts_with("check the record store"),
        "{:?}",
        outcome.diagnostics
    );
}
