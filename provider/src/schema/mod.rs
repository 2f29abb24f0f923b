//! Resource type schemas: what a provider says about each type it serves, and everything the engine needs to
//! know about a type to admit, discover, bind and diff its objects without a state file.
//!
//! A [`ResourceTypeSchema`] names the type's admission path, its identity (which arguments recover a live
//! object with no memory), how its ids are minted, whether it carries tags and whether the tagging API sees
//! it, which fields make a foreign object a bind candidate, and its attributes: required, optional with a
//! default, or computed; force-new; sensitive; and *residue* (applied values a read never returns, such as
//! `force_destroy` or an access key's `secret`). Schemas are plain data built with small chained
//! constructors, so an embedder's own provider describes its types in a few lines:
//!
//! ```
//! use provider::schema::{AttributeSchema, IdScheme, ResourceTypeSchema};
//! use provider::{AdmissionPath, Type, Value};
//!
//! let item = ResourceTypeSchema::new("kv_item", Some(AdmissionPath::ClientNamed))
//!     .identity(["key"])
//!     .id_scheme(IdScheme::IdentityValue)
//!     .with_attribute(AttributeSchema::required("key", Type::String).force_new())
//!     .with_attribute(AttributeSchema::optional("value", Type::String, Value::from("")));
//! assert_eq!(item.identity_arguments(), ["key"]);
//! assert!(item.attribute("key").unwrap().force_new);
//! ```
//!
//! A nested block (`versioning_configuration { … }`) is an attribute whose [`BlockSchema`] says how its
//! blocks nest and what they hold ([`Nesting`], min and max items, its own attributes).
//!
//! This module holds data and pure functions over it; it must never talk to a live system.

mod block;
mod data_source;
mod lifecycle;
mod normalize;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::path::AdmissionPath;
use crate::value::{Type, Value};

pub use block::{BlockSchema, Nesting};
pub use data_source::DataSourceSchema;
pub use lifecycle::{DestroyArguments, DestroyMode, RefusedArgument};
pub use normalize::{Normalize, ip_protocol};

/// The computed attribute of every taggable type that holds every tag the object carries or will carry:
/// the configured `tags`, the provider configuration's default tags and the ownership markers.
pub const TAGS_ALL: &str = "tags_all";

/// The default an optional attribute takes when the configuration leaves it unset.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DefaultValue {
    /// A fixed value (`false`, `"/"`, `null`, `{}`).
    Fixed(Value),
    /// The region name followed by a suffix: `availability_zone` defaults to `<region>a`.
    RegionSuffix(String),
    /// Chosen by the live system or the provider when unset (a security group's minted name, the default
    /// VPC): unknown until the object exists, and not managed on an existing object while unset.
    Computed,
}

impl DefaultValue {
    /// The default for an object in `region`.
    pub fn value_in(&self, region: &str) -> Value {
        match self {
            DefaultValue::Fixed(v) => v.clone(),
            DefaultValue::RegionSuffix(suffix) => Value::String(format!("{region}{suffix}")),
            DefaultValue::Computed => Value::unknown(),
        }
    }
}

/// Whether the configuration must, may or may not set an attribute.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttributeMode {
    /// The configuration must set it.
    Required,
    /// The configuration may set it; unset, it takes the default.
    Optional(DefaultValue),
    /// Only the live system sets it; it is unknown until the object exists.
    Computed,
}

/// How a desired value is compared with a live one when diffing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// As values: equal content is equal.
    Exact,
    /// As JSON documents held in strings: whitespace and key order do not matter (IAM policies).
    JsonDocument,
}

