//! Nested block schemas: what a block inside a resource body (`versioning_configuration { … }`, `route
//! { … }`) holds, how its blocks nest (one, a list, a set or a map by label), how many of them there may be,
//! and the block's own attributes and nested blocks.
//!
//! A block is an attribute of its parent whose value is built from the blocks written: a list of objects
//! for list nesting, a set of objects for set nesting, one object (or null) for single nesting and a map of
//! objects by label for map nesting, as Terraform's plan JSON shows them. The configuration hands the
//! blocks over as the evaluator builds them (a list of objects, or a map by label for labelled blocks; the
//! JSON syntax may also write one object); [`BlockSchema::desired`] turns that into the nesting's shape with
//! every element's defaults filled in, and [`BlockSchema::check`] says what is wrong with it.
//!
//! ```
//! use provider::schema::{AttributeSchema, BlockSchema, Nesting};
//! use provider::{Type, Value};
//!
//! let versioning = BlockSchema::new(Nesting::List)
//!     .items(1, Some(1))
//!     .with_attribute(AttributeSchema::required("status", Type::String))
//!     .with_attribute(AttributeSchema::optional("mfa_delete", Type::String, Value::Null));
//! let written = Value::List(vec![Value::Map([("status".to_owned(), Value::from("Enabled"))].into())]);
//! let desired = versioning.desired(&written, "us-east-1");
//! let element = Value::Map(
//!     [("mfa_delete".to_owned(), Value::Null), ("status".to_owned(), Value::from("Enabled"))].into(),
//! );
//! assert_eq!(desired, Value::List(vec![element]));
//! ```
//!
//! This module holds data and pure functions over it; it must never talk to a live system.

use std::collections::{BTreeMap, BTreeSet};

use super::{AttributeMode, AttributeProblem, AttributeSchema, RefusedArgument};
use crate::value::{Type, Value};

/// How the blocks of one type nest in their parent, as Terraform's schemas say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nesting {
    /// At most one block; its value is an object, or null when none is written.
    Single,
    /// Blocks in the order written; a list of objects.
    List,
    /// Blocks without order or duplicates; a set of objects.
    Set,
    /// Blocks with one label each; a map of objects by label.
    Map,
}

impl Nesting {
    /// The name Terraform's schema JSON gives the nesting mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Nesting::Single => "single",
            Nesting::List => "list",
            Nesting::Set => "set",
            Nesting::Map => "map",
        }
    }
}

/// The schema of one nested block type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockSchema {
    /// How the blocks nest.
    pub nesting: Nesting,
    /// The fewest blocks the configuration must write (when it writes the block type at all for an
    /// optional block, always for a required one).
    pub min_items: usize,
    /// The most blocks the configuration may write; `None` for no limit.
    pub max_items: Option<usize>,
    /// The block's attributes and nested blocks (a nested block is an attribute with a block schema).
    pub attributes: BTreeMap<String, AttributeSchema>,
    /// Arguments the provider documents for the block but that are not served, by name, each with a note
    /// saying why (`nat_gateway_id`: NAT gateways are not served); writing one is refused by name.
    pub refused: BTreeMap<String, RefusedArgument>,
    /// Terraform's attributes-as-blocks mode (a security group's `ingress`, a route table's `route`): the
    /// blocks may also be written as a list argument, `ingress = []` being the way to say "none".
    pub attributes_as_blocks: bool,
    /// The resource type that manages one entry of this set on its own (`aws_route` for a route table's
    /// `route` blocks): declaring both on one parent is an error, since declared blocks are the whole set.
    pub standalone: Option<String>,
}

impl BlockSchema {
    /// A block type with no attributes and no item limits; the chained methods add the rest.
    pub fn new(nesting: Nesting) -> BlockSchema {
        BlockSchema {
            nesting,
            min_items: 0,
            max_items: match nesting {
                Nesting::Single => Some(1),
                _ => None,
            },
            attributes: BTreeMap::new(),
            refused: BTreeMap::new(),
            attributes_as_blocks: false,
            standalone: None,
        }
    }

    /// The same block type, whose entries the resource type `type_name` may also manage one by one.
    pub fn standalone(mut self, type_name: impl Into<String>) -> BlockSchema {
        self.standalone = Some(type_name.into());
        self
    }

    /// The same block type with the documented argument `name` refused, `note` saying why.
    pub fn refuse(mut self, name: impl Into<String>, note: impl Into<String>) -> BlockSchema {
        let refusal = RefusedArgument {
            deprecated: false,
            note: note.into(),
        };
        self.refused.insert(name.into(), refusal);
        self
    }

    /// The same block type in Terraform's attributes-as-blocks mode: also written as a list argument.
    pub fn as_attributes(mut self) -> BlockSchema {
        self.attributes_as_blocks = true;
        self
    }

    /// The same block type with its item limits set.
    pub fn items(mut self, min: usize, max: Option<usize>) -> BlockSchema {
        self.min_items = min;
        self.max_items = max;
        self
    }

    /// The same block type with `attribute` added (or replacing the one of the same name).
    pub fn with_attribute(mut self, attribute: AttributeSchema) -> BlockSchema {
        self.attributes.insert(attribute.name.clone(), attribute);
        self
    }

