//! Record keys of addresses too long for a base64url segment: every address the lint admits gets a key every
//! store accepts, and loading maps it back to its address; every key an earlier version wrote is unchanged.

use std::sync::Arc;

use admission::Code;
use admission::marker::{MAX_ADDRESS_CHARS, check_address_length, escape_address};
use admission::{BlockAddress, Estate, InstanceAddress, InstanceKey};
use projection::b64;
use projection::record::{
    InstanceNamespace, IntentRecord, IntentState, MAX_KEY_PREFIX_LEN, OutputRecord, RecordBody,
    RecordKey, SlotsRecord,
};
use projection::{RecordKeys, load_records};
use proptest::prelude::*;
use staterecord::key::{MAX_KEY_LEN, MAX_SEGMENT_LEN};
use staterecord::{MemoryStore, Store, validate_key};

/// The keys of the shortest estate with no prefix, and of the longest estate under the longest prefix.
fn key_sets() -> [RecordKeys; 2] {
    let widest_prefix = format!("{}/{}/", "p".repeat(199), "q".repeat(55));
    assert_eq!(widest_prefix.len(), MAX_KEY_PREFIX_LEN);
    [
        RecordKeys::new("", &Estate::new("a").unwrap()).unwrap(),
        RecordKeys::new(&widest_prefix, &Estate::new("e".repeat(128)).unwrap()).unwrap(),
    ]
}

fn intent() -> RecordBody {
    RecordBody::Intent(IntentRecord {
        state: IntentState::Done,
        client_token: "tok".into(),
        time: 1,
        id: Some("vpc-00000001".into()),
        slot: None,
    })
}

/// Checks that `what` gets a valid key under `keys`, the earlier base64url key whenever that key was valid,
/// and that the key and the payload written under it read back as `what`.
fn check(keys: &RecordKeys, what: &RecordKey, subject: &str, directory: &str) {
    let key = keys.key(what);
    validate_key(&key).unwrap_or_else(|e| panic!("{subject}: {e}"));
    // An earlier version wrote `b64`, and a key that long was refused.
    let earlier = (subject.len() <= 3 * MAX_KEY_LEN / 4).then(|| {
        format!(
            "{}{directory}/{}",
            keys.prefix(),
            b64::encode(subject.as_bytes())
        )
    });
    match earlier.filter(|k| validate_key(k).is_ok()) {
        Some(earlier) => assert_eq!(key, earlier),
        None => assert!(key.rsplit('/').next().unwrap().starts_with('~'), "{key}"),
    }
    let payload = intent().to_payload_at(&key, subject);
    assert_eq!(keys.parse(&key, &payload).as_ref(), Some(what), "{key}");
}

fn check_instance(address: &InstanceAddress) {
    for keys in key_sets() {
        // The two lengths of namespace segment (`intent`, and the seven letters of the others).
        for namespace in [InstanceNamespace::Intent, InstanceNamespace::Located] {
            let what = RecordKey::Instance {
                namespace,
                address: address.clone(),
            };
            let directory = format!("{}/{}", namespace.as_str(), address.type_name());
            check(&keys, &what, &address.to_string(), &directory);
        }
    }
}

fn vpc(key: &str) -> InstanceAddress {
    BlockAddress::new("aws_vpc", "main")
        .unwrap()
        .instance(InstanceKey::Str(key.to_owned()))
}

#[test]
fn every_for_each_key_the_lint_admits_has_a_key_that_reads_back() {
    // Keys of every length up to the lint limit: ASCII, a three-byte letter the marker keeps as it is (the
    // most UTF-8 bytes an admitted address can have), and a mix of one to four bytes a character, kept or
    // escaped by the marker grammar.
    let mixed = ['k', '.', 'é', '€', '😀'];
    let alphabets: [&dyn Fn(usize) -> char; 3] =
        [&|_| 'k', &|_| '漢', &|i| mixed[i % mixed.len()]];
    for alphabet in alphabets {
        let mut key = String::new();
        loop {
            key.push(alphabet(key.chars().count()));
            let address = vpc(&key);
            if check_address_length(&escape_address(&address).unwrap()).is_err() {
                break;
            }
            check_instance(&address);
        }
        assert!(key.chars().count() > 140, "{key}: up to the lint limit");
    }
}

