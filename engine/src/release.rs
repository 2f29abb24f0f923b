//! `liveplan adopt ADDRESS --release ID`, the way out of a marker collision: removes this estate's markers
//! (every `tofu-*` tag) from one of the live objects that carry ADDRESS, so that the next plan binds the
//! other and lists this one as foreign.
//!
//! The rule comes from `admission` (`check_release`); this module gathers its facts (the objects carrying
//! the address, the records naming the object) and makes the one tags-only update. It never changes
//! anything of an object but its markers, never releases an object a record names (the records say it is
//! the estate's own), and writes nothing, tags or records, when it refuses.

use std::sync::Arc;

use admission::marker::{self, Estate, ReleaseFacts, check_release};
use admission::{Code, InstanceAddress};
use projection::record::{InstanceNamespace as Namespace, RecordKeys, load_records};
use projection::{RecordSet, Retrying};
use provider::{Call, Catalog, Provider, TagChange};
use staterecord::Store;

use crate::adopt::{OwnershipOutcome, marked};
use crate::planner::PlanRequest;

/// What to release.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReleaseRequest<'a> {
    /// The address of the collision.
    pub(crate) address: &'a InstanceAddress,
    /// The object to take this estate's markers off.
    pub(crate) id: &'a str,
}

/// Releases `request.id` from `request.address`. Refusals come back as `adopt-refused`.
#[tracing::instrument(skip_all, fields(address = %request.address, id = request.id), err)]
pub(crate) async fn release(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    catalog: &Catalog,
    store: Arc<dyn Store>,
    request: &ReleaseRequest<'_>,
) -> Result<OwnershipOutcome, crate::Error> {
    let (address, id) = (request.address, request.id);
    let subject = address.to_string();
    let refuse = |summary: String, detail: &str| {
        OwnershipOutcome::refused(Code::AdoptRefused, summary, detail, &subject)
    };
    let (_, linted, _) =
        crate::data::check_with_data(&config.sources, catalog, provider, &config.retry).await;
    let estate = linted.estate.as_deref().and_then(|e| Estate::new(e).ok());
    let taggable = catalog.get(address.type_name()).is_some_and(|s| s.taggable);
    let mut facts = ReleaseFacts {
        estate: estate.clone(),
        taggable,
        id: id.to_owned(),
        carriers: Vec::new(),
        named_by: Vec::new(),
    };
    // The cheap refusals first, before any read.
    let (Some(estate), true) = (estate, taggable) else {
        return Ok(match check_release(&facts) {
            Err(refusal) => refuse(refusal.to_string(), &refusal.detail()),
            Ok(()) => refuse("no estate name".to_owned(), "nothing was changed"),
        });
    };
    let escaped = match marker::escape_address(address) {
        Ok(escaped) => escaped,
        Err(e) => return Ok(refuse(e.to_string(), "nothing was changed")),
    };
    // The reads and the tags-only update go through one retrying decorator.
    let retried = Retrying::new(provider, &config.retry);
    let carriers = match marked(&retried, &estate, address.type_name(), &escaped).await {
        Ok(carriers) => carriers,
        Err(e) => {
            return Ok(refuse(
                format!("could not read the live system: {e}"),
                "retry later; nothing was changed",
            ));
        }
    };
    facts.carriers = carriers.iter().map(|o| o.id.clone()).collect();
    let keys = RecordKeys::new(config.key_prefix, &estate)?;
    let records = load_records(store.as_ref(), &keys).await?;
    facts.named_by = naming(&records, &keys, address, id);
    if let Err(refusal) = check_release(&facts) {
        return Ok(refuse(refusal.to_string(), &refusal.detail()));
    }
    let Some(object) = carriers.iter().find(|o| o.id == id) else {
        return Ok(refuse(
            format!("{id} does not carry this estate's marker for the address"),
            "nothing was changed",
        ));
    };
    let change = TagChange {
        set: Default::default(),
        remove: marker::marker_keys(object.tags.keys().map(String::as_str))
            .into_iter()
            .map(str::to_owned)
            .collect(),
    };
    if let Err(e) = retried
        .update_tags(&Call::unrecorded(), address.type_name(), id, change)
        .await
    {
        return Ok(refuse(
            format!("removing the markers of {id} failed: {e}"),
            "nothing was changed; retry",
        ));
    }
    Ok(OwnershipOutcome {
        id: Some(id.to_owned()),
        diagnostics: Vec::new(),
    })
}

/// The keys of the records that name `id` as this estate's object: the address's create intent, and any
/// `located` or deposed record of an address of its type. Sorted.
///
/// The create intents of other addresses are left out: a plan reads an intent only for its own instance,
/// and one left at a renamed address says nothing of the object any more.
fn naming(
    records: &RecordSet,
    keys: &RecordKeys,
    address: &InstanceAddress,
    id: &str,
) -> Vec<String> {
    let same_type = |a: &InstanceAddress| a.type_name() == address.type_name();
    let mut named = Vec::new();
    if records
        .intents
        .get(address)
        .is_some_and(|i| i.body.id.as_deref() == Some(id))
    {
        named.push(keys.instance(Namespace::Intent, address));
    }
    for (a, located) in &records.located {
        if same_type(a) && located.body.id == id {
            named.push(keys.instance(Namespace::Located, a));
        }
    }
    for (a, deposed) in &records.deposed {
        if same_type(a) && deposed.body.ids.iter().any(|d| d == id) {
            named.push(keys.instance(Namespace::Deposed, a));
        }
    }
    named.sort();
    named
}
