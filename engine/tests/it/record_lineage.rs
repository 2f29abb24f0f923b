//! Records name the live system they were written for: a store shared by two simulated clouds refuses
//! the other's records (`record-lineage`, naming both), and a record written before lineages existed is
//! read as usual and gains the lineage with its next write.

use std::sync::Arc;

use fixtures::testkit;
use staterecord::{MemoryStore, Store};

use crate::support::{Bench, diagnostics};

use crate::damaged_records::{CONFIG, OUTPUT_KEY, SUFFIX_KEY};

fn bench_of(cloud_id: &str, store: &Arc<dyn Store>) -> Bench {
    Bench {
        cloud: Arc::new(testkit::cloud_from_json(&format!(
            r#"{{"cloud_id": "{cloud_id}", "resources": []}}"#
        ))),
        store: Arc::clone(store),
    }
}

#[tokio::test]
async fn record_lineage_a_store_shared_by_two_simulated_clouds_refuses_the_others_records() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let first = bench_of("first", &store);
    assert_eq!(
        diagnostics(&first.apply(first.plan(CONFIG).await).await),
        ""
    );
    let payload = store.get(OUTPUT_KEY).await.unwrap().unwrap().payload;
    assert!(
        String::from_utf8(payload)
            .unwrap()
            .contains(r#""lineage":"sim cloud first""#)
    );

    let second = bench_of("second", &store);
    let plan = second.plan(CONFIG).await;
    let refused: Vec<String> = plan
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "record-lineage")
        .map(|d| d.summary.clone())
        .collect();
    assert_eq!(
        refused,
        [
            format!(
                "record {OUTPUT_KEY} ({OUTPUT_KEY}) was written for sim cloud first, not for sim \
                 cloud second, which this run reads and writes"
            ),
            format!(
                "record {SUFFIX_KEY} ({SUFFIX_KEY}) was written for sim cloud first, not for sim \
                 cloud second, which this run reads and writes"
            ),
        ]
    );
    assert!(
        !plan.applicable(),
        "a plan over another cloud's records is not applied"
    );
    // The first cloud still reads its own records.
    let again = first.plan(CONFIG).await;
    assert!(
        again.diagnostics.is_empty() && again.applicable(),
        "{:?}",
        again.diagnostics
    );
}

#[tokio::test]
async fn record_lineage_a_record_without_lineage_is_read_and_gains_it_on_its_next_write() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    store
        .put_if_absent(
            OUTPUT_KEY,
            br#"{"format":"liveplan-record-v1","kind":"output","value":"hi","sensitive":false}"#,
        )
        .await
        .unwrap();
    let bench = bench_of("only", &store);
    let plan = bench.plan(CONFIG).await;
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    assert_eq!(diagnostics(&bench.apply(plan).await), "");
    let payload = String::from_utf8(store.get(OUTPUT_KEY).await.unwrap().unwrap().payload).unwrap();
    assert!(
        payload.starts_with(
            r#"{"format":"liveplan-record-v1","lineage":"sim cloud only","kind":"output","value":""#
        ),
        "{payload}"
    );
}
