//! Discovery and binding: the reads of one plan, in bulk first, and the verdicts that turn what they
//! found into a [`Projection`].
//!
//! The first stage is one pool of calls: the tagging sweep over `tofu-estate = E`, one unfiltered listing
//! per declared marker-path type and one bulk listing per declared client-named type the tagging index
//! covers, each page by page, and beside them the single reads whose inputs need no bulk answer (a
//! client-named identity no listing covers, an identity a listing shows absent, a parent-derived child of a
//! client-named parent the listing or read has shown). The records are read in one bulk trip meanwhile.
//! Then single reads only for the remaining exceptions (a client-named identity the bulk answer shows
//! unowned or untagged; a sweep hit or `located` record to confirm before it counts as owned-undeclared; a
//! parent-derived child whose parent is known only after binding). Calls run concurrently up to
//! `read_concurrency`; throttling and server errors are retried by the [`RetryPolicy`]; a call that still
//! fails is `discovery-incomplete` and withholds what depends on it.
//!
//! This module never writes: no create, update, delete or tag call, and no store write. It never binds a
//! foreign, malformed, colliding or other estate's object as owned.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::task::Poll;

use admission::address::{BlockAddress, InstanceAddress, InstanceKey};
use admission::catalog::Catalog;
use admission::diag::{Code, Diagnostic};
use admission::marker::{
    self, CountBinding, CountMember, CountSetError, ESTATE_TAG, Estate, MalformedReason, Ownership,
    SLOT_TAG, Slot, SlotMarker,
};
use admission::path::AdmissionPath;
use admission::provider::{
    Identity, ListPage, ListRequest, LiveObject, ParentScope, Provider, ProviderError, TagFilter,
    TagQuery, TaggedPage, TaggedResource,
};
use admission::schema::{BindMatch, ResourceTypeSchema};
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use staterecord::Store;
use tracing::Instrument;

use crate::declared::{Declared, DeclaredValue, Expansion};
use crate::error::ProjectionError;
use crate::output::{
    BindCandidate, Binding, Cost, DeposedObject, ForeignObject, InstanceState, OwnedUndeclared,
    Projection, Removal, RenameHint, Repair, UndeclaredAction, UnownedObject, Withheld, shell_word,
};
use crate::record::{RecordKeys, RecordSet, load_records, marked_attributes};
use crate::retry::RetryPolicy;
use crate::verdict::Verdict;

/// How long a `pending` create intent keeps its instance from being planned (another apply may be
/// creating it right now), in seconds.
pub const INTENT_PATIENCE_SECS: u64 = 600;

/// The knobs of one projection.
#[derive(Debug, Clone)]
pub struct ProjectionConfig {
    /// Reads and listings in flight at once (at least 1; the CLI's `--read-concurrency`, default 16).
    pub read_concurrency: usize,
    /// How throttled and failed calls are retried.
    pub retry: RetryPolicy,
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
            retry: RetryPolicy::default(),
            now,
            key_prefix: String::new(),
        }
    }
}

/// Builds the projection of `declared` for `estate`: reads the records from `store` (pass the plan's
/// [`RunCache`](staterecord::RunCache)) and the live system through `provider`, and binds them.
///
/// Nothing is written anywhere. Findings are diagnostics in the result; only an unreadable record store
/// or a declared model that breaks its own rules is an error.
#[tracing::instrument(skip_all, fields(estate = %estate), err)]
pub async fn project(
    provider: &dyn Provider,
    store: &dyn Store,
    estate: &Estate,
    declared: &Declared,
    config: &ProjectionConfig,
) -> Result<Projection, ProjectionError> {
    let calls_before = provider.api_calls();
    let keys = RecordKeys::new(&config.key_prefix, estate)?;
    let catalog = provider.schemas().merged(admission::catalog::builtin());
    let by_block: BTreeMap<BlockAddress, Vec<InstanceAddress>> = declared
        .blocks()
        .map(|(block, expansion)| (block.clone(), declared.members(block, expansion).collect()))
        .collect();
    // The blocks in order and their members in order: the first address of an unsupported type.
    for (block, addresses) in &by_block {
        if let Some(first) = addresses.first()
            && catalog
                .get(block.type_name())
                .and_then(|s| s.admission)
                .is_none()
        {
            return Err(ProjectionError::UnsupportedType {
                address: first.to_string(),
                type_name: block.type_name().to_owned(),
            });
        }
    }
    let mut run = Run {
        provider,
        estate,
        declared,
        catalog,
        config,
        region: provider.region(),
        records: RecordSet::default(),
        listings: BTreeMap::new(),
        failed_types: BTreeSet::new(),
        sweep: None,
        sweep_index: HashMap::new(),
        children: Vec::new(),
        children_index: HashMap::new(),
        children_by_id: HashMap::new(),
        by_block,
        deposed_index: HashMap::new(),
        located_index: HashMap::new(),
        instances: BTreeMap::new(),
        consumed: Consumed::default(),
        claims: BTreeMap::new(),
        foreign_pool: Vec::new(),
        diags: Vec::new(),
        unowned: Vec::new(),
        owned_undeclared: Vec::new(),
        deposed: Vec::new(),
        other_estates: BTreeMap::new(),
        withheld_types: BTreeSet::new(),
        prefetched: HashMap::new(),
    };
    // The records and the first stage of discovery need nothing of each other: the one store trip runs
    // while the listings wait for their answers.
    let ((), records) = futures::join!(run.fetch_bulk(), load_records(store, &keys));
    run.records = records?;
    run.index_records();
    run.classify_listed();
    run.bind_client_named().await?;
    run.bind_marker_blocks();
    run.bind_parent_derived().await?;
    run.bind_list_match().await?;
    run.bind_record_backed();
    run.confirm_owned().await;
    run.report_unclaimed();
    run.apply_intents();
    let candidates = run.bind_candidates();
    let rename_hints = run.rename_hints();
    run.finish(calls_before, candidates, rename_hints)
}

#[derive(Debug, Default)]
struct Listing {
    objects: Vec<LiveObject>,
    tags_included: bool,
    /// Position of each object by id and by its client-named identity value.
    index: HashMap<String, usize>,
}

impl Listing {
    fn build_index(&mut self, identity_argument: Option<&str>) {
        self.index.clear();
        for (i, o) in self.objects.iter().enumerate() {
            if let Some(v) = identity_argument.and_then(|arg| o.attribute_str(arg)) {
                self.index.entry(v.to_owned()).or_insert(i);
            }
            self.index.insert(o.id.clone(), i);
        }
    }

    fn get(&self, id_or_identity: &str) -> Option<&LiveObject> {
        self.index.get(id_or_identity).map(|&i| &self.objects[i])
    }
}

#[derive(Debug)]
struct Claim {
    object: LiveObject,
    slot: SlotMarker,
}

/// One call of the first stage of discovery.
enum Job {
    Sweep(TagQuery),
    List(ListRequest),
    Read(ReadRequest),
}

/// A call of the first stage with its answer.
enum Done {
    Sweep(TagQuery, Result<TaggedPage, ProviderError>),
    List(ListRequest, Result<ListPage, ProviderError>),
    Read(ReadRequest, Result<Option<LiveObject>, ProviderError>),
}

/// The single reads the first stage makes beside the listings, and what each waits for.
#[derive(Default)]
struct Prefetch {
    /// Reads whose inputs are known and that are not queued yet.
    ready: Vec<ReadRequest>,
    /// Every read queued so far, so that none is made twice.
    asked: HashSet<ReadRequest>,
    /// Declared client-named identities of each listed type: (name, address).
    after_listing: HashMap<String, Vec<(String, InstanceAddress)>>,
    /// The client-named instances each queued read finds, to release their children when it answers.
    read_parents: HashMap<ReadRequest, Vec<InstanceAddress>>,
    /// Parent-derived children waiting for their client-named parents.
    children: Vec<PendingChild>,
    /// The children waiting for each parent, by position in `children`.
    by_parent: HashMap<InstanceAddress, Vec<usize>>,
}

impl Prefetch {
    /// Makes `read` ready unless it was asked already; `parent` is the client-named instance it finds, if
    /// any, whose children its answer releases.
    fn ask(&mut self, read: ReadRequest, parent: Option<InstanceAddress>) {
        if let Some(parent) = parent {
            self.read_parents
                .entry(read.clone())
                .or_default()
                .push(parent);
        }
        if self.asked.insert(read.clone()) {
            self.ready.push(read);
        }
    }

    /// `parent` is live with `id`: every child that waited only for it is made ready for its read.
    fn observed(&mut self, parent: &InstanceAddress, id: &str) {
        for i in self.by_parent.remove(parent).unwrap_or_default() {
            let child = &mut self.children[i];
            child.waiting.retain(|argument, p| {
                if p == parent {
                    child.parts.insert(argument.clone(), id.to_owned());
                    false
                } else {
                    true
                }
            });
            if child.waiting.is_empty() {
                let read = child.read();
                self.ask(read, None);
            }
        }
    }
}

/// A parent-derived child's identity, as far as its parents are known.
struct PendingChild {
    type_name: String,
    parts: BTreeMap<String, String>,
    /// The identity arguments still waiting for a parent's id.
    waiting: BTreeMap<String, InstanceAddress>,
}

impl PendingChild {
    fn read(&self) -> ReadRequest {
        ReadRequest::Identity(
            self.type_name.clone(),
            Identity::Composite(self.parts.clone()),
        )
    }
}

/// The object a listing shows at the client-named identity `name`: the one whose id, or whose identity
/// argument, is `name`.
fn find_named<'l>(
    listing: &'l Listing,
    argument: Option<&str>,
    name: &str,
) -> Option<&'l LiveObject> {
    listing
        .get(name)
        .filter(|o| o.id == name || argument.is_some_and(|a| o.attribute_str(a) == Some(name)))
}