/// One attribute of a resource type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AttributeSchema {
    /// The attribute's name (`cidr_block`).
    pub name: String,
    /// Required, optional (with its default) or computed.
    pub mode: AttributeMode,
    /// The attribute's type.
    pub value_type: Type,
    /// A change replaces the object instead of updating it in place.
    pub force_new: bool,
    /// The value is never shown (`(sensitive value)`).
    pub sensitive: bool,
    /// A read never returns the value (it was applied, or returned only by the create), so the engine keeps
    /// it in a residue record and never diffs it against the live read.
    pub residue: bool,
    /// How desired and live values are compared.
    pub comparison: Comparison,
    /// The resource type whose id this attribute holds, when it is a reference (`vpc_id` → `aws_vpc`).
    pub references: Option<String>,
    /// The only values the live system accepts (`Enabled`, `Suspended`); empty when any value of the type is.
    pub allowed: Vec<String>,
    /// For a nested block type, its schema: the configuration writes it as blocks, never as `name = …`.
    pub block: Option<Box<BlockSchema>>,
    /// How the provider rewrites a configured value before planning it, if it does.
    pub normalize: Option<Normalize>,
}

impl AttributeSchema {
    fn with_mode(
        name: impl Into<String>,
        value_type: Type,
        mode: AttributeMode,
    ) -> AttributeSchema {
        AttributeSchema {
            name: name.into(),
            mode,
            value_type,
            force_new: false,
            sensitive: false,
            residue: false,
            comparison: Comparison::Exact,
            references: None,
            allowed: Vec::new(),
            block: None,
            normalize: None,
        }
    }

    /// A nested block type: required when it needs at least one block. Its value is built from the
    /// blocks written ([`BlockSchema`]); left unset, an optional block type is not managed.
    pub fn block(name: impl Into<String>, block: BlockSchema) -> AttributeSchema {
        let mode = if block.min_items > 0 {
            AttributeMode::Required
        } else {
            AttributeMode::Optional(DefaultValue::Fixed(block.empty()))
        };
        let mut out = AttributeSchema::with_mode(name, block.value_type(), mode);
        out.block = Some(Box::new(block));
        out
    }

    /// Whether it is a nested block type.
    pub fn is_block(&self) -> bool {
        self.block.is_some()
    }

    /// A required attribute.
    pub fn required(name: impl Into<String>, value_type: Type) -> AttributeSchema {
        AttributeSchema::with_mode(name, value_type, AttributeMode::Required)
    }

    /// An optional attribute with a fixed default.
    pub fn optional(name: impl Into<String>, value_type: Type, default: Value) -> AttributeSchema {
        AttributeSchema::with_mode(
            name,
            value_type,
            AttributeMode::Optional(DefaultValue::Fixed(default)),
        )
    }

    /// An optional attribute whose default depends on the region.
    pub fn optional_in_region(
        name: impl Into<String>,
        value_type: Type,
        suffix: impl Into<String>,
    ) -> AttributeSchema {
        AttributeSchema::with_mode(
            name,
            value_type,
            AttributeMode::Optional(DefaultValue::RegionSuffix(suffix.into())),
        )
    }

    /// An optional attribute that the live system or the provider chooses when the configuration leaves it
    /// unset (Terraform's optional and computed): unset, it is unknown at create and not managed after.
    pub fn optional_computed(name: impl Into<String>, value_type: Type) -> AttributeSchema {
        AttributeSchema::with_mode(
            name,
            value_type,
            AttributeMode::Optional(DefaultValue::Computed),
        )
    }

    /// Whether it is optional and chosen by the live system when unset.
    pub fn is_optional_computed(&self) -> bool {
        self.mode == AttributeMode::Optional(DefaultValue::Computed)
    }

    /// A computed attribute.
    pub fn computed(name: impl Into<String>, value_type: Type) -> AttributeSchema {
        AttributeSchema::with_mode(name, value_type, AttributeMode::Computed)
    }

    /// The same attribute, force-new.
    pub fn force_new(mut self) -> AttributeSchema {
        self.force_new = true;
        self
    }

    /// The same attribute, sensitive.
    pub fn sensitive(mut self) -> AttributeSchema {
        self.sensitive = true;
        self
    }

