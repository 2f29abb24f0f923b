//! The declared model the projection reads: every declared instance's identity, bind-candidate and
//! content values as plain data (known text, a declared parent's id, or unknown), worked out from the
//! configuration alone.
//!
//! It reads only the configuration and the variables; it must never see the live system or the records.

use std::cell::RefCell;
use std::collections::BTreeMap;

use admission::{BlockAddress, InstanceAddress, InstanceKey, Value};
use admission::{Config, Repetition};
use admission::{Evaluator, ResourceResolver};
use admission::{ExpandedInstance, IdentityValue};
use projection::{Declared, DeclaredValue, Expansion};
use provider::schema::BindMatch;
use provider::{AdmissionPath, Catalog};

use super::evaluate::map_in_order;
use crate::refs;

/// Resolves every declared block to instances whose `id` (and client-named identity) is a sentinel naming
/// the instance, so that an identity argument reading a parent's id evaluates to that sentinel.
struct ParentRefs<'a> {
    config: &'a Config,
    catalog: &'a Catalog,
    instances: &'a [ExpandedInstance],
}

/// The prefix of a sentinel: a string no configuration writes, followed by the instance's address. The
/// evaluator carries only values, so a parent's id travels through it as this text; a result that is
/// a sentinel names the parent (see [`declared_value`]).
const SENTINEL: &str = "\u{1}instance:";

impl ResourceResolver for ParentRefs<'_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let res = self.config.resource(type_name, name)?;
        let own = res.block_address()?;
        let schema = self.catalog.get(&res.type_name);
        let value_of = |a: &InstanceAddress| {
            let sentinel = Value::from(format!("{SENTINEL}{a}"));
            let mut m = BTreeMap::new();
            if let Some(s) = schema {
                for attr in s.attributes.values() {
                    m.insert(attr.name.clone(), Value::Unknown(attr.value_type.clone()));
                }
                if s.admission == Some(AdmissionPath::ClientNamed) {
                    for arg in s.identity_arguments() {
                        m.insert(arg.clone(), sentinel.clone());
                    }
                }
            }
            m.insert("id".to_owned(), sentinel);
            Value::Map(m)
        };
        let mine: Vec<&ExpandedInstance> = self
            .instances
            .iter()
            .filter(|d| d.address.block() == &own)
            .collect();
        Some(match res.repetition {
            Repetition::Count(_) => {
                Value::List(mine.iter().map(|d| value_of(&d.address)).collect())
            }
            Repetition::ForEach(_) => Value::Map(
                mine.iter()
                    .filter_map(|d| match d.address.key() {
                        InstanceKey::Str(k) => Some((k.clone(), value_of(&d.address))),
                        _ => None,
                    })
                    .collect(),
            ),
            Repetition::Single => mine
                .first()
                .map(|d| value_of(&d.address))
                .unwrap_or(Value::unknown()),
        })
    }
}

/// Each block's sentinel value, built the first time an expression reads the block: the fallback for
/// identity arguments that are not a direct reference, which most configurations never need.
struct Sentinels<'p, 'a> {
    parents: &'p ParentRefs<'a>,
    built: RefCell<BTreeMap<BlockAddress, Option<Value>>>,
}

impl ResourceResolver for Sentinels<'_, '_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        // A block no address can name (type `data` or `module`, which lint refuses) is not kept.
        let Ok(key) = BlockAddress::from_reference(type_name, name) else {
            return self.parents.resolve(type_name, name);
        };
        if let Some(value) = self.built.borrow().get(&key) {
            return value.clone();
        }
        let value = self.parents.resolve(type_name, name);
        self.built.borrow_mut().insert(key, value.clone());
        value
    }
}

/// A configured value as discovery sees it: known text, a declared parent's id, or unknown.
fn declared_value(v: &Value) -> DeclaredValue {
    match v.peel() {
        Value::String(s) => match s.strip_prefix(SENTINEL) {
            Some(a) => a
                .parse()
                .map(DeclaredValue::IdOf)
                .unwrap_or(DeclaredValue::Unknown),
            None => DeclaredValue::Known(s.clone()),
        },
        Value::Number(n) => DeclaredValue::Known(n.to_string()),
        Value::Bool(b) => DeclaredValue::Known(b.to_string()),
        _ => DeclaredValue::Unknown,
    }
}

/// The plain model of the declared instances that the projection reads.
pub(crate) fn declared_model(
    config: &Config,
    variables: &BTreeMap<String, Value>,
    catalog: &Catalog,
    instances: &[ExpandedInstance],
    region: &str,
) -> Result<Declared, crate::Error> {
    declared_model_of(config, variables, catalog, instances, region, &|_| true)
}