    /// The type of one block's object.
    pub fn element_type(&self) -> Type {
        Type::Object(
            self.attributes
                .values()
                .map(|a| (a.name.clone(), a.value_type.clone()))
                .collect(),
        )
    }

    /// The type of the blocks as their parent holds them.
    pub fn value_type(&self) -> Type {
        let element = self.element_type();
        match self.nesting {
            Nesting::Single => element,
            Nesting::List => Type::List(Box::new(element)),
            Nesting::Set => Type::Set(Box::new(element)),
            Nesting::Map => Type::Map(Box::new(element)),
        }
    }

    /// The value of no blocks at all: an empty list, set or map, or null for single nesting.
    pub fn empty(&self) -> Value {
        match self.nesting {
            Nesting::Single => Value::Null,
            Nesting::List => Value::List(Vec::new()),
            Nesting::Set => Value::Set(BTreeSet::new()),
            Nesting::Map => Value::empty_map(),
        }
    }

    /// The blocks as written, as `(label, body)` pairs: for map nesting a map by label, otherwise a list
    /// or set of bodies or one body (the JSON syntax's single object). `None` when the value holds no
    /// blocks at all; null holds none.
    fn written(&self, value: &'_ Value) -> Option<Vec<(Option<String>, Value)>> {
        match value.peel() {
            Value::Null => Some(Vec::new()),
            Value::List(items) => Some(items.iter().map(|v| (None, v.clone())).collect()),
            Value::Set(items) => Some(items.iter().map(|v| (None, v.clone())).collect()),
            Value::Map(entries) if self.nesting == Nesting::Map => Some(
                entries
                    .iter()
                    .map(|(k, v)| (Some(k.clone()), v.clone()))
                    .collect(),
            ),
            Value::Map(_) => Some(vec![(None, value.clone())]),
            _ => None,
        }
    }

    /// The desired value of blocks as written: each element with its defaults filled in (as a resource's
    /// attributes are), in the nesting's shape. An unknown value stays unknown, of the blocks' type.
    pub fn desired(&self, value: &Value, region: &str) -> Value {
        if value.peel().is_unknown() {
            return Value::Unknown(self.value_type());
        }
        let marked = matches!(value, Value::Sensitive(_));
        let written = self.written(value).unwrap_or_default();
        let element = |body: &Value| match body.peel().as_map() {
            Some(map) => Value::Map(self.element_desired(map, region)),
            None => body.clone(),
        };
        let out = match self.nesting {
            Nesting::Single => written.first().map_or(Value::Null, |(_, b)| element(b)),
            Nesting::List => Value::List(written.iter().map(|(_, b)| element(b)).collect()),
            Nesting::Set => Value::Set(written.iter().map(|(_, b)| element(b)).collect()),
            Nesting::Map => Value::Map(
                written
                    .iter()
                    .map(|(l, b)| (l.clone().unwrap_or_default(), element(b)))
                    .collect(),
            ),
        };
        out.mark_sensitive_if(marked)
    }

    /// One block's desired attributes: unset optional ones take their default, computed ones are
    /// unknown, unset nested blocks are empty.
    fn element_desired(
        &self,
        configured: &BTreeMap<String, Value>,
        region: &str,
    ) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for attr in self.attributes.values() {
            let value = match (configured.get(&attr.name), &attr.block, &attr.mode) {
                (Some(v), Some(block), _) => block.desired(v, region),
                (None, Some(block), _) => block.empty(),
                (_, None, AttributeMode::Computed) => Value::Unknown(attr.value_type.clone()),
                (Some(v), None, _) => attr.configured_value(v),
                (None, None, AttributeMode::Optional(d)) => d.value_in(region),
                (None, None, AttributeMode::Required) => Value::Null,
            };
            out.insert(attr.name.clone(), value.mark_sensitive_if(attr.sensitive));
        }
        out
    }

    /// What is wrong with the blocks written for the block type `name` (a path such as
    /// `versioning_configuration` or `ingress.cidr`), added to `problems`: a value that holds no blocks,
    /// too few or too many blocks, and each block's own attribute problems, named by their path
    /// (`versioning_configuration.status`). Labels are the configuration's to check: a value has none.
    pub fn check(&self, name: &str, value: &Value, problems: &mut Vec<AttributeProblem>) {
        if value.peel().is_unknown() {
            return;
        }
        let Some(written) = self.written(value) else {
            problems.push(AttributeProblem::NotABlock(name.to_owned()));
            return;
        };
        let found = written.len();
        if found < self.min_items || self.max_items.is_some_and(|m| found > m) {
            problems.push(AttributeProblem::BlockCount {
                name: name.to_owned(),
                min: self.min_items,
                max: self.max_items,
                found,
            });
        }
        for (_, body) in written {
            match body.peel() {
                Value::Map(body) => {
                    let mut served = body.clone();
                    for (arg, refusal) in &self.refused {
                        if served.remove(arg).is_some() {
                            problems.push(AttributeProblem::Refused {
                                name: format!("{name}.{arg}"),
                                refusal: refusal.clone(),
                            });
                        }
                    }
                    super::check_attributes(&self.attributes, &served, Some(name), problems)
                }
                Value::Unknown(_) => {}
                _ => problems.push(AttributeProblem::NotABlock(name.to_owned())),
            }
        }
    }
}
