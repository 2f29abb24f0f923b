//! A configuration built in code, for embedders whose front end is not HCL.
//!
//! [`Configuration`] holds an estate, resources and outputs as Rust values; [`Configuration::source_files`]
//! writes it out as one canonical HCL file (through `hcl-rs`, so every string is quoted and escaped as
//! HCL requires) and [`Configuration::plan`] plans it. The engine then treats it exactly as a
//! configuration read from disk: the same lint, the same diagnostics, the same plan.
//!
//! ```
//! use liveplan::{Argument, Configuration, Resource, Value};
//!
//! let config = Configuration::new("shop")
//!     .resource(Resource::new("kv_namespace", "orders").set("name", "orders"))
//!     .resource(
//!         Resource::new("kv_entry", "greeting")
//!             .set("namespace", Argument::reference("kv_namespace", "orders", "id"))
//!             .set("value", Value::map([("lang", "en"), ("text", "hello")])),
//!     )
//!     .output("namespace_id", Argument::reference("kv_namespace", "orders", "id"));
//! let files = config.source_files().unwrap();
//! assert_eq!(
//!     files[0].text,
//!     r#"live {
//!   estate = "shop"
//! }
//!
//! resource "kv_namespace" "orders" {
//!   name = "orders"
//! }
//!
//! resource "kv_entry" "greeting" {
//!   namespace = kv_namespace.orders.id
//!   value = {
//!     "lang" = "en"
//!     "text" = "hello"
//!   }
//! }
//!
//! output "namespace_id" {
//!   value = kv_namespace.orders.id
//! }
//! "#
//! );
//! ```
//!
//! This module never reads or writes files and never checks the configuration against a provider's
//! schemas: the lint does that when it is planned, and reports problems as diagnostics.

use admission::Value;
use admission::{SourceFile, VariableInputs};

/// The name of the file a [`Configuration`] is written to; diagnostics name positions in it.
pub const FILE_NAME: &str = "configuration.tf";

/// Why a configuration built in code cannot be written out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigurationError {
    /// A resource type, resource name, argument or output name that is not an HCL identifier.
    #[error(
        "{what} {name:?} is not an identifier (letters, digits, `_` and `-`, not starting with a digit)"
    )]
    InvalidIdentifier {
        /// What the name is for (`resource type`, `argument`, ...).
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// A literal that a configuration cannot hold: an unknown value, or one marked sensitive.
    #[error("argument {argument} of {owner} holds {reason}, which a configuration cannot state")]
    UnwritableValue {
        /// The resource address or `output.<name>`.
        owner: String,
        /// The argument's name.
        argument: String,
        /// What the value is (`an unknown value`, `a sensitive value`).
        reason: &'static str,
    },
    /// Two resources with one address, or two outputs with one name.
    #[error("{0} is declared twice")]
    Duplicate(String),
}

/// The value of one argument: a literal, or an attribute of another resource.
#[derive(Debug, Clone, PartialEq)]
pub enum Argument {
    /// A known value (string, number, bool, list, map, null).
    Literal(Value),
    /// `TYPE.NAME.ATTRIBUTE`: known when that resource is, `(known after apply)` until it is created.
    Reference {
        /// The referenced resource's type.
        type_name: String,
        /// The referenced resource's name.
        name: String,
        /// The attribute read (`id`, `arn`, ...).
        attribute: String,
    },
}

impl Argument {
    /// A reference to `attribute` of the resource `type_name.name`.
    pub fn reference(
        type_name: impl Into<String>,
        name: impl Into<String>,
        attribute: impl Into<String>,
    ) -> Argument {
        Argument::Reference {
            type_name: type_name.into(),
            name: name.into(),
            attribute: attribute.into(),
        }
    }
}

impl<T: Into<Value>> From<T> for Argument {
    fn from(value: T) -> Argument {
        Argument::Literal(value.into())
    }
}

/// One `resource` block: a type, a name, its arguments and its nested blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    type_name: String,
    name: String,
    arguments: Vec<(String, Argument)>,
    blocks: Vec<Block>,
    depends_on: Vec<(String, String)>,
}

/// A nested block of a resource (`versioning_configuration { status = "Enabled" }`): its type and its
/// arguments, written after the resource's arguments in the order added.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    block_type: String,
    arguments: Vec<(String, Argument)>,
}

