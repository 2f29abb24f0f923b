//! The decorator seam: a provider that wraps another writes one hook, [`Decorate::around`], and is a
//! provider through the one impl here, which forwards every method of [`Provider`] (the defaulted ones
//! included) to the wrapped provider through that hook.
//!
//! A reference and an `Arc` are decorators with no hook, so `&P`, `&dyn Provider` and `Arc<dyn Provider>`
//! are providers too. Forwarding itself adds nothing: no attempt is reported here, and none is lost.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;

use super::{
    Call, CreateRequest, DataSourceRequest, Identity, ListPage, ListRequest, LiveObject, Provider,
    ProviderConfig, ProviderError, RateLimits, TagChange, TagQuery, TaggedPage, UpdateRequest,
};
use crate::catalog::Catalog;
use crate::value::Value;

/// The [`Provider`] method a decorated call is, with its arguments, as [`Decorate::around`] sees it.
///
/// `#[non_exhaustive]`: the protocol grows by defaulted methods, and each gets a variant.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Method<'a> {
    /// [`Provider::list`].
    List(&'a ListRequest),
    /// [`Provider::create`].
    Create(&'a CreateRequest),
    /// [`Provider::update`].
    Update(&'a UpdateRequest),
    /// [`Provider::delete`].
    Delete {
        /// The type of the object deleted.
        type_name: &'a str,
        /// Its id.
        id: &'a str,
    },
    /// [`Provider::delete_with_contents`].
    DeleteWithContents {
        /// The type of the object deleted.
        type_name: &'a str,
        /// Its id.
        id: &'a str,
    },
    /// [`Provider::read`].
    Read {
        /// The type of the object read.
        type_name: &'a str,
        /// The identity it is looked up by.
        identity: &'a Identity,
    },
    /// [`Provider::read_by_id`].
    ReadById {
        /// The type of the object read.
        type_name: &'a str,
        /// Its id.
        id: &'a str,
    },
    /// [`Provider::tagged_resources`].
    TaggedResources(&'a TagQuery),
    /// [`Provider::update_tags`].
    UpdateTags {
        /// The type of the object retagged.
        type_name: &'a str,
        /// Its id.
        id: &'a str,
        /// The tags set and removed.
        change: &'a TagChange,
    },
    /// [`Provider::read_data_source`].
    ReadDataSource(&'a DataSourceRequest),
    /// [`Provider::configure`].
    Configure(&'a ProviderConfig),
}

impl Method<'_> {
    /// The name of the [`Provider`] method (`list`, `read_by_id`).
    pub fn name(&self) -> &'static str {
        match self {
            Method::List(_) => "list",
            Method::Create(_) => "create",
            Method::Update(_) => "update",
            Method::Delete { .. } => "delete",
            Method::DeleteWithContents { .. } => "delete_with_contents",
            Method::Read { .. } => "read",
            Method::ReadById { .. } => "read_by_id",
            Method::TaggedResources(_) => "tagged_resources",
            Method::UpdateTags { .. } => "update_tags",
            Method::ReadDataSource(_) => "read_data_source",
            Method::Configure(_) => "configure",
        }
    }

    /// The resource or data source type the call is about, where it is about one.
    pub fn type_name(&self) -> Option<&str> {
        match self {
            Method::List(request) => Some(&request.type_name),
            Method::Create(request) => Some(&request.type_name),
            Method::Update(request) => Some(&request.type_name),
            Method::ReadDataSource(request) => Some(&request.type_name),
            Method::Delete { type_name, .. }
            | Method::DeleteWithContents { type_name, .. }
            | Method::Read { type_name, .. }
            | Method::ReadById { type_name, .. }
            | Method::UpdateTags { type_name, .. } => Some(type_name),
            Method::TaggedResources(_) | Method::Configure(_) => None,
        }
    }
}

/// A provider that wraps another and is a provider through it: every [`Provider`] method is forwarded to
/// [`Decorate::inner`] through [`Decorate::around`], the defaulted methods included (a default left in
/// place would answer from the wrapper's `list` and bypass the wrapped provider's cheaper override).
/// `region`, `lineage`, `account`, `schemas` and `rate_limits` are the wrapped provider's, unhooked.
///
/// ```
/// use provider::{Decorate, Method, Next, ProviderError};
///
/// /// Refuses every create, forwarding everything else untouched.
/// struct NoCreates<P>(P);
///
/// #[async_trait::async_trait]
/// impl<P: provider::Provider> Decorate for NoCreates<P> {
///     type Inner = P;
///
///     fn inner(&self) -> &P {
///         &self.0
///     }
///
///     async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
///         match next.method() {
///             Method::Create(request) => Err(ProviderError::unsupported("create", &request.type_name)),
///             _ => next.forward().await,
///         }
///     }
/// }
/// ```
#[async_trait]
pub trait Decorate: Send + Sync {
    /// The provider it wraps.
    type Inner: Provider + ?Sized;

    /// The wrapped provider.
    fn inner(&self) -> &Self::Inner;

    /// Makes one call, [`Next::method`]: [`Next::forward`] forwards it to the wrapped provider as the caller
    /// made it, and [`Next::run`] with another [`Call`] (one made with [`Call::with_recorder`] to record
    /// the attempts too). The hook may run it inside a span, several times (retries), or not at all. The
    /// default forwards it as it is.
    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        next.forward().await
    }
}

/// One decorated call, as [`Decorate::around`] receives it: the caller's [`Call`], the [`Method`] called,
/// and its forwarding to the wrapped provider, ready to run (again).
pub struct Next<'a, T> {
    call: &'a Call<'a>,
    method: Method<'a>,
    dispatch: &'a (dyn Dispatch<T> + 'a),
}

