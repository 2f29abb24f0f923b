//! Discovery and binding: the reads of one plan, in bulk first, and the verdicts that turn what they
//! found into a [`Projection`].
//!
//! A run keeps what it read apart from what it decided. The evidence (listings, sweep hits, inline
//! children, records) is gathered first and then only read; each admission path is a function from
//! that evidence, and the fixed scope of the run, to bindings in the verdicts, asking the provider
//! through one reader only for the reads its verdicts need. The stages run in the order below; a later
//! one reads the bindings of the earlier ones.
//!
//! This module never writes: no create, update, delete or tag call, and no store write. It never binds
//! a foreign, malformed, colliding or other estate's object as owned.
//!
//! # The scope (`scope.rs`)
//!
//! The estate, the declared model grouped by block, the catalog and the [`ProjectionConfig`]; a
//! declared type no admission path takes is an error before any call.
//!
//! # The first stage (`fetch.rs`)
//!
//! One pool of calls: the tagging sweep over `tofu-estate = E`, one unfiltered listing per declared
//! marker-path type and one bulk listing per declared client-named type the tagging index covers, each
//! page by page, and beside them the single reads whose inputs need no bulk answer (a client-named
//! identity no listing covers, an identity a listing shows absent, a parent-derived child of a
//! client-named parent the listing or read has shown). The records are read in one bulk trip
//! meanwhile. Calls run concurrently up to `read_concurrency`; throttling and server errors are retried
//! by one [`Retrying`] decorator built from the [`RetryConfig`]; a call that still fails is `discovery-incomplete` and withholds what depends
//! on it. Every later read goes through the same reader, which answers a read the first stage made
//! without calling again. `fetch.rs` is the only file that calls the provider.
//!
//! # The evidence (`evidence.rs`)
//!
//! The answers indexed for the lookups binding makes: listings by type and identity, sweep tags,
//! inline children by identity and by id, the records' objects by type and id.
//!
//! # Classification (`classify.rs`)
//!
//! The failed calls withhold their types; every object of a listing that carries tags is sorted by its
//! markers into claims, foreign objects, other estates' objects and malformed ones.
//!
//! # Path 1, client-named (`client_named.rs`)
//!
//! The object at each declared identity, from the bulk pages where they say enough, else from one
//! read; `classify.rs` judges it (bound, blocked, withheld). Count members' slots ride along.
//!
//! # Path 2, marker (`marker.rs`)
//!
//! Declared marker-path instances take the claims on their address; count blocks bind through slots.
//!
//! # Path 3, parent-derived (`parent_derived.rs`)
//!
//! Children whose identity is their parents' ids, in dependency order, from the parents' inline
//! answers or one read each.
//!
//! # Path 4, list-and-match (`list_match.rs`)
//!
//! One listing under each parent, bound by content; identical siblings are one fungible set.
//!
//! # The record path (`record.rs`)
//!
//! Instances whose record is the object.
//!
//! # Confirmation (`sweep.rs`)
//!
//! Single reads for the remaining exceptions: a sweep hit or `located` record to confirm before it
//! counts as owned-undeclared, a deposed object no listing showed; then the claims no instance took.
//!
//! # Reports (`reports.rs`)
//!
//! Create intents, bind candidates among the foreign objects, rename hints among the owned-undeclared.
//!
//! # Diagnostics (`diagnostics.rs`)
//!
//! Every stage records its findings as data in the verdicts (`verdicts.rs`); [`project()`] turns them
//! into diagnostics, with their prose written in one place, when it finishes the [`Projection`].

mod classify;
mod client_named;
mod diagnostics;
mod evidence;
mod fetch;
mod list_match;
mod marker;
mod parent_derived;
mod record;
mod reports;
mod scope;
mod sweep;
mod verdicts;

use std::collections::BTreeMap;

use admission::marker::Estate;
use provider::Catalog;
use provider::{CallCounts, Provider};
use staterecord::Store;

use self::diagnostics::Finding;
use self::evidence::Evidence;
use self::fetch::Reader;
use self::scope::Scope;
use self::verdicts::Verdicts;
use crate::declared::Declared;
use crate::error::ProjectionError;
use crate::output::{BindCandidate, Cost, ForeignObject, Projection, RenameHint};
use crate::record::{RecordKeys, load_records_for, marked_attributes};
use crate::retry::RetryConfig;
#[cfg(doc)]
use crate::retry::Retrying;

// Public, and hidden from the docs, only so that the crate's integration tests can check it against
// every escaped form of an address.
#[doc(hidden)]
pub use self::marker::marks;

/// How long a `pending` create intent keeps its instance from being planned (another apply may be
/// creating it right now), in seconds.
pub const INTENT_PATIENCE_SECS: u64 = 600;

/// The knobs of one projection.
#[derive(Debug, Clone)]
pub struct ProjectionConfig {
    /// Reads and listings in flight at once (at least 1; the CLI's `--read-concurrency`, default 16).
    pub read_concurrency: usize,
    /// How throttled and failed calls are retried.
    pub retry: RetryConfig,
    /// "Now", in seconds since the Unix epoch, for the age of create intents.
    pub now: u64,
    /// The record key prefix (empty, or ending with `/`).
    pub key_prefix: String,
}