impl Block {
    /// A block of type `block_type` with no arguments yet.
    pub fn new(block_type: impl Into<String>) -> Block {
        Block {
            block_type: block_type.into(),
            arguments: Vec::new(),
        }
    }

    /// The same block with `argument` set to `value` (set again, the last value wins).
    pub fn set(mut self, argument: impl Into<String>, value: impl Into<Argument>) -> Block {
        let argument = argument.into();
        let value = value.into();
        match self.arguments.iter_mut().find(|(a, _)| *a == argument) {
            Some(slot) => slot.1 = value,
            None => self.arguments.push((argument, value)),
        }
        self
    }
}

impl Resource {
    /// A resource `type_name.name` with no arguments yet.
    pub fn new(type_name: impl Into<String>, name: impl Into<String>) -> Resource {
        Resource {
            type_name: type_name.into(),
            name: name.into(),
            arguments: Vec::new(),
            blocks: Vec::new(),
            depends_on: Vec::new(),
        }
    }

    /// The same resource with the nested block `block` added after the others.
    pub fn block(mut self, block: Block) -> Resource {
        self.blocks.push(block);
        self
    }

    /// The same resource with `argument` set to `value` (set again, the last value wins).
    pub fn set(mut self, argument: impl Into<String>, value: impl Into<Argument>) -> Resource {
        let argument = argument.into();
        let value = value.into();
        match self.arguments.iter_mut().find(|(a, _)| *a == argument) {
            Some(slot) => slot.1 = value,
            None => self.arguments.push((argument, value)),
        }
        self
    }

    /// The same resource, applied only after the resource `type_name.name` (`depends_on`).
    pub fn depends_on(mut self, type_name: impl Into<String>, name: impl Into<String>) -> Resource {
        self.depends_on.push((type_name.into(), name.into()));
        self
    }

    /// The resource's address, `TYPE.NAME`.
    pub fn address(&self) -> String {
        format!("{}.{}", self.type_name, self.name)
    }
}

/// A whole configuration: the estate whose objects it manages, its resources and its outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    estate: String,
    resources: Vec<Resource>,
    outputs: Vec<(String, Argument)>,
}

