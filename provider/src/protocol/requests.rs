//! The arguments and answers of provider calls: listings and their pages, identities, tagging queries,
//! creates, updates and tag changes.
//!
//! These are plain data; paging tokens are opaque to callers and must never be parsed outside the provider
//! that minted them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::LiveObject;
use crate::value::Value;

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
