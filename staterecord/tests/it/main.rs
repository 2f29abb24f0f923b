//! Integration tests of the micro-state store, one binary for the crate.

mod keys;
#[cfg(feature = "s3")]
mod s3_emulator;
