//! How one plan is asked for: its mode (match the configuration, or destroy the estate), the instances to
//! replace whatever their diff (`-replace=ADDR`) and the addresses to restrict it to (`-target=ADDR`), as
//! Terraform's plan options define them.
//!
//! This module holds the options and the pure rules over them; the planner applies them.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use admission::{BlockAddress, InstanceAddress, InstanceKey};

use crate::model::ResourceChange;

/// What a plan is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanMode {
    /// Make the live system match the configuration.
    #[default]
    Normal,
    /// Destroy everything this estate owns (`plan -destroy`, `destroy`), as if the configuration declared
    /// no resource: the configuration still names the estate, its records and its providers, and a block
    /// with `prevent_destroy` still refuses. Foreign objects are never touched in either mode.
    Destroy,
}

/// An address `-target` names: a whole block (`aws_subnet.public`, every instance of it) or one instance
/// (`aws_subnet.public[0]`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Every instance of a block.
    Block(BlockAddress),
    /// One instance.
    Instance(InstanceAddress),
}

impl Target {
    /// Whether `address` is this target or one of its instances. A member of a `count` block stands for
    /// its whole block: the members are a fungible set bound to their indexes by slot, so a member
    /// created alone would be bound to the lowest free index by the next plan, which would replace it
    /// wherever `count.index` shapes it.
    pub fn covers(&self, address: &InstanceAddress) -> bool {
        match self {
            Target::Block(block) => address.block() == block,
            Target::Instance(instance) if matches!(instance.key(), InstanceKey::Int(_)) => {
                address.block() == instance.block()
            }
            Target::Instance(instance) => address == instance,
        }
    }
}

impl FromStr for Target {
    type Err = admission::Error;

    /// `TYPE.NAME` is the block, `TYPE.NAME[KEY]` one instance.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.contains('[') {
            s.parse().map(Target::Instance)
        } else {
            s.parse().map(Target::Block)
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Block(b) => write!(f, "{b}"),
            Target::Instance(i) => write!(f, "{i}"),
        }
    }
}

/// The options of one plan. Built with [`PlanOptions::default`] and the `with_*` methods, so that a new
/// option never breaks an embedder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Match the configuration, or destroy the estate.
    pub mode: PlanMode,
    /// Instances to replace even when nothing forces it (`-replace=ADDR`).
    pub replace: BTreeSet<InstanceAddress>,
    /// When not empty, only these addresses and what they depend on are planned (`-target=ADDR`).
    pub targets: Vec<Target>,
}

impl PlanOptions {
    /// The options of a destroy plan.
    pub fn destroy() -> PlanOptions {
        PlanOptions {
            mode: PlanMode::Destroy,
            ..PlanOptions::default()
        }
    }

    /// The same options in `mode`.
    pub fn with_mode(mut self, mode: PlanMode) -> PlanOptions {
        self.mode = mode;
        self
    }

    /// The same options, also replacing `address`.
    pub fn with_replace(mut self, address: InstanceAddress) -> PlanOptions {
        self.replace.insert(address);
        self
    }

    /// The same options, also targeting `target`.
    pub fn with_target(mut self, target: Target) -> PlanOptions {
        self.targets.push(target);
        self
    }
}

/// `changes` restricted to `targets` and everything a kept change depends on, as Terraform's `-target`
/// plans them; all of them when `targets` is empty.
pub(super) fn targeted(changes: Vec<ResourceChange>, targets: &[Target]) -> Vec<ResourceChange> {
    if targets.is_empty() {
        return changes;
    }
    let by_address: BTreeMap<&InstanceAddress, &ResourceChange> =
        changes.iter().map(|c| (&c.address, c)).collect();
    let mut kept: BTreeSet<InstanceAddress> = BTreeSet::new();
    let mut todo: Vec<&InstanceAddress> = changes
        .iter()
        .filter(|c| targets.iter().any(|t| t.covers(&c.address)))
        .map(|c| &c.address)
        .collect();
    while let Some(address) = todo.pop() {
        if !kept.insert(address.clone()) {
            continue;
        }
        if let Some(change) = by_address.get(address) {
            todo.extend(change.depends_on.iter());
        }
    }
    changes
        .into_iter()
        .filter(|c| kept.contains(&c.address))
        .collect()
}