    /// The same attribute, never returned by a read.
    pub fn residue(mut self) -> AttributeSchema {
        self.residue = true;
        self
    }

    /// The same attribute, compared as a JSON document.
    pub fn json_document(mut self) -> AttributeSchema {
        self.comparison = Comparison::JsonDocument;
        self
    }

    /// The same attribute, its configured value rewritten by `normalize` before it is planned.
    pub fn normalized(mut self, normalize: Normalize) -> AttributeSchema {
        self.normalize = Some(normalize);
        self
    }

    /// A configured value converted to the attribute's type, then rewritten as the provider rewrites it.
    pub fn configured_value(&self, value: &Value) -> Value {
        let value = converted(value, &self.value_type);
        match self.normalize {
            Some(n) => n.apply(value),
            None => value,
        }
    }

    /// The same attribute, holding the id of an object of `type_name`.
    pub fn references(mut self, type_name: impl Into<String>) -> AttributeSchema {
        self.references = Some(type_name.into());
        self
    }

    /// The same attribute, limited to `values`.
    pub fn one_of<S: Into<String>>(
        mut self,
        values: impl IntoIterator<Item = S>,
    ) -> AttributeSchema {
        self.allowed = values.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the configuration must set it.
    pub fn is_required(&self) -> bool {
        self.mode == AttributeMode::Required
    }

    /// Whether only the live system sets it.
    pub fn is_computed(&self) -> bool {
        self.mode == AttributeMode::Computed
    }

    /// Whether a desired value and a live value of this attribute mean the same thing, so that no change is
    /// planned: marks are ignored, anything unknown is a change, and a JSON document compares by content
    /// (whitespace and key order aside).
    pub fn values_match(&self, desired: &Value, live: &Value) -> bool {
        if self.comparison == Comparison::JsonDocument
            && let (Some(d), Some(l)) = (desired.as_str(), live.as_str())
            && let (Ok(d), Ok(l)) = (
                serde_json::from_str::<serde_json::Value>(d),
                serde_json::from_str::<serde_json::Value>(l),
            )
        {
            return d == l;
        }
        desired.same_as(live)
    }

    /// The default for an object in `region`, for an optional attribute whose default is known before
    /// the object exists (not one the live system chooses).
    pub fn default_in(&self, region: &str) -> Option<Value> {
        match &self.mode {
            AttributeMode::Optional(DefaultValue::Computed) => None,
            AttributeMode::Optional(d) => Some(d.value_in(region)),
            _ => None,
        }
    }
}

/// How the live system names a new object of a type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdScheme {
    /// The id is the client-named identity itself (a bucket's id is its name).
    IdentityValue,
    /// The server mints the id: a prefix and hex digits (`vpc-` + 8, `AKIA` + 16).
    ServerMinted {
        /// The id's fixed beginning, dash included where there is one.
        prefix: String,
        /// How many hex digits follow the prefix.
        hex_digits: usize,
    },
    /// The id joins the identity components, in order, with a separator (`rtb-1_10.0.0.0/0`).
    Joined {
        /// What goes between two components.
        separator: String,
    },
    /// The object is a micro-state record; its id is minted by the engine.
    Record,
}

/// Which fields make a foreign object a bind candidate for an unbound declared instance.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BindMatch {
    /// The notion does not apply: the type is not on the marker path.
    NotApplicable,
    /// Objects of the type are never offered for adoption (nothing in them tells twins apart).
    Never,
    /// A foreign object whose fields equal the instance's static values, all of them, is a candidate.
    Fields(Vec<String>),
}

/// How an object of a parent-derived or list-and-match type hangs off its parent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParentLink {
    /// The argument holding the parent's id (`route_table_id`).
    pub argument: String,
    /// The parent's resource type (`aws_route_table`).
    pub parent_type: String,
    /// The parent's listing returns these objects inline (routes come with `DescribeRouteTables`), so no
    /// read of their own is needed.
    pub inline: bool,
}

