//! Resource addresses: the block address `TYPE.NAME` and the instance address `TYPE.NAME`,
//! `TYPE.NAME[2]` or `TYPE.NAME["key"]`, as Terraform users write them on the command line.
//!
//! Parsing and display are exact inverses: every accepted text displays back to itself, and a key that needs
//! quoting or escaping is written the way HCL reads it. Addresses order by type, then name, then key (no key
//! first, then numeric keys in numeric order, then string keys), so `this[9]` sorts before `this[10]`.
//! A block declared in a module carries its module path in front (`module.net.aws_subnet.this`,
//! `module.app["web"].module.db.aws_db_instance.main[0]`); a root block has none. The marker form of an address (escaped into a tag value) lives in [`crate::marker`];
//! this module must never escape or decode tag values.
//!
//! ```
//! use admission::{InstanceAddress, InstanceKey};
//!
//! let a: InstanceAddress = r#"aws_subnet.this["a"]"#.parse().unwrap();
//! assert_eq!(a.block().type_name(), "aws_subnet");
//! assert_eq!(a.key(), &InstanceKey::Str("a".to_owned()));
//! assert_eq!(a.to_string(), r#"aws_subnet.this["a"]"#);
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::value::syntax::{is_identifier, read_quoted, write_quoted};

/// The address of a `resource` block: `TYPE.NAME`.
///
/// The parts are shared, not copied: the addresses of one block's instances (a `count` of thousands)
/// hold the same two strings, so cloning an address allocates nothing and comparing two addresses of one
/// block compares no text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockAddress {
    module: ModulePath,
    type_name: Arc<str>,
    name: Arc<str>,
}

/// The resource type of a type as a reference in a module names it (`aws_vpc` of
/// `module.net.aws_vpc`, see [`BlockAddress::qualified_type`]); a plain type is itself.
pub fn unqualified_type(qualified: &str) -> &str {
    qualified.rsplit('.').next().unwrap_or(qualified)
}

/// One level of a module path: the module call's name and the instance key its `count` or `for_each`
/// gives (none for a call without either).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleStep {
    /// The module call's name (`net` of `module "net"`).
    pub name: Arc<str>,
    /// The instance key of the call.
    pub key: InstanceKey,
}

/// The module instance a block is declared in: the calls from the root module down, empty for the root
/// module itself. Displays as `module.net["eu"].module.db` (nothing for the root). Cloning shares the
/// steps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModulePath(Arc<[ModuleStep]>);

impl ModulePath {
    /// The root module.
    pub fn root() -> ModulePath {
        ModulePath::default()
    }

    /// Whether this is the root module.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The calls from the root down.
    pub fn steps(&self) -> &[ModuleStep] {
        &self.0
    }

    /// The module instance `name[key]` called from this one; `name` must be an identifier.
    pub fn child(&self, name: &str, key: InstanceKey) -> Result<ModulePath, Error> {
        check_part(&format!("module.{name}"), name, "module name")?;
        let mut steps = self.0.to_vec();
        steps.push(ModuleStep {
            name: name.into(),
            key,
        });
        Ok(ModulePath(steps.into()))
    }

    /// The module instance this one is called from (the root module's is itself).
    pub fn parent(&self) -> ModulePath {
        match self.0.split_last() {
            Some((_, rest)) => ModulePath(rest.into()),
            None => self.clone(),
        }
    }

    /// The text that goes in front of a block's `TYPE.NAME`: the path and a dot (`module.net.`), or
    /// nothing for the root module.
    pub fn prefix(&self) -> String {
        if self.is_root() {
            String::new()
        } else {
            format!("{self}.")
        }
    }
}

impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "module.{}{}", step.name, step.key)?;
        }
        Ok(())
    }
}

/// Orders two shared strings as their text orders; the same string is equal to itself without a look
/// at its bytes.
fn cmp_shared(a: &Arc<str>, b: &Arc<str>) -> Ordering {
    if Arc::ptr_eq(a, b) {
        Ordering::Equal
    } else {
        a.cmp(b)
    }
}

impl Ord for BlockAddress {
    /// By module (the root module first), then type, then name, as text.
    fn cmp(&self, other: &Self) -> Ordering {
        self.module
            .cmp(&other.module)
            .then_with(|| cmp_shared(&self.type_name, &other.type_name))
            .then_with(|| cmp_shared(&self.name, &other.name))
    }
}

