//! `Counting<P>`: a decorator that adds up every API attempt the provider under it reports, by operation.
//!
//! Its [`Decorate`] hook reports each attempt both to its own counts and to the caller's recorder,
//! so wrapping a provider changes neither what it does nor what its callers see. Put it inside a retrying
//! decorator, so that every attempt is counted. It keeps nothing but the counts.

use async_trait::async_trait;

use super::call::Both;
use super::{CallCounts, Decorate, Next, Provider, ProviderError};

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
impl<P: Provider> Decorate for Counting<P> {
    type Inner = P;

    fn inner(&self) -> &P {
        &self.inner
    }

    /// Each attempt goes to the counts and to the caller's recorder.
    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        let both = Both(&self.counts, next.call().recorder());
        next.run(&next.call().with_recorder(&both)).await
    }
}
