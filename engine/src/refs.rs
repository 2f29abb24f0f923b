//! Which resource blocks a configuration block refers to: through its arguments, through the locals those
//! read, and through `depends_on`. Planning orders evaluation by it; the graph wires waits by it.
//!
//! Pure functions over the parsed configuration; this module must never evaluate anything.

use std::collections::{BTreeMap, BTreeSet};

use admission::{BlockAddress, InstanceAddress, InstanceKey, Value};
use admission::{Config, Expr, ExprKind, Repetition, Resource, Step};
use admission::{Evaluator, Instance};

/// The address of a resource block; `None` for a block no address can name (a `data` or `module` type,
/// which lint refuses): such a block has no instances, so no map of blocks holds it.
pub fn block_of(res: &Resource) -> Option<BlockAddress> {
    res.block_address()
}

/// The address of the declared resource block `type_name.name`, if there is one.
fn declared_block(config: &Config, type_name: &str, name: &str) -> Option<BlockAddress> {
    config.resource(type_name, name).and_then(block_of)
}

/// The resource blocks an expression refers to, locals followed.
pub fn expr_blocks(config: &Config, expr: &Expr, out: &mut BTreeSet<BlockAddress>) {
    let mut seen = BTreeSet::new();
    for (path, _) in expr.references() {
        config.reference_blocks(&path, &mut seen, &mut |res| {
            // A block no address can name has no instances.
            if let Some(block) = block_of(res) {
                out.insert(block);
            }
        });
    }
}

/// The resource blocks a resource block depends on: references in its arguments, `count`, `for_each`
/// and `depends_on`. Never itself.
pub fn resource_blocks(config: &Config, res: &Resource) -> BTreeSet<BlockAddress> {
    let mut out = BTreeSet::new();
    for attr in res.attrs.values() {
        expr_blocks(config, &attr.expr, &mut out);
    }
    if let Some(attr) = res.repetition.argument() {
        expr_blocks(config, &attr.expr, &mut out);
    }
    for (path, _) in &res.depends_on {
        if let (Some(t), Some(n)) = (path.first(), path.get(1))
            && let Some(block) = declared_block(config, t, n)
        {
            out.insert(block);
        }
    }
    out.extend(condition_blocks(config, res));
    if let Some(own) = block_of(res) {
        out.remove(&own);
    }
    out
}

/// The resource blocks the `precondition`s, `postcondition`s and `replace_triggered_by` of a resource
/// block read: the planner plans them first, as Terraform orders them.
pub fn condition_blocks(config: &Config, res: &Resource) -> BTreeSet<BlockAddress> {
    let mut out = BTreeSet::new();
    let lc = &res.lifecycle;
    for c in lc.preconditions.iter().chain(&lc.postconditions) {
        expr_blocks(config, &c.condition, &mut out);
        expr_blocks(config, &c.error_message, &mut out);
    }
    for (path, _) in &lc.replace_triggered_by {
        if let Some(block) = declared_block(config, &path[0], &path[1]) {
            out.insert(block);
        }
    }
    out
}

