//! `Counting<P>`: a decorator that adds up every API attempt the provider under it reports, by operation.
//!
//! It forwards every call, and reports each attempt both to its own counts and to the caller's recorder,
//! so wrapping a provider changes neither what it does nor what its callers see. Put it inside a retrying
//! decorator, so that every attempt is counted. It keeps nothing but the counts.

use std::sync::Arc;

use async_trait::async_trait;

use super::call::Both;
use super::{
    Call, CallCounts, CreateRequest, DataSourceRequest, Identity, ListPage, ListRequest,
    LiveObject, Provider, ProviderConfig, ProviderError, RateLimits, TagChange, TagQuery,
    TaggedPage, UpdateRequest,
};
use crate::catalog::Catalog;
use crate::value::Value;

/// A provider whose calls are counted: `calls()` says, by `service:Action` operation, how many attempts
/// the wrapped provider reported since it was wrapped or last [`reset`](Counting::reset).
///
/// ```
/// use provider::{Call, Catalog, Counting, Provider};
/// # use provider::{CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, UpdateRequest};
/// # struct Empty(Catalog);
/// # #[async_trait::async_trait]
/// # impl Provider for Empty {
/// #     fn region(&self) -> String { "r".into() }
/// #     fn schemas(&self) -> &Catalog { &self.0 }
/// #     async fn list(&self, call: &Call<'_>, _: ListRequest) -> Result<ListPage, ProviderError> {
/// #         call.attempt("kv:List");
/// #         Ok(ListPage::default())
/// #     }
/// #     async fn create(&self, _: &Call<'_>, _: CreateRequest) -> Result<LiveObject, ProviderError> { Err(read_only("kv:Create")) }
/// #     async fn update(&self, _: &Call<'_>, _: UpdateRequest) -> Result<LiveObject, ProviderError> { Err(read_only("kv:Update")) }
/// #     async fn delete(&self, _: &Call<'_>, _: &str, _: &str) -> Result<(), ProviderError> { Err(read_only("kv:Delete")) }
/// # }
/// # fn read_only(op: &str) -> ProviderError {
/// #     ProviderError::new(op, provider::ProviderErrorKind::Unsupported, "this example cloud is read-only")
/// # }
/// # let provider = Empty(Catalog::default());
/// let counted = Counting::new(provider);
/// let page = block_on(counted.list(&Call::unrecorded(), ListRequest::all("kv_entry")));
/// assert!(page.unwrap().objects.is_empty());
/// assert_eq!(counted.calls()["kv:List"], 1);
/// counted.reset();
/// assert_eq!(counted.total(), 0);
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let mut f = std::pin::pin!(f);
/// #     let waker = std::task::Waker::noop();
/// #     match f.as_mut().poll(&mut std::task::Context::from_waker(&waker)) {
/// #         std::task::Poll::Ready(v) => v,
/// #         std::task::Poll::Pending => panic!("the example provider never waits"),
/// #     }
/// # }
/// ```
#[derive(Debug, Default)]
pub struct Counting<P> {
    inner: P,
    counts: CallCounts,
}

impl<P> Counting<P> {
    /// `inner`, counted from zero.
    pub fn new(inner: P) -> Counting<P> {
        Counting {
            inner,
            counts: CallCounts::new(),
        }
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// The attempts so far, by operation name (operations never attempted left out).
    pub fn calls(&self) -> std::collections::BTreeMap<String, u64> {
        self.counts.snapshot()
    }

    /// The attempts so far at `operation`.
    pub fn calls_of(&self, operation: &str) -> u64 {
        self.counts.of(operation)
    }

    /// The attempts so far, all operations together.
    pub fn total(&self) -> u64 {
        self.counts.total()
    }

    /// Forgets the counts; counting goes on from zero.
    pub fn reset(&self) {
        self.counts.reset();
    }
}

#[async_trait]
impl<P: Provider> Provider for Counting<P> {
    fn region(&self) -> String {
        self.inner.region()
    }

    fn schemas(&self) -> &Catalog {
        self.inner.schemas()
    }

    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner.list(&call.with_recorder(&both), request).await
    }

    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner.create(&call.with_recorder(&both), request).await
    }

    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner.update(&call.with_recorder(&both), request).await
    }

    async fn delete(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .delete(&call.with_recorder(&both), type_name, id)
            .await
    }

    async fn read(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .read(&call.with_recorder(&both), type_name, identity)
            .await
    }

    async fn read_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .read_by_id(&call.with_recorder(&both), type_name, id)
            .await
    }

    async fn tagged_resources(
        &self,
        call: &Call<'_>,
        query: TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .tagged_resources(&call.with_recorder(&both), query)
            .await
    }

    async fn update_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .update_tags(&call.with_recorder(&both), type_name, id, change)
            .await
    }

    async fn read_data_source(
        &self,
        call: &Call<'_>,
        request: DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .read_data_source(&call.with_recorder(&both), request)
            .await
    }

    async fn configure(
        &self,
        call: &Call<'_>,
        config: &ProviderConfig,
    ) -> Result<Option<Arc<dyn Provider>>, ProviderError> {
        let both = Both(&self.counts, call.recorder());
        self.inner
            .configure(&call.with_recorder(&both), config)
            .await
    }

    fn rate_limits(&self) -> RateLimits {
        self.inner.rate_limits()
    }
}
