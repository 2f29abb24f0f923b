//! The shared catalog's tests: data that a read computes without any cloud.

mod policy_document;