impl PartialOrd for BlockAddress {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl BlockAddress {
    /// The block `type_name.name`; both parts must be identifiers (a letter or `_`, then letters, digits,
    /// `_` or `-`).
    pub fn new(
        type_name: impl Into<String>,
        name: impl Into<String>,
    ) -> Result<BlockAddress, Error> {
        let (type_name, name): (String, String) = (type_name.into(), name.into());
        let text = || format!("{type_name}.{name}");
        if !is_identifier(&type_name) || !is_identifier(&name) {
            check_part(&text(), &type_name, "resource type")?;
            check_part(&text(), &name, "resource name")?;
        }
        if type_name == "module" || type_name == "data" {
            return Err(invalid(
                &text(),
                "`module` and `data` are not resource types",
            ));
        }
        Ok(BlockAddress {
            module: ModulePath::root(),
            type_name: type_name.into(),
            name: name.into(),
        })
    }

    /// The block `type_name.name` declared in the module instance `module`.
    pub fn in_module(
        module: ModulePath,
        type_name: impl Into<String>,
        name: impl Into<String>,
    ) -> Result<BlockAddress, Error> {
        let mut block = BlockAddress::new(type_name, name)?;
        block.module = module;
        Ok(block)
    }

    /// The block a reference names by its qualified type (`module.net.aws_vpc`, the module path in front
    /// of the type, as references inside a module are scoped) and its name; a plain type is a root block.
    pub fn from_reference(qualified_type: &str, name: &str) -> Result<BlockAddress, Error> {
        if !qualified_type.starts_with("module.") {
            return BlockAddress::new(qualified_type, name);
        }
        let text = format!("{qualified_type}.{name}");
        let address: InstanceAddress = text.parse()?;
        if address.key != InstanceKey::None {
            return Err(invalid(&text, "a block address has no instance key"));
        }
        Ok(address.block)
    }

    /// The module instance the block is declared in.
    pub fn module(&self) -> &ModulePath {
        &self.module
    }

    /// The type as references in its module's scope name it: the module path in front of the type
    /// (`module.net.aws_vpc`), the plain type for a root block.
    pub fn qualified_type(&self) -> String {
        format!("{}{}", self.module.prefix(), self.type_name)
    }

    /// The resource type (`aws_vpc`).
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The block's name (`main`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The instance of this block with `key`.
    pub fn instance(&self, key: InstanceKey) -> InstanceAddress {
        InstanceAddress {
            block: self.clone(),
            key,
        }
    }
}

fn invalid(input: &str, reason: &str) -> Error {
    Error::InvalidAddress {
        input: input.to_owned(),
        reason: reason.to_owned(),
    }
}

fn check_part(input: &str, part: &str, what: &str) -> Result<(), Error> {
    if part.is_empty() {
        return Err(invalid(input, &format!("the {what} is empty")));
    }
    if !is_identifier(part) {
        return Err(invalid(
            input,
            &format!("the {what} {part:?} is not an identifier"),
        ));
    }
    Ok(())
}

impl fmt::Display for BlockAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.is_root() {
            write!(f, "{}.", self.module)?;
        }
        f.write_str(&self.type_name)?;
        f.write_str(".")?;
        f.write_str(&self.name)
    }
}

impl FromStr for BlockAddress {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let a = InstanceAddress::from_str(s)?;
        if a.key != InstanceKey::None {
            return Err(invalid(s, "a block address has no instance key"));
        }
        Ok(a.block)
    }
}

/// Which instance of a block: none for a block without `count` or `for_each`, an index for `count`, a key
/// for `for_each`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    /// The single instance of a block with neither `count` nor `for_each`.
    None,
    /// The `count.index` of an instance.
    Int(u64),
    /// The `each.key` of an instance.
    Str(String),
}

impl fmt::Display for InstanceKey {
    /// The bracketed suffix (`[2]`, `["a"]`), or nothing for [`InstanceKey::None`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::None => Ok(()),
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Str(k) => {
                f.write_str("[")?;
                write_quoted(f, k, false)?;
                f.write_str("]")
            }
        }
    }
}

/// The address of one resource instance: a block address and an instance key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceAddress {
    block: BlockAddress,
    key: InstanceKey,
}

impl InstanceAddress {
    /// The instance `key` of `block`.
    pub fn new(block: BlockAddress, key: InstanceKey) -> InstanceAddress {
        InstanceAddress { block, key }
    }

