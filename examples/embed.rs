//! Embedding liveplan: a provider of your own, a configuration built in code, records in a directory.
//!
//! The live system here is "kv", a tiny in-memory key/value cloud with two resource types:
//!
//! - `kv_namespace`: named by the client (`name`), so a plan finds it again at its name;
//! - `kv_entry`: the server mints its id (`entry-00000001`), so a plan finds it again by the ownership
//!   markers liveplan stamps on it when it creates it.
//!
//! The program plans a namespace with two entries, prints the plan, applies it while printing each
//! operation, then plans again and prints `No changes`. Run it with `cargo run --example embed`.

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use liveplan::admission::provider::TagFilter;
use liveplan::admission::schema::BindMatch;
use liveplan::render::{self, RenderOptions};
use liveplan::{
    AdmissionPath, ApiCallCounter, ApplyConfig, ApplyEvent, Argument, AttributeSchema, Catalog,
    Configuration, CreateRequest, ListPage, ListRequest, LiveObject, LocalStore, Provider,
    ProviderError, ProviderErrorKind, Resource, ResourceTypeSchema, Store, Type, UpdateRequest,
    Value,
};

/// How many objects one page of a `kv` listing holds (small, so that paging is exercised).
const PAGE_SIZE: usize = 2;

/// The `kv` cloud: every object of every type, by (type, id).
#[derive(Default)]
struct KvCloud {
    objects: Mutex<BTreeMap<(String, String), LiveObject>>,
    minted: Mutex<u32>,
    calls: ApiCallCounter,
}

impl KvCloud {
    fn objects(&self) -> std::sync::MutexGuard<'_, BTreeMap<(String, String), LiveObject>> {
        self.objects.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The operation name of a call on a type, as the API would name it (`kv:CreateEntry`).
    fn operation(verb: &str, type_name: &str) -> String {
        let noun = match type_name {
            "kv_namespace" => "Namespace",
            _ => "Entry",
        };
        format!("kv:{verb}{noun}")
    }
}

#[async_trait]
impl Provider for KvCloud {
    fn region(&self) -> String {
        "local".to_owned()
    }

    fn schemas(&self) -> &Catalog {
        static CATALOG: std::sync::LazyLock<Catalog> = std::sync::LazyLock::new(|| {
            Catalog::new([
                ResourceTypeSchema::new("kv_namespace", Some(AdmissionPath::ClientNamed))
                    .identity(["name"])
                    .taggable(true)
                    .with_attribute(AttributeSchema::required("name", Type::String).force_new())
                    .with_attribute(AttributeSchema::optional(
                        "description",
                        Type::String,
                        Value::from(""),
                    )),
                ResourceTypeSchema::new("kv_entry", Some(AdmissionPath::Marker))
                    .taggable(true)
                    .server_ids("entry-", 8)
                    .bind_match(BindMatch::Fields(vec![
                        "key".to_owned(),
                        "namespace".to_owned(),
                    ]))
                    .with_attribute(
                        AttributeSchema::required("namespace", Type::String)
                            .force_new()
                            .references("kv_namespace"),
                    )
                    .with_attribute(AttributeSchema::required("key", Type::String).force_new())
                    .with_attribute(AttributeSchema::optional(
                        "value",
                        Type::String,
                        Value::from(""),
                    )),
            ])
        });
        &CATALOG
    }

    async fn list(&self, request: ListRequest) -> Result<ListPage, ProviderError> {
        let operation = KvCloud::operation("List", &request.type_name);
        self.calls.record(&operation);
        let start: usize = match request.page_token.as_deref() {
            None => 0,
            Some(token) => token.parse().map_err(|_| {
                ProviderError::new(&operation, ProviderErrorKind::InvalidArgument, token)
            })?,
        };
        let matching: Vec<LiveObject> = self
            .objects()
            .values()
            .filter(|o| o.type_name == request.type_name)
            .filter(|o| TagFilter::all_match(&request.tag_filters, &o.tags))
            .cloned()
            .collect();
        let next = start + PAGE_SIZE;
        Ok(ListPage {
            objects: matching
                .iter()
                .skip(start)
                .take(PAGE_SIZE)
                .cloned()
                .collect(),
            children: Vec::new(),
            tags_included: true,
            next_page_token: (next < matching.len()).then(|| next.to_string()),
        })
    }