/// [`declared_model`] of the blocks `keep` takes (the blocks of one region), whose instances are
/// `instances`.
pub(crate) fn declared_model_of(
    config: &Config,
    variables: &BTreeMap<String, Value>,
    catalog: &Catalog,
    instances: &[ExpandedInstance],
    region: &str,
    keep: &dyn Fn(&BlockAddress) -> bool,
) -> Result<Declared, crate::Error> {
    let parents = ParentRefs {
        config,
        catalog,
        instances,
    };
    let mut declared = Declared::new();
    declare_blocks(&mut declared, config, catalog, instances, keep)?;
    // Each instance's values read only the configuration: they are worked out in chunks on the thread
    // pool, each chunk with evaluators of its own, and added in the declared order.
    let modelled = map_in_order(instances, |chunk| {
        let sentinels = Sentinels {
            parents: &parents,
            built: RefCell::default(),
        };
        let model = Modeller {
            config,
            catalog,
            region,
            ev: Evaluator::with_resources(config, variables, &sentinels),
            statics: Evaluator::new(config, variables),
        };
        chunk
            .iter()
            .filter_map(|d| model.instance(d))
            .collect::<Vec<_>>()
    });
    for instance in modelled {
        declared.add(instance)?;
    }
    Ok(declared)
}

/// Declares every block of an admitted type with its expansion (the number of `count` instances lint
/// declared, `for_each`, or one).
fn declare_blocks(
    declared: &mut Declared,
    config: &Config,
    catalog: &Catalog,
    instances: &[ExpandedInstance],
    keep: &dyn Fn(&BlockAddress) -> bool,
) -> Result<(), crate::Error> {
    for res in config.resources() {
        let Some(block) = refs::block_of(res).filter(|b| keep(b)) else {
            continue;
        };
        if catalog
            .get(&res.type_name)
            .and_then(|s| s.admission)
            .is_none()
        {
            continue;
        }
        let expansion = match res.repetition {
            Repetition::Count(_) => {
                let n = instances
                    .iter()
                    .filter(|d| d.address.block() == &block)
                    .count();
                Expansion::Count(n as u64)
            }
            Repetition::ForEach(_) => Expansion::ForEach,
            Repetition::Single => Expansion::Single,
        };
        declared.declare_block(block, expansion)?;
    }
    Ok(())
}

/// Works out the declared values of instances, with the evaluators of one chunk.
struct Modeller<'a> {
    config: &'a Config,
    catalog: &'a Catalog,
    region: &'a str,
    /// Reads parents' ids as sentinels.
    ev: Evaluator<'a>,
    /// Reads variables, locals and literals only.
    statics: Evaluator<'a>,
}

impl Modeller<'_> {
    /// The model of one declared instance, unless its type or block is unknown.
    fn instance(&self, d: &ExpandedInstance) -> Option<projection::DeclaredInstance> {
        let schema = self.catalog.get(d.address.type_name())?;
        let res = self.config.resource_at(d.address.block())?;
        let eval = |name: &str| -> DeclaredValue {
            if let Some(v) = d.static_values.get(name) {
                return declared_value(v);
            }
            let Some(attr) = res.attrs.get(name) else {
                return schema
                    .attribute(name)
                    .and_then(|a| a.default_in(self.region))
                    .map(|v| declared_value(&v))
                    .unwrap_or(DeclaredValue::Unknown);
            };
            if let Some((parent, field)) =
                refs::direct_reference(self.config, &self.statics, &attr.expr, &d.repetition)
            {
                let names_id = field == "id"
                    || self.catalog.get(parent.type_name()).is_some_and(|s| {
                        s.admission == Some(AdmissionPath::ClientNamed)
                            && s.identity_arguments().contains(&field)
                    });
                return if names_id {
                    DeclaredValue::IdOf(parent)
                } else {
                    DeclaredValue::Unknown
                };
            }
            self.ev
                .eval(&attr.expr, &d.repetition)
                .map(|v| declared_value(&v))
                .unwrap_or(DeclaredValue::Unknown)
        };
        let mut instance = projection::DeclaredInstance::new(d.address.clone());
        for (arg, value) in &d.identity {
            let v = match value {
                IdentityValue::Static(v) => declared_value(v),
                IdentityValue::FromParent => eval(arg),
            };
            instance = instance.identity(arg.clone(), v);
        }
        if let BindMatch::Fields(fields) = &schema.bind_match {
            for f in fields {
                instance = instance.bind_value(f.clone(), eval(f));
            }
        }
        for f in &schema.match_content {
            instance = instance.content(f.clone(), eval(f));
        }
        Some(instance)
    }
}