impl Configuration {
    /// An empty configuration for `estate`, the name stamped on every object it creates (the lint checks
    /// its grammar when the configuration is planned).
    pub fn new(estate: impl Into<String>) -> Configuration {
        Configuration {
            estate: estate.into(),
            resources: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// The same configuration with `resource` declared.
    pub fn resource(mut self, resource: Resource) -> Configuration {
        self.resources.push(resource);
        self
    }

    /// The same configuration with the output `name` declared.
    pub fn output(mut self, name: impl Into<String>, value: impl Into<Argument>) -> Configuration {
        self.outputs.push((name.into(), value.into()));
        self
    }

    /// The estate.
    pub fn estate(&self) -> &str {
        &self.estate
    }

    /// The configuration as HCL: one file, [`FILE_NAME`], that any `liveplan` tool reads the same way.
    pub fn source_files(&self) -> Result<Vec<SourceFile>, ConfigurationError> {
        let mut seen = std::collections::BTreeSet::new();
        let mut body = hcl::Body::builder().add_block(
            hcl::Block::builder("live")
                .add_attribute(("estate", self.estate.as_str()))
                .build(),
        );
        for resource in &self.resources {
            identifier("resource type", &resource.type_name)?;
            identifier("resource name", &resource.name)?;
            let owner = resource.address();
            if !seen.insert(owner.clone()) {
                return Err(ConfigurationError::Duplicate(owner));
            }
            let mut block = hcl::Block::builder("resource")
                .add_label(resource.type_name.as_str())
                .add_label(resource.name.as_str());
            for (argument, value) in &resource.arguments {
                identifier("argument", argument)?;
                block =
                    block.add_attribute((argument.as_str(), expression(&owner, argument, value)?));
            }
            for nested in &resource.blocks {
                identifier("block type", &nested.block_type)?;
                let mut inner = hcl::Block::builder(nested.block_type.as_str());
                for (argument, value) in &nested.arguments {
                    identifier("argument", argument)?;
                    inner = inner
                        .add_attribute((argument.as_str(), expression(&owner, argument, value)?));
                }
                block = block.add_block(inner.build());
            }
            if !resource.depends_on.is_empty() {
                let mut list = Vec::new();
                for (type_name, name) in &resource.depends_on {
                    list.push(traversal(type_name, name, None)?);
                }
                block = block.add_attribute(("depends_on", hcl::Expression::Array(list)));
            }
            body = body.add_block(block.build());
        }
        for (name, value) in &self.outputs {
            identifier("output name", name)?;
            let owner = format!("output.{name}");
            if !seen.insert(owner.clone()) {
                return Err(ConfigurationError::Duplicate(owner));
            }
            let value = expression(&owner, "value", value)?;
            body = body.add_block(
                hcl::Block::builder("output")
                    .add_label(name.as_str())
                    .add_attribute(("value", value))
                    .build(),
            );
        }
        let text = hcl::format::to_string(&body.build())
            // hcl-rs documents that formatting to a string cannot fail.
            .expect("formatting HCL to a string never fails");
        Ok(vec![SourceFile::new(FILE_NAME, text)])
    }

    /// Plans the configuration with `engine` (its live system, its records, its settings). Writes nothing
    /// anywhere.
    ///
    /// To give variables or an estate from outside, plan [`Configuration::source_files`] with
    /// [`Engine::plan`](engine::Engine::plan) and [`Sources`](engine::Sources) of your own.
    pub async fn plan(&self, engine: &engine::Engine) -> Result<engine::Plan, crate::Error> {
        let files = self.source_files()?;
        let inputs = VariableInputs::default();
        Ok(engine.plan(engine::Sources::new(&files, &inputs)).await?)
    }
}

fn identifier(what: &'static str, name: &str) -> Result<(), ConfigurationError> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(())
    } else {
        Err(ConfigurationError::InvalidIdentifier {
            what,
            name: name.to_owned(),
        })
    }
}

fn traversal(
    type_name: &str,
    name: &str,
    attribute: Option<&str>,
) -> Result<hcl::Expression, ConfigurationError> {
    identifier("referenced resource type", type_name)?;
    identifier("referenced resource name", name)?;
    let mut builder = hcl::expr::Traversal::builder(hcl::expr::Variable::unchecked(type_name))
        .attr(hcl::Identifier::unchecked(name));
    if let Some(attribute) = attribute {
        identifier("referenced attribute", attribute)?;
        builder = builder.attr(hcl::Identifier::unchecked(attribute));
    }
    Ok(hcl::Expression::from(builder.build()))
}

fn expression(
    owner: &str,
    argument: &str,
    value: &Argument,
) -> Result<hcl::Expression, ConfigurationError> {
    match value {
        Argument::Literal(v) => literal(v).map_err(|reason| ConfigurationError::UnwritableValue {
            owner: owner.to_owned(),
            argument: argument.to_owned(),
            reason,
        }),
        Argument::Reference {
            type_name,
            name,
            attribute,
        } => traversal(type_name, name, Some(attribute)),
    }
}

fn literal(value: &Value) -> Result<hcl::Expression, &'static str> {
    Ok(match value {
        Value::Null => hcl::Expression::Null,
        Value::Bool(b) => hcl::Expression::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => hcl::Expression::Number(hcl::Number::from(i)),
            None => hcl::Number::from_f64(n.as_f64())
                .map(hcl::Expression::Number)
                .ok_or("a number HCL cannot write")?,
        },
        Value::String(s) => hcl::Expression::String(s.clone()),
        Value::List(items) => {
            hcl::Expression::Array(items.iter().map(literal).collect::<Result<_, _>>()?)
        }
        Value::Set(items) => {
            hcl::Expression::Array(items.iter().map(literal).collect::<Result<_, _>>()?)
        }
        Value::Map(entries) => {
            let mut object = hcl::Object::new();
            for (k, v) in entries {
                object.insert(
                    hcl::ObjectKey::Expression(hcl::Expression::String(k.clone())),
                    literal(v)?,
                );
            }
            hcl::Expression::Object(object)
        }
        Value::Unknown(_) => return Err("an unknown value"),
        Value::Sensitive(_) => return Err("a sensitive value"),
    })
}
