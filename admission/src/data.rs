//! Data blocks as a whole: which data blocks and resources each one reads, and the order they can be
//! read in before anything else is planned.
//!
//! A data block is read at plan time, before discovery, so that an identity may be computed from it
//! (`bucket = "logs-${data.aws_caller_identity.current.account_id}"`). It can be, only when nothing it
//! reads is known later than that: no resource, directly, through locals or through another data
//! block. This module works that out from the configuration as written; it never evaluates anything.

use std::collections::{BTreeMap, BTreeSet};

use crate::address::BlockAddress;
use crate::config::{Config, Expr, Resource};

/// What one data block reads, as written: the data blocks (by type and name) and the first resource
/// block (as `TYPE.NAME`) its arguments, `count`, `for_each` and `depends_on` name, directly or through
/// locals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataReads {
    /// The data blocks it reads, itself included when it reads itself.
    pub data: BTreeSet<BlockAddress>,
    /// The first resource block it reads, in address order, if any: such a data block can be read only
    /// at apply.
    pub resource: Option<String>,
}

/// The block address of a data block (its type and name), if they make one.
pub fn data_block(data: &Resource) -> Option<BlockAddress> {
    BlockAddress::in_module(
        data.module.clone(),
        data.type_name.as_str(),
        data.name.as_str(),
    )
    .ok()
}

/// What `data` reads (see [`DataReads`]).
pub fn data_reads(config: &Config, data: &Resource) -> DataReads {
    let mut reads = DataReads::default();
    let mut resources = BTreeSet::new();
    let mut exprs: Vec<&Expr> = data.attrs.values().map(|a| &a.expr).collect();
    exprs.extend(data.repetition.argument().map(|a| &a.expr));
    let mut seen = BTreeSet::new();
    while let Some(expr) = exprs.pop() {
        for (path, _) in expr.references() {
            match path.first().map(String::as_str) {
                Some("local") => {
                    if let Some(name) = path.get(1)
                        && seen.insert(name.clone())
                        && let Some(local) = config.locals().get(name)
                    {
                        exprs.push(&local.expr);
                    }
                }
                Some("data") => {
                    if let (Some(t), Some(n)) = (path.get(1), path.get(2))
                        && config.data_source(t, n).is_some()
                        && let Ok(block) = BlockAddress::from_reference(t.as_str(), n.as_str())
                    {
                        reads.data.insert(block);
                    }
                }
                Some(t) => {
                    if let Some(n) = path.get(1)
                        && config.resource(t, n).is_some()
                    {
                        resources.insert(format!("{t}.{n}"));
                    }
                }
                None => {}
            }
        }
    }
    for (path, _) in &data.depends_on {
        match path.as_slice() {
            [root, t, n] if root == "data" => {
                if config.data_source(t, n).is_some()
                    && let Ok(block) = BlockAddress::from_reference(t.as_str(), n.as_str())
                {
                    reads.data.insert(block);
                }
            }
            [t, n] if config.resource(t, n).is_some() => {
                resources.insert(format!("{t}.{n}"));
            }
            _ => {}
        }
    }
    reads.resource = resources.into_iter().next();
    reads
}

/// The order the data blocks can be read in at plan time: each after the data blocks it reads. A block
/// that reads a resource (directly or through a data block that does) or sits on a cycle of data blocks
/// is left out: it cannot be read before the plan, and the lint reports why.
pub fn data_read_order(config: &Config) -> Vec<&Resource> {
    let mut pending: BTreeMap<BlockAddress, (&Resource, DataReads)> = config
        .data_sources()
        .iter()
        .filter_map(|d| Some((data_block(d)?, (d, data_reads(config, d)))))
        .filter(|(_, (_, reads))| reads.resource.is_none())
        .collect();
    let mut order = Vec::new();
    let mut done = BTreeSet::new();
    loop {
        let ready: Vec<BlockAddress> = pending
            .iter()
            .filter(|(_, (_, reads))| reads.data.iter().all(|b| done.contains(b)))
            .map(|(a, _)| a.clone())
            .collect();
        if ready.is_empty() {
            return order;
        }
        for block in ready {
            if let Some((data, _)) = pending.remove(&block) {
                order.push(data);
            }
            done.insert(block);
        }
    }
}
