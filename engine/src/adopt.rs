//! The explicit ownership operations of the CLI: `adopt` (write this estate's markers on an unowned object
//! or a bind candidate, tags only) and `mv` (rewrite an object's address marker and move its records).
//!
//! The rules of both come from `admission` as pure functions; this module gathers the facts from the live
//! system and the store (for `adopt`, the same projection a plan makes, so that it takes only what the
//! plan would bind), claims the address in the store before any tag changes (`claim`), and performs the
//! one tags-only update and the compare-and-swap record writes (a rename's, in `rename`). It must never
//! change anything of an object but its tags, never touch an object of another estate, and leave nothing
//! changed when it refuses.

use std::collections::BTreeMap;
use std::sync::Arc;

use admission::marker::{
    self, AdoptFacts, AdoptRefusal, DeclarationMatch, Estate, ObjectAtAddress, Ownership,
    RenameFacts, check_adopt, check_rename,
};
use admission::{Code, Diagnostic, InstanceAddress, InstanceKey, Slot};
use projection::{Binding, Projection, Retrying};
use provider::{AdmissionPath, Catalog, LiveObject, Provider, ProviderError};
use provider::{Call, Identity, ListRequest, TagChange, TagFilter, TagQuery};
use staterecord::{CacheScope, Store};

use crate::claim::{self, Taking};
use crate::handle::MvOptions;
use crate::journal::{RecordError, RecordJournal, located_record, records_seen};
use crate::planner::PlanRequest;
use crate::rename::Rename;
use projection::record::{InstanceNamespace as Namespace, RecordBody, RecordKeys};

/// What to adopt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AdoptRequest<'a> {
    /// The declared address to adopt the object for.
    pub(crate) address: &'a InstanceAddress,
    /// The bind candidate's id (required for marker-path instances).
    pub(crate) id: Option<&'a str>,
}

