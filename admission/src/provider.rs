//! The provider protocol: the async trait a live system implements (the simulated cloud, the real AWS
//! provider, an embedder's own small cloud), the live objects it returns and the typed error it fails with.
//!
//! The required surface is small: [`Provider::region`], [`Provider::schemas`], paged [`Provider::list`],
//! [`Provider::create`], [`Provider::update`] and [`Provider::delete`]. Everything else has a default built
//! on those: reads by identity or id page through the listing, the tagging sweep lists each type in the
//! tagging index with a tag filter, and a tags-only update reads the object and updates it with its own
//! attributes. A provider with cheaper native calls (a `Get*` by name, `tagging:GetResources`,
//! `ec2:CreateTags`) overrides the defaults.
//!
//! Two rules every implementation keeps: a create takes the tags in the same call, so an object never exists
//! unmarked; and every API attempt, retries included, is counted by operation name ([`ApiCallCounter`]), so
//! a plan can report its cost. An absent object is an answer (`Ok(None)`), never an error; a failed look is
//! an error, never an absence.
//!
//! This module defines the protocol only; it must never perform I/O itself.

pub mod conformance;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Mutex;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::schema::AttributeMode;
use crate::value::Value;

/// One object of a live system, as a provider reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveObject {
    /// The resource type (`aws_vpc`).
    #[serde(rename = "type")]
    pub type_name: String,
    /// The object's id (`vpc-00000001`, a bucket's name).
    pub id: String,
    /// The region the object lives in.
    pub region: String,
    /// The attributes the read returned (residue attributes are absent, except in a create's answer).
    #[serde(default)]
    pub attributes: BTreeMap<String, Value>,
    /// The object's tags (empty when it has none or the type is not taggable).
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

impl LiveObject {
    /// The attribute `name`, if the read returned it.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes.get(name)
    }

    /// The attribute `name` as a string, if it is one.
    pub fn attribute_str(&self, name: &str) -> Option<&str> {
        self.attributes.get(name).and_then(Value::as_str)
    }

    /// The tag `key`, if the object carries it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.get(key).map(String::as_str)
    }
}

/// A tag condition: the tag `key` is present with one of `values` (with any value when `values` is empty).
/// Several filters must all hold.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TagFilter {
    /// The tag key.
    pub key: String,
    /// The accepted values; empty accepts any.
    pub values: Vec<String>,
}

impl TagFilter {
    /// The filter "`key` = `value`".
    pub fn equals(key: impl Into<String>, value: impl Into<String>) -> TagFilter {
        TagFilter {
            key: key.into(),
            values: vec![value.into()],
        }
    }

    /// Whether `tags` pass this filter.
    pub fn matches(&self, tags: &BTreeMap<String, String>) -> bool {
        match tags.get(&self.key) {
            Some(v) => self.values.is_empty() || self.values.iter().any(|x| x == v),
            None => false,
        }
    }

    /// Whether `tags` pass every filter of `filters`.
    pub fn all_match(filters: &[TagFilter], tags: &BTreeMap<String, String>) -> bool {
        filters.iter().all(|f| f.matches(tags))
    }
}

/// The parent under which a type is listed (the access keys of one user).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ParentScope {
    /// The parent's resource type (`aws_iam_user`).
    pub type_name: String,
    /// The parent's id (the user's name).
    pub id: String,
}

/// One page of a listing of a type in the provider's region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListRequest {
    /// The type to list.
    pub type_name: String,
    /// Only objects whose tags pass every filter (ignored by APIs that cannot filter; then
    /// [`ListPage::tags_included`] is false and the caller filters after reading tags).
    pub tag_filters: Vec<TagFilter>,
    /// Only objects under this parent (required for list-and-match types).
    pub parent: Option<ParentScope>,
    /// The token of the page to read; `None` for the first page.
    pub page_token: Option<String>,
}

impl ListRequest {
    /// The first page of an unfiltered listing of `type_name`.
    pub fn all(type_name: impl Into<String>) -> ListRequest {
        ListRequest {
            type_name: type_name.into(),
            ..ListRequest::default()
        }
    }
}

/// One page of live objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListPage {
    /// The objects of the listed type on this page.
    pub objects: Vec<LiveObject>,
    /// Objects of other types that the API returned inline with them (the routes and associations of the
    /// route tables on this page), each with its own type.
    pub children: Vec<LiveObject>,
    /// Whether the objects' `tags` are what the API returned; false for APIs that list without tags
    /// (`s3:ListBuckets`), whose objects then carry empty tags that mean nothing.
    pub tags_included: bool,
    /// The token of the next page; `None` on the last page.
    pub next_page_token: Option<String>,
}

