//! The explicit ownership operations of the CLI: `adopt` (write this estate's markers on an unowned object
//! or a bind candidate, tags only) and `mv` (rewrite an object's address marker and move its records).
//!
//! The rules of both come from `admission` as pure functions; this module gathers the facts from the live
//! system and the store (for `adopt`, the same projection a plan makes, so that it takes only what the
//! plan would bind), and performs the one tags-only update and the compare-and-swap record writes. It must
//! never change anything of an object but its tags, never touch an object of another estate, and write
//! nothing when it refuses.

use std::collections::BTreeMap;
use std::sync::Arc;

use admission::marker::{
    self, AdoptFacts, AdoptRefusal, DeclarationMatch, Estate, ObjectAtAddress, Ownership,
    RenameFacts, check_adopt, check_rename,
};
use admission::provider::{ListRequest, TagChange, TagFilter, TagQuery};
use admission::{
    AdmissionPath, Code, Diagnostic, InstanceAddress, InstanceKey, LiveObject, Provider,
    ProviderError, Slot,
};
use projection::{Binding, Projection};
use staterecord::{CacheScope, Store, StoreError};

use crate::planner::PlanRequest;
use projection::record::{InstanceNamespace as Namespace, RecordBody, RecordKeys};

/// What to adopt.
#[derive(Debug, Clone, Copy)]
pub struct AdoptRequest<'a> {
    /// The declared address to adopt the object for.
    pub address: &'a str,
    /// The bind candidate's id (required for marker-path instances).
    pub id: Option<&'a str>,
}

/// What to rename.
#[derive(Debug, Clone, Copy)]
pub struct MvRequest<'a> {
    /// The address the object carries now.
    pub old: &'a str,
    /// The address it should carry.
    pub new: &'a str,
    /// Only check; write nothing.
    pub dry_run: bool,
    /// Allow a NEW that the configuration does not declare.
    pub allow_missing_config: bool,
}

/// What an adoption or rename did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OwnershipOutcome {
    /// The id of the object retagged (or that would be, in a dry run).
    pub id: Option<String>,
    /// Refusals and failures; empty when it succeeded.
    pub diagnostics: Vec<Diagnostic>,
}

impl OwnershipOutcome {
    fn refused(code: Code, summary: String, detail: &str, address: &str) -> OwnershipOutcome {
        OwnershipOutcome {
            id: None,
            diagnostics: vec![Diagnostic::new(code, summary, detail).with_address(address)],
        }
    }

    /// Whether the operation was done (or, in a dry run, would be).
    pub fn succeeded(&self) -> bool {
        self.diagnostics.is_empty()
    }
}

fn parse(text: &str) -> Result<InstanceAddress, crate::Error> {
    text.parse()
        .map_err(|e: admission::Error| crate::Error::InvalidAddress {
            input: text.to_owned(),
            reason: e.to_string(),
        })
}

fn at_address(
    estate: &Estate,
    object: Option<&LiveObject>,
    ours: Vec<&LiveObject>,
) -> ObjectAtAddress {
    if ours.len() > 1 {
        let mut ids: Vec<String> = ours.iter().map(|o| o.id.clone()).collect();
        ids.sort();
        return ObjectAtAddress::Several { ids };
    }
    if let Some(o) = ours.first() {
        return ObjectAtAddress::Ours { id: o.id.clone() };
    }
    match object {
        None => ObjectAtAddress::Nothing,
        Some(o) => match marker::ownership(estate, &o.type_name, &o.tags) {
            Ownership::Foreign => ObjectAtAddress::Unowned { id: o.id.clone() },
            Ownership::OtherEstate(e) => ObjectAtAddress::AnotherEstate {
                id: o.id.clone(),
                estate: e,
            },
            _ => ObjectAtAddress::Ours { id: o.id.clone() },
        },
    }
}