/// Everything the engine knows about one resource type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTypeSchema {
    /// The type's name (`aws_vpc`).
    pub type_name: String,
    /// How live objects of the type are recovered; `None` for a type with no admission path, which lint
    /// refuses (`unadmitted-type`).
    pub admission: Option<AdmissionPath>,
    /// The arguments whose values are the object's identity: the name of a client-named type, the
    /// components of a parent-derived identity, the parent argument of a list-and-match type.
    pub identity: Vec<String>,
    /// The attributes, by name (`id` always among them, `tags` for taggable types).
    pub attributes: BTreeMap<String, AttributeSchema>,
    /// Whether objects of the type carry tags (and so this estate's markers).
    pub taggable: bool,
    /// Whether the tagging API (`tagging:GetResources`) sees objects of the type, so the sweep covers it.
    pub in_tagging_index: bool,
    /// How new objects are named.
    pub id_scheme: IdScheme,
    /// Which fields make a foreign object a bind candidate.
    pub bind_match: BindMatch,
    /// The parent, for parent-derived and list-and-match types.
    pub parent: Option<ParentLink>,
    /// For list-and-match types, the fields compared to bind by content (`user`, `status`).
    pub match_content: Vec<String>,
    /// The provider's documented arguments and blocks the type does not implement, by name: configuring
    /// one is refused by name.
    pub refused: BTreeMap<String, RefusedArgument>,
    /// The arguments that change what a destroy does.
    pub destroy: DestroyArguments,
}

impl ResourceTypeSchema {
    /// A schema with only the computed `id` attribute; the chained methods add the rest.
    pub fn new(
        type_name: impl Into<String>,
        admission: Option<AdmissionPath>,
    ) -> ResourceTypeSchema {
        let id_scheme = match admission {
            Some(AdmissionPath::Record) => IdScheme::Record,
            _ => IdScheme::IdentityValue,
        };
        ResourceTypeSchema {
            type_name: type_name.into(),
            admission,
            identity: Vec::new(),
            attributes: BTreeMap::new(),
            taggable: false,
            in_tagging_index: false,
            id_scheme,
            bind_match: BindMatch::NotApplicable,
            parent: None,
            match_content: Vec::new(),
            refused: BTreeMap::new(),
            destroy: DestroyArguments::default(),
        }
        .with_attribute(AttributeSchema::computed("id", Type::String))
    }

    /// The same schema with `attribute` added (or replacing the one of the same name).
    pub fn with_attribute(mut self, attribute: AttributeSchema) -> ResourceTypeSchema {
        self.attributes.insert(attribute.name.clone(), attribute);
        self
    }

    /// The same schema with the identity arguments set.
    pub fn identity<S: Into<String>>(
        mut self,
        arguments: impl IntoIterator<Item = S>,
    ) -> ResourceTypeSchema {
        self.identity = arguments.into_iter().map(Into::into).collect();
        self
    }

    /// The same schema, taggable: adds `tags` (optional, `{}`, updated in place) and the computed
    /// `tags_all` (every tag the object carries, provider default tags and ownership markers included, as
    /// the AWS provider v5 has it); `in_tagging_index` says whether the tagging API sees the type.
    pub fn taggable(mut self, in_tagging_index: bool) -> ResourceTypeSchema {
        self.taggable = true;
        self.in_tagging_index = in_tagging_index;
        self.with_attribute(AttributeSchema::optional(
            "tags",
            Type::Map(Box::new(Type::String)),
            Value::empty_map(),
        ))
        .with_attribute(AttributeSchema::computed(
            TAGS_ALL,
            Type::Map(Box::new(Type::String)),
        ))
    }

    /// The same schema with its id scheme set.
    pub fn id_scheme(mut self, scheme: IdScheme) -> ResourceTypeSchema {
        self.id_scheme = scheme;
        self
    }

