//! The calls of discovery: the first stage's bounded pool (the tagging sweep, every bulk listing page
//! after page, and the single reads whose inputs need no bulk answer), then single reads and listings
//! under a parent for the stages that need them, each with its retries and its `provider_call` span.
//!
//! This is the only file that asks the [`Provider`] anything the live system answers. It wraps the
//! provider once, in a [`Retrying`] decorator around a [`Spanned`] one (each attempt in its
//! `provider_call` span), and hands every call the projection's one recorder, so the plan's cost is exactly
//! what its own calls reported. It calls only reads and listings, never a create, update, delete or tag
//! call, and judges nothing it reads.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::task::Poll;

use admission::InstanceAddress;
use admission::marker::{ESTATE_TAG, Estate};
use async_trait::async_trait;
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use provider::AdmissionPath;
use provider::{
    Call, CallCounts, Decorate, Identity, ListPage, ListRequest, LiveObject, Method, Next,
    Provider, ProviderError, TagFilter, TagQuery, TaggedPage, TaggedResource,
};
use tracing::Instrument;

use super::ProjectionConfig;
use super::evidence::{IdentityKey, Listing, ObjectKey};
use super::scope::Scope;
use crate::declared::DeclaredValue;
use crate::retry::Retrying;

/// One single read: by identity, or by id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ReadRequest {
    /// The object with a key (its type and identity).
    Identity(IdentityKey),
    /// The object with a key (its type and id).
    Id(ObjectKey),
}

/// What a single read answered: the object, nothing there, or the failure.
pub(crate) type Answer = Result<Option<LiveObject>, ProviderError>;

/// A whole listing of one type (its objects and the children they carry inline), or why it failed.
pub(crate) type Listed = Result<(Listing, Vec<LiveObject>), ProviderError>;

/// What the first stage's sweep and bulk listings answered.
pub(crate) struct Bulk {
    /// The sweep's hits, or its failure (`None` only if it never answered).
    pub(crate) sweep: Option<Result<Vec<TaggedResource>, ProviderError>>,
    /// Each bulk listing, in the order they ended.
    pub(crate) listed: Vec<(String, Listed)>,
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
    Read(ReadRequest, Answer),
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
        ReadRequest::Identity(IdentityKey::new(
            &self.type_name,
            Identity::Composite(self.parts.clone()),
        ))
    }
}

/// Records a failed call on the span that made it, as `#[instrument(err)]` would.
fn record_error(span: &tracing::Span, error: &ProviderError) {
    span.in_scope(|| tracing::error!(target: "projection::discover", error = %error));
}

/// The provider of one projection, with the answers the first stage read ahead.
pub(crate) struct Reader<'a> {
    provider: Retrying<Spanned<'a>>,
    /// The projection's recorder: every attempt of every call it makes, and nothing else.
    counts: &'a CallCounts,
    config: &'a ProjectionConfig,
    /// Answers of the reads the first stage made ahead of the binding step that needs them; each is
    /// handed out once, so asking for it again makes the read again.
    prefetched: HashMap<ReadRequest, Answer>,
}