/// How to find one object without knowing its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Identity {
    /// The client-assigned name of a client-named type (a bucket name, a role name).
    Name(String),
    /// The components of a parent-derived identity, by argument name (`route_table_id`,
    /// `destination_cidr_block`).
    Composite(BTreeMap<String, String>),
}

impl Identity {
    /// Whether `object` has this identity for a type whose identity arguments are `arguments`.
    pub fn matches(&self, arguments: &[String], object: &LiveObject) -> bool {
        match self {
            Identity::Name(name) => match arguments.first() {
                Some(arg) => object.attribute_str(arg) == Some(name.as_str()),
                None => object.id == *name,
            },
            Identity::Composite(parts) => {
                !parts.is_empty()
                    && parts
                        .iter()
                        .all(|(k, v)| object.attribute_str(k) == Some(v.as_str()))
            }
        }
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Identity::Name(n) => f.write_str(n),
            Identity::Composite(parts) => {
                for (i, (k, v)) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}={v}")?;
                }
                Ok(())
            }
        }
    }
}

/// One page of the tagging API: the taggable objects of the region whose tags pass the filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagQuery {
    /// Only objects whose tags pass every filter.
    pub tag_filters: Vec<TagFilter>,
    /// Only these types; empty for every type the tagging index covers.
    pub type_names: Vec<String>,
    /// The token of the page to read; `None` for the first page.
    pub page_token: Option<String>,
}

/// One object as the tagging API reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TaggedResource {
    /// The resource type.
    #[serde(rename = "type")]
    pub type_name: String,
    /// The object's id.
    pub id: String,
    /// The object's tags.
    pub tags: BTreeMap<String, String>,
}

/// One page of the tagging API.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaggedPage {
    /// The objects on this page (the index may lag: an object deleted a moment ago can still appear).
    pub resources: Vec<TaggedResource>,
    /// The token of the next page; `None` on the last page.
    pub next_page_token: Option<String>,
}

/// A new object: its desired attributes and its tags, created in one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateRequest {
    /// The type to create.
    pub type_name: String,
    /// The desired attributes (known values; computed attributes left out).
    pub attributes: BTreeMap<String, Value>,
    /// The tags, markers included, set by the same call.
    pub tags: BTreeMap<String, String>,
}

/// Tags to set and tag keys to remove.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagChange {
    /// Tags to add or overwrite.
    pub set: BTreeMap<String, String>,
    /// Tag keys to remove.
    pub remove: BTreeSet<String>,
}

impl TagChange {
    /// Whether the change does nothing.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.remove.is_empty()
    }

    /// `tags` after the change.
    pub fn applied_to(&self, tags: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = tags
            .iter()
            .filter(|(k, _)| !self.remove.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.extend(self.set.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }
}

/// An in-place update of an existing object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateRequest {
    /// The object's type.
    pub type_name: String,
    /// The object's id.
    pub id: String,
    /// The desired attributes, in full (the provider changes those that differ from the object).
    pub attributes: BTreeMap<String, Value>,
    /// The tag change to make with the update (often empty).
    pub tags: TagChange,
}

/// What kind of failure a provider call met; the same meaning on every provider.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// The API refused the call for its rate (retryable).
    Throttled,
    /// The API failed on its side (retryable).
    ServerError,
    /// The call did not finish in time (retryable).
    TimedOut,
    /// The caller lacks a permission.
    AccessDenied {
        /// The permission the call needs (`ec2:DescribeVpcs`).
        permission: String,
    },
    /// The object does not exist.
    NotFound,
    /// An object with that client-assigned name exists already, whoever owns it.
    AlreadyExists,
    /// The object cannot be deleted while others depend on it.
    DependencyViolation,
    /// An argument names an object that does not exist.
    InvalidReference,
    /// An argument has a value the API does not accept.
    InvalidArgument,
    /// The provider does not serve the type or does not offer the operation.
    Unsupported,
}

