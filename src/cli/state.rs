//! `liveplan state list` and `liveplan state show`: what the estate owns, as Terraform's `state list` and
//! `state show` print it.
//!
//! With no state file, "the state" is what discovery finds: both commands make the read-only plan that
//! `show` makes (the same projection, no second discovery) and read its owned instances, the ones bound
//! to a live object. They never write anything: not to the cloud, not to the store, not to the sim file.

use admission::{Code, Diagnostic, InstanceAddress, InstanceKey};
use engine::{Plan, ResourceChange};

use super::commands::{self, diagnostics_text};
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit};

/// The plan of the estate as it stands, or the exit after its diagnostics were printed (the live system
/// could not be read as this estate's).
async fn owned_plan(common: &Common, term: &Terminal) -> anyhow::Result<Result<Plan, Exit>> {
    let inputs = Inputs::read(common)?;
    let planned = commands::make_plan(common, &inputs, Access::Read).await?;
    if !planned.plan.applicable() {
        commands::show_plan(common, term, &planned.plan);
        return Ok(Err(Exit::Failure));
    }
    Ok(Ok(planned.plan))
}

/// The owned instances of `plan`: every change bound to a live object (deposed objects left out), in
/// Terraform's order (type, name, then key: no key first, indexes by number, keys as text).
fn owned(plan: &Plan) -> Vec<&ResourceChange> {
    let mut out: Vec<&ResourceChange> = plan
        .changes
        .iter()
        .filter(|c| c.before.is_some() && c.deposed.is_none())
        .collect();
    out.sort_by(|a, b| a.address.cmp(&b.address));
    out
}

/// What a `state list` filter selects.
enum Filter {
    /// Every instance of a resource (an address without a key).
    Resource(InstanceAddress),
    /// One instance.
    Instance(InstanceAddress),
}

impl Filter {
    /// The filter `text` names, or the diagnostic saying why it names none.
    fn parse(text: &str) -> Result<Filter, Box<Diagnostic>> {
        if text == "module" || text.starts_with("module.") {
            return Err(Box::new(Diagnostic::new(
                Code::UnknownInstance,
                format!("Unknown module {text}"),
                "The estate owns no instance in a module: liveplan plans root-module configurations, \
                 so every instance it owns has a root address; run `liveplan state list` to see them",
            )));
        }
        let address: InstanceAddress = text.parse().map_err(|e: admission::Error| {
            Box::new(Diagnostic::new(
                Code::InvalidAddress,
                format!("{text} is not a resource address: {e}"),
                "give an address as `state list` prints it: TYPE.NAME, TYPE.NAME[0] or \
                 'TYPE.NAME[\"key\"]'",
            ))
        })?;
        Ok(match address.key() {
            InstanceKey::None => Filter::Resource(address),
            _ => Filter::Instance(address),
        })
    }

    fn selects(&self, address: &InstanceAddress) -> bool {
        match self {
            Filter::Resource(r) => address.block() == r.block(),
            Filter::Instance(i) => address == i,
        }
    }

    /// The `unknown-instance` error of a filter that selected nothing, in Terraform's words.
    fn matched_nothing(&self) -> Diagnostic {
        let (summary, what) = match self {
            Filter::Resource(r) => (
                format!("Unknown resource {r}"),
                "no instance of this resource",
            ),
            Filter::Instance(i) => (
                format!("Unknown resource instance {i}"),
                "no object at this instance address",
            ),
        };
        Diagnostic::new(
            Code::UnknownInstance,
            summary,
            format!(
                "The estate owns {what}. If you just added it to the configuration, or changed its count \
                 or for_each, run `liveplan apply` first; `liveplan state list` lists what it owns"
            ),
        )
    }
}

/// Prints `problems` as `state` commands print their errors: on stderr, with their codes.
fn refuse(term: &Terminal, problems: &[Diagnostic]) -> Exit {
    term.err(&diagnostics_text(problems));
    Exit::Failure
}

/// `liveplan state list [ADDRESS...] [--id ID]`: every filter must select an owned instance, as
/// Terraform refuses a filter that matches nothing in its state.
pub async fn list(
    common: &Common,
    term: &Terminal,
    addresses: &[String],
    id: Option<&str>,
) -> anyhow::Result<Exit> {
    let filters = match addresses
        .iter()
        .map(|a| Filter::parse(a))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(filters) => filters,
        Err(d) => return Ok(refuse(term, &[*d])),
    };
    let plan = match owned_plan(common, term).await? {
        Ok(plan) => plan,
        Err(exit) => return Ok(exit),
    };
    let owned = owned(&plan);
    let unmatched: Vec<Diagnostic> = filters
        .iter()
        .filter(|f| !owned.iter().any(|c| f.selects(&c.address)))
        .map(Filter::matched_nothing)
        .collect();
    if !unmatched.is_empty() {
        return Ok(refuse(term, &unmatched));
    }
    // As Terraform lists them: each filter's instances in order, filter after filter (an instance two
    // filters select is listed twice), or every instance when no filter is given.
    let selected: Vec<&ResourceChange> = if filters.is_empty() {
        owned
    } else {
        filters
            .iter()
            .flat_map(|f| owned.iter().copied().filter(|c| f.selects(&c.address)))
            .collect()
    };
    let mut out = String::new();
    for change in selected {
        if id.is_none_or(|id| change.id.as_deref() == Some(id)) {
            out.push_str(&format!("{}\n", change.address));
        }
    }
    term.out(&out);
    Ok(Exit::Success)
}

/// `liveplan state show ADDRESS`.
pub async fn show(common: &Common, term: &Terminal, address: &str) -> anyhow::Result<Exit> {
    let target = match Filter::parse(address) {
        Ok(Filter::Resource(a) | Filter::Instance(a)) => a,
        Err(d) => return Ok(refuse(term, &[*d])),
    };
    let plan = match owned_plan(common, term).await? {
        Ok(plan) => plan,
        Err(exit) => return Ok(exit),
    };
    let Some(text) = owned(&plan)
        .into_iter()
        .find(|c| c.address == target)
        .and_then(engine::render::instance_state)
    else {
        let missing = Diagnostic::new(
            Code::UnknownInstance,
            format!("No instance found for the given address {target}"),
            "state show needs the address of one instance the estate owns; run `liveplan state list` \
             to see them, and give an instance of a count or for_each resource with its key",
        );
        return Ok(refuse(term, &[missing]));
    };
    term.out(&text);
    Ok(Exit::Success)
}