/// What to rename.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MvRequest<'a> {
    /// The address the object carries now.
    pub(crate) old: &'a InstanceAddress,
    /// The address it should carry.
    pub(crate) new: &'a InstanceAddress,
    /// A dry run, a NEW the configuration does not declare.
    pub(crate) options: MvOptions,
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
    pub(crate) fn refused(
        code: Code,
        summary: String,
        detail: &str,
        address: &str,
    ) -> OwnershipOutcome {
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
pub(crate) async fn marked(
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
            let page = provider
                .tagged_resources(&Call::unrecorded(), query.clone())
                .await?;
            for r in page.resources {
                if r.type_name == type_name
                    && marker::read_address(&r.tags).ok().flatten().as_deref() == Some(escaped)
                    && let Some(o) = provider
                        .read_by_id(&Call::unrecorded(), type_name, &r.id)
                        .await?
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
            let page = provider.list(&Call::unrecorded(), request.clone()).await?;
            for o in page.objects {
                let o = if page.tags_included {
                    Some(o)
                } else {
                    provider
                        .read_by_id(&Call::unrecorded(), type_name, &o.id)
                        .await?
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
#[tracing::instrument(skip_all, fields(address = %request.address), err)]
pub(crate) async fn adopt(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    catalog: &Catalog,
    store: Arc<dyn Store>,
    request: &AdoptRequest<'_>,
) -> Result<OwnershipOutcome, crate::Error> {
    let address = request.address.clone();
    let address_text = address.to_string();
    let (parsed, linted, _) =
        crate::data::check_with_data(&config.sources, catalog, provider, &config.retry).await;
    let refusals = Refusals(&address_text);
    let view = AdoptView::new(&linted, catalog, &address);
    // Every read and the tags-only update of the adoption go through one retrying decorator; the
    // projection below retries its own calls, so it is given the provider itself.
    let retried = Retrying::new(provider, &config.retry);
    let live = match view.read_live(&retried, request).await {
        Ok(live) => live,
        Err(outcome) => return Ok(outcome),
    };
    let mut facts = view.facts(&live, request);
    // The cheap facts first: the projection below (a whole discovery) is made only for an adoption they
    // allow.
    if let Err(refusal) = check_adopt(&facts) {
        return Ok(refusals.refuse(refusal));
    }
    let (Some(estate), Some(schema), Some(target)) =
        (view.estate.clone(), view.schema, live.target)
    else {
        return Ok(refusals.refuse_with("no estate name".to_owned()));
    };
    if linted.has_errors() {
        return Ok(refusals.configuration_errors(&linted));
    }
    // The plan's own view of the instance: its bind candidates, its slot and the records it would write
    // over.
    let keys = RecordKeys::new(config.key_prefix, &estate)?;
    let projected = {
        let (variables, _) = admission::resolve_variables(&parsed, config.sources.inputs);
        let region = provider.region();
        let model = crate::planner::declared_model(
            &parsed,
            &variables,
            catalog,
            &linted.instances,
            &region,
        )?;
        let scope = CacheScope::new();
        let cache = scope.cache(Arc::clone(&store), keys.prefix());
        let projection = crate::planner::projection_config(config);
        projection::project(provider, catalog, &cache, &estate, &model, &projection).await?
    };
    if incomplete(&projected, &address) {
        return Ok(refusals.fail(&"a listing or read of the discovery failed"));
    }
    if let Some(refused) =
        claim::pending_in(&projected, &address, Code::AdoptRefused, &address_text)
    {
        return Ok(refused);
    }
    facts.declaration = view.declaration(&live.at_identity, &projected, &target);
    let id = match check_adopt(&facts) {
        Ok(id) => id,
        Err(refusal) => return Ok(refusals.refuse(refusal)),
    };
    let slot = match count_slot(&projected, schema, &address) {
        Ok(slot) => slot,
        Err(summary) => return Ok(refusals.refuse_with(summary)),
    };
    let set = match marker::marker_tags(&estate, &address, slot) {
        Ok(t) => t,
        Err(e) => return Ok(refusals.refuse_with(e.to_string())),
    };
    let seen = records_seen(&keys, &projected.records);
    let journal = RecordJournal::new(&store, keys, seen, provider.lineage())
        .with_clock(Arc::clone(&config.clock))
        .with_records_of(&projected.records);
    let adoption = Adoption {
        address: &address,
        id: &id,
        schema,
        target: &target,
        slot,
        set,
    };
    Ok(adoption
        .take(&journal, &retried, &estate, &refusals)
        .await
        .unwrap_or_else(|refused| refused))
}

/// An adoption every check allowed: the object, and the markers and slot it gets.
struct Adoption<'a> {
    address: &'a InstanceAddress,
    id: &'a str,
    schema: &'a provider::ResourceTypeSchema,
    target: &'a LiveObject,
    slot: Option<Slot>,
    set: BTreeMap<String, String>,
}

impl Adoption<'_> {
    /// Claims the address, writes the records, then the tags; the claim is settled once the object
    /// carries them, and put back (with the records) when it does not.
    async fn take(
        self,
        journal: &RecordJournal,
        provider: &dyn Provider,
        estate: &Estate,
        refusals: &Refusals<'_>,
    ) -> Result<OwnershipOutcome, OwnershipOutcome> {
        let (address, id) = (self.address, self.id);
        let taking = Taking {
            address,
            object: id,
            taggable: true,
            code: Code::AdoptRefused,
            subject: refusals.0,
            taken: AdoptRefusal::AlreadyBound.to_string(),
        };
        let claim = taking.take(journal, provider, estate).await?;
        // The records first: a record written for an object whose tags then fail to change is harmless (a
        // located object without this estate's tag is not taken as owned, and a raised high-water mark only
        // skips a slot), while tags written without the records would lose the object.
        let located =
            match write_adopted(journal, self.schema, address, self.target, self.slot).await {
                Ok(located) => located,
                Err(e) => {
                    return Err(taking
                        .give_back(journal, claim, refusals.conflict(&e))
                        .await);
                }
            };
        let change = TagChange {
            set: self.set,
            remove: Default::default(),
        };
        if let Err(e) = provider
            .update_tags(&Call::unrecorded(), address.type_name(), id, change)
            .await
        {
            // Best effort: the record is harmless without the tags, but it would name a foreign object.
            if let Some(key) = located {
                let _ = journal.delete(&key).await;
            }
            return Err(taking.give_back(journal, claim, refusals.fail(&e)).await);
        }
        claim::settle(journal, claim, id).await;
        Ok(OwnershipOutcome {
            id: Some(id.to_owned()),
            diagnostics: Vec::new(),
        })
    }
}

/// How adopt words its refusals of `.0` (the address asked for).
struct Refusals<'a>(&'a str);

impl Refusals<'_> {
    fn refuse(&self, refusal: AdoptRefusal) -> OwnershipOutcome {
        OwnershipOutcome::refused(
            Code::AdoptRefused,
            refusal.to_string(),
            &refusal.detail(),
            self.0,
        )
    }

    fn refuse_with(&self, summary: String) -> OwnershipOutcome {
        OwnershipOutcome::refused(Code::AdoptRefused, summary, "nothing was changed", self.0)
    }

    fn fail(&self, e: &dyn std::fmt::Display) -> OwnershipOutcome {
        OwnershipOutcome::refused(
            Code::AdoptRefused,
            format!("could not read the live system: {e}"),
            "retry later; nothing was changed",
            self.0,
        )
    }

    fn configuration_errors(&self, linted: &admission::Linted) -> OwnershipOutcome {
        let mut outcome = self.refuse_with("the configuration has errors".to_owned());
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
        outcome
    }

    fn conflict(&self, e: &RecordError) -> OwnershipOutcome {
        let (code, detail) = if e.error.is_conflict() {
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
            format!("writing the record {} failed: {}", e.key, e.error),
            detail,
            self.0,
        )
    }
}

/// What the configuration and the catalog say of the address adopted.
struct AdoptView<'a> {
    address: &'a InstanceAddress,
    estate: Option<Estate>,
    declared: bool,
    schema: Option<&'a provider::ResourceTypeSchema>,
    /// The identity the configuration declares, for a client-named instance.
    identity: Option<String>,
    client_named: bool,
}

