//! A record store that refuses: the plan and the apply say so with a stable code, and the KMS key's
//! refusal of an S3 record bucket is `kms-denied` with what to change in the key policy. A record write
//! that fails after its provider call did its work leaves the operation reported as done (its event says
//! `Creation complete` or `Destruction complete`, and the object is the instance's), and the write's
//! failure is a `record-write-failed` error of its own, naming the key, the store's reason and what the
//! next plan does without the record.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use staterecord::{DecorateStore, KmsDenied, Store, StoreCall, StoreError};

use crate::support::{Bench, Journal, diagnostics, failing};

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
#[derive(Debug, Clone, Copy)]
pub(crate) enum Refuses {
    Everything,
    Writes,
    Deletes,
    /// The puts (`Some(payload)`) and deletes (`None`) this picks, by key and payload.
    Picked(fn(&str, Option<&[u8]>) -> bool),
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
    /// The error of `op` on `key`: a KMS denial, or a local store's refusal of the key's file.
    fn error(&self, op: &'static str, key: &str) -> StoreError {
        if self.kms {
            StoreError::KmsDenied(KmsDenied::parse(DECRYPT_DENIED).expect("a KMS denial"))
        } else {
            StoreError::Io {
                op,
                path: format!("records/{key}.rec").into(),
                error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }
        }
    }

