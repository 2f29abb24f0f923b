//! Integration tests of the root package: the CLI end to end.

mod cli;
