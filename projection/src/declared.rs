//! The declared side of a projection: the instances a configuration declares, in a plain model that the
//! engine fills from the HCL front end and that an embedder can build by hand.
//!
//! A [`Declared`] holds blocks (single, `count = n` or `for_each`) and, per instance, only what discovery
//! needs: the static identity values of a client-named or parent-derived instance (a parent's id is named
//! by the parent's address and resolved in dependency order), the bind-candidate values of a marker-path
//! instance, and the content of a list-and-match instance. It must never depend on the configuration
//! parser, and never hold a value that needs a live read to know.
//!
//! ```
//! use projection::{Declared, DeclaredInstance, DeclaredValue};
//!
//! let mut declared = Declared::new();
//! declared.add(DeclaredInstance::new("aws_s3_bucket.data".parse().unwrap())
//!     .identity("bucket", DeclaredValue::known("acme-data"))).unwrap();
//! declared.count_block("aws_eip.pool".parse().unwrap(), 3).unwrap();
//! assert_eq!(declared.count_of(&"aws_eip.pool".parse().unwrap()), Some(3));
//! assert!(declared.is_declared(&"aws_eip.pool[2]".parse().unwrap()));
//! ```

use std::collections::BTreeMap;

use admission::{BlockAddress, InstanceAddress, InstanceKey};

use crate::error::ProjectionError;

/// A value discovery may use: known now, the id of a declared parent, or unknown until apply.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclaredValue {
    /// A value computable from variables, locals and literals.
    Known(String),
    /// The `id` of the declared instance at this address (`aws_route_table.main.id`).
    IdOf(InstanceAddress),
    /// Not known before apply.
    Unknown,
}

impl DeclaredValue {
    /// A known value.
    pub fn known(value: impl Into<String>) -> DeclaredValue {
        DeclaredValue::Known(value.into())
    }

    /// The id of the instance at `address`.
    pub fn id_of(address: InstanceAddress) -> DeclaredValue {
        DeclaredValue::IdOf(address)
    }
}

/// How a block expands into instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expansion {
    /// One instance, no key.
    Single,
    /// `count = n`: instances `[0]` to `[n-1]`.
    Count(u64),
    /// `for_each`: one instance per string key.
    ForEach,
}

/// One declared instance, as discovery needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredInstance {
    /// The instance address.
    pub address: InstanceAddress,
    /// Identity arguments (client-named name, parent-derived components, list-and-match parent).
    pub identity: BTreeMap<String, DeclaredValue>,
    /// Values of the type's bind-candidate fields (marker path).
    pub bind_values: BTreeMap<String, DeclaredValue>,
    /// Content fields of a list-and-match instance.
    pub content: BTreeMap<String, DeclaredValue>,
}

impl DeclaredInstance {
    /// An instance with no values yet.
    pub fn new(address: InstanceAddress) -> DeclaredInstance {
        DeclaredInstance {
            address,
            identity: BTreeMap::new(),
            bind_values: BTreeMap::new(),
            content: BTreeMap::new(),
        }
    }

    /// The same instance with an identity argument.
    pub fn identity(mut self, argument: impl Into<String>, value: DeclaredValue) -> Self {
        self.identity.insert(argument.into(), value);
        self
    }

    /// The same instance with a bind-candidate value.
    pub fn bind_value(mut self, field: impl Into<String>, value: DeclaredValue) -> Self {
        self.bind_values.insert(field.into(), value);
        self
    }

    /// The same instance with a content value.
    pub fn content(mut self, field: impl Into<String>, value: DeclaredValue) -> Self {
        self.content.insert(field.into(), value);
        self
    }

    /// The instance's resource type.
    pub fn type_name(&self) -> &str {
        self.address.type_name()
    }
}

/// Every declared block and instance of a configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    blocks: BTreeMap<BlockAddress, Expansion>,
    /// Count blocks whose count was declared, not inferred from the indices added.
    fixed_counts: std::collections::BTreeSet<BlockAddress>,
    instances: BTreeMap<InstanceAddress, DeclaredInstance>,
}

fn invalid(address: impl ToString, reason: impl Into<String>) -> ProjectionError {
    ProjectionError::InvalidDeclared {
        address: address.to_string(),
        reason: reason.into(),
    }
}

impl Declared {
    /// No blocks at all.
    pub fn new() -> Declared {
        Declared::default()
    }

    /// Declares a `count = n` block; its instances `[0]..[n-1]` exist even if never added (a marker-path
    /// count member needs no values of its own).
    pub fn count_block(
        &mut self,
        block: BlockAddress,
        n: u64,
    ) -> Result<&mut Self, ProjectionError> {
        self.declare_block(block, Expansion::Count(n))
    }

    /// Declares a block with its expansion.
    pub fn declare_block(
        &mut self,
        block: BlockAddress,
        expansion: Expansion,
    ) -> Result<&mut Self, ProjectionError> {
        match self.blocks.get(&block) {
            Some(e)
                if *e != expansion
                    && !matches!((e, expansion), (Expansion::Count(_), Expansion::Count(_))) =>
            {
                return Err(invalid(&block, "the block is declared with two expansions"));
            }
            _ => {}
        }
        if let Expansion::Count(n) = expansion
            && let Some(i) = self
                .instances
                .keys()
                .filter(|a| a.block() == &block)
                .find_map(|a| match a.key() {
                    InstanceKey::Int(i) if *i >= n => Some(*i),
                    _ => None,
                })
        {
            return Err(invalid(&block, format!("index {i} is outside count {n}")));
        }
        if let Expansion::Count(_) = expansion {
            self.fixed_counts.insert(block.clone());
        }
        self.blocks.insert(block, expansion);
        Ok(self)
    }