#[test]
fn every_block_and_output_name_the_lint_admits_has_a_key_that_reads_back() {
    for n in 1..=MAX_ADDRESS_CHARS {
        let name = format!("b{}", "x".repeat(n - 1));
        let block = BlockAddress::new("aws_eip", &name).unwrap();
        check_instance(&block.instance(InstanceKey::Int(0)));
        for keys in key_sets() {
            check(
                &keys,
                &RecordKey::Slots(block.clone()),
                &block.to_string(),
                "slots",
            );
            check(&keys, &RecordKey::Output(name.clone()), &name, "outputs");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_admitted_for_each_key_has_a_key_that_reads_back(key in "[^\"\\\\$%\\[\\]\\p{Cc}]{1,400}") {
        let address = vpc(&key);
        if check_address_length(&escape_address(&address).unwrap()).is_ok() {
            check_instance(&address);
        }
    }
}

#[test]
fn a_short_address_keeps_the_key_earlier_versions_wrote() {
    let keys = RecordKeys::new("", &Estate::new("acme").unwrap()).unwrap();
    assert_eq!(
        keys.instance(InstanceNamespace::Intent, &vpc("short")),
        "acme/intent/aws_vpc/YXdzX3ZwYy5tYWluWyJzaG9ydCJd"
    );
    // The longest address a base64url segment holds: 150 bytes, 200 base64 characters.
    let longest = vpc(&"k".repeat(150 - r#"aws_vpc.main[""]"#.len()));
    let key = keys.instance(InstanceNamespace::Intent, &longest);
    assert_eq!(key.rsplit('/').next().unwrap().len(), MAX_SEGMENT_LEN);
    assert_eq!(
        key,
        format!(
            "acme/intent/aws_vpc/{}",
            b64::encode(longest.to_string().as_bytes())
        )
    );
    let one_more = vpc(&"k".repeat(151 - r#"aws_vpc.main[""]"#.len()));
    let digest = keys.instance(InstanceNamespace::Intent, &one_more);
    assert!(digest.starts_with("acme/intent/aws_vpc/~"), "{digest}");
    assert_eq!(digest.len(), "acme/intent/aws_vpc/~".len() + 64);
}

#[tokio::test]
async fn records_under_earlier_and_digest_keys_load_by_address() {
    let keys = RecordKeys::new("team/", &Estate::new("acme").unwrap()).unwrap();
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let short = vpc("short");
    let long = vpc(&format!("{}.ключ€", "é".repeat(300)));
    // Exactly the bytes an earlier version wrote: its key and its payload.
    memory
        .put_if_absent(
            "team/acme/intent/aws_vpc/YXdzX3ZwYy5tYWluWyJzaG9ydCJd",
            br#"{"format":"liveplan-record-v1","kind":"intent","state":"done","client_token":"t","time":1,"id":"vpc-1"}"#,
        )
        .await
        .unwrap();
    let long_key = keys.instance(InstanceNamespace::Intent, &long);
    memory
        .put_if_absent(
            &long_key,
            &intent().to_payload_at(&long_key, &long.to_string()),
        )
        .await
        .unwrap();
    let block = BlockAddress::new("aws_eip", "p".repeat(300)).unwrap();
    let slots_key = keys.slots(&block);
    let slots = RecordBody::Slots(SlotsRecord {
        highest: admission::Slot(3),
    });
    memory
        .put_if_absent(
            &slots_key,
            &slots.to_payload_at(&slots_key, &block.to_string()),
        )
        .await
        .unwrap();
    let name = "o".repeat(300);
    let output_key = keys.output(&name);
    let output = RecordBody::Output(OutputRecord {
        value: serde_json::json!("x"),
        sensitive: false,
    });
    memory
        .put_if_absent(&output_key, &output.to_payload_at(&output_key, &name))
        .await
        .unwrap();

    let set = load_records(memory.as_ref(), &keys).await.unwrap();
    assert!(set.diagnostics.is_empty(), "{:?}", set.diagnostics);
    assert_eq!(set.intents[&short].body.id.as_deref(), Some("vpc-1"));
    assert_eq!(set.intents[&long].body.id.as_deref(), Some("vpc-00000001"));
    assert_eq!(set.slots[&block].body.highest, admission::Slot(3));
    assert_eq!(set.outputs[&name].body.value, serde_json::json!("x"));
}

#[tokio::test]
async fn a_digest_key_whose_record_names_another_address_reads_as_no_record() {
    let keys = RecordKeys::new("", &Estate::new("acme").unwrap()).unwrap();
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let long = vpc(&"k".repeat(300));
    let other = vpc(&"j".repeat(300));
    let key = keys.instance(InstanceNamespace::Intent, &long);
    // Copied by hand from another key, or written without its address: either way not `long`'s record.
    let copied = intent().to_payload_at(
        &keys.instance(InstanceNamespace::Intent, &other),
        &other.to_string(),
    );
    memory.put_if_absent(&key, &copied).await.unwrap();
    let unnamed = keys.instance(InstanceNamespace::Located, &long);
    memory
        .put_if_absent(&unnamed, &intent().to_payload())
        .await
        .unwrap();

    let set = load_records(memory.as_ref(), &keys).await.unwrap();
    assert!(set.intents.is_empty() && set.located.is_empty());
    let warned: Vec<(Code, Vec<String>)> = set
        .diagnostics
        .iter()
        .map(|d| (d.code, d.ids().to_vec()))
        .collect();
    assert_eq!(
        warned,
        [
            (Code::RecordFormat, vec![key]),
            (Code::RecordFormat, vec![unnamed]),
        ]
    );
}

#[test]
fn a_key_prefix_too_long_for_the_longest_estate_is_refused() {
    let estate = Estate::new("acme").unwrap();
    let prefix = format!("{}/{}/", "p".repeat(199), "q".repeat(56));
    let refused = RecordKeys::new(&prefix, &estate).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "record key prefix of 257 bytes is longer than 256 bytes"
    );
    // The widest keys leave room under the store's limit: prefix, estate, namespace, a type, a digest.
    let [_, widest] = key_sets();
    let key = widest.instance(InstanceNamespace::Located, &vpc(&"k".repeat(1000)));
    assert!(key.len() <= MAX_KEY_LEN - 100, "{}", key.len());
}