impl fmt::Display for ProviderErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderErrorKind::Throttled => f.write_str("throttled"),
            ProviderErrorKind::ServerError => f.write_str("server error"),
            ProviderErrorKind::TimedOut => f.write_str("timed out"),
            ProviderErrorKind::AccessDenied { permission } => {
                write!(f, "access denied (missing permission {permission})")
            }
            ProviderErrorKind::NotFound => f.write_str("not found"),
            ProviderErrorKind::AlreadyExists => f.write_str("already exists"),
            ProviderErrorKind::DependencyViolation => f.write_str("dependency violation"),
            ProviderErrorKind::InvalidReference => f.write_str("invalid reference"),
            ProviderErrorKind::InvalidArgument => f.write_str("invalid argument"),
            ProviderErrorKind::Unsupported => f.write_str("unsupported"),
        }
    }
}

/// A failed provider call: which API operation, what kind of failure, and the API's own words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{operation}: {kind}{}", if .message.is_empty() { String::new() } else { format!(": {}", .message) })]
pub struct ProviderError {
    /// The API operation, `service:Action` (`ec2:DescribeVpcs`).
    pub operation: String,
    /// The kind of failure.
    pub kind: ProviderErrorKind,
    /// The API's message, possibly empty.
    pub message: String,
}

impl ProviderError {
    /// An error of `kind` from `operation` with the API's `message`.
    pub fn new(
        operation: impl Into<String>,
        kind: ProviderErrorKind,
        message: impl Into<String>,
    ) -> ProviderError {
        ProviderError {
            operation: operation.into(),
            kind,
            message: message.into(),
        }
    }

    /// A throttling error from `operation`.
    pub fn throttled(operation: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::Throttled, "")
    }

    /// A server-side error from `operation`.
    pub fn server_error(operation: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::ServerError, "")
    }

    /// A denial of `operation` for lack of `permission`.
    pub fn access_denied(
        operation: impl Into<String>,
        permission: impl Into<String>,
    ) -> ProviderError {
        ProviderError::new(
            operation,
            ProviderErrorKind::AccessDenied {
                permission: permission.into(),
            },
            "",
        )
    }

    /// A not-found error from `operation` about `what`.
    pub fn not_found(operation: impl Into<String>, what: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::NotFound, what)
    }

    /// Whether trying the same call again may succeed (throttled, server error, timed out).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ProviderErrorKind::Throttled
                | ProviderErrorKind::ServerError
                | ProviderErrorKind::TimedOut
        )
    }

    /// Whether the object does not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind == ProviderErrorKind::NotFound
    }
}

/// Counts API calls by operation name: what [`Provider::api_calls`] reports.
///
/// Record every attempt, retries included, before making it; a failed call is still a call.
#[derive(Debug, Default)]
pub struct ApiCallCounter {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl ApiCallCounter {
    /// A counter at zero.
    pub fn new() -> ApiCallCounter {
        ApiCallCounter::default()
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, u64>> {
        // A panic elsewhere while holding the lock leaves the map consistent: it only ever grows by one.
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts one call of `operation`.
    pub fn record(&self, operation: &str) {
        *self.counts().entry(operation.to_owned()).or_insert(0) += 1;
    }

    /// The counts so far, by operation name.
    pub fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts().clone()
    }

    /// The number of calls so far, all operations together.
    pub fn total(&self) -> u64 {
        self.counts().values().sum()
    }
}

/// A live system the engine reads and writes: object-safe, used as `Arc<dyn Provider>`.
///
/// Implement the six required methods; override the others where the system has a cheaper native call.
#[async_trait]
pub trait Provider: Send + Sync {
    /// The region this provider reads and writes (`us-east-1`).
    fn region(&self) -> String;

    /// The resource types this provider serves.
    fn schemas(&self) -> Catalog;

    /// One page of the objects of a type in the region, optionally tag-filtered or under a parent.
    async fn list(&self, request: ListRequest) -> Result<ListPage, ProviderError>;

    /// Creates an object with its attributes and tags in one call, and returns it as a read would, plus any
    /// value returned only by the create (an access key's `secret`).
    async fn create(&self, request: CreateRequest) -> Result<LiveObject, ProviderError>;

    /// Updates an object in place and returns it as a read would.
    async fn update(&self, request: UpdateRequest) -> Result<LiveObject, ProviderError>;

    /// Deletes an object. An object that is already gone is `NotFound`.
    async fn delete(&self, type_name: &str, id: &str) -> Result<(), ProviderError>;