/// What the live system holds for the address adopted.
struct AdoptLive {
    /// The object to adopt: the one named by `--id`, else the one at the declared identity.
    target: Option<LiveObject>,
    /// The object at the declared identity.
    at_identity: Option<LiveObject>,
    /// Whether another object of this estate already carries the address.
    already_bound: bool,
}

impl<'a> AdoptView<'a> {
    fn new(
        linted: &'a admission::Linted,
        catalog: &'a provider::Catalog,
        address: &'a InstanceAddress,
    ) -> AdoptView<'a> {
        let declared = linted.instances.iter().find(|d| &d.address == address);
        let schema = catalog.get(address.type_name());
        let identity = declared.and_then(|d| match d.identity.first() {
            Some((_, admission::IdentityValue::Static(v))) => v.peel().as_str().map(str::to_owned),
            _ => None,
        });
        AdoptView {
            address,
            estate: linted.estate.as_deref().and_then(|e| Estate::new(e).ok()),
            declared: declared.is_some(),
            schema,
            identity,
            client_named: schema.and_then(|s| s.admission) == Some(AdmissionPath::ClientNamed),
        }
    }

    /// Reads the object at the declared identity, the object to adopt, and whether the address is
    /// already bound; a refusal when the live system cannot be read.
    async fn read_live(
        &self,
        provider: &dyn Provider,
        request: &AdoptRequest<'_>,
    ) -> Result<AdoptLive, OwnershipOutcome> {
        let fail = |e: &dyn std::fmt::Display| Refusals(&request.address.to_string()).fail(e);
        let mut live = AdoptLive {
            target: None,
            at_identity: None,
            already_bound: false,
        };
        let (Some(estate), Some(schema)) = (&self.estate, self.schema) else {
            return Ok(live);
        };
        let type_name = self.address.type_name();
        if self.client_named
            && let Some(name) = &self.identity
        {
            let identity = Identity::Name(name.clone());
            live.at_identity = provider
                .read(&Call::unrecorded(), type_name, &identity)
                .await
                .map_err(|e| fail(&e))?;
        }
        live.target = match request.id {
            Some(id) => provider
                .read_by_id(&Call::unrecorded(), type_name, id)
                .await
                .map_err(|e| fail(&e))?,
            None => live.at_identity.clone(),
        };
        if schema.taggable
            && let Ok(escaped) = marker::escape_address(self.address)
        {
            let objs = marked(provider, estate, type_name, &escaped)
                .await
                .map_err(|e| fail(&e))?;
            live.already_bound = objs
                .iter()
                .any(|o| live.target.as_ref().is_none_or(|t| t.id != o.id));
        }
        Ok(live)
    }

    /// The facts of the check, the declaration taken as matching until the projection tells.
    fn facts(&self, live: &AdoptLive, request: &AdoptRequest<'_>) -> AdoptFacts {
        AdoptFacts {
            estate: self.estate.clone(),
            declared: self.declared,
            admission: self.schema.and_then(|s| s.admission),
            id_given: request.id.is_some(),
            taggable: self.schema.is_some_and(|s| s.taggable),
            already_bound: live.already_bound,
            target: match &self.estate {
                Some(e) => at_address(e, live.target.as_ref(), Vec::new()),
                None => ObjectAtAddress::Nothing,
            },
            declaration: DeclarationMatch::Matches,
        }
    }

    /// Whether `target` is what the configuration declares: the object at the declared identity of a
    /// client-named instance, else one of the plan's bind candidates (the ambiguous matches included:
    /// naming one with --id is the choice the plan could not make).
    fn declaration(
        &self,
        at_identity: &Option<LiveObject>,
        projected: &Projection,
        target: &LiveObject,
    ) -> DeclarationMatch {
        if self.client_named {
            return match (&self.identity, at_identity) {
                (_, Some(o)) if o.id == target.id => DeclarationMatch::Matches,
                (Some(name), _) => DeclarationMatch::OtherIdentity {
                    declared: name.clone(),
                },
                (None, _) => DeclarationMatch::OtherIdentity {
                    declared: "(not static)".to_owned(),
                },
            };
        }
        let candidate = projected
            .bind_candidates
            .iter()
            .chain(&projected.ambiguous_candidates)
            .any(|c| &c.address == self.address && c.id == target.id);
        if candidate {
            DeclarationMatch::Matches
        } else {
            DeclarationMatch::NotACandidate
        }
    }
}