impl<'a, T> Next<'a, T> {
    /// The caller's call.
    pub fn call(&self) -> &'a Call<'a> {
        self.call
    }

    /// The method called, with its arguments.
    pub fn method(&self) -> Method<'a> {
        self.method
    }

    /// Calls the wrapped provider's method with the call's arguments and `call`.
    pub fn run<'c>(
        &'c self,
        call: &'c Call<'c>,
    ) -> impl Future<Output = Result<T, ProviderError>> + Send + 'c {
        self.dispatch.dispatch(call)
    }

    /// Calls the wrapped provider's method as the caller called it.
    pub fn forward(&self) -> impl Future<Output = Result<T, ProviderError>> + Send + '_ {
        self.run(self.call)
    }
}

impl<T> std::fmt::Debug for Next<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

type Answer<'c, T> = Pin<Box<dyn Future<Output = Result<T, ProviderError>> + Send + 'c>>;

/// What a [`Next`] runs, with the provider and the arguments' types erased.
trait Dispatch<T>: Send + Sync {
    fn dispatch<'c>(&'c self, call: &'c Call<'c>) -> Answer<'c, T>;
}

/// One method of `P` with its arguments `A`: `method(provider, call, arguments)`.
struct Forwarding<'a, P: ?Sized, A, T> {
    provider: &'a P,
    arguments: A,
    method: for<'c> fn(&'c P, &'c Call<'c>, &'c A) -> Answer<'c, T>,
}

impl<P: Provider + ?Sized, A: Send + Sync, T> Dispatch<T> for Forwarding<'_, P, A, T> {
    fn dispatch<'c>(&'c self, call: &'c Call<'c>) -> Answer<'c, T> {
        (self.method)(self.provider, call, &self.arguments)
    }
}

/// Makes one call of a decorator: its `method` (named from the `arguments`) through its hook, forwarded
/// to the provider it wraps by `forward`.
async fn decorated<D: Decorate, A: Send + Sync, T: Send>(
    decorator: &D,
    call: &Call<'_>,
    arguments: A,
    method: for<'x> fn(&'x A) -> Method<'x>,
    forward: for<'c> fn(&'c D::Inner, &'c Call<'c>, &'c A) -> Answer<'c, T>,
) -> Result<T, ProviderError> {
    let forwarding = Forwarding {
        provider: decorator.inner(),
        arguments,
        method: forward,
    };
    let next = Next {
        call,
        method: method(&forwarding.arguments),
        dispatch: &forwarding,
    };
    decorator.around(next).await
}

/// The impl of [`Provider`] for every decorator: each hooked method with its arguments, the [`Method`]
/// it is, and its forwarding to the wrapped provider `$provider` with the call `$call`.
macro_rules! through_the_hook {
    (
        |$provider:ident, $call:ident|
        $($name:ident($($arg:ident: $ty:ty),*) -> $answer:ty = $method:expr => $forward:expr;)*
    ) => {
        #[async_trait]
        impl<D: Decorate> Provider for D {
            fn region(&self) -> String {
                self.inner().region()
            }

            fn lineage(&self) -> Option<crate::protocol::Lineage> {
                self.inner().lineage()
            }

            fn account(&self) -> Option<String> {
                self.inner().account()
            }

            fn schemas(&self) -> &Catalog {
                self.inner().schemas()
            }

            $(
                async fn $name(
                    &self,
                    call: &Call<'_>,
                    $($arg: $ty),*
                ) -> Result<$answer, ProviderError> {
                    decorated(
                        self,
                        call,
                        ($($arg,)*),
                        |($($arg,)*)| $method,
                        |$provider, $call, ($($arg,)*)| $forward,
                    )
                    .await
                }
            )*

            fn rate_limits(&self) -> RateLimits {
                self.inner().rate_limits()
            }
        }
    };
}

through_the_hook! { |provider, call|
    list(request: ListRequest) -> ListPage
        = Method::List(request) => provider.list(call, request.clone());
    create(request: CreateRequest) -> LiveObject
        = Method::Create(request) => provider.create(call, request.clone());
    update(request: UpdateRequest) -> LiveObject
        = Method::Update(request) => provider.update(call, request.clone());
    delete(type_name: &str, id: &str) -> ()
        = Method::Delete { type_name, id } => provider.delete(call, type_name, id);
    delete_with_contents(type_name: &str, id: &str) -> ()
        = Method::DeleteWithContents { type_name, id }
        => provider.delete_with_contents(call, type_name, id);
    read(type_name: &str, identity: &Identity) -> Option<LiveObject>
        = Method::Read { type_name, identity } => provider.read(call, type_name, identity);
    read_by_id(type_name: &str, id: &str) -> Option<LiveObject>
        = Method::ReadById { type_name, id } => provider.read_by_id(call, type_name, id);
    tagged_resources(query: TagQuery) -> TaggedPage
        = Method::TaggedResources(query) => provider.tagged_resources(call, query.clone());
    update_tags(type_name: &str, id: &str, change: TagChange) -> ()
        = Method::UpdateTags { type_name, id, change }
        => provider.update_tags(call, type_name, id, change.clone());
    read_data_source(request: DataSourceRequest) -> Value
        = Method::ReadDataSource(request) => provider.read_data_source(call, request.clone());
    configure(config: &ProviderConfig) -> Option<Arc<dyn Provider>>
        = Method::Configure(config) => provider.configure(call, config);
}

/// A reference forwards every call as it is.
impl<P: Provider + ?Sized> Decorate for &P {
    type Inner = P;

    fn inner(&self) -> &P {
        self
    }
}

/// An `Arc` forwards every call as it is.
impl<P: Provider + ?Sized> Decorate for Arc<P> {
    type Inner = P;

    fn inner(&self) -> &P {
        self
    }
}