    /// The object of `type_name` with `identity`, or `None` when there is none.
    ///
    /// The default pages through [`Provider::list`] (under the parent named in a composite identity, for
    /// types listed by parent) and matches the schema's identity arguments.
    async fn read(
        &self,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let catalog = self.schemas();
        let arguments = catalog
            .get(type_name)
            .map(|s| s.identity.clone())
            .unwrap_or_default();
        let parent = catalog
            .get(type_name)
            .and_then(|s| s.parent.clone())
            .and_then(|link| {
                let id = match identity {
                    Identity::Composite(parts) => parts.get(&link.argument).cloned(),
                    Identity::Name(n) if arguments.first() == Some(&link.argument) => {
                        Some(n.clone())
                    }
                    Identity::Name(_) => None,
                }?;
                Some(ParentScope {
                    type_name: link.parent_type,
                    id,
                })
            });
        let mut request = ListRequest {
            parent,
            ..ListRequest::all(type_name)
        };
        loop {
            let page = self.list(request.clone()).await?;
            if let Some(found) = page
                .objects
                .into_iter()
                .find(|o| identity.matches(&arguments, o))
            {
                return Ok(Some(found));
            }
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return Ok(None),
            }
        }
    }

    /// The object of `type_name` with `id`, or `None` when there is none.
    ///
    /// The default pages through an unfiltered [`Provider::list`] of the type.
    async fn read_by_id(
        &self,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let mut request = ListRequest::all(type_name);
        loop {
            let page = self.list(request.clone()).await?;
            if let Some(found) = page.objects.into_iter().find(|o| o.id == id) {
                return Ok(Some(found));
            }
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return Ok(None),
            }
        }
    }

    /// One page of the tagging API: every taggable object of the region whose tags pass the filters.
    ///
    /// The default lists, in type order, each type of [`Provider::schemas`] that is in the tagging index,
    /// with the filters; its page token is `<type name> <that type's page token>`.
    async fn tagged_resources(&self, query: TagQuery) -> Result<TaggedPage, ProviderError> {
        let catalog = self.schemas();
        let types: Vec<String> = catalog
            .iter()
            .filter(|s| s.in_tagging_index)
            .filter(|s| query.type_names.is_empty() || query.type_names.contains(&s.type_name))
            .map(|s| s.type_name.clone())
            .collect();
        let (start_type, inner_token) = match &query.page_token {
            Some(token) => match token.split_once(' ') {
                Some((t, inner)) => (
                    Some(t.to_owned()),
                    Some(inner.to_owned()).filter(|s| !s.is_empty()),
                ),
                None => (Some(token.clone()), None),
            },
            None => (None, None),
        };
        let start = match &start_type {
            Some(t) => match types.iter().position(|x| x == t) {
                Some(i) => i,
                None => {
                    return Err(ProviderError::new(
                        "tagging:GetResources",
                        ProviderErrorKind::InvalidArgument,
                        format!("bad page token {t:?}"),
                    ));
                }
            },
            None => 0,
        };
        let Some(type_name) = types.get(start) else {
            return Ok(TaggedPage::default());
        };
        let page = self
            .list(ListRequest {
                type_name: type_name.clone(),
                tag_filters: query.tag_filters.clone(),
                parent: None,
                page_token: inner_token,
            })
            .await?;
        let resources = page
            .objects
            .into_iter()
            .filter(|o| TagFilter::all_match(&query.tag_filters, &o.tags))
            .map(|o| TaggedResource {
                type_name: o.type_name,
                id: o.id,
                tags: o.tags,
            })
            .collect();
        let next_page_token = match page.next_page_token {
            Some(inner) => Some(format!("{type_name} {inner}")),
            None => types.get(start + 1).map(|next| format!("{next} ")),
        };
        Ok(TaggedPage {
            resources,
            next_page_token,
        })
    }

    /// Sets and removes tags of an object, changing nothing else (markers, renames, adoption).
    ///
    /// The default reads the object and updates it with its own writable attributes and the tag change.
    async fn update_tags(
        &self,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        let object = self
            .read_by_id(type_name, id)
            .await?
            .ok_or_else(|| ProviderError::not_found("update_tags", format!("{type_name} {id}")))?;
        let catalog = self.schemas();
        let writable = |name: &str| {
            catalog
                .get(type_name)
                .and_then(|s| s.attribute(name))
                .is_some_and(|a| a.mode != AttributeMode::Computed && name != "tags")
        };
        let attributes = object
            .attributes
            .into_iter()
            .filter(|(k, _)| writable(k))
            .collect();
        self.update(UpdateRequest {
            type_name: type_name.to_owned(),
            id: id.to_owned(),
            attributes,
            tags: change,
        })
        .await?;
        Ok(())
    }

    /// The API calls made so far, by operation name, every attempt counted. The default reports none.
    fn api_calls(&self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
}