    /// Adds an instance; its block's expansion follows from its key unless declared already (a `count`
    /// block grows to hold the index).
    pub fn add(&mut self, mut instance: DeclaredInstance) -> Result<&mut Self, ProjectionError> {
        // The instances of one block share its address parts, so that comparing them compares no text.
        if let Some((block, _)) = self.blocks.get_key_value(instance.address.block()) {
            instance.address = block.instance(instance.address.key().clone());
        }
        let address = instance.address.clone();
        if self.instances.contains_key(&address) {
            return Err(invalid(&address, "the instance is declared twice"));
        }
        let block = address.block().clone();
        let expansion = match (self.blocks.get(&block), address.key()) {
            (None | Some(Expansion::Single), InstanceKey::None) => Expansion::Single,
            (None, InstanceKey::Int(i)) => Expansion::Count(i + 1),
            (Some(Expansion::Count(n)), InstanceKey::Int(i)) if i < n => Expansion::Count(*n),
            (Some(Expansion::Count(_)), InstanceKey::Int(i))
                if !self.fixed_counts.contains(&block) =>
            {
                Expansion::Count(i + 1)
            }
            (Some(Expansion::Count(n)), InstanceKey::Int(i)) => {
                return Err(invalid(&address, format!("index {i} is outside count {n}")));
            }
            (None | Some(Expansion::ForEach), InstanceKey::Str(_)) => Expansion::ForEach,
            _ => {
                return Err(invalid(
                    &address,
                    "the key does not fit the block's expansion",
                ));
            }
        };
        if let Expansion::Single = expansion
            && self.instances.keys().any(|a| a.block() == &block)
        {
            return Err(invalid(&address, "the block is declared twice"));
        }
        self.blocks.insert(block, expansion);
        self.instances.insert(address, instance);
        Ok(self)
    }

    /// The blocks and their expansions, sorted by address.
    pub fn blocks(&self) -> impl Iterator<Item = (&BlockAddress, Expansion)> {
        self.blocks.iter().map(|(b, e)| (b, *e))
    }

    /// The expansion of `block`, if declared.
    pub fn expansion(&self, block: &BlockAddress) -> Option<Expansion> {
        self.blocks.get(block).copied()
    }

    /// The count of a `count` block.
    pub fn count_of(&self, block: &BlockAddress) -> Option<u64> {
        match self.blocks.get(block) {
            Some(Expansion::Count(n)) => Some(*n),
            _ => None,
        }
    }

    /// Every declared instance address, count indices included, sorted.
    pub fn addresses(&self) -> Vec<InstanceAddress> {
        let mut out = Vec::with_capacity(self.instances.len());
        for (block, expansion) in &self.blocks {
            out.extend(self.members(block, *expansion));
        }
        out
    }

    /// The declared instances of `block` (expanded as `expansion`), sorted by key: `[0]` to `[n-1]` of a
    /// `count` block, else the instances added. A count block holds integer keys below its count only,
    /// and the addresses of one block sort by key, so the blocks in order give every address in order.
    pub(crate) fn members<'s>(
        &'s self,
        block: &'s BlockAddress,
        expansion: Expansion,
    ) -> impl Iterator<Item = InstanceAddress> + 's {
        let counted = match expansion {
            Expansion::Count(n) => Some((0..n).map(|i| block.instance(InstanceKey::Int(i)))),
            Expansion::Single | Expansion::ForEach => None,
        };
        // The keyless address is the first of its block, so the block's added instances follow it.
        let added = counted.is_none().then(|| {
            self.instances
                .range(block.instance(InstanceKey::None)..)
                .map(|(a, _)| a)
                .take_while(move |a| a.block() == block)
                .cloned()
        });
        counted
            .into_iter()
            .flatten()
            .chain(added.into_iter().flatten())
    }

    /// The instance at `address`: the one added, or a value-less count member.
    pub fn instance(&self, address: &InstanceAddress) -> Option<DeclaredInstance> {
        if let Some(i) = self.instances.get(address) {
            return Some(i.clone());
        }
        self.is_declared(address)
            .then(|| DeclaredInstance::new(address.clone()))
    }

    /// The values declared for `address`, borrowed; `None` for a value-less count member or an address
    /// never declared (both have no values).
    pub(crate) fn values_of(&self, address: &InstanceAddress) -> Option<&DeclaredInstance> {
        self.instances.get(address)
    }

    /// Whether the configuration declares `address`.
    pub fn is_declared(&self, address: &InstanceAddress) -> bool {
        if self.instances.contains_key(address) {
            return true;
        }
        matches!(
            (self.blocks.get(address.block()), address.key()),
            (Some(Expansion::Count(n)), InstanceKey::Int(i)) if i < n
        )
    }

    /// The declared resource types, sorted.
    pub fn type_names(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .blocks
            .keys()
            .map(|b| b.type_name().to_owned())
            .collect();
        out.dedup();
        out
    }
}