impl ProjectionConfig {
    /// The defaults (16 reads in flight, the default retry policy, no key prefix) at time `now`.
    pub fn at(now: u64) -> ProjectionConfig {
        ProjectionConfig {
            read_concurrency: 16,
            retry: RetryConfig::default(),
            now,
            key_prefix: String::new(),
        }
    }
}

/// Builds the projection of `declared` for `estate`: reads the records from `store` (pass the plan's
/// [`RunCache`](staterecord::RunCache)) and the live system through `provider`, and binds them.
/// `catalog` is every type the plan knows: the provider's schemas and the record-backed types.
///
/// Nothing is written anywhere. Findings are diagnostics in the result; only an unreadable record store
/// or a declared model that breaks its own rules is an error. The cost reported is what this projection's
/// own calls reported to its recorder, however many other callers share `provider` meanwhile; pass the
/// provider itself, not one wrapped in a retrying decorator (the projection retries with `config.retry`).
#[tracing::instrument(skip_all, fields(estate = %estate), err)]
pub async fn project(
    provider: &dyn Provider,
    catalog: &Catalog,
    store: &dyn Store,
    estate: &Estate,
    declared: &Declared,
    config: &ProjectionConfig,
) -> Result<Projection, ProjectionError> {
    // Every call of this projection reports its attempts here, and nothing else does.
    let counts = CallCounts::new();
    let keys = RecordKeys::new(&config.key_prefix, estate)?;
    let scope = Scope::new(estate, declared, catalog, config, provider.region())?;
    let mut reader = Reader::new(provider, &counts, estate, config);
    // The records and the first stage of discovery need nothing of each other: the one store trip runs
    // while the listings wait for their answers.
    let (bulk, records) = futures::join!(
        reader.fetch_bulk(&scope),
        load_records_for(store, &keys, || provider.lineage())
    );
    let (mut evidence, failures) = Evidence::new(&scope, bulk, records?);
    let mut verdicts = Verdicts::new(scope.catalog);
    classify::withhold_unread(&scope, &evidence, failures, &mut verdicts);
    classify::classify_listed(&scope, &mut evidence, &mut verdicts);
    // Classification took the objects it sorted; from here on the evidence is only read.
    let evidence = evidence;
    client_named::bind_client_named(&scope, &evidence, &mut verdicts, &mut reader).await?;
    marker::bind_marker_blocks(&scope, &evidence, &mut verdicts);
    parent_derived::bind_parent_derived(&scope, &evidence, &mut verdicts, &mut reader).await?;
    list_match::bind_list_match(&scope, &evidence, &mut verdicts, &reader).await?;
    record::bind_record_backed(&scope, &evidence, &mut verdicts);
    sweep::confirm_owned(&scope, &evidence, &mut verdicts, &mut reader).await;
    sweep::report_unclaimed(&scope, &mut verdicts);
    reports::apply_intents(&scope, &evidence, &mut verdicts);
    let candidates = reports::bind_candidates(&scope, &mut verdicts);
    let rename_hints = reports::rename_hints(&scope, &mut verdicts);
    let calls = counts.snapshot();
    Ok(finish(
        &scope,
        evidence,
        verdicts,
        calls,
        candidates,
        rename_hints,
    ))
}

/// The projection of the verdicts, every report sorted, the findings turned into diagnostics after the
/// records' own, and each instance given its residue.
fn finish(
    scope: &Scope<'_>,
    evidence: Evidence,
    verdicts: Verdicts<'_>,
    api_calls_by_operation: BTreeMap<String, u64>,
    (mut bind_candidates, mut ambiguous_candidates): (Vec<BindCandidate>, Vec<BindCandidate>),
    mut rename_hints: Vec<RenameHint>,
) -> Projection {
    let Verdicts {
        mut instances,
        foreign_pool,
        findings,
        mut unowned,
        mut owned_undeclared,
        mut deposed,
        other_estates,
        withheld_types,
        ..
    } = verdicts;
    let mut records = evidence.records;
    for (address, state) in &mut instances {
        if let Some(r) = records.residue.get(address) {
            state.residue = marked_attributes(&r.body.values, &r.body.sensitive_paths);
        }
    }
    let mut foreign: Vec<ForeignObject> = foreign_pool
        .into_iter()
        .map(|o| ForeignObject {
            type_name: o.type_name,
            id: o.id,
            tags: o.tags,
        })
        .collect();
    foreign.sort();
    foreign.dedup();
    bind_candidates.sort();
    ambiguous_candidates.sort();
    rename_hints.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    unowned.sort();
    owned_undeclared.sort_by(|a, b| (&a.address, &a.id).cmp(&(&b.address, &b.id)));
    deposed.sort();
    deposed.dedup();
    let mut diagnostics = std::mem::take(&mut records.diagnostics);
    diagnostics.extend(findings.into_iter().map(Finding::into_diagnostic));
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    diagnostics.dedup();
    let cost = Cost {
        api_calls: api_calls_by_operation.values().sum(),
        api_calls_by_operation,
        store_trips: records.store_trips,
        store_requests: records.store_requests,
        api_calls_by_region: BTreeMap::new(),
    };
    Projection {
        estate: scope.estate.clone(),
        region: scope.region.clone(),
        instances,
        foreign,
        bind_candidates,
        ambiguous_candidates,
        unowned,
        owned_undeclared,
        rename_hints,
        deposed,
        other_estates,
        withheld_types,
        diagnostics,
        records,
        cost,
    }
}