/// Whether the projection could not see the address's type (or the instance) completely.
fn incomplete(projected: &Projection, address: &InstanceAddress) -> bool {
    projected.withheld_types.contains(address.type_name())
        || projected.instance(address).is_some_and(|s| {
            s.binding == Binding::Withheld(projection::Withheld::DiscoveryIncomplete)
        })
}

/// Writes the records of an adopted object: the slot high-water mark of its count block, and its
/// `located` record (whose key comes back, to roll it back when the tags cannot be written).
async fn write_adopted(
    journal: &RecordJournal,
    schema: &provider::ResourceTypeSchema,
    address: &InstanceAddress,
    target: &LiveObject,
    slot: Option<Slot>,
) -> Result<Option<String>, RecordError> {
    if let Some(slot) = slot {
        journal.raise_slots(address.block(), slot).await?;
    }
    match located_record(schema, target, &BTreeMap::new()) {
        Some(located) => Ok(journal
            .write_located(address, located)
            .await?
            .map(|(key, _)| key)),
        None => Ok(None),
    }
}

/// The slot an adopted count member gets (`None` outside a taggable count block): the one the projection
/// minted for it, as a plan shows on its create, else (a member blocked at its client-named identity gets
/// none there) the next above every slot of the block, live, minted or recorded, so that none is reused.
fn count_slot(
    projected: &Projection,
    schema: &provider::ResourceTypeSchema,
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

/// Renames: claims NEW, then rewrites the address marker of the one live object of this estate at OLD to
/// NEW (tags only) and moves OLD's records to NEW with compare-and-swap. Refusals come back as
/// `mv-refused`.
#[tracing::instrument(skip_all, fields(old = %request.old, new = %request.new), err)]
pub(crate) async fn mv(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    catalog: &Catalog,
    store: Arc<dyn Store>,
    request: &MvRequest<'_>,
) -> Result<OwnershipOutcome, crate::Error> {
    let old = request.old.clone();
    let new = request.new.clone();
    let old_text = old.to_string();
    let (_, linted, _) =
        crate::data::check_with_data(&config.sources, catalog, provider, &config.retry).await;
    let estate = linted.estate.as_deref().and_then(|e| Estate::new(e).ok());
    let refuse = |summary: String| {
        OwnershipOutcome::refused(Code::MvRefused, summary, "nothing was changed", &old_text)
    };
    let taggable = catalog.get(old.type_name()).is_some_and(|s| s.taggable);
    // Every read and the tags-only update of the rename go through one retrying decorator.
    let retried = Retrying::new(provider, &config.retry);
    let found = match &estate {
        Some(e) => match find_old(config, &retried, &store, e, taggable, &old, &new).await? {
            Ok(found) => found,
            Err(summary) => return Ok(refuse(summary)),
        },
        None => Found::default(),
    };
    let facts = RenameFacts {
        estate: estate.clone(),
        old: old.clone(),
        new: new.clone(),
        at_old: found.at_old,
        new_claimed: found.new_claimed,
        new_declared: linted.instances.iter().any(|d| d.address == new),
        allow_missing_config: request.options.allow_missing_config,
    };
    let id = match check_rename(&facts) {
        Ok(id) => id,
        Err(refusal) => return Ok(refuse(refusal.to_string())),
    };
    let Some(estate) = estate else {
        return Ok(refuse("no estate name".to_owned()));
    };
    if request.options.dry_run {
        return Ok(OwnershipOutcome {
            id: Some(id),
            diagnostics: Vec::new(),
        });
    }
    let journal = RecordJournal::new(
        &store,
        RecordKeys::new(config.key_prefix, &estate)?,
        BTreeMap::new(),
        provider.lineage(),
    )
    .with_clock(Arc::clone(&config.clock));
    let rename = Rename {
        old: &old,
        new: &new,
        id: &id,
        object: found.object.as_ref(),
        taggable,
        record_backed: catalog.get(old.type_name()).and_then(|s| s.admission)
            == Some(AdmissionPath::Record),
    };
    Ok(rename.run(&journal, &retried, &estate).await)
}

/// What is at OLD and NEW before a rename.
struct Found {
    /// This estate's object (or objects) at OLD.
    at_old: ObjectAtAddress,
    /// Whether NEW already has an object or a record of this estate.
    new_claimed: bool,
    /// The live object at OLD, for a taggable type: the one to retag.
    object: Option<LiveObject>,
}

impl Default for Found {
    fn default() -> Found {
        Found {
            at_old: ObjectAtAddress::Nothing,
            new_claimed: false,
            object: None,
        }
    }
}

/// Finds what this estate has at OLD and NEW: for a taggable type the live objects carrying either
/// address, else the records (an untaggable object is ours through its `located` record, a record-backed
/// one is its record). `Err` with the summary of a refusal.
async fn find_old(
    config: &PlanRequest<'_>,
    provider: &dyn Provider,
    store: &Arc<dyn Store>,
    estate: &Estate,
    taggable: bool,
    old: &InstanceAddress,
    new: &InstanceAddress,
) -> Result<Result<Found, String>, crate::Error> {
    let mut found = Found::default();
    if taggable && old.type_name() == new.type_name() {
        let (Ok(eo), Ok(en)) = (marker::escape_address(old), marker::escape_address(new)) else {
            return Ok(Err("the address does not fit in a marker".to_owned()));
        };
        let unreadable = |err: ProviderError| format!("could not read the live system: {err}");
        let olds = match marked(provider, estate, old.type_name(), &eo).await {
            Ok(o) => o,
            Err(err) => return Ok(Err(unreadable(err))),
        };
        let news = match marked(provider, estate, new.type_name(), &en).await {
            Ok(o) => o,
            Err(err) => return Ok(Err(unreadable(err))),
        };
        found.new_claimed = !news.is_empty();
        found.at_old = at_address(estate, None, olds.iter().collect());
        found.object = olds.into_iter().next();
    } else if !taggable {
        let journal = RecordJournal::new(
            store,
            RecordKeys::new(config.key_prefix, estate)?,
            BTreeMap::new(),
            provider.lineage(),
        )
        .with_clock(Arc::clone(&config.clock));
        for ns in [Namespace::Located, Namespace::Records] {
            let key = journal.keys().instance(ns, old);
            match journal.read(&key).await.map_err(|e| e.error)? {
                Some(RecordBody::Located(located)) => {
                    found.at_old = ObjectAtAddress::Ours { id: located.id };
                }
                Some(RecordBody::Object(object)) => {
                    found.at_old = ObjectAtAddress::Ours { id: object.id };
                }
                _ => {}
            }
            let new_key = journal.keys().instance(ns, new);
            found.new_claimed |= journal
                .fetch(&new_key)
                .await
                .map_err(|e| e.error)?
                .is_some();
        }
    }
    Ok(Ok(found))
}
