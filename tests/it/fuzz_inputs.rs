//! Fuzz-like property tests of the decoders that read what other processes wrote: micro-state records
//! (the envelope decoder and the bulk loader of an estate's records) and the live snapshot loader. Garbage
//! gives a typed problem or a `record-format` warning, never a panic. 10,000 cases each (3,000 for the
//! bulk loader, which builds a store per case); a longer run:
//! `PROPTEST_CASES=1000000 cargo test -p liveplan --test it fuzz_`.

use std::sync::OnceLock;

use liveplan::projection::record::RecordBody;
use liveplan::projection::{RecordKeys, load_records};
use liveplan::{Estate, MemoryStore, Store};
use proptest::prelude::*;

/// A proptest configuration of `cases` cases (or `PROPTEST_CASES`), with no failure file in the tree.
pub fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One runtime for every case: building one per case would cost more than the case.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    })
}

/// Valid payloads of every record kind, as a writer of this version stores them.
const RECORDS: &[&str] = &[
    r#"{"format":"liveplan-record-v1","kind":"object","id":"ymBkbKR3bZQ","attributes":{"b64_url":"ymBkbKR3bZQ","byte_length":8,"hex":"ca60646ca4776d94"},"sensitive_paths":["hex"]}"#,
    r#"{"format":"liveplan-record-v1","kind":"residue","attributes":{"secret":"abc"},"sensitive_paths":["secret"]}"#,
    r#"{"format":"liveplan-record-v1","kind":"deposed","ids":["vpc-00000001"]}"#,
    r#"{"format":"liveplan-record-v1","kind":"intent","state":"pending","client_token":"t-1","time":1700000000}"#,
    r#"{"format":"liveplan-record-v1","kind":"intent","state":"done","client_token":"t-1","time":1700000000,"id":"vpc-00000001"}"#,
    r#"{"format":"liveplan-record-v1","kind":"located","id":"rel-ops","identity":{"name":"rel-ops"}}"#,
    r#"{"format":"liveplan-record-v1","kind":"slots","highest":3}"#,
    r#"{"format":"liveplan-record-v1","kind":"output","value":"x","sensitive":true}"#,
];

/// Keys an estate `rel` may hold: every namespace, well-formed and broken addresses.
const KEYS: &[&str] = &[
    "rel/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA",
    "rel/residue/aws_iam_access_key/YXdzX2lhbV9hY2Nlc3Nfa2V5LmNp",
    "rel/deposed/aws_vpc/YXdzX3ZwYy5tYWlu",
    "rel/intent/aws_vpc/YXdzX3ZwYy5tYWlu",
    "rel/located/aws_iam_role/YXdzX2lhbV9yb2xlLm9wcw",
    "rel/slots/YXdzX3N1Ym5ldC5wdWJsaWM",
    "rel/outputs/dnBjX2lk",
    "rel/intent/aws_vpc/!!not-base64!!",
    "rel/intent/aws_subnet/YXdzX3ZwYy5tYWlu",
    "rel/unknown/thing",
    "rel/records/random_id/Zm9v",
];

/// Any text of at most `max` characters (cheaper to draw than a regex over every printable character).
fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..max).prop_map(String::from_iter)
}

/// The characters of escaped addresses, and a few that the grammar never writes.
const ADDRESS_CHARS: &[char] = &[
    'a', 'b', '0', '1', '9', '_', '-', '.', ':', '%', '2', '5', 'B', 'D', '[', ']', '"', ' ', '\\',
];

/// A payload: a valid record, a mutation of one, or random bytes.
fn payload() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(RECORDS).prop_map(|r| r.as_bytes().to_vec()),
        (
            prop::sample::select(RECORDS),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6)
        )
            .prop_map(|(record, edits)| mutate(record.as_bytes(), &edits)),
        prop::collection::vec(any::<u8>(), 0..64),
        text(80).prop_map(String::into_bytes),
    ]
}

