//! Resource addresses: the block address `TYPE.NAME` and the instance address `TYPE.NAME`,
//! `TYPE.NAME[2]` or `TYPE.NAME["key"]`, as Terraform users write them on the command line.
//!
//! Parsing and display are exact inverses: every accepted text displays back to itself, and a key that needs
//! quoting or escaping is written the way HCL reads it. Addresses order by type, then name, then key (no key
//! first, then numeric keys in numeric order, then string keys), so `this[9]` sorts before `this[10]`.
//! Modules are not in this version's configuration subset, so a `module.` prefix is refused rather than
//! half-supported. The marker form of an address (escaped into a tag value) lives in [`crate::marker`];
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
    type_name: Arc<str>,
    name: Arc<str>,
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
    /// By type, then name, as text.
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_shared(&self.type_name, &other.type_name)
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
                "modules and data sources are not supported",
            ));
        }
        Ok(BlockAddress {
            type_name: type_name.into(),
            name: name.into(),
        })
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
        let (head, tail) = match s.find('[') {
            Some(i) => (&s[..i], &s[i..]),
            None => (s, ""),
        };
        let (type_name, name) = match head.split_once('.') {
            Some(parts) => parts,
            None if head == "module" || head.starts_with("module.") => {
                return Err(invalid(s, "modules are not supported"));
            }
            None => return Err(invalid(s, "expected TYPE.NAME")),
        };
        if type_name == "module" || type_name == "data" {
            return Err(invalid(s, "modules and data sources are not supported"));
        }
        if name.contains('.') {
            return Err(invalid(s, "expected TYPE.NAME with one dot"));
        }
        check_part(s, type_name, "resource type")?;
        check_part(s, name, "resource name")?;
        let key = parse_key(s, tail)?;
        Ok(InstanceAddress {
            block: BlockAddress {
                type_name: type_name.into(),
                name: name.into(),
            },
            key,
        })
    }
}

fn parse_key(input: &str, tail: &str) -> Result<InstanceKey, Error> {
    if tail.is_empty() {
        return Ok(InstanceKey::None);
    }
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
    match rest {
        "]" => Ok(key),
        r if r.starts_with(']') => Err(invalid(input, "unexpected text after the instance key")),
        _ => Err(invalid(input, "expected ] after the instance key")),
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
