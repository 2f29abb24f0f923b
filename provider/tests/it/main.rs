//! Integration tests of the provider seam: the value model and the protocol's defaults, one binary for the
//! crate.

mod numbers;
mod protocol;
mod values;