/// The resource blocks in an order where each comes after the blocks it depends on; blocks caught in a
/// cycle come last, in file order. A block declared twice (which lint refuses) comes once, as its first
/// declaration. A block no address can name (see [`block_of`]) has no instances and is left out.
pub fn block_order(config: &Config) -> Vec<&Resource> {
    let named: Vec<(BlockAddress, &Resource)> = config
        .resources()
        .iter()
        .filter_map(|r| Some((block_of(r)?, r)))
        .collect();
    let deps: BTreeMap<&BlockAddress, BTreeSet<BlockAddress>> = named
        .iter()
        .map(|(a, r)| (a, resource_blocks(config, r)))
        .collect();
    let mut done: BTreeSet<&BlockAddress> = BTreeSet::new();
    let mut order = Vec::new();
    loop {
        let mut progressed = false;
        for (a, r) in &named {
            if done.contains(a) {
                continue;
            }
            if deps[a].iter().all(|d| done.contains(d)) {
                done.insert(a);
                order.push(*r);
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    for (a, r) in &named {
        if done.insert(a) {
            order.push(*r);
        }
    }
    order
}

/// Which instances of each referenced block an instance's arguments read: `Some(keys)` when every use is a
/// direct reference with an index known before apply (`aws_subnet.s[count.index].id`), `None` when the
/// whole block may be read (splats, computed indices, references through locals). Blocks named only by
/// `depends_on` are included with no keys: they are waited for, not read.
pub fn needed_instances(
    config: &Config,
    statics: &Evaluator<'_>,
    res: &Resource,
    repetition: &Instance,
) -> BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>> {
    BlockReads::of(config, res).needed(statics, repetition)
}

/// How a direct reference picks its member of a block.
enum Member<'c> {
    /// The block has one instance (`aws_vpc.main.id`).
    Single,
    /// By an index expression, evaluated for each instance (`aws_subnet.s[count.index]`).
    Index(&'c Expr),
    /// Some other way (a splat, the whole block): the block is read whole.
    Whole,
}

/// How one block's arguments read other blocks, worked out once for the block, so that finding what
/// each of its instances reads ([`BlockReads::needed`]) costs one static evaluation per indexed
/// reference and no walk of the expressions.
pub struct BlockReads<'c> {
    /// The block's own address, never among what it reads (`None` for a block no address can name).
    own: Option<BlockAddress>,
    /// Each direct reference to a block, in the order the arguments' expressions make them.
    direct: Vec<(BlockAddress, Member<'c>)>,
    /// Blocks read through locals: read whole, whatever else reads them directly.
    through_locals: BTreeSet<BlockAddress>,
    /// Every block the arguments read some way (directly, through locals, inside other expressions).
    read: BTreeSet<BlockAddress>,
    /// Blocks named only to be waited for (`depends_on`).
    waited: Vec<BlockAddress>,
    /// Blocks `count` or `for_each` reads: every instance waits for all of their members.
    counted: BTreeSet<BlockAddress>,
}

impl<'c> BlockReads<'c> {
    /// Works out how `res` reads other blocks.
    pub fn of(config: &'c Config, res: &'c Resource) -> BlockReads<'c> {
        let mut direct = Vec::new();
        for attr in res.attrs.values() {
            attr.expr.walk(&mut |e| {
                let ExprKind::Traversal(base, steps) = &e.kind else {
                    return;
                };
                let ExprKind::Variable(type_name) = &base.kind else {
                    return;
                };
                let Some(Step::Attr(name)) = steps.first() else {
                    return;
                };
                let Some(target) = config.resource(type_name, name) else {
                    return;
                };
                let Some(block) = block_of(target) else {
                    return;
                };
                let member = match steps.get(1) {
                    Some(Step::Attr(_)) if !target.repetition.is_repeated() => Member::Single,
                    Some(Step::Index(i)) => Member::Index(i),
                    _ => Member::Whole,
                };
                direct.push((block, member));
            });
        }
        let mut through_locals = BTreeSet::new();
        let mut read = BTreeSet::new();
        for attr in res.attrs.values() {
            for (path, _) in attr.expr.references() {
                if path.first().map(String::as_str) == Some("local")
                    && let Some(local) = path.get(1).and_then(|n| config.locals().get(n))
                {
                    expr_blocks(config, &local.expr, &mut through_locals);
                }
            }
            expr_blocks(config, &attr.expr, &mut read);
        }
        let waited = res
            .depends_on
            .iter()
            .filter_map(|(path, _)| declared_block(config, path.first()?, path.get(1)?))
            .collect();
        let mut counted = BTreeSet::new();
        if let Some(attr) = res.repetition.argument() {
            expr_blocks(config, &attr.expr, &mut counted);
        }
        BlockReads {
            own: block_of(res),
            direct,
            through_locals,
            read,
            waited,
            counted,
        }
    }

    /// The block's own address (`None` for a block no address can name).
    pub fn own(&self) -> Option<&BlockAddress> {
        self.own.as_ref()
    }

    /// The blocks its `count` or `for_each` reads.
    pub fn counted(&self) -> &BTreeSet<BlockAddress> {
        &self.counted
    }

    /// What one instance (`repetition`) of the block reads, as [`needed_instances`] describes it.
    pub fn needed(
        &self,
        statics: &Evaluator<'_>,
        repetition: &Instance,
    ) -> BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>> {
        let mut out: BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>> = BTreeMap::new();
        for (block, member) in &self.direct {
            let key = match member {
                Member::Single => Some(InstanceKey::None),
                Member::Index(i) => match statics.eval(i, repetition).map(|v| v.peel().clone()) {
                    Ok(Value::Number(n)) => n.as_u64().map(InstanceKey::Int),
                    Ok(Value::String(s)) => Some(InstanceKey::Str(s)),
                    _ => None,
                },
                Member::Whole => None,
            };
            match (key, out.get_mut(block)) {
                (_, Some(None)) => {}
                (Some(k), Some(Some(keys))) => {
                    keys.insert(k);
                }
                (Some(k), None) => {
                    out.insert(block.clone(), Some(BTreeSet::from([k])));
                }
                (None, _) => {
                    out.insert(block.clone(), None);
                }
            }
        }
        for b in &self.through_locals {
            out.insert(b.clone(), None);
        }
        for b in &self.read {
            if !out.contains_key(b) {
                out.insert(b.clone(), None);
            }
        }
        for b in &self.waited {
            if !out.contains_key(b) {
                out.insert(b.clone(), Some(BTreeSet::new()));
            }
        }
        if let Some(own) = &self.own {
            out.remove(own);
        }
        out
    }
}

/// The instance and attribute a direct reference names (`TYPE.NAME.ATTR`, `TYPE.NAME[i].ATTR`), with an index
/// known before apply.
pub fn direct_reference(
    config: &Config,
    statics: &Evaluator<'_>,
    expr: &Expr,
    repetition: &Instance,
) -> Option<(InstanceAddress, String)> {
    let ExprKind::Traversal(base, steps) = &expr.kind else {
        return None;
    };
    let ExprKind::Variable(type_name) = &base.kind else {
        return None;
    };
    let (name, key, attr) = match steps.as_slice() {
        [Step::Attr(name), Step::Attr(attr)] => (name, InstanceKey::None, attr),
        [Step::Attr(name), Step::Index(i), Step::Attr(attr)] => {
            let key = match statics.eval(i, repetition).ok()?.peel() {
                Value::Number(n) => InstanceKey::Int(n.as_u64()?),
                Value::String(s) => InstanceKey::Str(s.clone()),
                _ => return None,
            };
            (name, key, attr)
        }
        _ => return None,
    };
    let block = declared_block(config, type_name, name)?;
    Some((block.instance(key), attr.clone()))
}

/// A block's value as expressions see it (an object, a list for `count`, a map for `for_each`), built from
/// its instances' values; with `keys`, only those instances are filled and the others are unknown, so that
/// reading one member of a large block costs one member.
pub fn block_value(
    res: &Resource,
    instances: &[InstanceAddress],
    keys: Option<&BTreeSet<InstanceKey>>,
    mut value_of: impl FnMut(&InstanceAddress) -> Value,
) -> Value {
    let mut wanted = |a: &InstanceAddress| match keys {
        Some(k) if !k.contains(a.key()) => Value::unknown(),
        _ => value_of(a),
    };
    match res.repetition {
        Repetition::Count(_) => Value::List(instances.iter().map(&mut wanted).collect()),
        Repetition::ForEach(_) => Value::Map(
            instances
                .iter()
                .map(|a| {
                    let k = match a.key() {
                        InstanceKey::Str(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k, wanted(a))
                })
                .collect(),
        ),
        Repetition::Single => instances.first().map(wanted).unwrap_or(Value::unknown()),
    }
}

/// Resolves the blocks one instance reads, from the instance values at hand: a member read by index
/// (`aws_subnet.a[3]`) costs one lookup, and only a block read whole is built from all its members, so
/// that evaluating every member of a block that reads its own member of another stays linear.
pub struct BlockValues<'a, V, A, M> {
    config: &'a Config,
    blocks: &'a BTreeMap<BlockAddress, Vec<InstanceAddress>>,
    ready: BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>>,
    value_of: V,
    attr_of: A,
    is_member: M,
}

impl<'a, V, A, M> BlockValues<'a, V, A, M>
where
    V: Fn(&InstanceAddress) -> Value,
    A: Fn(&InstanceAddress, &str) -> Option<Value>,
    M: Fn(&InstanceAddress) -> bool,
{
    /// A resolver over `blocks` (each block's members), giving `value_of` for a member,
    /// `attr_of` for one attribute of a member (exactly that attribute of `value_of`'s value, or `None` to
    /// let the evaluator read it from the whole value), and telling a member from a key the block does not
    /// have by `is_member`. No block resolves until it is marked [`ready`](Self::ready).
    pub fn new(
        config: &'a Config,
        blocks: &'a BTreeMap<BlockAddress, Vec<InstanceAddress>>,
        value_of: V,
        attr_of: A,
        is_member: M,
    ) -> Self {
        BlockValues {
            config,
            blocks,
            ready: BTreeMap::new(),
            value_of,
            attr_of,
            is_member,
        }
    }

    /// The member `type_name.name[key]` of a ready block, and whether its value is filled in (a member
    /// outside the keys the block was made ready with is unknown).
    fn member(&self, type_name: &str, name: &str, key: &Value) -> Option<(InstanceAddress, bool)> {
        let res = self.config.resource(type_name, name)?;
        let block = block_of(res)?;
        let keys = self.ready.get(&block)?;
        let members = self.blocks.get(&block)?;
        let member = match (&res.repetition, key) {
            // The block's list holds its members in order: element i is the i-th member.
            (Repetition::Count(_), Value::Number(n)) => {
                members.get(usize::try_from(n.as_u64()?).ok()?)?.clone()
            }
            (Repetition::ForEach(_), Value::String(k)) => {
                let address = members
                    .first()?
                    .block()
                    .instance(InstanceKey::Str(k.clone()));
                if !(self.is_member)(&address) {
                    return None;
                }
                address
            }
            _ => return None,
        };
        let filled = match keys {
            Some(k) => k.contains(member.key()),
            None => true,
        };
        Some((member, filled))
    }

    /// Lets `block` resolve; with `keys`, only those members carry their values and the others are
    /// unknown, as in [`block_value`].
    pub fn ready(&mut self, block: BlockAddress, keys: Option<BTreeSet<InstanceKey>>) {
        self.ready.insert(block, keys);
    }
}

impl<V, A, M> admission::ResourceResolver for BlockValues<'_, V, A, M>
where
    V: Fn(&InstanceAddress) -> Value,
    A: Fn(&InstanceAddress, &str) -> Option<Value>,
    M: Fn(&InstanceAddress) -> bool,
{
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let res = self.config.resource(type_name, name)?;
        let block = block_of(res)?;
        let keys = self.ready.get(&block)?;
        let members = self.blocks.get(&block)?;
        Some(block_value(res, members, keys.as_ref(), &self.value_of))
    }

    fn resolve_member(&self, type_name: &str, name: &str, key: &Value) -> Option<Value> {
        let (member, filled) = self.member(type_name, name, key)?;
        Some(if filled {
            (self.value_of)(&member)
        } else {
            Value::unknown()
        })
    }

    fn resolve_member_attr(
        &self,
        type_name: &str,
        name: &str,
        key: &Value,
        attr: &str,
    ) -> Option<Value> {
        let (member, filled) = self.member(type_name, name, key)?;
        if !filled {
            return Some(Value::unknown());
        }
        (self.attr_of)(&member, attr)
    }
}