    /// The same schema with server-minted ids: `prefix` and `hex_digits` hex digits.
    pub fn server_ids(self, prefix: &str, hex_digits: usize) -> ResourceTypeSchema {
        self.id_scheme(IdScheme::ServerMinted {
            prefix: prefix.to_owned(),
            hex_digits,
        })
    }

    /// The same schema with its bind-candidate rule set.
    pub fn bind_match(mut self, rule: BindMatch) -> ResourceTypeSchema {
        self.bind_match = rule;
        self
    }

    /// The same schema with a parent reached through `argument`.
    pub fn parent(mut self, argument: &str, parent_type: &str, inline: bool) -> ResourceTypeSchema {
        self.parent = Some(ParentLink {
            argument: argument.to_owned(),
            parent_type: parent_type.to_owned(),
            inline,
        });
        self
    }

    /// The same schema with the list-and-match content fields set.
    pub fn match_content<S: Into<String>>(
        mut self,
        fields: impl IntoIterator<Item = S>,
    ) -> ResourceTypeSchema {
        self.match_content = fields.into_iter().map(Into::into).collect();
        self
    }

    /// The same schema with the documented argument `name` refused (deprecated in the provider's
    /// documentation when `deprecated`), `note` saying what to do instead.
    pub fn refuse(
        mut self,
        name: impl Into<String>,
        deprecated: bool,
        note: impl Into<String>,
    ) -> ResourceTypeSchema {
        let refusal = RefusedArgument {
            deprecated,
            note: note.into(),
        };
        self.refused.insert(name.into(), refusal);
        self
    }

    /// The same schema with its destroy arguments set.
    pub fn destroy_arguments(mut self, arguments: DestroyArguments) -> ResourceTypeSchema {
        self.destroy = arguments;
        self
    }

    /// What a destroy does with an object whose applied values (its residue included) are `applied`.
    pub fn destroy_mode(&self, applied: &BTreeMap<String, Value>) -> DestroyMode {
        self.destroy.mode(applied)
    }

    /// The attribute `name`, if the type has it.
    pub fn attribute(&self, name: &str) -> Option<&AttributeSchema> {
        self.attributes.get(name)
    }

    /// The identity arguments.
    pub fn identity_arguments(&self) -> &[String] {
        &self.identity
    }

    /// Whether the type has an admission path at all.
    pub fn is_admitted(&self) -> bool {
        self.admission.is_some()
    }

    /// The names of the force-new attributes, sorted.
    pub fn force_new_attributes(&self) -> Vec<&str> {
        self.attributes
            .values()
            .filter(|a| a.force_new)
            .map(|a| a.name.as_str())
            .collect()
    }

    /// The names of the residue attributes, sorted.
    pub fn residue_attributes(&self) -> Vec<&str> {
        self.attributes
            .values()
            .filter(|a| a.residue)
            .map(|a| a.name.as_str())
            .collect()
    }

