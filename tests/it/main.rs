//! Integration tests of the root package: the CLI end to end.

#[cfg(feature = "aws")]
mod aws_provider;
mod cli;
mod golden;