/// Records a failed call on the span that made it, as `#[instrument(err)]` would.
fn record_error(span: &tracing::Span, error: &ProviderError) {
    span.in_scope(|| tracing::error!(error = %error));
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ReadRequest {
    Identity(String, Identity),
    Id(String, String),
}

enum Resolved {
    Parts(BTreeMap<String, String>),
    Waiting,
    Create,
    Withheld(InstanceAddress),
}

enum ConfirmSource {
    Sweep,
    Located(InstanceAddress),
    Deposed(InstanceAddress),
}

/// Declared list-and-match members under one (type, parent id), with their content (None: unknown).
type ContentGroups =
    BTreeMap<(String, String), Vec<(InstanceAddress, BTreeMap<String, Option<String>>)>>;

/// A whole listing of one type (its objects and the children they carry inline), or why it failed.
type Listed = Result<(Listing, Vec<LiveObject>), ProviderError>;

/// A listing answer per (type, parent id).
type ParentListings = Vec<(
    (String, String),
    Result<(Listing, Vec<LiveObject>), ProviderError>,
)>;

struct Run<'a> {
    provider: &'a dyn Provider,
    estate: &'a Estate,
    declared: &'a Declared,
    catalog: Catalog,
    config: &'a ProjectionConfig,
    region: String,
    records: RecordSet,
    listings: BTreeMap<String, Listing>,
    failed_types: BTreeSet<String>,
    sweep: Option<Vec<TaggedResource>>,
    sweep_index: HashMap<(String, String), usize>,
    children: Vec<LiveObject>,
    /// Inline children by (type, identity components in schema order).
    children_index: HashMap<(String, Vec<String>), usize>,
    children_by_id: HashMap<(String, String), usize>,
    /// Declared addresses, grouped by block (so that binding stays linear in the size of the estate).
    by_block: BTreeMap<BlockAddress, Vec<InstanceAddress>>,
    deposed_index: HashMap<(String, String), InstanceAddress>,
    located_index: HashMap<(String, String), InstanceAddress>,
    instances: BTreeMap<InstanceAddress, InstanceState>,
    consumed: Consumed,
    claims: BTreeMap<String, Vec<Claim>>,
    foreign_pool: Vec<LiveObject>,
    diags: Vec<Diagnostic>,
    unowned: Vec<UnownedObject>,
    owned_undeclared: Vec<OwnedUndeclared>,
    deposed: Vec<DeposedObject>,
    other_estates: BTreeMap<String, u64>,
    withheld_types: BTreeSet<String>,
    /// Answers of the reads the first stage made ahead of the binding step that needs them.
    prefetched: HashMap<ReadRequest, Result<Option<LiveObject>, ProviderError>>,
}

/// The values of a declared instance that has none of its own (a count member added by its count).
static NO_VALUES: BTreeMap<String, DeclaredValue> = BTreeMap::new();

/// The live objects already bound, reported or set aside, by type and then id: each is judged once.
/// Looked up by borrowed type and id, so asking costs no copy of either.
#[derive(Debug, Default)]
struct Consumed(HashMap<String, HashSet<String>>);

impl Consumed {
    fn insert(&mut self, object: &LiveObject) {
        self.insert_id(&object.type_name, &object.id);
    }

    fn insert_id(&mut self, type_name: &str, id: &str) {
        match self.0.get_mut(type_name) {
            Some(ids) => {
                if !ids.contains(id) {
                    ids.insert(id.to_owned());
                }
            }
            None => {
                self.0
                    .insert(type_name.to_owned(), HashSet::from([id.to_owned()]));
            }
        }
    }

    fn contains(&self, object: &LiveObject) -> bool {
        self.contains_id(&object.type_name, &object.id)
    }

    fn contains_id(&self, type_name: &str, id: &str) -> bool {
        self.0.get(type_name).is_some_and(|ids| ids.contains(id))
    }
}

fn key_of(object: &LiveObject) -> (String, String) {
    (object.type_name.clone(), object.id.clone())
}

impl<'a> Run<'a> {
    fn schema(&self, type_name: &str) -> &ResourceTypeSchema {
        self.catalog
            .get(type_name)
            .expect("every declared type was checked against the catalog")
    }

    fn admission(&self, type_name: &str) -> Option<AdmissionPath> {
        self.catalog.get(type_name).and_then(|s| s.admission)
    }

    /// The declared addresses of the types admitted on `path`, sorted.
    /// `address` with the parts of its block shared with the declared model (when the block is
    /// declared): looking it up in this run's maps then compares no text.
    fn canonical(&self, address: &InstanceAddress) -> InstanceAddress {
        match self.by_block.get_key_value(address.block()) {
            Some((block, _)) => block.instance(address.key().clone()),
            None => address.clone(),
        }
    }