/// Applies byte edits: 0 replaces, 1 inserts, 2 deletes.
fn mutate(bytes: &[u8], edits: &[(prop::sample::Index, u8, u8)]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for (at, byte, op) in edits {
        if out.is_empty() {
            out.push(*byte);
            continue;
        }
        let i = at.index(out.len());
        match op {
            0 => out[i] = *byte,
            1 => out.insert(i, *byte),
            _ => {
                out.remove(i);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(config(10_000))]

    /// Any bytes decode to a record or to a named problem; a decoded record encodes back to itself.
    #[test]
    fn fuzz_record_decoding_never_panics_and_round_trips(bytes in payload()) {
        if let Ok(body) = RecordBody::from_payload(&bytes) {
            let again = RecordBody::from_payload(&body.to_payload());
            prop_assert_eq!(again, Ok(body));
        }
    }
}

proptest! {
    // A store and a bulk load per case: 3,000 cases keep it to a couple of seconds in debug.
    #![proptest_config(config(3_000))]

    /// The bulk loader of an estate's records reads a damaged store as "no record" plus one warning per
    /// unreadable key, never as an error or a panic.
    #[test]
    fn fuzz_record_loading_warns_for_every_unreadable_record(
        entries in prop::collection::btree_map(prop::sample::select(KEYS), payload(), 0..6),
    ) {
        let store = MemoryStore::new();
        let estate = Estate::new("rel".to_owned()).expect("a valid estate");
        let keys = RecordKeys::new("", &estate).expect("keys");
        let set = runtime().block_on(async {
            for (key, bytes) in &entries {
                store.put_if_absent(key, bytes).await.expect("a fresh key");
            }
            load_records(&store, &keys).await
        });
        let set = set.expect("a readable store always loads");
        prop_assert_eq!(set.store_trips, 1);
        let loaded = set.objects.len() + set.residue.len() + set.deposed.len() + set.intents.len()
            + set.located.len() + set.slots.len() + set.outputs.len();
        // Every key is either loaded or named by exactly one warning.
        prop_assert_eq!(loaded + set.diagnostics.len(), entries.len());
        for d in &set.diagnostics {
            prop_assert_eq!(d.code.as_str(), "record-format");
            prop_assert_eq!(d.severity(), liveplan::Severity::Warning);
        }
    }
}

/// A valid snapshot with every kind of entry, to mutate.
const SNAPSHOT: &str = r#"{
  "account": "123456789012",
  "region": "us-east-1",
  "resources": [
    { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.42.0.0/16" },
      "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
    { "type": "aws_subnet", "id": "subnet-00000001",
      "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.42.1.0/24" } },
    { "type": "aws_s3_bucket", "id": "acme-logs", "attributes": { "bucket": "acme-logs" } },
    { "type": "aws_iam_user", "id": "ci", "attributes": { "name": "ci" } },
    { "type": "aws_iam_access_key", "id": "AKIA0000000000000001", "attributes": { "user": "ci" } }
  ],
  "faults": [ { "operation": "ec2:DescribeSubnets", "kind": "throttle", "times": 2 } ]
}"#;

proptest! {
    #![proptest_config(config(10_000))]

    /// The live snapshot loader (the CLI's `--sim` file and every golden case) takes mutated snapshots
    /// without a panic: each loads, or is refused as an invalid snapshot.
    #[test]
    fn fuzz_snapshot_loader_never_panics_on_mutated_snapshots(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let bytes = mutate(SNAPSHOT.as_bytes(), &edits);
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(());
        };
        if let Err(e) = liveplan::SimCloud::from_json(&text, liveplan::SimConfig::default()) {
            prop_assert!(e.is_invalid_snapshot(), "{e:?}");
        }
    }
}

/// Tag keys the marker decoder looks at, and some it must leave alone.
const TAG_KEYS: &[&str] = &[
    "tofu-estate",
    "tofu-address",
    "tofu-address-2",
    "tofu-address-3",
    "tofu-slot",
    "tofu-other",
    "Name",
];

proptest! {
    #![proptest_config(config(10_000))]

    /// Marker decoding on arbitrary tags and escaped text: the address decoder, the key decoder and the
    /// ownership verdict answer or refuse, never panic; a decoded escaped address escapes back.
    #[test]
    fn fuzz_marker_decoding_never_panics(
        tags in prop::collection::btree_map(
            prop::sample::select(TAG_KEYS).prop_map(str::to_owned),
            prop_oneof![
                text(40),
                prop::collection::vec(prop::sample::select(ADDRESS_CHARS), 0..20)
                    .prop_map(|cs| format!("aws_vpc.{}", String::from_iter(cs))),
                Just("acme".to_owned()),
            ],
            0..5,
        ),
        text in text(60),
    ) {
        let estate = Estate::new("acme".to_owned()).expect("a valid estate");
        let _ = liveplan::admission::marker::ownership(&estate, "aws_vpc", &tags);
        let _ = liveplan::admission::marker::read_address(&tags);
        let _ = liveplan::admission::marker::decode_key(&text);
        if let Ok(address) = liveplan::admission::marker::decode_address(&text) {
            let escaped = liveplan::admission::marker::escape_address(&address);
            prop_assert!(escaped.is_ok(), "{text:?} decoded to {address} that does not escape back");
        }
    }
}