    async fn create(&self, request: CreateRequest) -> Result<LiveObject, ProviderError> {
        let operation = KvCloud::operation("Create", &request.type_name);
        self.calls.record(&operation);
        let id = match request.type_name.as_str() {
            "kv_namespace" => request
                .attributes
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ProviderError::new(&operation, ProviderErrorKind::InvalidArgument, "no name")
                })?
                .to_owned(),
            _ => {
                let mut minted = self.minted.lock().unwrap_or_else(PoisonError::into_inner);
                *minted += 1;
                format!("entry-{:08x}", *minted)
            }
        };
        let mut objects = self.objects();
        let key = (request.type_name.clone(), id.clone());
        if objects.contains_key(&key) {
            return Err(ProviderError::new(
                &operation,
                ProviderErrorKind::AlreadyExists,
                id,
            ));
        }
        let mut attributes = request.attributes;
        attributes.insert("id".to_owned(), Value::from(id.as_str()));
        let object = LiveObject {
            type_name: request.type_name,
            id,
            region: self.region(),
            attributes,
            tags: request.tags,
        };
        objects.insert(key, object.clone());
        Ok(object)
    }

    async fn update(&self, request: UpdateRequest) -> Result<LiveObject, ProviderError> {
        let operation = KvCloud::operation("Update", &request.type_name);
        self.calls.record(&operation);
        let mut objects = self.objects();
        let object = objects
            .get_mut(&(request.type_name.clone(), request.id.clone()))
            .ok_or_else(|| ProviderError::not_found(&operation, request.id.as_str()))?;
        object.attributes = request.attributes;
        object
            .attributes
            .insert("id".to_owned(), Value::from(request.id.as_str()));
        object.tags = request.tags.applied_to(&object.tags);
        Ok(object.clone())
    }

    async fn delete(&self, type_name: &str, id: &str) -> Result<(), ProviderError> {
        let operation = KvCloud::operation("Delete", type_name);
        self.calls.record(&operation);
        let mut objects = self.objects();
        // As a real cloud would, refuse to delete a namespace that still holds entries.
        let in_use = type_name == "kv_namespace"
            && objects
                .values()
                .any(|o| o.attribute_str("namespace") == Some(id));
        if in_use {
            return Err(ProviderError::new(
                &operation,
                ProviderErrorKind::InvalidArgument,
                format!("namespace {id} is not empty"),
            ));
        }
        match objects.remove(&(type_name.to_owned(), id.to_owned())) {
            Some(_) => Ok(()),
            None => Err(ProviderError::not_found(&operation, id)),
        }
    }

    fn api_calls(&self) -> BTreeMap<String, u64> {
        self.calls.snapshot()
    }
}

/// The configuration, built in code: one namespace and two entries in it.
fn configuration() -> Configuration {
    let namespace_id = Argument::reference("kv_namespace", "orders", "id");
    Configuration::new("shop")
        .resource(
            Resource::new("kv_namespace", "orders")
                .set("name", "orders")
                .set("description", "Orders of the shop"),
        )
        .resource(
            Resource::new("kv_entry", "greeting")
                .set("namespace", namespace_id.clone())
                .set("key", "greeting")
                .set("value", "hello"),
        )
        .resource(
            Resource::new("kv_entry", "limit")
                .set("namespace", namespace_id)
                .set("key", "limit")
                .set("value", "100"),
        )
        .output(
            "greeting_id",
            Argument::reference("kv_entry", "greeting", "id"),
        )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    run(Arc::new(Mutex::new(std::io::stdout()))).await
}

/// The whole program, writing what it shows to `out` (standard output when run as a program).
pub(crate) async fn run<W: Write + Send + 'static>(
    out: Arc<Mutex<W>>,
) -> Result<(), Box<dyn Error>> {
    let cloud = Arc::new(KvCloud::default());
    let records = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(LocalStore::open(records.path())?);
    let config = configuration();
    let say = |text: &str| -> std::io::Result<()> {
        let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
        writeln!(out, "{text}")
    };

    let plan = config.plan(cloud.as_ref(), Arc::clone(&store)).await?;
    say(&render::text(&plan, RenderOptions::default()))?;
    let reviewed = match plan.review() {
        Ok(reviewed) => reviewed,
        Err(e) => return Err(format!("the plan cannot be applied: {e}").into()),
    };

    let events = Arc::clone(&out);
    let apply_config = ApplyConfig {
        events: Some(Arc::new(move |event: &ApplyEvent| {
            let mut out = events.lock().unwrap_or_else(PoisonError::into_inner);
            // An event callback cannot fail the apply; a line that cannot be written is lost.
            let _ = writeln!(out, "{}", event.line());
        })),
        ..ApplyConfig::default()
    };
    let provider: Arc<dyn Provider> = cloud.clone();
    let outcome = liveplan::apply(&reviewed, provider, Arc::clone(&store), apply_config).await?;
    for diagnostic in &outcome.diagnostics {
        say(&diagnostic.to_string())?;
    }
    if !outcome.succeeded() {
        return Err("the apply failed".into());
    }
    let summary = reviewed.plan().summary();
    say(&format!(
        "\nApply complete! Resources: {} added, {} changed, {} destroyed.",
        summary.add, summary.change, summary.destroy
    ))?;
    for (name, value) in &outcome.outputs {
        say(&format!("{name} = {value}"))?;
    }
    let keys = store.list("").await?;
    say(&format!(
        "{} micro-state record(s) kept in {}\n",
        keys.len(),
        records.path().display()
    ))?;

    let again = config.plan(cloud.as_ref(), store).await?;
    let text = render::text(&again, RenderOptions::default());
    say(text.trim_end())?;
    Ok(())
}
