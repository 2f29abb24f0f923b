//! Data sources read at plan time: every data block the configuration can read before anything is
//! planned, in the order they read each other, through the provider's `read_data_source`.
//!
//! The values go into the [`Config`] ([`Config::set_data_values`]) before the lint judges the
//! identities, so that `bucket = "logs-${data.aws_caller_identity.current.account_id}"` is an identity
//! known before discovery. A block whose arguments are not known (a variable without a value, an
//! impure function) is left unread: its attributes are unknown, and an identity that needs them is the
//! lint's `non-static-identity`. A failed read is a `data-read-failed` error, never an empty result.
//! Every attempt is reported to one recorder, whose counts join the plan's cost; nothing is ever
//! written.

use std::collections::BTreeMap;

use admission::{
    BlockAddress, Code, Config, Diagnostic, Evaluator, Instance, InstanceKey, Prepared, Repetition,
    Resource, Sources, Value, VariableMode, data_block, data_read_order,
};
use projection::{RetryConfig, Retrying};
use provider::{Call, CallCounts, Catalog, DataSourceRequest, Provider};

/// What reading the data blocks gave: the values read, the failures, and the attempts made.
#[derive(Debug, Default)]
pub(crate) struct DataRead {
    /// The failed reads, one diagnostic each.
    pub diagnostics: Vec<Diagnostic>,
    /// Every attempt, by operation.
    pub counts: CallCounts,
}

/// Parses the sources, reads their data blocks and lints, as a plan does: [`admission::check`] with
/// the data sources read in between.
pub(crate) async fn check_with_data(
    sources: &Sources<'_>,
    catalog: &Catalog,
    provider: &dyn Provider,
    retry: &RetryConfig,
) -> (Config, admission::Linted, DataRead) {
    let mut prepared: Prepared<'_> = admission::prepare(sources, VariableMode::Plan);
    let mut read = DataRead::default();
    if !prepared.syntax_error {
        let values = read_all(
            &prepared.config,
            &prepared.variables,
            catalog,
            provider,
            retry,
            &mut read,
        )
        .await;
        prepared.config.set_data_values(values);
    }
    let (config, mut linted) = admission::lint_prepared(prepared, catalog);
    if !read.diagnostics.is_empty() {
        linted.diagnostics.extend(read.diagnostics.iter().cloned());
        linted
            .diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    (config, linted, read)
}

/// Reads every data block that can be read now, in order; returns the values by block.
async fn read_all(
    config: &Config,
    variables: &BTreeMap<String, Value>,
    catalog: &Catalog,
    provider: &dyn Provider,
    retry: &RetryConfig,
    read: &mut DataRead,
) -> BTreeMap<BlockAddress, Value> {
    let retried = Retrying::new(provider, retry);
    let mut values = BTreeMap::new();
    for data in data_read_order(config) {
        let (Some(block), Some(_)) = (data_block(data), catalog.data_source(&data.type_name))
        else {
            // An unsupported type: the lint names it.
            continue;
        };
        let Some(requests) = requests(config, variables, &values, data) else {
            continue;
        };
        let call = Call::new(&read.counts);
        let mut got = Vec::with_capacity(requests.len());
        let mut failed = false;
        for (key, request) in requests {
            match retried.read_data_source(&call, request).await {
                Ok(v) => got.push((key, v)),
                Err(e) => {
                    let address = format!("data.{}{key}", data.address());
                    read.diagnostics.push(
                        Diagnostic::new(
                            Code::DataReadFailed,
                            format!("reading `{address}` failed: {e}"),
                            "the plan needs the data source's attributes: fix the cause and plan again",
                        )
                        .with_address(address)
                        .at(data.loc.to_pos()),
                    );
                    failed = true;
                    break;
                }
            }
        }
        if !failed {
            values.insert(block, assemble(data, got));
        }
    }
    values
}

/// The requests of a data block's members, or `None` when a `count`, a `for_each` or an argument is
/// not known now (the block stays unread) or does not evaluate (the lint reports it).
fn requests(
    config: &Config,
    variables: &BTreeMap<String, Value>,
    values: &BTreeMap<BlockAddress, Value>,
    data: &Resource,
) -> Option<Vec<(InstanceKey, DataSourceRequest)>> {
    let ev = Evaluator::new(config, variables).with_data_values(values);
    let members = members(&ev, data)?;
    let mut out = Vec::with_capacity(members.len());
    for (key, inst) in members {
        let mut request = DataSourceRequest::new(data.type_name.as_str());
        for (name, attr) in &data.attrs {
            let v = ev.eval(&attr.expr, &inst).ok()?;
            if !v.is_known() {
                return None;
            }
            if !v.is_null() {
                request = request.with_argument(name.as_str(), v);
            }
        }
        out.push((key, request));
    }
    Some(out)
}

/// The members of a data block with the instance each is evaluated for, or `None` when its `count` or
/// `for_each` is not known now.
fn members(ev: &Evaluator<'_>, data: &Resource) -> Option<Vec<(InstanceKey, Instance)>> {
    match &data.repetition {
        Repetition::Single => Some(vec![(InstanceKey::None, Instance::Single)]),
        Repetition::Count(attr) => {
            let v = ev.eval(&attr.expr, &Instance::Single).ok()?;
            let n = provider::value::convert(v, &admission::Type::Number)
                .ok()?
                .as_number()?
                .as_u64()?;
            Some(
                (0..n)
                    .map(|i| (InstanceKey::Int(i), Instance::Count(i)))
                    .collect(),
            )
        }
        Repetition::ForEach(attr) => {
            let v = ev.eval(&attr.expr, &Instance::Single).ok()?;
            if !v.is_known() || v.is_sensitive() {
                return None;
            }
            let pairs: Vec<(String, Value)> = match v.peel() {
                Value::Map(entries) => entries.clone().into_iter().collect(),
                Value::Set(items) => items
                    .iter()
                    .map(|i| Some((i.as_str()?.to_owned(), i.clone())))
                    .collect::<Option<_>>()?,
                _ => return None,
            };
            Some(
                pairs
                    .into_iter()
                    .map(|(key, value)| {
                        (InstanceKey::Str(key.clone()), Instance::Each { key, value })
                    })
                    .collect(),
            )
        }
    }
}

/// A block's value from its members' reads: the object, a list of them, or a map by key.
fn assemble(data: &Resource, got: Vec<(InstanceKey, Value)>) -> Value {
    match data.repetition {
        Repetition::Single => got
            .into_iter()
            .next()
            .map(|(_, v)| v)
            .unwrap_or(Value::Null),
        Repetition::Count(_) => Value::List(got.into_iter().map(|(_, v)| v).collect()),
        Repetition::ForEach(_) => Value::Map(
            got.into_iter()
                .map(|(k, v)| match k {
                    InstanceKey::Str(k) => (k, v),
                    other => (other.to_string(), v),
                })
                .collect(),
        ),
    }
}