    /// The single instance of a block without `count` or `for_each`.
    pub fn single(type_name: &str, name: &str) -> Result<InstanceAddress, Error> {
        Ok(BlockAddress::new(type_name, name)?.instance(InstanceKey::None))
    }

    /// The block this instance belongs to.
    pub fn block(&self) -> &BlockAddress {
        &self.block
    }

    /// The instance key.
    pub fn key(&self) -> &InstanceKey {
        &self.key
    }

    /// The resource type (`aws_vpc`).
    pub fn type_name(&self) -> &str {
        self.block.type_name()
    }
}

impl fmt::Display for InstanceAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.block, f)?;
        fmt::Display::fmt(&self.key, f)
    }
}

impl FromStr for InstanceAddress {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (module, rest) = parse_module_prefix(s)?;
        let (head, tail) = match rest.find('[') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (type_name, name) = match head.split_once('.') {
            Some(parts) => parts,
            None if head == "module" => {
                return Err(invalid(s, "a module address names no resource"));
            }
            None => return Err(invalid(s, "expected TYPE.NAME")),
        };
        if type_name == "data" {
            return Err(invalid(s, "data sources have no instance address here"));
        }
        if name.contains('.') {
            return Err(invalid(s, "expected TYPE.NAME with one dot"));
        }
        check_part(s, type_name, "resource type")?;
        check_part(s, name, "resource name")?;
        let key = parse_key(s, tail)?;
        Ok(InstanceAddress {
            block: BlockAddress {
                module,
                type_name: type_name.into(),
                name: name.into(),
            },
            key,
        })
    }
}

/// The module path at the start of `input` (`module.a["k"].module.b.` ...) and the text after it.
fn parse_module_prefix(input: &str) -> Result<(ModulePath, &str), Error> {
    let mut steps = Vec::new();
    let mut rest = input;
    while let Some(after) = rest.strip_prefix("module.") {
        let end = after
            .find(['.', '['])
            .ok_or_else(|| invalid(input, "a module address names no resource"))?;
        let name = &after[..end];
        check_part(input, name, "module name")?;
        let mut tail = &after[end..];
        let key = if tail.starts_with('[') {
            let (key, used) = parse_bracket(input, tail)?;
            tail = &tail[used..];
            key
        } else {
            InstanceKey::None
        };
        rest = tail
            .strip_prefix('.')
            .ok_or_else(|| invalid(input, "expected . after the module instance"))?;
        steps.push(ModuleStep {
            name: name.into(),
            key,
        });
    }
    Ok((ModulePath(steps.into()), rest))
}

fn parse_key(input: &str, tail: &str) -> Result<InstanceKey, Error> {
    if tail.is_empty() {
        return Ok(InstanceKey::None);
    }
    let (key, used) = parse_bracket(input, tail)?;
    if used == tail.len() {
        Ok(key)
    } else {
        Err(invalid(input, "unexpected text after the instance key"))
    }
}

/// The instance key in brackets at the start of `tail` (`[2]`, `["a"]`) and the length it takes.
fn parse_bracket(input: &str, tail: &str) -> Result<(InstanceKey, usize), Error> {
    let body = tail
        .strip_prefix('[')
        .ok_or_else(|| invalid(input, "expected ["))?;
    let (key, rest) = if let Some(quoted) = body.strip_prefix('"') {
        let (k, used) = read_quoted(quoted)
            .ok_or_else(|| invalid(input, "the key string is not closed or has a bad escape"))?;
        (InstanceKey::Str(k), &quoted[used..])
    } else {
        let end = body.find(']').ok_or_else(|| invalid(input, "expected ]"))?;
        let digits = &body[..end];
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid(
                input,
                "an index is digits, a key is a quoted string",
            ));
        }
        if digits.len() > 1 && digits.starts_with('0') {
            return Err(invalid(input, "an index has no leading zeros"));
        }
        let n = digits
            .parse::<u64>()
            .map_err(|_| invalid(input, "the index is too large"))?;
        (InstanceKey::Int(n), &body[end..])
    };
    match rest.strip_prefix(']') {
        Some(after) => Ok((key, tail.len() - after.len())),
        None => Err(invalid(input, "expected ] after the instance key")),
    }
}

macro_rules! serde_as_text {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = String::deserialize(deserializer)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_as_text!(BlockAddress);
serde_as_text!(InstanceAddress);