    /// The identity values declared for `address` (none for a value-less count member).
    fn identity_of(&self, address: &InstanceAddress) -> &'a BTreeMap<String, DeclaredValue> {
        self.declared
            .values_of(address)
            .map_or(&NO_VALUES, |i| &i.identity)
    }

    fn addresses_on(&self, path: AdmissionPath) -> Vec<InstanceAddress> {
        self.by_block
            .iter()
            .filter(|(block, _)| self.admission(block.type_name()) == Some(path))
            .flat_map(|(_, addresses)| addresses.iter().cloned())
            .collect()
    }

    /// The records' objects by (type, id), once the records are read.
    fn index_records(&mut self) {
        for (address, record) in &self.records.deposed {
            for id in &record.body.ids {
                self.deposed_index.insert(
                    (address.type_name().to_owned(), id.clone()),
                    address.clone(),
                );
            }
        }
        for (address, record) in &self.records.located {
            self.located_index.insert(
                (address.type_name().to_owned(), record.body.id.clone()),
                address.clone(),
            );
        }
    }

    /// The inline child of `type_name` with `identity`, from the parents' listings.
    fn inline_child(
        &self,
        type_name: &str,
        arguments: &[String],
        identity: &Identity,
    ) -> Option<LiveObject> {
        let Identity::Composite(parts) = identity else {
            return None;
        };
        let values: Option<Vec<String>> = arguments.iter().map(|a| parts.get(a).cloned()).collect();
        let i = self.children_index.get(&(type_name.to_owned(), values?))?;
        self.children
            .get(*i)
            .filter(|c| identity.matches(arguments, c))
            .cloned()
    }

    /// The identity components of a live child, in its schema's order.
    fn child_key(&self, object: &LiveObject) -> Option<(String, Vec<String>)> {
        let schema = self.catalog.get(&object.type_name)?;
        let parts: Option<Vec<String>> = schema
            .identity
            .iter()
            .map(|arg| object.attribute_str(arg).map(str::to_owned))
            .collect();
        Some((object.type_name.clone(), parts?))
    }

    fn set(&mut self, address: &InstanceAddress, binding: Binding, slot: Option<Slot>) {
        let admission = self
            .admission(address.type_name())
            .unwrap_or(AdmissionPath::Marker);
        let residue = self
            .records
            .residue
            .get(address)
            .map(|r| marked_attributes(&r.body.values, &r.body.sensitive_paths))
            .unwrap_or_default();
        if let Binding::Bound { object, .. } = &binding {
            self.consumed.insert(object);
        }
        self.instances.insert(
            address.clone(),
            InstanceState {
                address: address.clone(),
                admission,
                binding,
                slot,
                residue,
                intent: None,
            },
        );
    }

    /// Reports a call that failed after retries; `what` names what could not be read.
    fn incomplete(&mut self, what: &str, address: Option<&InstanceAddress>, error: &ProviderError) {
        let mut d = Diagnostic::new(
            Code::DiscoveryIncomplete,
            format!("could not read {what}: {error}"),
            "The call failed after retries, so what it would have shown is unknown. Nothing that depends \
             on it is planned; fix the permission or wait for the API to recover, then plan again.",
        );
        if let Some(a) = address {
            d = d.with_address(a.to_string());
        }
        self.diags.push(d);
    }

    /// The span of one attempt of one provider call: what a user filters on to follow the reads of an
    /// estate, an operation or a type.
    fn call_span(&self, operation: &'static str, type_name: Option<&str>) -> tracing::Span {
        tracing::info_span!(
            "provider_call",
            estate = %self.estate,
            operation,
            type_name,
            identity = tracing::field::Empty,
        )
    }

    #[tracing::instrument(skip_all, fields(type_name = %request.type_name), err)]
    async fn list_all(
        &self,
        request: ListRequest,
    ) -> Result<(Listing, Vec<LiveObject>), ProviderError> {
        let mut request = request;
        let mut listing = Listing::default();
        let mut children = Vec::new();
        loop {
            let page = self
                .config
                .retry
                .run(|| {
                    let span = self.call_span("list", Some(&request.type_name));
                    self.provider.list(request.clone()).instrument(span)
                })
                .await?;
            listing.tags_included = page.tags_included;
            listing.objects.extend(page.objects);
            children.extend(page.children);
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return Ok((listing, children)),
            }
        }
    }

    /// The first stage of discovery, as one pool of at most `read_concurrency` calls: the tagging sweep and
    /// every bulk listing, page after page, and beside them every single read whose inputs need no bulk
    /// answer (see [`Prefetch`]). The next page of a listing goes to the front of the queue, as it is on
    /// the longest chain of calls; a read goes to the back. Answers of reads wait in `prefetched` for the
    /// binding step that asks for them, which then makes no call of its own.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "bulk"))]
    async fn fetch_bulk(&mut self) {
        let mut types: BTreeSet<String> = BTreeSet::new();
        for type_name in self.declared.type_names() {
            let schema = self.schema(&type_name);
            match schema.admission {
                Some(AdmissionPath::Marker) => {
                    types.insert(type_name);
                }
                Some(AdmissionPath::ClientNamed) if schema.in_tagging_index => {
                    types.insert(type_name);
                }
                _ => {}
            }
        }
        let mut prefetch = self.prefetch_plan(&types);
        let mut queue: VecDeque<Job> = VecDeque::new();
        queue.push_back(Job::Sweep(TagQuery {
            tag_filters: vec![TagFilter::equals(ESTATE_TAG, self.estate.as_str())],
            type_names: Vec::new(),
            page_token: None,
        }));
        for type_name in &types {
            queue.push_back(Job::List(ListRequest::all(type_name.clone())));
        }
        let sweep_span = tracing::info_span!("sweep_all", estate = %self.estate);
        let list_spans: HashMap<String, tracing::Span> = types
            .iter()
            .map(|t| (t.clone(), tracing::info_span!("list_all", type_name = %t)))
            .collect();

        let mut sweep: Option<Result<Vec<TaggedResource>, ProviderError>> = None;
        let mut hits: Vec<TaggedResource> = Vec::new();
        let mut partial: HashMap<String, (Listing, Vec<LiveObject>)> = HashMap::new();
        let mut listed: Vec<(String, Listed)> = Vec::new();
        let mut prefetched = HashMap::new();
        {
            let this = &*self;
            let limit = this.config.read_concurrency.max(1);
            let mut running: FuturesUnordered<BoxFuture<'_, Done>> = FuturesUnordered::new();
            // Calls that answered on their first poll (no latency), in the order they were made.
            let mut answered: VecDeque<Done> = VecDeque::new();
            loop {
                // Reads made ready, by the plan or by the last answer, go behind what is queued.
                queue.extend(prefetch.ready.drain(..).map(Job::Read));
                while running.len() < limit {
                    let Some(job) = queue.pop_front() else { break };
                    let span = match &job {
                        Job::Sweep(_) => sweep_span.clone(),
                        Job::List(request) => list_spans
                            .get(&request.type_name)
                            .cloned()
                            .unwrap_or_else(tracing::Span::none),
                        Job::Read(_) => tracing::Span::current(),
                    };
                    // Polled once here, so the call starts now, not after the answers already in.
                    let mut call = this.call(job, span);
                    match futures::poll!(call.as_mut()) {
                        Poll::Ready(done) => answered.push_back(done),
                        Poll::Pending => running.push(call),
                    }
                }
                let done = match answered.pop_front() {
                    Some(done) => done,
                    None => match running.next().await {
                        Some(done) => done,
                        None => break,
                    },
                };
                match done {
                    Done::Sweep(mut query, Ok(page)) => {
                        hits.extend(page.resources);
                        match page.next_page_token {
                            Some(token) => {
                                query.page_token = Some(token);
                                queue.push_front(Job::Sweep(query));
                            }
                            None => sweep = Some(Ok(std::mem::take(&mut hits))),
                        }
                    }
                    Done::Sweep(_, Err(e)) => {
                        record_error(&sweep_span, &e);
                        sweep = Some(Err(e));
                    }
                    Done::List(mut request, Ok(page)) => {
                        let type_name = request.type_name.clone();
                        let entry = partial.entry(type_name.clone()).or_default();
                        entry.0.tags_included = page.tags_included;
                        entry.0.objects.extend(page.objects);
                        entry.1.extend(page.children);
                        if let Some(token) = page.next_page_token {
                            request.page_token = Some(token);
                            queue.push_front(Job::List(request));
                            continue;
                        }
                        let (mut listing, children) =
                            partial.remove(&type_name).unwrap_or_default();
                        let argument = this.schema(&type_name).identity.first().cloned();
                        listing.build_index(argument.as_deref());
                        for (name, parent) in prefetch
                            .after_listing
                            .remove(&type_name)
                            .unwrap_or_default()
                        {
                            match find_named(&listing, argument.as_deref(), &name) {
                                Some(object) => prefetch.observed(&parent, &object.id),
                                None => prefetch.ask(
                                    ReadRequest::Identity(type_name.clone(), Identity::Name(name)),
                                    Some(parent),
                                ),
                            }
                        }
                        listed.push((type_name, Ok((listing, children))));
                    }
                    Done::List(request, Err(e)) => {
                        if let Some(span) = list_spans.get(&request.type_name) {
                            record_error(span, &e);
                        }
                        partial.remove(&request.type_name);
                        listed.push((request.type_name, Err(e)));
                    }
                    Done::Read(request, answer) => {
                        if let Ok(Some(object)) = &answer {
                            for parent in prefetch.read_parents.remove(&request).unwrap_or_default()
                            {
                                prefetch.observed(&parent, &object.id);
                            }
                        }
                        prefetched.insert(request, answer);
                    }
                }
            }
        }
        self.prefetched = prefetched;

        let mut failures = Vec::new();
        match sweep {
            Some(Ok(hits)) => self.sweep = Some(hits),
            Some(Err(e)) => failures.push(("the tagging index".to_owned(), e)),
            None => {}
        }
        for (t, result) in listed {
            match result {
                Ok((listing, children)) => {
                    self.children.extend(children);
                    self.listings.insert(t, listing);
                }
                Err(e) => {
                    self.failed_types.insert(t.clone());
                    self.withheld_types.insert(t.clone());
                    failures.push((t, e));
                }
            }
        }
        failures.sort_by(|a, b| a.0.cmp(&b.0));
        for (what, e) in failures {
            self.incomplete(&what, None, &e);
        }
        if self.sweep.is_none() {
            // Only the sweep finds undeclared owned objects of these types: their removal is unknown.
            let swept: Vec<String> = self
                .catalog
                .iter()
                .filter(|s| s.in_tagging_index)
                .filter(|s| {
                    !self
                        .listings
                        .get(&s.type_name)
                        .is_some_and(|l| l.tags_included)
                })
                .map(|s| s.type_name.clone())
                .collect();
            self.withheld_types.extend(swept);
        }
        self.children.sort_by_key(key_of);
        for (i, child) in self.children.iter().enumerate() {
            self.children_by_id.insert(key_of(child), i);
            if let Some(key) = self.child_key(child) {
                self.children_index.entry(key).or_insert(i);
            }
        }
        if let Some(hits) = &self.sweep {
            for (i, hit) in hits.iter().enumerate() {
                self.sweep_index
                    .insert((hit.type_name.clone(), hit.id.clone()), i);
            }
        }
    }

    /// One call of the first stage, with its retries, inside `span`.
    fn call(&self, job: Job, span: tracing::Span) -> BoxFuture<'_, Done> {
        match job {
            Job::Sweep(query) => Box::pin(
                async move {
                    let page = self
                        .config
                        .retry
                        .run(|| {
                            let span = self.call_span("tagged_resources", None);
                            self.provider
                                .tagged_resources(query.clone())
                                .instrument(span)
                        })
                        .await;
                    Done::Sweep(query, page)
                }
                .instrument(span),
            ),
            Job::List(request) => Box::pin(
                async move {
                    let page = self
                        .config
                        .retry
                        .run(|| {
                            let span = self.call_span("list", Some(&request.type_name));
                            self.provider.list(request.clone()).instrument(span)
                        })
                        .await;
                    Done::List(request, page)
                }
                .instrument(span),
            ),
            Job::Read(request) => Box::pin(
                async move {
                    let answer = self.read_one(&request).await;
                    Done::Read(request, answer)
                }
                .instrument(span),
            ),
        }
    }

    /// Which single reads the first stage can make beside the listings: those of client-named identities
    /// whose type no bulk listing covers (known before any call), those a listing shows absent (known
    /// when that listing ends), and those of parent-derived children whose identity is literal or names
    /// client-named parents (known when each parent is seen). Each is the very read the binding step
    /// would make, so a converged plan makes no more calls than before, only sooner.
    fn prefetch_plan(&self, listed_types: &BTreeSet<String>) -> Prefetch {
        let mut prefetch = Prefetch::default();
        let known_name = |address: &InstanceAddress| -> Option<String> {
            let schema = self.catalog.get(address.type_name())?;
            let argument = schema.identity.first()?;
            match self.declared.values_of(address)?.identity.get(argument)? {
                DeclaredValue::Known(name) => Some(name.clone()),
                _ => None,
            }
        };
        for address in self.addresses_on(AdmissionPath::ClientNamed) {
            let Some(name) = known_name(&address) else {
                continue;
            };
            let type_name = address.type_name().to_owned();
            if listed_types.contains(&type_name) {
                prefetch
                    .after_listing
                    .entry(type_name)
                    .or_default()
                    .push((name, address));
            } else {
                prefetch.ask(
                    ReadRequest::Identity(type_name, Identity::Name(name)),
                    Some(address),
                );
            }
        }
        'child: for address in self.addresses_on(AdmissionPath::ParentDerived) {
            let type_name = address.type_name().to_owned();
            if self
                .schema(&type_name)
                .parent
                .as_ref()
                .is_some_and(|l| l.inline)
            {
                continue;
            }
            let identity = self.identity_of(&address);
            let mut child = PendingChild {
                type_name,
                parts: BTreeMap::new(),
                waiting: BTreeMap::new(),
            };
            for (argument, value) in identity {
                match value {
                    DeclaredValue::Known(s) => {
                        child.parts.insert(argument.clone(), s.clone());
                    }
                    DeclaredValue::IdOf(parent)
                        if self.declared.is_declared(parent)
                            && self.admission(parent.type_name())
                                == Some(AdmissionPath::ClientNamed)
                            && known_name(parent).is_some() =>
                    {
                        child.waiting.insert(argument.clone(), parent.clone());
                    }
                    _ => continue 'child,
                }
            }
            if child.waiting.is_empty() {
                prefetch.ask(child.read(), None);
                continue;
            }
            let i = prefetch.children.len();
            for parent in child.waiting.values() {
                prefetch
                    .by_parent
                    .entry(parent.clone())
                    .or_default()
                    .push(i);
            }
            prefetch.children.push(child);
        }
        prefetch
    }

    #[tracing::instrument(skip_all, err)]
    async fn read_one(&self, request: &ReadRequest) -> Result<Option<LiveObject>, ProviderError> {
        match request {
            ReadRequest::Identity(t, identity) => {
                self.config
                    .retry
                    .run(|| {
                        let span = self.call_span("read", Some(t));
                        span.record("identity", tracing::field::display(identity));
                        self.provider.read(t, identity).instrument(span)
                    })
                    .await
            }
            ReadRequest::Id(t, id) => {
                self.config
                    .retry
                    .run(|| {
                        let span = self.call_span("read_by_id", Some(t));
                        span.record("identity", id.as_str());
                        self.provider.read_by_id(t, id).instrument(span)
                    })
                    .await
            }
        }
    }

    /// Single reads, at most `read_concurrency` in flight, answers in request order. A read the first
    /// stage already made is answered from `prefetched`, without a call.
    async fn read_many(
        &mut self,
        requests: &[ReadRequest],
    ) -> Vec<Result<Option<LiveObject>, ProviderError>> {
        let mut answers: Vec<Option<Result<Option<LiveObject>, ProviderError>>> =
            requests.iter().map(|r| self.prefetched.remove(r)).collect();
        let this = &*self;
        let fetched: Vec<(usize, Result<Option<LiveObject>, ProviderError>)> =
            futures::stream::iter(
                answers
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.is_none())
                    .map(|(i, _)| i)
                    .collect::<Vec<_>>(),
            )
            .map(|i| async move { (i, this.read_one(&requests[i]).await) })
            .buffer_unordered(this.config.read_concurrency.max(1))
            .collect()
            .await;
        for (i, answer) in fetched {
            answers[i] = Some(answer);
        }
        answers
            .into_iter()
            .map(|a| a.expect("every request is answered, from the first stage or by its own read"))
            .collect()
    }

    fn deposed_address(&self, type_name: &str, id: &str) -> Option<InstanceAddress> {
        if self.deposed_index.is_empty() {
            return None;
        }
        self.deposed_index
            .get(&(type_name.to_owned(), id.to_owned()))
            .cloned()
    }

    /// Sorts every object of the listings that carry tags into claims, foreign objects, other estates'
    /// objects and malformed ones.
    ///
    /// Only the client-named binding reads a listing's objects again, so the objects of the other types
    /// move into their claims instead of being copied (their listing keeps its flags, not its objects).
    fn classify_listed(&mut self) {
        let mut listings = std::mem::take(&mut self.listings);
        for (type_name, listing) in &mut listings {
            if !listing.tags_included {
                continue;
            }
            if self.admission(type_name) == Some(AdmissionPath::ClientNamed) {
                for object in &listing.objects {
                    self.classify_object(type_name, Cow::Borrowed(object));
                }
            } else {
                listing.index.clear();
                for object in std::mem::take(&mut listing.objects) {
                    self.classify_object(type_name, Cow::Owned(object));
                }
            }
        }
        self.listings = listings;
    }

    /// Sorts one listed object of `type_name` (see [`Run::classify_listed`]).
    fn classify_object(&mut self, type_name: &str, object: Cow<'_, LiveObject>) {
        if let Some(address) = self.deposed_address(type_name, &object.id) {
            self.consumed.insert(&object);
            self.deposed.push(DeposedObject {
                address,
                type_name: type_name.to_owned(),
                id: object.id.clone(),
                present: true,
            });
            return;
        }
        match marker::ownership(self.estate, type_name, &object.tags) {
            Ownership::Owned {
                escaped_address,
                slot,
            } => self.claims.entry(escaped_address).or_default().push(Claim {
                object: object.into_owned(),
                slot,
            }),
            Ownership::Foreign => self.foreign_pool.push(object.into_owned()),
            Ownership::OtherEstate(e) => *self.other_estates.entry(e).or_insert(0) += 1,
            Ownership::Malformed(reason) => {
                self.consumed.insert(&object);
                self.malformed(&object, &reason, None);
            }
        }
    }

    fn malformed(
        &mut self,
        object: &LiveObject,
        reason: &MalformedReason,
        at: Option<&InstanceAddress>,
    ) {
        let mut d = Diagnostic::new(
            Code::MalformedMarker,
            format!(
                "{} {} carries this estate's tag but a malformed address marker: {reason}",
                object.type_name, object.id
            ),
            // `liveplan adopt` takes only objects with no estate tag (contract.md), so the way to it
            // is through removing the markers.
            "The object is bound to no instance and is never changed. Fix its tofu-* tags by hand, or \
             remove them all so that it is foreign and run the liveplan adopt command the next plan offers \
             for it.",
        )
        .with_ids([object.id.clone()]);
        if let Some(a) = at {
            d = d.with_address(a.to_string());
        }
        self.diags.push(d);
    }

    fn sweep_tags(&self, type_name: &str, id: &str) -> Option<&BTreeMap<String, String>> {
        let i = self
            .sweep_index
            .get(&(type_name.to_owned(), id.to_owned()))?;
        self.sweep.as_ref()?.get(*i).map(|r| &r.tags)
    }

    /// Path 1: the object at each declared client-named identity, from the bulk pages where they say
    /// enough, else from one read.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "client-named"), err)]
    async fn bind_client_named(&mut self) -> Result<(), ProjectionError> {
        let mut known: Vec<(InstanceAddress, Option<LiveObject>)> = Vec::new();
        let mut to_read: Vec<(InstanceAddress, ReadRequest)> = Vec::new();
        for address in self.addresses_on(AdmissionPath::ClientNamed) {
            let type_name = address.type_name().to_owned();
            let schema = self.schema(&type_name);
            let argument = schema.identity.first().cloned().unwrap_or_default();
            let instance = self.declared.values_of(&address);
            let name = match instance.and_then(|i| i.identity.get(&argument)) {
                Some(DeclaredValue::Known(n)) => n.clone(),
                _ => {
                    return Err(ProjectionError::InvalidDeclared {
                        address: address.to_string(),
                        reason: format!(
                            "the client-named identity {argument:?} must be a known value"
                        ),
                    });
                }
            };
            if self.failed_types.contains(&type_name) {
                self.set(
                    &address,
                    Binding::Withheld(Withheld::DiscoveryIncomplete),
                    None,
                );
                continue;
            }
            let request = ReadRequest::Identity(type_name.clone(), Identity::Name(name.clone()));
            let Some(listing) = self.listings.get(&type_name) else {
                to_read.push((address, request));
                continue;
            };
            let found = find_named(listing, Some(argument.as_str()), &name);
            match found {
                Some(o) if listing.tags_included => known.push((address, Some(o.clone()))),
                Some(o) => match self.sweep_tags(&type_name, &o.id) {
                    Some(tags) => {
                        let mut o = o.clone();
                        o.tags = tags.clone();
                        known.push((address, Some(o)));
                    }
                    None => to_read.push((address, request)),
                },
                None => to_read.push((address, request)),
            }
        }
        let (addresses, requests): (Vec<InstanceAddress>, Vec<ReadRequest>) =
            to_read.into_iter().unzip();
        let answers = self.read_many(&requests).await;
        for (address, answer) in addresses.into_iter().zip(answers) {
            match answer {
                Ok(found) => known.push((address, found)),
                Err(e) => {
                    self.incomplete(
                        &format!("the object at the identity of {address}"),
                        Some(&address),
                        &e,
                    );
                    self.set(
                        &address,
                        Binding::Withheld(Withheld::DiscoveryIncomplete),
                        None,
                    );
                }
            }
        }
        for (address, found) in known {
            self.judge_client_named(&address, found);
        }
        self.slot_client_named_counts();
        Ok(())
    }

    fn judge_client_named(&mut self, address: &InstanceAddress, found: Option<LiveObject>) {
        let Some(object) = found else {
            self.set(address, Binding::Create, None);
            return;
        };
        // The object is judged here: consumed whatever the verdict (binding it consumes it as well).
        self.consumed.insert(&object);
        let type_name = address.type_name().to_owned();
        let id = object.id.clone();
        match marker::ownership(self.estate, &type_name, &object.tags) {
            Ownership::Foreign => {
                let command = format!("liveplan adopt {}", shell_word(address));
                self.diags.push(
                    Diagnostic::new(
                        Code::Unowned,
                        format!("{type_name} {id} exists but carries no estate marker"),
                        format!("No change is planned for {address}. To manage the object, run `{command}`."),
                    )
                    .with_address(address.to_string())
                    .with_ids([id.clone()]),
                );
                self.unowned.push(UnownedObject {
                    address: address.clone(),
                    type_name,
                    id: id.clone(),
                    verdict: Verdict::Adoptable,
                    estate: None,
                    command: Some(command),
                });
                self.set(
                    address,
                    Binding::Blocked {
                        id,
                        verdict: Verdict::Adoptable,
                        estate: None,
                    },
                    None,
                );
            }
            Ownership::OtherEstate(other) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::InTheWay,
                        format!("{type_name} {id} belongs to estate {other}"),
                        format!(
                            "No change is planned for {address}. Choose another identity, or remove the \
                             object from estate {other} first."
                        ),
                    )
                    .with_address(address.to_string())
                    .with_ids([id.clone()]),
                );
                self.unowned.push(UnownedObject {
                    address: address.clone(),
                    type_name,
                    id: id.clone(),
                    verdict: Verdict::InTheWay,
                    estate: Some(other.clone()),
                    command: None,
                });
                self.set(
                    address,
                    Binding::Blocked {
                        id,
                        verdict: Verdict::InTheWay,
                        estate: Some(other),
                    },
                    None,
                );
            }
            Ownership::Malformed(MalformedReason::MissingAddress) => {
                let slot = valid_slot(&object);
                self.set(
                    address,
                    Binding::Bound {
                        object,
                        repairs: vec![Repair::Address { from: None }],
                    },
                    slot,
                );
            }
            Ownership::Malformed(reason) => {
                self.malformed(&object, &reason, Some(address));
                self.set(address, Binding::Withheld(Withheld::MalformedMarker), None);
            }
            Ownership::Owned {
                escaped_address, ..
            } => {
                let slot = valid_slot(&object);
                if marks(address, &escaped_address) {
                    self.set(
                        address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        slot,
                    );
                    return;
                }
                let same_count_block = |other: &InstanceAddress| {
                    other.block() == address.block()
                        && self.declared.count_of(address.block()).is_some()
                };
                match marker::decode_address(&escaped_address) {
                    // Another index of its own count block: a stale address, repaired, never a rival.
                    Ok(other)
                        if other != *address
                            && self.declared.is_declared(&other)
                            && !same_count_block(&other) =>
                    {
                        self.diags.push(
                            Diagnostic::new(
                                Code::MarkedForAnotherAddress,
                                format!("{type_name} {id} at the identity of {address} is marked for {other}"),
                                "Both addresses are declared, so which one owns the object cannot be decided. Give one of \
                                     them another identity, or run `liveplan mv` to move the marker.",
                            )
                            .with_address(address.to_string())
                            .with_ids([id]),
                        );
                        self.set(
                            address,
                            Binding::Withheld(Withheld::MarkedForAnotherAddress),
                            None,
                        );
                    }
                    _ => self.set(
                        address,
                        Binding::Bound {
                            object,
                            repairs: vec![Repair::Address {
                                from: Some(escaped_address),
                            }],
                        },
                        slot,
                    ),
                }
            }
        }
    }

    /// Client-named count members bind by identity; their slots ride along. Members without a slot and
    /// new members are given slots above the high-water mark.
    fn slot_client_named_counts(&mut self) {
        let blocks: Vec<(BlockAddress, u64)> = self
            .declared
            .blocks()
            .filter_map(|(b, e)| match e {
                Expansion::Count(n) => Some((b.clone(), n)),
                _ => None,
            })
            .filter(|(b, _)| {
                self.admission(b.type_name()) == Some(AdmissionPath::ClientNamed)
                    && self.schema(b.type_name()).taggable
            })
            .collect();
        for (block, n) in blocks {
            // The members `[0]` to `[n-1]`, in index order, as one range of the sorted instances.
            let members = block.instance(InstanceKey::Int(0))..block.instance(InstanceKey::Int(n));
            let mut bad = Vec::new();
            for (_, state) in self.instances.range(members.clone()) {
                if let Binding::Bound { object, .. } = &state.binding
                    && let Some(v) = object.tag(SLOT_TAG)
                    && v.parse::<Slot>().is_err()
                {
                    bad.push(object.id.clone());
                }
            }
            if !bad.is_empty() {
                self.count_set_error(
                    Code::MalformedSlot,
                    &block,
                    n,
                    "carries a malformed tofu-slot",
                    bad,
                );
                continue;
            }
            let live_high = self
                .instances
                .range(members.clone())
                .filter_map(|(_, s)| s.slot)
                .max();
            let recorded = self.records.slots.get(&block).map(|s| s.body.highest);
            let mut high = live_high.max(recorded);
            for (_, state) in self.instances.range_mut(members) {
                let needs = match &state.binding {
                    Binding::Bound { .. } | Binding::Create => state.slot.is_none(),
                    _ => false,
                };
                if !needs {
                    continue;
                }
                let next = match high {
                    None => Some(Slot::FIRST),
                    Some(h) => h.next(),
                };
                let Some(slot) = next else { break };
                high = Some(slot);
                state.slot = Some(slot);
                if let Binding::Bound { repairs, .. } = &mut state.binding {
                    repairs.push(Repair::Slot(slot));
                }
            }
        }
    }

    fn count_set_error(
        &mut self,
        code: Code,
        block: &BlockAddress,
        n: u64,
        what: &str,
        ids: Vec<String>,
    ) {
        self.diags.push(
            Diagnostic::new(
                code,
                format!("the count set {block} cannot be bound: {} {what}", ids.join(", ")),
                "Nothing is planned for the block. Fix the tofu-slot and tofu-address tags of the named \
                 objects by hand (each member needs its own slot), then plan again.",
            )
            .with_address(block.to_string())
            .with_ids(ids),
        );
        for i in 0..n {
            self.set(
                &block.instance(InstanceKey::Int(i)),
                Binding::Withheld(Withheld::CountSet),
                None,
            );
        }
    }

    /// Path 2: declared marker-path instances against the claims of their type's listing.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "marker"))]
    fn bind_marker_blocks(&mut self) {
        let blocks: Vec<(BlockAddress, Expansion)> = self
            .declared
            .blocks()
            .filter(|(b, _)| self.admission(b.type_name()) == Some(AdmissionPath::Marker))
            .map(|(b, e)| (b.clone(), e))
            .collect();
        for (block, expansion) in blocks {
            let addresses = || self.by_block.get(&block).cloned().unwrap_or_default();
            if self.failed_types.contains(block.type_name()) {
                for a in &addresses() {
                    self.set(a, Binding::Withheld(Withheld::DiscoveryIncomplete), None);
                }
                continue;
            }
            match expansion {
                Expansion::Count(n) => self.bind_count_block(&block, n),
                Expansion::Single | Expansion::ForEach => {
                    // Every instance takes the claims in its current form first, and only then those in an
                    // older grammar's form: a marker written today for one key (`x+y` as `x++y`) is never
                    // read as another key's older form (`x++y` before the separators were escaped).
                    let addresses = addresses();
                    let forms: Vec<Vec<String>> =
                        addresses.iter().map(marker::escaped_forms).collect();
                    let mut matched: Vec<Vec<Claim>> = forms
                        .iter()
                        .map(|f| self.claims.remove(&f[0]).unwrap_or_default())
                        .collect();
                    for (older, m) in forms.iter().zip(matched.iter_mut()) {
                        for form in &older[1..] {
                            m.extend(self.claims.remove(form).unwrap_or_default());
                        }
                    }
                    for (address, mut matched) in addresses.into_iter().zip(matched) {
                        match matched.len() {
                            0 => self.set(&address, Binding::Create, None),
                            1 => {
                                let claim = matched.pop().expect("one claim");
                                self.set(
                                    &address,
                                    Binding::Bound {
                                        object: claim.object,
                                        repairs: Vec::new(),
                                    },
                                    None,
                                );
                            }
                            _ => {
                                let ids: Vec<String> =
                                    matched.iter().map(|c| c.object.id.clone()).collect();
                                for c in &matched {
                                    self.consumed.insert(&c.object);
                                }
                                self.collision(&address, ids);
                            }
                        }
                    }
                }
            }
        }
    }

    fn collision(&mut self, address: &InstanceAddress, ids: Vec<String>) {
        self.diags.push(
            Diagnostic::new(
                Code::MarkerCollision,
                format!("{} live objects claim {address}: {}", ids.len(), ids.join(", ")),
                "Nothing is planned for this address and none of these objects is changed. Remove the \
                 estate's tofu-* tags from all but one of them by hand, then plan again.",
            )
            .with_address(address.to_string())
            .with_ids(ids),
        );
        if self.declared.is_declared(address) {
            self.set(address, Binding::Withheld(Withheld::Collision), None);
        }
    }

    fn bind_count_block(&mut self, block: &BlockAddress, n: u64) {
        let head = format!("{}.{}:", block.type_name(), block.name());
        let keys: Vec<String> = self
            .claims
            .range(head.clone()..)
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(&head))
            .filter(|k| is_index(&k[head.len()..]))
            .cloned()
            .collect();
        let mut members: Vec<(u64, String, Claim)> = Vec::new();
        for key in keys {
            let index: u64 = key[head.len()..].parse().unwrap_or(u64::MAX);
            for claim in self.claims.remove(&key).unwrap_or_default() {
                members.push((index, key.clone(), claim));
            }
        }
        // Every member is consumed here, whatever becomes of it: a bound one when it is set, the
        // others below.
        let input: Vec<CountMember> = members
            .iter()
            .map(|(index, _, c)| CountMember {
                id: c.object.id.clone(),
                slot: match c.slot {
                    SlotMarker::Valid(s) => Some(s),
                    _ => None,
                },
                address_index: *index,
            })
            .collect();
        let Some(binding) = self.count_binding(block, n, &members, &input) else {
            for (_, _, claim) in &members {
                self.consumed.insert(&claim.object);
            }
            return;
        };
        // The claims by id, looked up through the ids of `input`; a repeated id finds its last claim.
        let position: HashMap<&str, usize> = input
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.as_str(), i))
            .collect();
        let mut claims: Vec<Option<(String, Claim)>> = members
            .into_iter()
            .map(|(_, key, claim)| Some((key, claim)))
            .collect();
        let mut take = |id: &str| position.get(id).and_then(|&i| claims[i].take());
        for (index, bound) in binding.bound {
            let Some((key, claim)) = take(&bound.id) else {
                continue;
            };
            let mut repairs = Vec::new();
            if bound.stale_address {
                repairs.push(Repair::Address { from: Some(key) });
            }
            if bound.needs_slot {
                repairs.push(Repair::Slot(bound.slot));
            }
            self.set(
                &block.instance(InstanceKey::Int(index)),
                Binding::Bound {
                    object: claim.object,
                    repairs,
                },
                Some(bound.slot),
            );
        }
        for (index, slot) in binding.create {
            self.set(
                &block.instance(InstanceKey::Int(index)),
                Binding::Create,
                Some(slot),
            );
        }
        for id in binding.surplus {
            let Some((key, claim)) = take(&id) else {
                continue;
            };
            self.consumed.insert(&claim.object);
            let address =
                marker::decode_address(&key).unwrap_or_else(|_| block.instance(InstanceKey::None));
            let slot = match claim.slot {
                SlotMarker::Valid(s) => Some(s),
                _ => None,
            };
            self.owned_undeclared.push(OwnedUndeclared {
                address,
                type_name: block.type_name().to_owned(),
                id,
                reason: Removal::CountSurplus { slot },
                action: UndeclaredAction::Delete,
                object: Some(claim.object),
            });
        }
        for (_, claim) in claims.iter().flatten() {
            self.consumed.insert(&claim.object);
        }
    }

    /// How the members of the count block `block` (`count = n`) meet its indices, or `None` when the
    /// set cannot be bound (the error is reported and every index withheld).
    fn count_binding(
        &mut self,
        block: &BlockAddress,
        n: u64,
        members: &[(u64, String, Claim)],
        input: &[CountMember],
    ) -> Option<CountBinding> {
        let bad: Vec<String> = members
            .iter()
            .filter(|(_, _, c)| matches!(c.slot, SlotMarker::Malformed(_)))
            .map(|(_, _, c)| c.object.id.clone())
            .collect();
        if !bad.is_empty() {
            self.count_set_error(
                Code::MalformedSlot,
                block,
                n,
                "carries a malformed tofu-slot",
                bad,
            );
            return None;
        }
        let recorded = self.records.slots.get(block).map(|s| s.body.highest);
        match marker::bind_count_set(input, n, recorded) {
            Ok(b) => Some(b),
            Err(CountSetError::DuplicateSlot { slot, ids }) => {
                let what = format!("carry the same slot {slot}");
                self.count_set_error(Code::DuplicateSlot, block, n, &what, ids);
                None
            }
            Err(CountSetError::Indistinguishable { index, ids }) => {
                let what = format!("carry the same address {block}[{index}] and no slot");
                self.count_set_error(Code::IndistinguishableInstances, block, n, &what, ids);
                None
            }
            Err(CountSetError::SlotsExhausted) => {
                let ids = input.iter().map(|m| m.id.clone()).collect();
                self.count_set_error(Code::MalformedSlot, block, n, "leave no slot to mint", ids);
                None
            }
        }
    }

    /// The identity parts of `address` from its declared `values`, as far as its parents are bound.
    fn resolve(
        &self,
        address: &InstanceAddress,
        values: &BTreeMap<String, DeclaredValue>,
    ) -> Result<Resolved, ProjectionError> {
        let mut parts = BTreeMap::new();
        let mut waiting = false;
        let mut create = false;
        for (argument, value) in values {
            match value {
                DeclaredValue::Known(s) => {
                    parts.insert(argument.clone(), s.clone());
                }
                DeclaredValue::Unknown => create = true,
                DeclaredValue::IdOf(parent) => {
                    let parent = &self.canonical(parent);
                    if !self.declared.is_declared(parent) {
                        return Err(ProjectionError::UndeclaredParent {
                            address: address.to_string(),
                            parent: parent.to_string(),
                        });
                    }
                    match self.instances.get(parent).map(|s| &s.binding) {
                        None => waiting = true,
                        Some(Binding::Bound { object, .. }) => {
                            parts.insert(argument.clone(), object.id.clone());
                        }
                        Some(Binding::Create) => create = true,
                        Some(Binding::Blocked { .. } | Binding::Withheld(_)) => {
                            return Ok(Resolved::Withheld(parent.clone()));
                        }
                    }
                }
            }
        }
        Ok(if waiting {
            Resolved::Waiting
        } else if create {
            Resolved::Create
        } else {
            Resolved::Parts(parts)
        })
    }

    /// Path 3: parent-derived children, in dependency order, from their parents' inline answers where
    /// the parent's listing carries them, else one read each.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "parent-derived"), err)]
    async fn bind_parent_derived(&mut self) -> Result<(), ProjectionError> {
        let mut pending = self.addresses_on(AdmissionPath::ParentDerived);
        while !pending.is_empty() {
            let mut waiting = Vec::new();
            let mut to_read: Vec<(InstanceAddress, ReadRequest)> = Vec::new();
            let before = pending.len();
            for address in pending {
                let instance = self.declared.values_of(&address);
                match self.resolve(&address, instance.map_or(&NO_VALUES, |i| &i.identity))? {
                    Resolved::Waiting => waiting.push(address),
                    Resolved::Create => self.set(&address, Binding::Create, None),
                    Resolved::Withheld(parent) => {
                        self.set(&address, Binding::Withheld(Withheld::Parent(parent)), None)
                    }
                    Resolved::Parts(parts) => {
                        let type_name = address.type_name().to_owned();
                        let schema = self.schema(&type_name).clone();
                        let identity = Identity::Composite(parts);
                        let inline_parent = schema
                            .parent
                            .as_ref()
                            .filter(|l| l.inline)
                            .map(|l| l.parent_type.clone());
                        match inline_parent {
                            Some(p) if self.failed_types.contains(&p) => self.set(
                                &address,
                                Binding::Withheld(Withheld::DiscoveryIncomplete),
                                None,
                            ),
                            Some(p) if self.listings.contains_key(&p) => {
                                let found =
                                    self.inline_child(&type_name, &schema.identity, &identity);
                                match found {
                                    Some(object) => self.set(
                                        &address,
                                        Binding::Bound {
                                            object,
                                            repairs: Vec::new(),
                                        },
                                        None,
                                    ),
                                    None => self.set(&address, Binding::Create, None),
                                }
                            }
                            _ => {
                                to_read.push((address, ReadRequest::Identity(type_name, identity)))
                            }
                        }
                    }
                }
            }
            let (addresses, requests): (Vec<InstanceAddress>, Vec<ReadRequest>) =
                to_read.into_iter().unzip();
            let answers = self.read_many(&requests).await;
            for (address, answer) in addresses.into_iter().zip(answers) {
                match answer {
                    Ok(Some(object)) => self.set(
                        &address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        None,
                    ),
                    Ok(None) => self.set(&address, Binding::Create, None),
                    Err(e) => {
                        self.incomplete(
                            &format!("the object at the identity of {address}"),
                            Some(&address),
                            &e,
                        );
                        self.set(
                            &address,
                            Binding::Withheld(Withheld::DiscoveryIncomplete),
                            None,
                        );
                    }
                }
            }
            if waiting.len() == before {
                return Err(ProjectionError::InvalidDeclared {
                    address: waiting[0].to_string(),
                    reason: "its identity depends on itself through its parents".to_owned(),
                });
            }
            pending = waiting;
        }
        Ok(())
    }

    /// Path 4: list-and-match instances, listed under each parent and bound by content; identical
    /// siblings are one fungible set bound by cardinality.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "list-match"), err)]
    async fn bind_list_match(&mut self) -> Result<(), ProjectionError> {
        let addresses = self.addresses_on(AdmissionPath::ListMatch);
        let mut groups: ContentGroups = BTreeMap::new();
        for address in addresses {
            let type_name = address.type_name().to_owned();
            let schema = self.schema(&type_name).clone();
            let Some(link) = schema.parent.clone() else {
                self.set(&address, Binding::Create, None);
                continue;
            };
            let instance = self.declared.values_of(&address);
            let parent_value = instance
                .and_then(|i| i.identity.get(&link.argument))
                .cloned()
                .unwrap_or(DeclaredValue::Unknown);
            let single = BTreeMap::from([(link.argument.clone(), parent_value)]);
            let parent_id = match self.resolve(&address, &single)? {
                Resolved::Parts(p) => p.get(&link.argument).cloned().unwrap_or_default(),
                Resolved::Create | Resolved::Waiting => {
                    self.set(&address, Binding::Create, None);
                    continue;
                }
                Resolved::Withheld(parent) => {
                    self.set(&address, Binding::Withheld(Withheld::Parent(parent)), None);
                    continue;
                }
            };
            let mut content = BTreeMap::new();
            for field in &schema.match_content {
                let value = if *field == link.argument {
                    Some(parent_id.clone())
                } else {
                    match instance.and_then(|i| i.content.get(field)) {
                        Some(DeclaredValue::Known(s)) => Some(s.clone()),
                        Some(DeclaredValue::IdOf(p)) => self
                            .instances
                            .get(p)
                            .and_then(|s| s.binding.object())
                            .map(|o| o.id.clone()),
                        Some(DeclaredValue::Unknown) => None,
                        None => schema
                            .attribute(field)
                            .and_then(|a| a.default_in(&self.region))
                            .and_then(|v| v.as_str().map(str::to_owned)),
                    }
                };
                content.insert(field.clone(), value);
            }
            groups
                .entry((type_name, parent_id))
                .or_default()
                .push((address, content));
        }
        let this = &*self;
        let listed: ParentListings = futures::stream::iter(groups.keys().cloned())
            .map(|(type_name, parent_id)| async move {
                let link = this
                    .schema(&type_name)
                    .parent
                    .clone()
                    .expect("grouped by parent");
                let request = ListRequest {
                    parent: Some(ParentScope {
                        type_name: link.parent_type,
                        id: parent_id.clone(),
                    }),
                    ..ListRequest::all(type_name.clone())
                };
                ((type_name, parent_id), this.list_all(request).await)
            })
            .buffer_unordered(self.config.read_concurrency.max(1))
            .collect()
            .await;
        let mut listed: BTreeMap<(String, String), Result<Vec<LiveObject>, ProviderError>> = listed
            .into_iter()
            .map(|(k, r)| (k, r.map(|(l, _)| l.objects)))
            .collect();
        for ((type_name, parent_id), members) in groups {
            let objects = match listed.remove(&(type_name.clone(), parent_id.clone())) {
                Some(Ok(objects)) => objects,
                Some(Err(e)) => {
                    self.incomplete(&format!("{type_name} under {parent_id}"), None, &e);
                    self.withheld_types.insert(type_name.clone());
                    for (a, _) in members {
                        self.set(&a, Binding::Withheld(Withheld::DiscoveryIncomplete), None);
                    }
                    continue;
                }
                None => continue,
            };
            self.match_content(&type_name, members, objects);
        }
        Ok(())
    }

    fn match_content(
        &mut self,
        type_name: &str,
        mut members: Vec<(InstanceAddress, BTreeMap<String, Option<String>>)>,
        mut objects: Vec<LiveObject>,
    ) {
        objects.sort_by(|a, b| a.id.cmp(&b.id));
        members.sort_by(|a, b| a.0.cmp(&b.0));
        let fits = |content: &BTreeMap<String, Option<String>>, o: &LiveObject| {
            content
                .iter()
                .all(|(f, v)| v.as_deref().is_none_or(|v| o.attribute_str(f) == Some(v)))
        };
        let object_content =
            |content: &BTreeMap<String, Option<String>>, o: &LiveObject| -> Vec<Option<String>> {
                content
                    .keys()
                    .map(|f| o.attribute_str(f).map(str::to_owned))
                    .collect()
            };
        let mut open: Vec<(InstanceAddress, BTreeMap<String, Option<String>>)> = Vec::new();
        // A located record names the object an instance was created as: honour it first, whatever its
        // content now (it is listed under the instance's parent; a field that changed, such as an access
        // key's `status`, is an update of that object, not a reason to create another).
        for (address, content) in members {
            let located = self
                .records
                .located
                .get(&address)
                .map(|r| r.body.id.clone());
            match located.and_then(|id| objects.iter().position(|o| o.id == id)) {
                Some(i) => {
                    let object = objects.remove(i);
                    self.set(
                        &address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        None,
                    );
                }
                None => open.push((address, content)),
            }
        }
        let (full, partial): (Vec<_>, Vec<_>) = open
            .into_iter()
            .partition(|(_, c)| c.values().all(Option::is_some));
        for (address, content) in full {
            match objects.iter().position(|o| fits(&content, o)) {
                Some(i) => {
                    let object = objects.remove(i);
                    self.set(
                        &address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        None,
                    );
                }
                None => self.set(&address, Binding::Create, None),
            }
        }
        for (address, content) in partial {
            let candidates: Vec<usize> = (0..objects.len())
                .filter(|&i| fits(&content, &objects[i]))
                .collect();
            let distinct: BTreeSet<Vec<Option<String>>> = candidates
                .iter()
                .map(|&i| object_content(&content, &objects[i]))
                .collect();
            match distinct.len() {
                0 => self.set(&address, Binding::Create, None),
                1 => {
                    let object = objects.remove(candidates[0]);
                    self.set(
                        &address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        None,
                    );
                }
                _ => {
                    let ids: Vec<String> =
                        candidates.iter().map(|&i| objects[i].id.clone()).collect();
                    self.diags.push(
                        Diagnostic::new(
                            Code::AmbiguousContentMatch,
                            format!("{address} matches {} live objects that differ: {}", ids.len(), ids.join(", ")),
                            "Set the instance's content arguments so that it matches one kind of object, \
                             then plan again.",
                        )
                        .with_address(address.to_string())
                        .with_ids(ids),
                    );
                    self.set(
                        &address,
                        Binding::Withheld(Withheld::AmbiguousContentMatch),
                        None,
                    );
                }
            }
        }
        for object in objects {
            let owner = self.located_index.get(&key_of(&object)).cloned();
            self.consumed.insert(&object);
            match owner {
                Some(address) => self.owned_undeclared.push(OwnedUndeclared {
                    address,
                    type_name: type_name.to_owned(),
                    id: object.id.clone(),
                    reason: Removal::NoLongerDeclared,
                    action: UndeclaredAction::Delete,
                    object: Some(object),
                }),
                None => self.foreign_pool.push(object),
            }
        }
    }

    fn record_object(
        &self,
        address: &InstanceAddress,
        record: &crate::record::ObjectRecord,
    ) -> LiveObject {
        let mut attributes = marked_attributes(&record.attributes, &record.sensitive_paths);
        attributes.insert("id".to_owned(), record.id.clone().into());
        LiveObject {
            type_name: address.type_name().to_owned(),
            id: record.id.clone(),
            region: self.region.clone(),
            attributes,
            tags: BTreeMap::new(),
        }
    }

    /// Record-backed instances: the record is the object.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "record"))]
    fn bind_record_backed(&mut self) {
        for address in self.addresses_on(AdmissionPath::Record) {
            match self.records.objects.get(&address) {
                Some(r) => {
                    let object = self.record_object(&address, &r.body);
                    self.set(
                        &address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        None,
                    );
                }
                None => self.set(&address, Binding::Create, None),
            }
        }
        let undeclared: Vec<(InstanceAddress, LiveObject)> = self
            .records
            .objects
            .iter()
            .filter(|(a, _)| !self.declared.is_declared(a))
            .map(|(a, r)| (a.clone(), self.record_object(a, &r.body)))
            .collect();
        for (address, object) in undeclared {
            self.owned_undeclared.push(OwnedUndeclared {
                type_name: address.type_name().to_owned(),
                address,
                id: object.id.clone(),
                reason: Removal::NoLongerDeclared,
                action: UndeclaredAction::Delete,
                object: Some(object),
            });
        }
    }

    /// Owned objects only the sweep or a record points at, confirmed by a read before they count;
    /// deposed objects not seen in any listing, checked the same way.
    #[tracing::instrument(name = "discover", skip_all, fields(estate = %self.estate, path = "sweep"))]
    async fn confirm_owned(&mut self) {
        let mut requests: Vec<(ConfirmSource, ReadRequest)> = Vec::new();
        let listed_with_tags = |t: &str| self.listings.get(t).is_some_and(|l| l.tags_included);
        if let Some(hits) = &self.sweep {
            // Whether the hits of a type are settled by the type alone (unknown, listed with its tags,
            // or failed), asked once per run of hits of one type.
            let mut settled: Option<(&str, bool)> = None;
            for hit in hits {
                let type_settled = match settled {
                    Some((t, answer)) if t == hit.type_name => answer,
                    _ => {
                        let answer = self.catalog.get(&hit.type_name).is_none()
                            || listed_with_tags(&hit.type_name)
                            || self.failed_types.contains(&hit.type_name);
                        settled = Some((&hit.type_name, answer));
                        answer
                    }
                };
                if type_settled || self.consumed.contains_id(&hit.type_name, &hit.id) {
                    continue;
                }
                if let Some(l) = self.listings.get(&hit.type_name)
                    && l.get(&hit.id).is_none_or(|o| o.id != hit.id)
                {
                    // The strongly consistent listing does not show it: a stale index entry.
                    continue;
                }
                requests.push((
                    ConfirmSource::Sweep,
                    ReadRequest::Id(hit.type_name.clone(), hit.id.clone()),
                ));
            }
        }
        let mut seen_inline = Vec::new();
        for (address, record) in &self.records.located {
            let type_name = address.type_name();
            let Some(schema) = self.catalog.get(type_name) else {
                continue;
            };
            if (schema.in_tagging_index && self.sweep.is_some())
                || self.consumed.contains_id(type_name, &record.body.id)
            {
                continue;
            }
            if schema.admission == Some(AdmissionPath::ListMatch) {
                // Listed under its parent when the parent is declared; otherwise confirmed below.
                if self.declared.is_declared(address) {
                    continue;
                }
            }
            if self.declared.is_declared(address)
                && !matches!(
                    self.instances.get(address).map(|s| &s.binding),
                    Some(Binding::Create)
                )
            {
                continue;
            }
            let inline = schema
                .parent
                .as_ref()
                .filter(|l| l.inline)
                .map(|l| l.parent_type.clone());
            if let Some(p) = inline
                && self.listings.contains_key(&p)
            {
                let key = (type_name.to_owned(), record.body.id.clone());
                if let Some(child) = self.children_by_id.get(&key).map(|&i| &self.children[i]) {
                    seen_inline.push((address.clone(), child.clone()));
                }
                continue;
            }
            requests.push((
                ConfirmSource::Located(address.clone()),
                ReadRequest::Id(type_name.to_owned(), record.body.id.clone()),
            ));
        }
        for (address, record) in &self.records.deposed {
            let type_name = address.type_name();
            for id in &record.body.ids {
                if self.consumed.contains_id(type_name, id) {
                    continue;
                }
                if listed_with_tags(type_name) {
                    self.deposed.push(DeposedObject {
                        address: address.clone(),
                        type_name: type_name.to_owned(),
                        id: id.clone(),
                        present: false,
                    });
                    continue;
                }
                requests.push((
                    ConfirmSource::Deposed(address.clone()),
                    ReadRequest::Id(type_name.to_owned(), id.clone()),
                ));
            }
        }
        for (address, child) in seen_inline {
            self.owned_found(&address, child);
        }
        let (sources, reads): (Vec<ConfirmSource>, Vec<ReadRequest>) = requests.into_iter().unzip();
        let answers = self.read_many(&reads).await;
        for (source, (read, answer)) in sources.into_iter().zip(reads.iter().zip(answers)) {
            let ReadRequest::Id(type_name, id) = read else {
                continue;
            };
            match (source, answer) {
                (_, Err(e)) => {
                    // Without the confirming read no deletion of the type may be planned.
                    self.withheld_types.insert(type_name.clone());
                    self.incomplete(&format!("{type_name} {id}"), None, &e);
                }
                (ConfirmSource::Deposed(address), Ok(found)) => self.deposed.push(DeposedObject {
                    address,
                    type_name: type_name.clone(),
                    id: id.clone(),
                    present: found.is_some(),
                }),
                (_, Ok(None)) => {}
                (ConfirmSource::Sweep, Ok(Some(object))) => {
                    match marker::ownership(self.estate, type_name, &object.tags) {
                        Ownership::Owned {
                            escaped_address, ..
                        } => match marker::decode_address(&escaped_address) {
                            Ok(address) => self.owned_found(&address, object),
                            Err(_) => self.malformed(
                                &object,
                                &MalformedReason::Unparseable(escaped_address.clone()),
                                None,
                            ),
                        },
                        Ownership::Malformed(reason) => self.malformed(&object, &reason, None),
                        // The index was stale about its tags: not ours (any more).
                        Ownership::Foreign | Ownership::OtherEstate(_) => {}
                    }
                }
                (ConfirmSource::Located(address), Ok(Some(object))) => {
                    let owned = !self.schema(type_name).taggable
                        || object.tag(ESTATE_TAG) == Some(self.estate.as_str());
                    if owned {
                        self.owned_found(&address, object);
                    }
                }
            }
        }
    }

    /// An owned object found outside its path: bound if its declared instance found nothing at the
    /// identity (the identity changed: the engine replaces), else owned and undeclared.
    fn owned_found(&mut self, address: &InstanceAddress, object: LiveObject) {
        if self.consumed.contains(&object) {
            return;
        }
        self.consumed.insert(&object);
        if self.declared.is_declared(address) {
            match self.instances.get(address).map(|s| &s.binding) {
                Some(Binding::Create) | None => {
                    let slot = valid_slot(&object);
                    self.set(
                        address,
                        Binding::Bound {
                            object,
                            repairs: Vec::new(),
                        },
                        slot,
                    );
                }
                Some(Binding::Bound { object: other, .. }) => {
                    let ids = vec![other.id.clone(), object.id.clone()];
                    self.collision(address, ids);
                }
                Some(_) => {}
            }
            return;
        }
        let reason = match (self.declared.count_of(address.block()), address.key()) {
            (Some(_), InstanceKey::Int(_)) => Removal::CountSurplus {
                slot: valid_slot(&object),
            },
            _ => Removal::NoLongerDeclared,
        };
        self.owned_undeclared.push(OwnedUndeclared {
            address: address.clone(),
            type_name: object.type_name.clone(),
            id: object.id.clone(),
            reason,
            action: UndeclaredAction::Delete,
            object: Some(object),
        });
    }

    /// Claims of listed marker types that no declared instance took.
    fn report_unclaimed(&mut self) {
        let claims = std::mem::take(&mut self.claims);
        for (escaped, claims) in claims {
            let claims: Vec<Claim> = claims
                .into_iter()
                .filter(|c| !self.consumed.contains(&c.object))
                .collect();
            if claims.is_empty() {
                continue;
            }
            let Ok(address) = marker::decode_address(&escaped) else {
                for c in &claims {
                    self.malformed(
                        &c.object,
                        &MalformedReason::Unparseable(escaped.clone()),
                        None,
                    );
                }
                continue;
            };
            if claims.len() > 1 {
                for c in &claims {
                    self.consumed.insert(&c.object);
                }
                self.collision(
                    &address,
                    claims.iter().map(|c| c.object.id.clone()).collect(),
                );
                continue;
            }
            for claim in claims {
                self.owned_found(&address, claim.object);
            }
        }
    }

    /// Create intents: attached to their instances; a `pending` one is reported, and a young one keeps
    /// its instance from being created again.
    fn apply_intents(&mut self) {
        // Both maps are sorted by address: walk them side by side instead of looking each intent up.
        let mut states = self.instances.iter_mut().peekable();
        for (address, intent) in &self.records.intents {
            while states.next_if(|(a, _)| *a < address).is_some() {}
            let Some((_, state)) = states.next_if(|(a, _)| *a == address) else {
                continue;
            };
            state.intent = Some(intent.clone());
            if intent.body.state != crate::record::IntentState::Pending {
                continue;
            }
            let age = self.config.now.saturating_sub(intent.body.time);
            let young = age < INTENT_PATIENCE_SECS;
            let outcome = match (&state.binding, young) {
                (Binding::Bound { object, .. }, _) => format!(
                    "The object {} exists and is bound; the next apply marks the intent done.",
                    object.id
                ),
                (Binding::Create, true) => {
                    state.binding = Binding::Withheld(Withheld::CreateInProgress);
                    format!(
                        "The intent is {age}s old and another apply may be creating the object right now, so \
                         no create is planned. Plan again in {} seconds.",
                        INTENT_PATIENCE_SECS - age
                    )
                }
                (Binding::Create, false) => format!(
                    "The intent is {age}s old and no object was found, so the create is planned again."
                ),
                _ => "Nothing is planned for the instance in this plan.".to_owned(),
            };
            let mut d = Diagnostic::new(
                Code::InterruptedCreate,
                format!("an earlier apply started creating {address} and did not finish"),
                outcome,
            )
            .with_address(address.to_string());
            if let Binding::Bound { object, .. } = &state.binding {
                d = d.with_ids([object.id.clone()]);
            }
            self.diags.push(d);
        }
    }

    /// Foreign objects whose bind-candidate fields equal an unbound, unkeyed marker instance's values:
    /// the one-to-one matches (offered), then the others (ambiguous, named by a warning).
    fn bind_candidates(&mut self) -> (Vec<BindCandidate>, Vec<BindCandidate>) {
        let mut wanted: Vec<(InstanceAddress, BTreeMap<String, String>)> = Vec::new();
        for (address, state) in &self.instances {
            if state.admission != AdmissionPath::Marker
                || *address.key() != InstanceKey::None
                || state.binding != Binding::Create
            {
                continue;
            }
            let schema = self.schema(address.type_name());
            let BindMatch::Fields(fields) = &schema.bind_match else {
                continue;
            };
            let instance = self.declared.values_of(address);
            let mut values = BTreeMap::new();
            for field in fields {
                let value = match instance.and_then(|i| i.bind_values.get(field)) {
                    Some(DeclaredValue::Known(s)) => Some(s.clone()),
                    Some(DeclaredValue::IdOf(p)) => self
                        .instances
                        .get(p)
                        .and_then(|s| s.binding.object())
                        .map(|o| o.id.clone()),
                    Some(DeclaredValue::Unknown) => None,
                    None => schema
                        .attribute(field)
                        .and_then(|a| a.default_in(&self.region))
                        .and_then(|v| v.as_str().map(str::to_owned)),
                };
                match value {
                    Some(v) => {
                        values.insert(field.clone(), v);
                    }
                    None => break,
                }
            }
            if values.len() == fields.len() {
                wanted.push((address.clone(), values));
            }
        }
        let matches: Vec<Vec<&LiveObject>> = wanted
            .iter()
            .map(|(address, values)| {
                self.foreign_pool
                    .iter()
                    .filter(|o| o.type_name == address.type_name())
                    .filter(|o| {
                        values
                            .iter()
                            .all(|(f, v)| o.attribute_str(f) == Some(v.as_str()))
                    })
                    .collect()
            })
            .collect();
        let mut claimants: BTreeMap<(String, String), usize> = BTreeMap::new();
        for m in &matches {
            for o in m {
                *claimants.entry(key_of(o)).or_insert(0) += 1;
            }
        }
        let mut out = Vec::new();
        let mut ambiguous = Vec::new();
        let mut warnings = Vec::new();
        let candidate =
            |address: &InstanceAddress, values: &BTreeMap<String, String>, o: &LiveObject| {
                BindCandidate {
                    address: address.clone(),
                    type_name: address.type_name().to_owned(),
                    id: o.id.clone(),
                    matched: values.clone(),
                    command: format!("liveplan adopt {} --id {}", shell_word(address), o.id),
                }
            };
        for ((address, values), m) in wanted.iter().zip(&matches) {
            match m.as_slice() {
                [] => {}
                [one] if claimants[&key_of(one)] == 1 => out.push(candidate(address, values, one)),
                several => {
                    ambiguous.extend(several.iter().map(|o| candidate(address, values, o)));
                    let ids: Vec<String> = several.iter().map(|o| o.id.clone()).collect();
                    warnings.push(
                        Diagnostic::new(
                            Code::AmbiguousCandidates,
                            format!("{address} could adopt any of {}; none is offered", ids.join(", ")),
                            "The objects match one to many, so none is proposed for adoption; the plan creates \
                             a new object. Adopt the right one with liveplan adopt --id ID, or tag the others.",
                        )
                        .with_address(address.to_string())
                        .with_ids(ids),
                    );
                }
            }
        }
        self.diags.extend(warnings);
        (out, ambiguous)
    }

    /// Owned-undeclared objects whose rename is plausible are kept and hinted instead of deleted.
    fn rename_hints(&mut self) -> Vec<RenameHint> {
        let members = |block: &BlockAddress| {
            self.by_block
                .get(block)
                .into_iter()
                .flatten()
                .filter_map(|a| self.instances.get(a))
        };
        let unbound = |block: &BlockAddress| -> Vec<InstanceAddress> {
            members(block)
                .filter(|s| s.binding == Binding::Create)
                .map(|s| s.address.clone())
                .collect()
        };
        let has_live = |block: &BlockAddress| members(block).any(|s| s.binding.object().is_some());
        let mut targets: Vec<(usize, Vec<InstanceAddress>)> = Vec::new();
        for (i, orphan) in self.owned_undeclared.iter().enumerate() {
            if orphan.reason != Removal::NoLongerDeclared {
                continue;
            }
            let block = orphan.address.block();
            let t: Vec<InstanceAddress> = if self.declared.expansion(block).is_some() {
                unbound(block)
            } else {
                self.declared
                    .blocks()
                    .filter(|(b, _)| b.type_name() == block.type_name() && !has_live(b))
                    .flat_map(|(b, _)| unbound(b))
                    .collect()
            };
            if !t.is_empty() {
                targets.push((i, t));
            }
        }
        let mut hints = Vec::new();
        for (i, to) in &targets {
            let shared = targets
                .iter()
                .any(|(j, other)| j != i && other.iter().any(|a| to.contains(a)));
            let orphan = &mut self.owned_undeclared[*i];
            orphan.action = UndeclaredAction::WithheldForRename;
            let command = (to.len() == 1 && !shared).then(|| {
                format!(
                    "liveplan mv {} {}",
                    shell_word(&orphan.address),
                    shell_word(&to[0])
                )
            });
            hints.push(RenameHint {
                from: orphan.address.clone(),
                to: to.clone(),
                id: orphan.id.clone(),
                command,
            });
        }
        hints
    }

    fn finish(
        mut self,
        calls_before: BTreeMap<String, u64>,
        (mut bind_candidates, mut ambiguous_candidates): (Vec<BindCandidate>, Vec<BindCandidate>),
        mut rename_hints: Vec<RenameHint>,
    ) -> Result<Projection, ProjectionError> {
        let mut foreign: Vec<ForeignObject> = std::mem::take(&mut self.foreign_pool)
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
        rename_hints.sort();
        self.unowned.sort();
        self.owned_undeclared
            .sort_by(|a, b| (&a.address, &a.id).cmp(&(&b.address, &b.id)));
        self.deposed.sort();
        self.deposed.dedup();
        let mut diagnostics = std::mem::take(&mut self.records.diagnostics);
        diagnostics.append(&mut self.diags);
        diagnostics.sort_by(|a, b| {
            a.sort_key()
                .cmp(&b.sort_key())
                .then_with(|| a.summary.cmp(&b.summary))
        });
        diagnostics.dedup();
        let after = self.provider.api_calls();
        let api_calls_by_operation: BTreeMap<String, u64> = after
            .into_iter()
            .map(|(op, n)| {
                let before = calls_before.get(&op).copied().unwrap_or(0);
                (op, n.saturating_sub(before))
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        let cost = Cost {
            api_calls: api_calls_by_operation.values().sum(),
            api_calls_by_operation,
            store_trips: self.records.store_trips,
        };
        Ok(Projection {
            estate: self.estate.clone(),
            region: self.region,
            instances: self.instances,
            foreign,
            bind_candidates,
            ambiguous_candidates,
            unowned: self.unowned,
            owned_undeclared: self.owned_undeclared,
            rename_hints,
            deposed: self.deposed,
            other_estates: self.other_estates,
            withheld_types: self.withheld_types,
            diagnostics,
            records: self.records,
            cost,
        })
    }
}

/// Whether `escaped` is one of the escaped forms of `address` that a marker may carry, as
/// [`marker::escaped_forms`] gives them. A keyless or indexed address has one form in every grammar
/// (`TYPE.NAME`, `TYPE.NAME:INDEX`), compared here without writing it out; only a `for_each` key, whose
/// escaping changed between grammars, is compared against each form.
fn marks(address: &InstanceAddress, escaped: &str) -> bool {
    let block = address.block();
    let Some(rest) = escaped
        .strip_prefix(block.type_name())
        .and_then(|r| r.strip_prefix('.'))
        .and_then(|r| r.strip_prefix(block.name()))
    else {
        return false;
    };
    match address.key() {
        InstanceKey::None => rest.is_empty(),
        // The decimal digits of the index, without a leading zero: the index's one spelling.
        InstanceKey::Int(i) => rest.strip_prefix(':').is_some_and(|digits| {
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits.len() == 1 || !digits.starts_with('0'))
                && digits.parse::<u64>() == Ok(*i)
        }),
        InstanceKey::Str(_) => marker::escaped_forms(address)
            .iter()
            .any(|form| form == escaped),
    }
}