    fn refusing(&self) -> bool {
        self.refuse.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl DecorateStore for RefusingStore {
    fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    async fn before(&self, call: StoreCall<'_>) -> Result<(), StoreError> {
        let (refused, op) = match call {
            StoreCall::PutIfVersion { .. } | StoreCall::PutIfAbsent { .. } => (
                match self.refuses {
                    Refuses::Everything | Refuses::Writes => true,
                    Refuses::Deletes => false,
                    Refuses::Picked(picks) => picks(call.key(), call.payload()),
                },
                "create temp file",
            ),
            StoreCall::Delete { key, .. } => (
                match self.refuses {
                    Refuses::Picked(picks) => picks(key, None),
                    _ => true,
                },
                "remove",
            ),
            _ => (matches!(self.refuses, Refuses::Everything), "read"),
        };
        if self.refusing() && refused {
            return Err(self.error(op, call.key()));
        }
        Ok(())
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

/// A count block of two subnets in [`VPC`]'s VPC.
const SUBNETS: &str = r#"
resource "aws_subnet" "public" {
  count      = 2
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
"#;

/// The write that marks a create intent done (after the create call), not the pending one before it.
fn intent_marked_done(key: &str, payload: Option<&[u8]>) -> bool {
    key.contains("/intent/") && payload.is_some_and(|p| p.windows(6).any(|w| w == b"\"done\""))
}

/// Applies `plan`, with the event lines of the apply (without their elapsed time).
async fn applied(world: &Bench, plan: engine::Plan) -> (engine::ApplyOutcome, Vec<String>) {
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    let events = journal
        .lines()
        .into_iter()
        .map(|l| l.replace(" after 0s", ""))
        .collect();
    (outcome, events)
}

#[tokio::test]
async fn record_write_failed_after_a_create_reports_the_object_created_and_the_next_plan_binds_it()
{
    // The intent is written pending before the call; marking it done after the call fails.
    let (world, store) = refusing_world(false, Refuses::Picked(intent_marked_done));
    store.refuse.store(true, Ordering::SeqCst);
    let plan = world.plan(VPC).await;
    let (outcome, events) = applied(&world, plan).await;
    assert_eq!(
        events,
        [
            "aws_vpc.main: Creating...",
            "aws_vpc.main: Creation complete [id=vpc-00000001]"
        ]
    );
    assert_eq!(
        diagnostics(&outcome),
        "error [record-write-failed]: aws_vpc.main was created, but its record \
         acme/intent/aws_vpc/YXdzX3ZwYy5tYWlu could not be updated: local store could not create temp \
         file records/acme/intent/aws_vpc/YXdzX3ZwYy5tYWlu.rec: permission denied aws_vpc.main\n"
    );
    assert_eq!(
        outcome.diagnostics[0].detail,
        "The object exists, and its create intent stays pending: the next plan finds the object by its \
         markers, binds it and warns `interrupted-create`, and the next apply marks the intent done. Fix \
         the record store before the next apply."
    );
    let address: admission::InstanceAddress = "aws_vpc.main".parse().expect("an address");
    assert_eq!(
        outcome.objects[&address].as_ref().map(|o| o.id.as_str()),
        Some("vpc-00000001"),
        "the object is the instance's"
    );
    // What the detail promised: the next plan binds the object and creates nothing.
    store.refuse.store(false, Ordering::SeqCst);
    let plan = world.plan(VPC).await;
    assert_eq!(
        plan.summary().to_string(),
        "No changes. The live system matches the configuration."
    );
    let warnings: Vec<&str> = plan.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(warnings, ["interrupted-create"]);
    world.converge(VPC).await;
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    assert_eq!(snapshot.resources.len(), 1, "one VPC, never a second");
}

#[tokio::test]
async fn a_slot_mark_that_cannot_be_written_changes_nothing_of_its_block() {
    let (world, store) = refusing_world(false, Refuses::Picked(|key, _| key.contains("/slots/")));
    store.refuse.store(true, Ordering::SeqCst);
    let plan = world.plan(&format!("{VPC}{SUBNETS}")).await;
    let (outcome, events) = applied(&world, plan).await;
    let completed: Vec<&String> = events
        .iter()
        .filter(|l| l.contains("Creation complete"))
        .collect();
    assert_eq!(completed.len(), 1, "only the VPC was created: {events:?}");
    let codes: Vec<(&str, Option<&str>)> = outcome
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.address.as_deref()))
        .collect();
    assert_eq!(
        codes,
        [
            ("apply-failed", Some("aws_subnet.public[0]")),
            ("apply-failed", Some("aws_subnet.public[1]")),
        ]
    );
    let first = &outcome.diagnostics[0];
    assert_eq!(
        first.summary,
        "aws_subnet.public[0] was not changed: the slot high-water mark of aws_subnet.public is not \
         recorded"
    );
    assert!(
        first.detail.starts_with(
            "its record acme/slots/YXdzX3N1Ym5ldC5wdWJsaWM could not be written: local store could not \
             create temp file records/acme/slots/YXdzX3N1Ym5ldC5wdWJsaWM.rec: permission denied."
        ),
        "{}",
        first.detail
    );
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    assert_eq!(
        snapshot.resources.len(),
        1,
        "no subnet carries an unrecorded slot"
    );
}

#[tokio::test]
async fn record_write_failed_after_a_destroy_reports_the_object_destroyed() {
    let (world, store) = refusing_world(
        false,
        Refuses::Picked(|key, payload| key.contains("/intent/") && payload.is_none()),
    );
    world.converge(VPC).await;
    store.refuse.store(true, Ordering::SeqCst);
    let plan = world.plan("live {\n  estate = \"acme\"\n}\n").await;
    assert_eq!(plan.summary().destroy, 1);
    let (outcome, events) = applied(&world, plan).await;
    assert_eq!(
        events,
        [
            "aws_vpc.main: Destroying... [id=vpc-00000001]",
            "aws_vpc.main: Destruction complete [id=vpc-00000001]"
        ]
    );
    assert_eq!(
        diagnostics(&outcome),
        "error [record-write-failed]: aws_vpc.main was destroyed, but its record \
         acme/intent/aws_vpc/YXdzX3ZwYy5tYWlu could not be updated: local store could not remove \
         records/acme/intent/aws_vpc/YXdzX3ZwYy5tYWlu.rec: permission denied aws_vpc.main\n"
    );
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    assert!(snapshot.resources.is_empty(), "the VPC is gone");
    // The record left behind changes nothing.
    let plan = world.plan("live {\n  estate = \"acme\"\n}\n").await;
    assert_eq!(
        plan.summary().to_string(),
        "No changes. The live system matches the configuration."
    );
}