impl<'a> Reader<'a> {
    /// Reads `provider` for `estate` with the concurrency and retries of `config`, every attempt reported
    /// to `counts`.
    pub(crate) fn new(
        provider: &'a dyn Provider,
        counts: &'a CallCounts,
        estate: &'a Estate,
        config: &'a ProjectionConfig,
    ) -> Reader<'a> {
        Reader {
            provider: Retrying::new(Spanned { provider, estate }, &config.retry),
            counts,
            config,
            prefetched: HashMap::new(),
        }
    }

    /// The context of one call: the projection's recorder.
    fn context(&self) -> Call<'a> {
        Call::new(self.counts)
    }

    /// One page of a listing, with its retries.
    async fn list_page(&self, request: &ListRequest) -> Result<ListPage, ProviderError> {
        self.provider.list(&self.context(), request.clone()).await
    }

    /// Every page of the listing `request`.
    #[tracing::instrument(target = "projection::discover", skip_all, fields(type_name = %request.type_name), err)]
    pub(crate) async fn list_all(&self, request: ListRequest) -> Listed {
        let mut request = request;
        let mut listing = Listing::default();
        let mut children = Vec::new();
        loop {
            let page = self.list_page(&request).await?;
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
    #[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "bulk"))]
    pub(crate) async fn fetch_bulk(&mut self, scope: &Scope<'_>) -> Bulk {
        let types = bulk_types(scope);
        let mut stage = FirstStage::new(scope, &types);
        {
            let this = &*self;
            let limit = this.config.read_concurrency.max(1);
            let mut running: FuturesUnordered<BoxFuture<'_, Done>> = FuturesUnordered::new();
            // Calls that answered on their first poll (no latency), in the order they were made.
            let mut answered: VecDeque<Done> = VecDeque::new();
            loop {
                // Reads made ready, by the plan or by the last answer, go behind what is queued.
                stage
                    .queue
                    .extend(stage.prefetch.ready.drain(..).map(Job::Read));
                while running.len() < limit {
                    let Some(job) = stage.queue.pop_front() else {
                        break;
                    };
                    let span = stage.span_of(&job);
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
                stage.on_done(scope, done);
            }
        }
        self.prefetched = stage.prefetched;
        Bulk {
            sweep: stage.sweep,
            listed: stage.listed,
        }
    }

    /// One call of the first stage, with its retries, inside `span`.
    fn call(&self, job: Job, span: tracing::Span) -> BoxFuture<'_, Done> {
        match job {
            Job::Sweep(query) => Box::pin(
                async move {
                    let page = self
                        .provider
                        .tagged_resources(&self.context(), query.clone())
                        .await;
                    Done::Sweep(query, page)
                }
                .instrument(span),
            ),
            Job::List(request) => Box::pin(
                async move {
                    let page = self.list_page(&request).await;
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

    #[tracing::instrument(target = "projection::discover", skip_all, err)]
    async fn read_one(&self, request: &ReadRequest) -> Answer {
        let call = self.context();
        match request {
            ReadRequest::Identity(k) => self.provider.read(&call, &k.type_name, &k.identity).await,
            ReadRequest::Id(k) => self.provider.read_by_id(&call, &k.type_name, &k.id).await,
        }
    }

    /// Single reads, at most `read_concurrency` in flight, answers in request order. A read the first
    /// stage already made is answered from `prefetched`, without a call.
    pub(crate) async fn read_many(&mut self, requests: &[ReadRequest]) -> Vec<Answer> {
        let mut answers: Vec<Option<Answer>> =
            requests.iter().map(|r| self.prefetched.remove(r)).collect();
        let this = &*self;
        let fetched: Vec<(usize, Answer)> = futures::stream::iter(
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
}

/// The types the first stage lists in bulk: every declared marker-path type, and every declared
/// client-named type the tagging index covers.
fn bulk_types(scope: &Scope<'_>) -> BTreeSet<String> {
    let mut types: BTreeSet<String> = BTreeSet::new();
    for type_name in scope.declared.type_names() {
        let schema = scope.schema(&type_name);
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
    types
}

/// The state of the first stage between its calls: what is queued, what each answer releases, and the
/// answers so far.
struct FirstStage {
    queue: VecDeque<Job>,
    prefetch: Prefetch,
    sweep_span: tracing::Span,
    list_spans: HashMap<String, tracing::Span>,
    /// The sweep's hits so far, until its last page.
    hits: Vec<TaggedResource>,
    sweep: Option<Result<Vec<TaggedResource>, ProviderError>>,
    /// Listings still paging, by type.
    partial: HashMap<String, (Listing, Vec<LiveObject>)>,
    listed: Vec<(String, Listed)>,
    prefetched: HashMap<ReadRequest, Answer>,
}

impl FirstStage {
    /// The sweep and the listings of `types` queued, and the reads known before any call ready.
    fn new(scope: &Scope<'_>, types: &BTreeSet<String>) -> FirstStage {
        let prefetch = prefetch_plan(scope, types);
        let mut queue: VecDeque<Job> = VecDeque::new();
        queue.push_back(Job::Sweep(TagQuery {
            tag_filters: vec![TagFilter::equals(ESTATE_TAG, scope.estate.as_str())],
            type_names: Vec::new(),
            page_token: None,
        }));
        for type_name in types {
            queue.push_back(Job::List(ListRequest::all(type_name.clone())));
        }
        let sweep_span = tracing::info_span!(target: "projection::discover", "sweep_all", estate = %scope.estate);
        let list_spans: HashMap<String, tracing::Span> = types
            .iter()
            .map(|t| {
                let span =
                    tracing::info_span!(target: "projection::discover", "list_all", type_name = %t);
                (t.clone(), span)
            })
            .collect();
        FirstStage {
            queue,
            prefetch,
            sweep_span,
            list_spans,
            hits: Vec::new(),
            sweep: None,
            partial: HashMap::new(),
            listed: Vec::new(),
            prefetched: HashMap::new(),
        }
    }

    /// The span a call of `job` runs in: its listing's, the sweep's, or the stage's own for a read.
    fn span_of(&self, job: &Job) -> tracing::Span {
        match job {
            Job::Sweep(_) => self.sweep_span.clone(),
            Job::List(request) => self
                .list_spans
                .get(&request.type_name)
                .cloned()
                .unwrap_or_else(tracing::Span::none),
            Job::Read(_) => tracing::Span::current(),
        }
    }

    fn on_done(&mut self, scope: &Scope<'_>, done: Done) {
        match done {
            Done::Sweep(query, Ok(page)) => self.on_sweep_page(query, page),
            Done::Sweep(_, Err(e)) => {
                record_error(&self.sweep_span, &e);
                self.sweep = Some(Err(e));
            }
            Done::List(request, Ok(page)) => self.on_list_page(scope, request, page),
            Done::List(request, Err(e)) => {
                if let Some(span) = self.list_spans.get(&request.type_name) {
                    record_error(span, &e);
                }
                self.partial.remove(&request.type_name);
                self.listed.push((request.type_name, Err(e)));
            }
            Done::Read(request, answer) => self.on_read(request, answer),
        }
    }

    /// A page of the sweep: the next one goes first in the queue, the last one ends the sweep.
    fn on_sweep_page(&mut self, mut query: TagQuery, page: TaggedPage) {
        self.hits.extend(page.resources);
        match page.next_page_token {
            Some(token) => {
                query.page_token = Some(token);
                self.queue.push_front(Job::Sweep(query));
            }
            None => self.sweep = Some(Ok(std::mem::take(&mut self.hits))),
        }
    }

    /// A page of a bulk listing: the next one goes first in the queue; the last one ends the listing,
    /// which then shows where each declared client-named identity of its type is, or that a read must
    /// look for it.
    fn on_list_page(&mut self, scope: &Scope<'_>, mut request: ListRequest, page: ListPage) {
        let type_name = request.type_name.clone();
        let entry = self.partial.entry(type_name.clone()).or_default();
        entry.0.tags_included = page.tags_included;
        entry.0.objects.extend(page.objects);
        entry.1.extend(page.children);
        if let Some(token) = page.next_page_token {
            request.page_token = Some(token);
            self.queue.push_front(Job::List(request));
            return;
        }
        let (mut listing, children) = self.partial.remove(&type_name).unwrap_or_default();
        let argument = scope.schema(&type_name).identity.first().cloned();
        listing.build_index(argument.as_deref());
        for (name, parent) in self
            .prefetch
            .after_listing
            .remove(&type_name)
            .unwrap_or_default()
        {
            match listing.find_named(argument.as_deref(), &name) {
                Some(object) => self.prefetch.observed(&parent, &object.id),
                None => self.prefetch.ask(
                    ReadRequest::Identity(IdentityKey::new(&type_name, Identity::Name(name))),
                    Some(parent),
                ),
            }
        }
        self.listed.push((type_name, Ok((listing, children))));
    }

    /// A read's answer: kept for the step that asks for it; an object found releases the children
    /// waiting for it.
    fn on_read(&mut self, request: ReadRequest, answer: Answer) {
        if let Ok(Some(object)) = &answer {
            for parent in self
                .prefetch
                .read_parents
                .remove(&request)
                .unwrap_or_default()
            {
                self.prefetch.observed(&parent, &object.id);
            }
        }
        self.prefetched.insert(request, answer);
    }
}

/// Which single reads the first stage can make beside the listings: those of client-named identities
/// whose type no bulk listing covers (known before any call), those a listing shows absent (known
/// when that listing ends), and those of parent-derived children whose identity is literal or names
/// client-named parents (known when each parent is seen). Each is the very read the binding step
/// would make, so a converged plan makes no more calls than before, only sooner.
fn prefetch_plan(scope: &Scope<'_>, listed_types: &BTreeSet<String>) -> Prefetch {
    let mut prefetch = Prefetch::default();
    let known_name = |address: &InstanceAddress| -> Option<String> {
        let schema = scope.catalog.get(address.type_name())?;
        let argument = schema.identity.first()?;
        match scope.declared.values_of(address)?.identity.get(argument)? {
            DeclaredValue::Known(name) => Some(name.clone()),
            _ => None,
        }
    };
    for address in scope.addresses_on(AdmissionPath::ClientNamed) {
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
                ReadRequest::Identity(IdentityKey::new(&type_name, Identity::Name(name))),
                Some(address),
            );
        }
    }
    'child: for address in scope.addresses_on(AdmissionPath::ParentDerived) {
        let type_name = address.type_name().to_owned();
        if scope
            .schema(&type_name)
            .parent
            .as_ref()
            .is_some_and(|l| l.inline)
        {
            continue;
        }
        let mut child = PendingChild {
            type_name,
            parts: BTreeMap::new(),
            waiting: BTreeMap::new(),
        };
        for (argument, value) in scope.identity_of(&address) {
            match value {
                DeclaredValue::Known(s) => {
                    child.parts.insert(argument.clone(), s.clone());
                }
                DeclaredValue::IdOf(parent)
                    if scope.declared.is_declared(parent)
                        && scope.admission(parent.type_name())
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

/// The provider as discovery calls it: each attempt of a read or listing runs in its own
/// `provider_call` span (inside the retries, so a retried call shows one span per attempt), which is what
/// a user filters on to follow the reads of an estate, an operation or a type. Every call is forwarded
/// as it is.
pub(crate) struct Spanned<'a> {
    provider: &'a dyn Provider,
    estate: &'a Estate,
}

#[async_trait]
impl<'a> Decorate for Spanned<'a> {
    type Inner = dyn Provider + 'a;

    fn inner(&self) -> &(dyn Provider + 'a) {
        self.provider
    }

    /// A read, a listing or a sweep runs in its span; anything else is forwarded as it is.
    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        let method = next.method();
        if !matches!(
            method,
            Method::List(_)
                | Method::Read { .. }
                | Method::ReadById { .. }
                | Method::TaggedResources(_)
        ) {
            return next.forward().await;
        }
        let span = tracing::info_span!(
            target: "projection::discover",
            "provider_call",
            estate = %self.estate,
            operation = method.name(),
            type_name = method.type_name(),
            identity = tracing::field::Empty,
        );
        match method {
            Method::Read { identity, .. } => {
                span.record("identity", tracing::field::display(identity));
            }
            Method::ReadById { id, .. } => {
                span.record("identity", id);
            }
            _ => {}
        }
        next.forward().instrument(span).await
    }
}
