//! The provider seam: what a live system implements so that liveplan can plan and apply against it.
//!
//! A third-party provider depends on this crate alone. It holds:
//! - the value model ([`Value`], [`Type`], [`Number`], [`ValuePath`]) with its *unknown* values (known only
//!   after apply) and the *sensitive* mark;
//! - resource type schemas ([`ResourceTypeSchema`]) and the [`Catalog`] of the types a provider serves,
//!   each with the [`AdmissionPath`] by which a plan finds its objects again;
//! - the async [`Provider`] protocol with [`LiveObject`] and the typed [`ProviderError`]; every call
//!   receives a [`Call`] whose [`Recorder`] the provider reports each API attempt to, and [`Counting`]
//!   is the decorator that adds those attempts up;
//! - the [`conformance`] checks any provider runs against itself.
//!
//! It has no HCL, no expression evaluator and no graph library: the configuration language lives in
//! `admission`, which re-exports this crate's model under its own paths.
//!
//! ```
//! use provider::{Catalog, Value};
//!
//! let v = Value::from_json(serde_json::json!({"bucket": "acme-data"}));
//! assert_eq!(v.get("bucket").and_then(Value::as_str), Some("acme-data"));
//! assert!(Catalog::default().is_empty());
//! ```
//!
//! This crate never performs I/O, never prints and never installs a tracing subscriber.

mod catalog;
pub mod conformance;
mod error;
mod path;
mod protocol;
pub mod schema;
pub mod value;

pub use catalog::Catalog;
pub use error::ValueError;
pub use path::AdmissionPath;
pub use protocol::{
    AssumeRole, Call, CallCounts, Counting, CreateRequest, DataSourceRequest, Decorate, Identity,
    Lineage, ListPage, ListRequest, LiveObject, Method, Next, ParentScope, Provider,
    ProviderConfig, ProviderError, ProviderErrorKind, RateLimit, RateLimits, Recorder, TagChange,
    TagFilter, TagQuery, TaggedPage, TaggedResource, UpdateRequest, configured,
};
pub use schema::ResourceTypeSchema;
pub use value::{Number, Type, Value, ValuePath};