    /// The desired value of an object from the attributes the configuration set: every optional attribute
    /// left unset takes its default for `region`, every computed one is unknown, and sensitive attributes
    /// are marked. `tags` is left out when unset, because unset tags are not managed.
    pub fn desired(
        &self,
        configured: &BTreeMap<String, Value>,
        region: &str,
    ) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for attr in self.attributes.values() {
            let value = match (configured.get(&attr.name), &attr.mode) {
                (Some(v), AttributeMode::Required | AttributeMode::Optional(_)) => {
                    match &attr.block {
                        Some(block) => block.desired(v, region),
                        None => attr.configured_value(v),
                    }
                }
                (None, AttributeMode::Optional(_)) if attr.name == "tags" && self.taggable => {
                    continue;
                }
                // An unset block type is not managed: the object keeps whatever blocks it has; likewise
                // an unset attribute the live system chooses (it is unknown only for a create).
                (None, AttributeMode::Optional(_))
                    if attr.is_block() || attr.is_optional_computed() =>
                {
                    continue;
                }
                (None, AttributeMode::Optional(d)) => d.value_in(region),
                (None, AttributeMode::Required) => continue,
                (_, AttributeMode::Computed) => Value::Unknown(attr.value_type.clone()),
            };
            out.insert(attr.name.clone(), value.mark_sensitive_if(attr.sensitive));
        }
        out
    }

    /// What is wrong with the attributes a configuration sets for this type, sorted by attribute name:
    /// unknown names, documented arguments the type refuses, computed attributes set, required ones missing
    /// or null, values that do not convert to the attribute's type (as Terraform converts: `"true"` is a
    /// bool, `5` a string), values outside the allowed set.
    pub fn check_configured(&self, configured: &BTreeMap<String, Value>) -> Vec<AttributeProblem> {
        let mut problems = Vec::new();
        check_attributes(&self.attributes, configured, None, &mut problems);
        for problem in &mut problems {
            if let AttributeProblem::Unknown(name) = problem
                && let Some(refusal) = self.refused.get(name.as_str())
            {
                *problem = AttributeProblem::Refused {
                    name: std::mem::take(name),
                    refusal: refusal.clone(),
                };
            }
        }
        problems.sort_by(|x, y| x.attribute().cmp(y.attribute()));
        problems
    }
}

/// The problems of `configured` against `attributes` (a resource's, or one nested block's, whose path
/// `prefix` names each problem's attribute: `versioning_configuration.status`), added to `problems`.
fn check_attributes(
    attributes: &BTreeMap<String, AttributeSchema>,
    configured: &BTreeMap<String, Value>,
    prefix: Option<&str>,
    problems: &mut Vec<AttributeProblem>,
) {
    let path = |name: &str| match prefix {
        Some(p) => format!("{p}.{name}"),
        None => name.to_owned(),
    };
    for (name, value) in configured {
        match attributes.get(name) {
            None => problems.push(AttributeProblem::Unknown(path(name))),
            Some(a) if a.is_computed() => problems.push(AttributeProblem::Computed(path(name))),
            Some(AttributeSchema {
                block: Some(block), ..
            }) => block.check(&path(name), value, problems),
            Some(a) if !fits(value, &a.value_type) => {
                if let Err(why) = crate::value::convert(value.clone(), &a.value_type) {
                    problems.push(AttributeProblem::WrongType {
                        name: path(name),
                        why,
                    });
                }
            }
            Some(a) if !a.allowed.is_empty() => {
                if let Some(s) = value.as_str()
                    && !a.allowed.iter().any(|x| x == s)
                {
                    problems.push(AttributeProblem::NotAllowed {
                        name: path(name),
                        value: (!value.contains_sensitive()).then(|| s.to_owned()),
                        allowed: a.allowed.clone(),
                    });
                }
            }
            Some(_) => {}
        }
    }
    for a in attributes.values().filter(|a| a.is_required()) {
        if configured.get(&a.name).is_none_or(Value::is_null) {
            match &a.block {
                Some(block) => problems.push(AttributeProblem::BlockCount {
                    name: path(&a.name),
                    min: block.min_items,
                    max: block.max_items,
                    found: 0,
                }),
                None => problems.push(AttributeProblem::Missing(path(&a.name))),
            }
        }
    }
}

/// Whether `value` already has the shape of `ty` (or is null or unknown), so that converting it would give
/// it back unchanged: the common case, checked without copying the value.
fn fits(value: &Value, ty: &Type) -> bool {
    match (ty, value.peel()) {
        (Type::Any, _) | (_, Value::Null | Value::Unknown(_)) => true,
        (Type::String, Value::String(_))
        | (Type::Bool, Value::Bool(_))
        | (Type::Number, Value::Number(_)) => true,
        (Type::Map(t), Value::Map(entries)) => entries.values().all(|v| fits(v, t)),
        (Type::List(t), Value::List(items)) => items.iter().all(|v| fits(v, t)),
        (Type::Set(t), Value::Set(items)) => items.iter().all(|v| fits(v, t)),
        _ => false,
    }
}

