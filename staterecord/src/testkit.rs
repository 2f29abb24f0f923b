//! Test support shared by the tests of this and other crates: the conformance suite every backend runs,
//! a wrapper that hides bulk reads, and the handle on the local AWS emulator.
//!
//! Tests that need the emulator get it from [`emulator::S3Emulator::from_env`], which fails (never skips)
//! when the endpoint is not configured or does not answer. This module is compiled only with the `testkit`
//! feature and must never be used by production code.

pub mod conformance;
#[cfg(feature = "s3")]
pub mod emulator;

use std::sync::Arc;

use async_trait::async_trait;

use crate::decorate::DecorateStore;
use crate::store::Store;

/// A pass-through store that offers no [`BulkReader`](crate::BulkReader), to test the per-key fallback of
/// callers and caches against a real backend.
#[derive(Debug)]
pub struct WithoutBulk(pub Arc<dyn Store>);

#[async_trait]
impl DecorateStore for WithoutBulk {
    fn inner(&self) -> &Arc<dyn Store> {
        &self.0
    }

    fn offers_bulk(&self) -> bool {
        false
    }
}
