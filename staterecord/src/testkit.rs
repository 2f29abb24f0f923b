//! Test support shared by the tests of this and other crates: the handle on the local AWS emulator.
//!
//! Tests that need the emulator get it from [`emulator::S3Emulator::from_env`], which fails (never skips)
//! when the endpoint is not configured or does not answer. This module is compiled only with the `testkit`
//! feature and must never be used by production code.

#[cfg(feature = "s3")]
pub mod emulator;
