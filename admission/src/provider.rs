//! The provider protocol under this crate's path: the async trait a live system implements, its live
//! objects, requests and typed errors, and the conformance checks, all defined by the `provider` crate.
//!
//! A third-party provider depends on the `provider` crate directly; this module lets the configuration
//! model's users name the same items without a second dependency. It must never add to the protocol.

pub use ::provider::conformance;
pub use ::provider::{
    AssumeRole, Call, CallCounts, Counting, CreateRequest, DataSourceRequest, Identity, ListPage,
    ListRequest, LiveObject, ParentScope, Provider, ProviderConfig, ProviderError,
    ProviderErrorKind, RateLimit, RateLimits, Recorder, TagChange, TagFilter, TagQuery, TaggedPage,
    TaggedResource, UpdateRequest, configured,
};
