use std::sync::Arc;

use admission::Code;
use admission::{Estate, InstanceAddress};
use projection::record::{
    DeposedRecord, InstanceNamespace, IntentRecord, IntentState, RecordBody, SlotsRecord,
};
use projection::{RecordKeys, load_records};
use staterecord::{CacheScope, CountingStore, MemoryStore, Store};

fn estate() -> Estate {
    Estate::new("acme").unwrap()
}

fn addr(text: &str) -> InstanceAddress {
    text.parse().unwrap()
}

#[test]
fn keys_follow_the_namespaces_with_unpadded_base64url_addresses() {
    let keys = RecordKeys::new("", &estate()).unwrap();
    assert_eq!(
        keys.instance(InstanceNamespace::Residue, &addr(r#"aws_subnet.this["a"]"#)),
        "acme/residue/aws_subnet/YXdzX3N1Ym5ldC50aGlzWyJhIl0"
    );
    assert_eq!(
        keys.slots(&"aws_eip.pool".parse().unwrap()),
        "acme/slots/YXdzX2VpcC5wb29s"
    );
    assert_eq!(keys.output("vpc_id"), "acme/outputs/dnBjX2lk");
    let prefixed = RecordKeys::new("team/", &estate()).unwrap();
    assert_eq!(
        prefixed.instance(InstanceNamespace::Records, &addr("random_id.x")),
        "team/acme/records/random_id/cmFuZG9tX2lkLng"
    );
    assert!(RecordKeys::new("team", &estate()).is_err());
}

#[test]
fn payloads_carry_the_format_and_kind() {
    let body = RecordBody::Slots(SlotsRecord {
        highest: admission::Slot(7),
    });
    assert_eq!(
        String::from_utf8(body.to_payload()).unwrap(),
        r#"{"format":"liveplan-record-v1","kind":"slots","highest":7}"#
    );
    assert_eq!(RecordBody::from_payload(&body.to_payload()), Ok(body));
}

#[tokio::test]
async fn a_plan_loads_every_record_in_exactly_one_trip() {
    let keys = RecordKeys::new("", &estate()).unwrap();
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let intent = RecordBody::Intent(IntentRecord {
        state: IntentState::Pending,
        client_token: "tok-1".into(),
        time: 1_000,
        id: None,
        slot: None,
    });
    let deposed = RecordBody::Deposed(DeposedRecord {
        ids: vec!["vpc-00000004".into()],
    });
    let vpc = addr("aws_vpc.main");
    memory
        .put_if_absent(
            &keys.instance(InstanceNamespace::Intent, &vpc),
            &intent.to_payload(),
        )
        .await
        .unwrap();
    memory
        .put_if_absent(
            &keys.instance(InstanceNamespace::Deposed, &vpc),
            &deposed.to_payload(),
        )
        .await
        .unwrap();
    memory
        .put_if_absent(
            &keys.slots(&"aws_eip.pool".parse().unwrap()),
            &RecordBody::Slots(SlotsRecord {
                highest: admission::Slot(7),
            })
            .to_payload(),
        )
        .await
        .unwrap();
    // Another estate's record is never read.
    memory.put_if_absent("other/slots/eA", b"{}").await.unwrap();

    let counting = Arc::new(CountingStore::new(Arc::clone(&memory), None));
    let cache = CacheScope::new().cache(counting.clone(), keys.prefix());
    let set = load_records(&cache, &keys).await.unwrap();
    // Later reads of the run are served from the same snapshot.
    cache
        .get(&keys.instance(InstanceNamespace::Intent, &vpc))
        .await
        .unwrap()
        .unwrap();

    let counts = counting.counts();
    assert_eq!(counts.total, 1);
    assert_eq!(counts.by_method["get_all"], 1);
    assert_eq!(set.store_trips, 1);
    assert_eq!(set.intents[&vpc].body.client_token, "tok-1");
    assert_eq!(set.deposed[&vpc].body.ids, ["vpc-00000004"]);
    assert_eq!(
        set.slots[&"aws_eip.pool".parse().unwrap()].body.highest,
        admission::Slot(7)
    );
    assert!(set.diagnostics.is_empty());
}

#[tokio::test]
async fn an_empty_estate_still_costs_one_trip() {
    let keys = RecordKeys::new("", &estate()).unwrap();
    let counting = Arc::new(CountingStore::new(Arc::new(MemoryStore::new()), None));
    let cache = CacheScope::new().cache(counting.clone(), keys.prefix());
    let set = load_records(&cache, &keys).await.unwrap();
    assert_eq!(counting.counts().total, 1);
    assert!(set.objects.is_empty() && set.diagnostics.is_empty());
}

#[tokio::test]
async fn an_unknown_format_reads_as_no_record_with_a_record_format_warning() {
    let keys = RecordKeys::new("", &estate()).unwrap();
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let key = keys.instance(InstanceNamespace::Located, &addr("aws_iam_role.app"));
    memory
        .put_if_absent(
            &key,
            br#"{"format":"liveplan-record-v9","kind":"located","id":"app"}"#,
        )
        .await
        .unwrap();
    let garbage = keys.instance(InstanceNamespace::Residue, &addr("aws_s3_bucket.data"));
    memory
        .put_if_absent(&garbage, b"\xff not json")
        .await
        .unwrap();

    let set = load_records(memory.as_ref(), &keys).await.unwrap();
    assert!(set.located.is_empty());
    assert!(set.residue.is_empty());
    let codes: Vec<(Code, Vec<String>)> = set
        .diagnostics
        .iter()
        .map(|d| (d.code, d.ids().to_vec()))
        .collect();
    assert_eq!(
        codes,
        [
            (Code::RecordFormat, vec![key.clone()]),
            (Code::RecordFormat, vec![garbage.clone()]),
        ]
    );
    assert!(
        set.diagnostics[0]
            .summary
            .contains("\"liveplan-record-v9\" is not known")
    );
}

#[tokio::test]
async fn outputs_and_located_records_are_loaded_by_name_and_address() {
    use projection::record::{LocatedRecord, OutputRecord};
    let keys = RecordKeys::new("", &estate()).unwrap();
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let output = RecordBody::Output(OutputRecord {
        value: serde_json::json!("vpc-00000001"),
        sensitive: false,
    });
    memory
        .put_if_absent(&keys.output("vpc_id"), &output.to_payload())
        .await
        .unwrap();
    let located = RecordBody::Located(LocatedRecord {
        id: "app".into(),
        identity: [("name".to_owned(), "app".to_owned())].into(),
    });
    memory
        .put_if_absent(
            &keys.instance(InstanceNamespace::Located, &addr("aws_iam_role.app")),
            &located.to_payload(),
        )
        .await
        .unwrap();
    // A body of the wrong kind for its namespace is read as no record.
    memory
        .put_if_absent(
            &keys.instance(InstanceNamespace::Records, &addr("random_id.x")),
            &output.to_payload(),
        )
        .await
        .unwrap();
    let set = load_records(memory.as_ref(), &keys).await.unwrap();
    assert_eq!(
        set.outputs["vpc_id"].body.value,
        serde_json::json!("vpc-00000001")
    );
    assert_eq!(set.located[&addr("aws_iam_role.app")].body.id, "app");
    assert!(set.objects.is_empty());
    assert_eq!(set.diagnostics.len(), 1);
    assert_eq!(set.diagnostics[0].code, Code::RecordFormat);
}

#[tokio::test]
async fn damaged_records_keep_their_version_for_the_apply_and_the_warning_names_the_key() {
    let store = MemoryStore::new();
    let keys = RecordKeys::new("", &Estate::new("acme").unwrap()).unwrap();
    let key = "acme/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA";
    let version = store.put_if_absent(key, b"").await.unwrap();
    let set = load_records(&store, &keys).await.unwrap();
    assert!(set.objects.is_empty());
    assert_eq!(set.unreadable.get(key), Some(&version));
    assert_eq!(set.diagnostics.len(), 1);
    assert_eq!(
        set.diagnostics[0].summary,
        format!("record {key} ({key}) was read as no record: it is empty or not a plain file")
    );
}
