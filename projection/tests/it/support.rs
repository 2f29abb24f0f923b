//! Shared builders: a declared model, this estate's markers and records, and one projection run. The live
//! objects and their cloud come from the fixtures' testkit.

use std::sync::Arc;

use admission::{Estate, InstanceAddress};
use fixtures::SimCloud;
use projection::record::RecordBody;
use projection::{
    Declared, DeclaredInstance, DeclaredValue, Projection, ProjectionConfig, RecordKeys,
    RetryConfig,
};
use provider::schema::ResourceTypeSchema;
use provider::{AdmissionPath, Catalog, Provider};
use staterecord::{CacheScope, CountingStore, MemoryStore, Store};

pub use fixtures::testkit::{cloud, cloud_with, res};

pub const ESTATE: &str = "acme";
/// "Now" for every projection of the tests, in seconds since the epoch.
pub const NOW: u64 = 1_700_000_000;

pub fn estate() -> Estate {
    Estate::new(ESTATE).unwrap()
}

pub fn a(text: &str) -> InstanceAddress {
    text.parse().unwrap()
}

/// This estate's markers for the escaped address `escaped`.
pub fn ours(escaped: &str) -> Vec<(&'static str, String)> {
    vec![
        ("tofu-estate", ESTATE.to_owned()),
        ("tofu-address", escaped.to_owned()),
    ]
}

pub fn tags_of<'a>(pairs: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    pairs.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The knobs of every projection of the tests: no waiting between retries.
pub fn config() -> ProjectionConfig {
    ProjectionConfig {
        retry: RetryConfig::immediate(3),
        ..ProjectionConfig::at(NOW)
    }
}

/// Record payloads stored before the plan, by (key, body).
pub fn record(
    namespace: projection::record::InstanceNamespace,
    address: &str,
    body: RecordBody,
) -> (String, Vec<u8>) {
    let keys = RecordKeys::new("", &estate()).unwrap();
    (keys.instance(namespace, &a(address)), body.to_payload())
}

pub struct Run {
    pub projection: Projection,
    pub store_trips: u64,
}

/// One projection over `cloud` with `records` in the store (through a run cache over a counting store).
pub async fn run_with(
    cloud: &SimCloud,
    declared: &Declared,
    records: Vec<(String, Vec<u8>)>,
) -> Run {
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    for (key, payload) in records {
        memory.put_if_absent(&key, &payload).await.unwrap();
    }
    let counting = Arc::new(CountingStore::new(memory, None));
    let keys = RecordKeys::new("", &estate()).unwrap();
    let cache = CacheScope::new().cache(counting.clone(), keys.prefix());
    let projection = projection::project(
        cloud,
        &catalog(cloud),
        &cache,
        &estate(),
        declared,
        &config(),
    )
    .await
    .expect("a projection");
    Run {
        projection,
        store_trips: counting.counts().total as u64,
    }
}

pub async fn run(cloud: &SimCloud, declared: &Declared) -> Projection {
    run_with(cloud, declared, Vec::new()).await.projection
}

pub fn declare(instances: Vec<DeclaredInstance>) -> Declared {
    let mut d = Declared::new();
    for i in instances {
        d.add(i).unwrap();
    }
    d
}

pub fn named(address: &str, argument: &str, name: &str) -> DeclaredInstance {
    DeclaredInstance::new(a(address)).identity(argument, DeclaredValue::known(name))
}

pub fn bare(address: &str) -> DeclaredInstance {
    DeclaredInstance::new(a(address))
}

/// `(code, address, ids)` of every diagnostic, in the projection's order.
pub fn codes(p: &Projection) -> Vec<(String, Option<String>, Vec<String>)> {
    p.diagnostics
        .iter()
        .map(|d| {
            (
                d.code.as_str().to_owned(),
                d.address.clone(),
                d.ids().to_vec(),
            )
        })
        .collect()
}

/// The bound object's id at `address`, if bound.
pub fn bound_id(p: &Projection, address: &str) -> Option<String> {
    p.instance(&a(address))?
        .binding
        .object()
        .map(|o| o.id.clone())
}

pub fn diag(
    code: &str,
    address: Option<&str>,
    ids: &[&str],
) -> (String, Option<String>, Vec<String>) {
    (
        code.to_owned(),
        address.map(str::to_owned),
        ids.iter().map(|s| (*s).to_owned()).collect(),
    )
}

/// Every type a plan over `provider` knows: the provider's and the record-backed ones.
pub fn catalog(provider: &dyn Provider) -> Catalog {
    // The engine, which holds the record-backed types' schemas, depends on this crate: name them here.
    let record_backed = ["random_id", "terraform_data"]
        .map(|t| ResourceTypeSchema::new(t, Some(AdmissionPath::Record)));
    provider
        .schemas()
        .clone()
        .merged(Catalog::new(record_backed))
}