fn valid_slot(object: &LiveObject) -> Option<Slot> {
    object.tag(SLOT_TAG).and_then(|v| v.parse().ok())
}

fn is_index(k: &str) -> bool {
    !k.is_empty()
        && k.bytes().all(|b| b.is_ascii_digit())
        && (k == "0" || !k.starts_with('0'))
        && k.len() < 20
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn key() -> impl Strategy<Value = InstanceKey> {
        prop_oneof![
            Just(InstanceKey::None),
            (0u64..120).prop_map(InstanceKey::Int),
            any::<u64>().prop_map(InstanceKey::Int),
            "[a-z0-9.:%/ _-]{1,6}".prop_map(InstanceKey::Str),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        /// The comparison that writes nothing out agrees with the escaped forms, for the forms of
        /// nearby addresses and for misspellings of them (leading zeros, signs, trailing text).
        #[test]
        fn a_marker_marks_an_address_exactly_when_it_is_one_of_its_forms(
            key in key(),
            other_key in key(),
            other_name in prop_oneof![Just("b"), Just("b2"), Just("c")],
        ) {
            let address = BlockAddress::new("aws_eip", "b").unwrap().instance(key);
            let other = BlockAddress::new("aws_eip", other_name).unwrap().instance(other_key);
            let mut candidates = vec![
                "aws_eip.b".to_owned(),
                "aws_eip.b:".to_owned(),
                "aws_eip".to_owned(),
                "aws_eip2.b".to_owned(),
            ];
            for form in marker::escaped_forms(&address).into_iter().chain(marker::escaped_forms(&other)) {
                candidates.push(format!("{form}0"));
                candidates.push(format!("{form}x"));
                candidates.push(form.replacen(':', ":0", 1));
                candidates.push(form.replacen(':', ":+", 1));
                candidates.push(form.replacen(':', "", 1));
                candidates.push(form);
            }
            let forms = marker::escaped_forms(&address);
            for candidate in &candidates {
                prop_assert_eq!(
                    marks(&address, candidate),
                    forms.contains(candidate),
                    "{} against {}", address, candidate
                );
            }
        }
    }
}