/// A configured value converted to its attribute's type; one that does not convert (which the lint
/// reports) is kept as written.
fn converted(value: &Value, ty: &Type) -> Value {
    if fits(value, ty) {
        return value.clone();
    }
    crate::value::convert(value.clone(), ty).unwrap_or_else(|_| value.clone())
}

/// One thing wrong with the attributes a configuration sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttributeProblem {
    /// The type has no attribute of that name.
    Unknown(String),
    /// A documented argument of the provider that the type does not implement (top-level, or in a nested
    /// block: `route.nat_gateway_id`).
    Refused {
        /// The argument's path.
        name: String,
        /// Whether it is deprecated, and what to do instead.
        refusal: RefusedArgument,
    },
    /// The attribute is computed: only the live system sets it.
    Computed(String),
    /// A required attribute is unset or null.
    Missing(String),
    /// The value does not convert to the attribute's type.
    WrongType {
        /// The attribute.
        name: String,
        /// What the type requires (never quoting the value, which may be a secret).
        why: String,
    },
    /// A nested block type given a value that holds no blocks (`name = "x"` for a block).
    NotABlock(String),
    /// Fewer or more blocks of a type than its schema allows.
    BlockCount {
        /// The block type's path (`versioning_configuration`).
        name: String,
        /// The fewest allowed.
        min: usize,
        /// The most allowed, if limited.
        max: Option<usize>,
        /// How many were written.
        found: usize,
    },
    /// The value is not one the live system accepts.
    NotAllowed {
        /// The attribute.
        name: String,
        /// The value set; `None` when it is sensitive (never quoted).
        value: Option<String>,
        /// The values accepted.
        allowed: Vec<String>,
    },
}

impl AttributeProblem {
    /// The attribute concerned.
    pub fn attribute(&self) -> &str {
        match self {
            AttributeProblem::Unknown(n)
            | AttributeProblem::Computed(n)
            | AttributeProblem::Missing(n)
            | AttributeProblem::NotABlock(n) => n,
            AttributeProblem::NotAllowed { name, .. }
            | AttributeProblem::Refused { name, .. }
            | AttributeProblem::BlockCount { name, .. }
            | AttributeProblem::WrongType { name, .. } => name,
        }
    }
}

impl std::fmt::Display for AttributeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttributeProblem::Unknown(n) => write!(f, "unsupported argument {n:?}"),
            AttributeProblem::Refused { name, refusal } => {
                let deprecated = if refusal.deprecated {
                    " (deprecated by its provider)"
                } else {
                    ""
                };
                write!(
                    f,
                    "liveplan does not implement the argument {name:?}{deprecated}"
                )
            }
            AttributeProblem::Computed(n) => {
                write!(f, "{n:?} is computed by the provider and cannot be set")
            }
            AttributeProblem::Missing(n) => write!(f, "the argument {n:?} is required"),
            AttributeProblem::NotABlock(n) => {
                write!(
                    f,
                    "{n:?} is a nested block type: write it as `{n} {{ ... }}` blocks"
                )
            }
            AttributeProblem::BlockCount {
                name,
                min,
                max,
                found,
            } => match max {
                Some(max) if found > max => {
                    write!(
                        f,
                        "no more than {max} {name:?} block(s) allowed, {found} written"
                    )
                }
                _ => write!(
                    f,
                    "at least {min} {name:?} block(s) required, {found} written"
                ),
            },
            AttributeProblem::WrongType { name, why } => {
                write!(f, "inappropriate value for argument {name:?}: {why}")
            }
            AttributeProblem::NotAllowed {
                name,
                value,
                allowed,
            } => {
                let shown = value
                    .as_ref()
                    .map_or_else(|| "(sensitive)".to_owned(), |v| format!("{v:?}"));
                write!(
                    f,
                    "{name:?} is {shown}; expected one of {}",
                    allowed.join(", ")
                )
            }
        }
    }
}