/// The live objects of `type_name` this estate marks with the escaped address `escaped`.
async fn marked(
    provider: &dyn Provider,
    estate: &Estate,
    type_name: &str,
    escaped: &str,
) -> Result<Vec<LiveObject>, ProviderError> {
    let catalog = provider.schemas();
    let in_index = catalog.get(type_name).is_some_and(|s| s.in_tagging_index);
    let mut out = Vec::new();
    if in_index {
        let mut query = TagQuery {
            tag_filters: vec![TagFilter::equals(marker::ESTATE_TAG, estate.as_str())],
            type_names: vec![type_name.to_owned()],
            page_token: None,
        };
        loop {
            let page = provider.tagged_resources(query.clone()).await?;
            for r in page.resources {
                if r.type_name == type_name
                    && marker::read_address(&r.tags).ok().flatten().as_deref() == Some(escaped)
                    && let Some(o) = provider.read_by_id(type_name, &r.id).await?
                {
                    out.push(o);
                }
            }
            match page.next_page_token {
                Some(t) => query.page_token = Some(t),
                None => break,
            }
        }
    } else {
        let mut request = ListRequest::all(type_name);
        loop {
            let page = provider.list(request.clone()).await?;
            for o in page.objects {
                let o = if page.tags_included {
                    Some(o)
                } else {
                    provider.read_by_id(type_name, &o.id).await?
                };
                if let Some(o) = o
                    && o.tag(marker::ESTATE_TAG) == Some(estate.as_str())
                    && marker::read_address(&o.tags).ok().flatten().as_deref() == Some(escaped)
                {
                    out.push(o);
                }
            }
            match page.next_page_token {
                Some(t) => request.page_token = Some(t),
                None => break,
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// Adopts the unowned object at ADDRESS's client-named identity, or the bind candidate `id` of a
/// marker-path instance, by writing this estate's markers on it (a tags-only update, with the slot a count
/// member would get) and the records the estate needs to find it again (`located`, the slot high-water
/// mark), with compare-and-swap. Refusals come back as `adopt-refused`, and nothing is written for one.
#[tracing::instrument(skip_all, fields(address = request.address), err)]
pub async fn adopt(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    store: Arc<dyn Store>,
    request: &AdoptRequest<'_>,
) -> Result<OwnershipOutcome, crate::Error> {
    let address = parse(request.address)?;
    let catalog = provider
        .schemas()
        .clone()
        .merged(admission::catalog::builtin());
    let (parsed, linted) =
        admission::lint::check(config.files, config.inputs, &catalog, config.estate_flag);
    let estate = linted.estate.as_deref().and_then(|e| Estate::new(e).ok());
    let declared = linted.instances.iter().find(|d| d.address == address);
    let schema = catalog.get(address.type_name());
    let refuse = |refusal: AdoptRefusal| {
        OwnershipOutcome::refused(
            Code::AdoptRefused,
            refusal.to_string(),
            &refusal.detail(),
            request.address,
        )
    };
    let refuse_with = |summary: String| {
        OwnershipOutcome::refused(
            Code::AdoptRefused,
            summary,
            "nothing was changed",
            request.address,
        )
    };
    let fail = |e: &dyn std::fmt::Display| {
        OwnershipOutcome::refused(
            Code::AdoptRefused,
            format!("could not read the live system: {e}"),
            "retry later; nothing was changed",
            request.address,
        )
    };
    // The identity the configuration declares, for a client-named instance.
    let identity = declared.and_then(|d| match d.identity.first() {
        Some((_, admission::lint::IdentityValue::Static(v))) => {
            v.peel().as_str().map(str::to_owned)
        }
        _ => None,
    });
    let client_named = schema.and_then(|s| s.admission) == Some(AdmissionPath::ClientNamed);
    let mut target: Option<LiveObject> = None;
    let mut at_identity: Option<LiveObject> = None;
    let mut already_bound = false;
    if let (Some(estate), Some(schema)) = (&estate, schema) {
        if client_named && let Some(name) = &identity {
            at_identity = match crate::apply::read_identity(
                provider,
                &config.retry,
                address.type_name(),
                name,
            )
            .await
            {
                Ok(o) => o,
                Err(e) => return Ok(fail(&e)),
            };
        }
        target = match request.id {
            Some(id) => match provider.read_by_id(address.type_name(), id).await {
                Ok(o) => o,
                Err(e) => return Ok(fail(&e)),
            },
            None => at_identity.clone(),
        };
        if schema.taggable
            && let Ok(escaped) = marker::escape_address(&address)
        {
            match marked(provider, estate, address.type_name(), &escaped).await {
                Ok(objs) => {
                    already_bound = objs
                        .iter()
                        .any(|o| target.as_ref().is_none_or(|t| t.id != o.id))
                }
                Err(e) => return Ok(fail(&e)),
            }
        }
    }
    let mut facts = AdoptFacts {
        estate: estate.clone(),
        declared: declared.is_some(),
        admission: schema.and_then(|s| s.admission),
        id_given: request.id.is_some(),
        taggable: schema.is_some_and(|s| s.taggable),
        already_bound,
        target: match &estate {
            Some(e) => at_address(e, target.as_ref(), Vec::new()),
            None => ObjectAtAddress::Nothing,
        },
        declaration: DeclarationMatch::Matches,
    };
    // The cheap facts first: the projection below (a whole discovery) is made only for an adoption they
    // allow.
    if let Err(refusal) = check_adopt(&facts) {
        return Ok(refuse(refusal));
    }
    let (Some(estate), Some(schema), Some(target)) = (estate, schema, target) else {
        return Ok(refuse_with("no estate name".to_owned()));
    };
    if linted.has_errors() {
        let mut outcome = refuse_with("the configuration has errors".to_owned());
        outcome.diagnostics[0].detail =
            "adopt checks the object against the configuration: fix the errors (liveplan validate lists \
             them), then adopt again; nothing was changed"
                .to_owned();
        outcome.diagnostics.extend(
            linted
                .diagnostics
                .iter()
                .filter(|d| d.severity() == admission::Severity::Error)
                .cloned(),
        );
        return Ok(outcome);
    }
    // The plan's own view of the instance: its bind candidates, its slot and the records it would write
    // over.
    let (variables, _) = admission::config::resolve_variables(&parsed, config.inputs);
    let region = provider.region();
    let model =
        crate::planner::declared_model(&parsed, &variables, &catalog, &linted.instances, &region)?;
    let keys = RecordKeys::new(config.key_prefix, &estate)?;
    let scope = CacheScope::new();
    let cache = scope.cache(Arc::clone(&store), keys.prefix());
    let projected = projection::project(
        provider,
        &cache,
        &estate,
        &model,
        &crate::planner::projection_config(config),
    )
    .await?;
    let state = projected.instance(&address);
    if projected.withheld_types.contains(address.type_name())
        || state.is_some_and(|s| {
            s.binding == Binding::Withheld(projection::Withheld::DiscoveryIncomplete)
        })
    {
        return Ok(fail(&"a listing or read of the discovery failed"));
    }
    facts.declaration = if client_named {
        match (&identity, &at_identity) {
            (_, Some(o)) if o.id == target.id => DeclarationMatch::Matches,
            (Some(name), _) => DeclarationMatch::OtherIdentity {
                declared: name.clone(),
            },
            (None, _) => DeclarationMatch::OtherIdentity {
                declared: "(not static)".to_owned(),
            },
        }
    } else {
        // The plan's own candidate test, the ambiguous matches included: naming one with --id is the
        // choice the plan could not make.
        let candidate = projected
            .bind_candidates
            .iter()
            .chain(&projected.ambiguous_candidates)
            .any(|c| c.address == address && c.id == target.id);
        if candidate {
            DeclarationMatch::Matches
        } else {
            DeclarationMatch::NotACandidate
        }
    };
    let id = match check_adopt(&facts) {
        Ok(id) => id,
        Err(refusal) => return Ok(refuse(refusal)),
    };
    let slot = match count_slot(&projected, schema, &address) {
        Ok(slot) => slot,
        Err(summary) => return Ok(refuse_with(summary)),
    };
    let set = match marker::marker_tags(&estate, &address, slot) {
        Ok(t) => t,
        Err(e) => return Ok(refuse_with(e.to_string())),
    };
    // The records first: a record written for an object whose tags then fail to change is harmless (a
    // located object without this estate's tag is not taken as owned, and a raised high-water mark only
    // skips a slot), while tags written without the records would lose the object.
    let store = staterecord::fresh(&store);
    let conflict = |key: &str, e: &StoreError| {
        let (code, detail) = if e.is_conflict() {
            (
                Code::VersionConflict,
                "another run changed the records at the same time; the object was not adopted: retry",
            )
        } else {
            (
                Code::AdoptRefused,
                "check the record store and retry; the object was not adopted",
            )
        };
        OwnershipOutcome::refused(
            code,
            format!("writing the record {key} failed: {e}"),
            detail,
            request.address,
        )
    };
    if let Some(slot) = slot {
        let key = keys.slots(address.block());
        let seen = projected.records.slots.get(address.block());
        if let Some(raised) = crate::apply::raised_slots(seen.map(|s| s.body.highest), slot) {
            let payload =
                RecordBody::Slots(raised).to_payload_at(&key, &address.block().to_string());
            if let Err(e) = store
                .put_if_version(&key, &payload, seen.map(|s| &s.version))
                .await
            {
                return Ok(conflict(&key, &e));
            }
        }
    }
    let mut located_written = None;
    if let Some(located) = crate::apply::located_record(schema, &target, &BTreeMap::new()) {
        let key = keys.instance(Namespace::Located, &address);
        let seen = projected.records.located.get(&address);
        if seen.is_none_or(|s| s.body != located) {
            let payload = RecordBody::Located(located).to_payload_at(&key, &address.to_string());
            match store
                .put_if_version(&key, &payload, seen.map(|s| &s.version))
                .await
            {
                Ok(version) => located_written = Some((key, version)),
                Err(e) => return Ok(conflict(&key, &e)),
            }
        }
    }
    let change = TagChange {
        set,
        remove: Default::default(),
    };
    if let Err(e) = config
        .retry
        .run(|| provider.update_tags(address.type_name(), &id, change.clone()))
        .await
    {
        // Best effort: the record is harmless without the tags, but it would name a foreign object.
        if let Some((key, version)) = located_written {
            let _ = store.delete(&key, Some(&version)).await;
        }
        return Ok(fail(&e));
    }
    Ok(OwnershipOutcome {
        id: Some(id),
        diagnostics: Vec::new(),
    })
}

/// The slot an adopted count member gets (`None` outside a taggable count block): the one the projection
/// minted for it, as a plan shows on its create, else (a member blocked at its client-named identity gets
/// none there) the next above every slot of the block, live, minted or recorded, so that none is reused.
fn count_slot(
    projected: &Projection,
    schema: &admission::ResourceTypeSchema,
    address: &InstanceAddress,
) -> Result<Option<Slot>, String> {
    if !schema.taggable || !matches!(address.key(), InstanceKey::Int(_)) {
        return Ok(None);
    }
    if let Some(slot) = projected.instance(address).and_then(|s| s.slot) {
        return Ok(Some(slot));
    }
    let block = address.block();
    let members = projected
        .instances
        .values()
        .filter(|s| s.address.block() == block)
        .filter_map(|s| s.slot);
    let surplus = projected
        .owned_undeclared
        .iter()
        .filter(|o| o.address.block() == block)
        .filter_map(|o| match o.reason {
            projection::Removal::CountSurplus { slot } => slot,
            projection::Removal::NoLongerDeclared => None,
        });
    let recorded = projected.records.slots.get(block).map(|s| s.body.highest);
    let high = members.chain(surplus).chain(recorded).max();
    match high {
        None => Ok(Some(Slot::FIRST)),
        Some(h) => h
            .next()
            .map(Some)
            .ok_or_else(|| format!("the count block {block} has no slot left to mint")),
    }
}

/// Renames: rewrites the address marker of the one live object of this estate at OLD to NEW (tags only)
/// and moves OLD's records to NEW with compare-and-swap. Refusals come back as `mv-refused`.
#[tracing::instrument(skip_all, fields(old = request.old, new = request.new), err)]
pub async fn mv(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    store: Arc<dyn Store>,
    request: &MvRequest<'_>,
) -> Result<OwnershipOutcome, crate::Error> {
    let old = parse(request.old)?;
    let new = parse(request.new)?;
    let catalog = provider
        .schemas()
        .clone()
        .merged(admission::catalog::builtin());
    let (_, linted) =
        admission::lint::check(config.files, config.inputs, &catalog, config.estate_flag);
    let estate = linted.estate.as_deref().and_then(|e| Estate::new(e).ok());
    let store = staterecord::fresh(&store);
    let refuse = |summary: String| {
        OwnershipOutcome::refused(Code::MvRefused, summary, "nothing was changed", request.old)
    };
    let schema = catalog.get(old.type_name());
    let taggable = schema.is_some_and(|s| s.taggable);
    let mut at_old = ObjectAtAddress::Nothing;
    let mut new_claimed = false;
    let mut old_object = None;
    if let Some(e) = &estate {
        if taggable && old.type_name() == new.type_name() {
            let (Ok(eo), Ok(en)) = (marker::escape_address(&old), marker::escape_address(&new))
            else {
                return Ok(refuse("the address does not fit in a marker".to_owned()));
            };
            let olds = match marked(provider, e, old.type_name(), &eo).await {
                Ok(o) => o,
                Err(err) => return Ok(refuse(format!("could not read the live system: {err}"))),
            };
            let news = match marked(provider, e, new.type_name(), &en).await {
                Ok(o) => o,
                Err(err) => return Ok(refuse(format!("could not read the live system: {err}"))),
            };
            new_claimed = !news.is_empty();
            at_old = at_address(e, None, olds.iter().collect());
            old_object = olds.into_iter().next();
        } else if !taggable {
            // An untaggable object is ours through its `located` record; a record-backed one (`random_id`)
            // is its record.
            let keys = RecordKeys::new(config.key_prefix, e)?;
            for ns in [Namespace::Located, Namespace::Records] {
                let key = keys.instance(ns, &old);
                match store
                    .get(&key)
                    .await?
                    .and_then(|r| RecordBody::from_payload(&r.payload).ok())
                {
                    Some(RecordBody::Located(located)) => {
                        at_old = ObjectAtAddress::Ours { id: located.id };
                    }
                    Some(RecordBody::Object(object)) => {
                        at_old = ObjectAtAddress::Ours { id: object.id };
                    }
                    _ => {}
                }
                let new_key = keys.instance(ns, &new);
                new_claimed |= store.get(&new_key).await?.is_some();
            }
        }
    }
    let facts = RenameFacts {
        estate: estate.clone(),
        old: old.clone(),
        new: new.clone(),
        at_old,
        new_claimed,
        new_declared: linted.instances.iter().any(|d| d.address == new),
        allow_missing_config: request.allow_missing_config,
    };
    let id = match check_rename(&facts) {
        Ok(id) => id,
        Err(refusal) => return Ok(refuse(refusal.to_string())),
    };
    let Some(estate) = estate else {
        return Ok(refuse("no estate name".to_owned()));
    };
    if request.dry_run {
        return Ok(OwnershipOutcome {
            id: Some(id),
            diagnostics: Vec::new(),
        });
    }
    if let Some(obj) = &old_object {
        let escaped = match marker::escape_address(&new) {
            Ok(e) => e,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        let mut change = match marker::address_tag_change(&obj.tags, &escaped) {
            Ok(c) => c,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        if old.block() != new.block() {
            change.remove.insert(marker::SLOT_TAG.to_owned());
        }
        if let Err(e) = config
            .retry
            .run(|| provider.update_tags(obj.type_name.as_str(), &obj.id, change.clone()))
            .await
        {
            return Ok(OwnershipOutcome::refused(
                Code::MvRefused,
                format!("retagging {} failed: {e}", obj.id),
                "nothing was changed; retry",
                request.old,
            ));
        }
    }
    let mut diagnostics = Vec::new();
    let keys = RecordKeys::new(config.key_prefix, &estate)?;
    for ns in [
        Namespace::Records,
        Namespace::Residue,
        Namespace::Deposed,
        Namespace::Intent,
        Namespace::Located,
    ] {
        let from = keys.instance(ns, &old);
        let to = keys.instance(ns, &new);
        let Some(record) = store.get(&from).await? else {
            continue;
        };
        // A digest key's record names its address inside, so it is written again for the new address; a
        // payload this version cannot read moves as it is.
        let payload = match RecordBody::from_payload(&record.payload) {
            Ok(body) => body.to_payload_at(&to, &new.to_string()),
            Err(_) => record.payload.clone(),
        };
        let moved = match store.put_if_version(&to, &payload, None).await {
            Ok(_) => store.delete(&from, Some(&record.version)).await,
            Err(e) => Err(e),
        };
        if let Err(e) = moved {
            // Only a lost compare-and-swap is another run's doing; any other failure is the store's.
            let d = match crate::error::kms_denied(&e) {
                Some(d) => d,
                None if e.is_conflict() => Diagnostic::new(
                    Code::VersionConflict,
                    format!("moving the record {from} to {to} failed: {e}"),
                    "another run changed the records at the same time; check `liveplan records` and retry",
                ),
                None => Diagnostic::new(
                    Code::MvRefused,
                    format!("moving the record {from} to {to} failed: {e}"),
                    "check the record store, then `liveplan records`, and retry",
                ),
            };
            diagnostics.push(d.with_address(request.new));
        }
    }
    Ok(OwnershipOutcome {
        id: Some(id),
        diagnostics,
    })
}
