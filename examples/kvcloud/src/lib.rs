//! "kv", a tiny in-memory key/value cloud, as a provider of its own: what a third party writes to let
//! liveplan plan and apply against its system.
//!
//! It has two resource types:
//!
//! - `kv_namespace`: named by the client (`name`), so a plan finds it again at its name;
//! - `kv_entry`: the server mints its id (`entry-00000001`), so a plan finds it again by the ownership
//!   markers liveplan stamps on it when it creates it.
//!
//! The crate depends on `provider` alone (the value model, schemas and the protocol), not on the HCL front
//! end, the evaluator or the engine; `examples/embed.rs` drives it through the whole engine. It keeps its
//! objects in memory and must never do I/O.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use provider::schema::{AttributeSchema, BindMatch};
use provider::{
    AdmissionPath, Call, Catalog, CreateRequest, ListPage, ListRequest, LiveObject, Provider,
    ProviderError, ProviderErrorKind, ResourceTypeSchema, TagFilter, Type, UpdateRequest, Value,
};

/// How many objects one page of a `kv` listing holds (small, so that paging is exercised).
const PAGE_SIZE: usize = 2;

/// The `kv` cloud: every object of every type, by (type, id).
#[derive(Default)]
pub struct KvCloud {
    objects: Mutex<BTreeMap<(String, String), LiveObject>>,
    minted: Mutex<u32>,
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

    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        let operation = KvCloud::operation("List", &request.type_name);
        call.attempt(&operation);
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

    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let operation = KvCloud::operation("Create", &request.type_name);
        call.attempt(&operation);
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

    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let operation = KvCloud::operation("Update", &request.type_name);
        call.attempt(&operation);
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

    async fn delete(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        let operation = KvCloud::operation("Delete", type_name);
        call.attempt(&operation);
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
}
