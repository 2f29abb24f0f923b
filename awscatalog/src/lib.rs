//! The AWS resource types as schema data: what an AWS-like provider serves, one module per service family.
//!
//! [`catalog()`] is the table both the simulated cloud (`fixtures`) and the real AWS provider serve from,
//! `aws_eip_association` included although it has no admission path, so that the lint can name it
//! `unadmitted-type` instead of `unsupported-type`. The record-backed types (`random_id`,
//! `terraform_data`) are not here: the engine serves them with any provider (`engine::builtin_catalog()`).
//!
//! ```
//! let catalog = awscatalog::catalog();
//! assert!(catalog.contains("aws_s3_bucket"));
//! assert!(!catalog.contains("random_id"));
//! ```
//!
//! This crate is data: it depends on `provider` alone, and must never depend on which live system serves
//! the types, nor do any I/O.

mod ec2;
mod iam;
mod logs;
mod s3;

use provider::schema::{AttributeSchema, BindMatch};
use provider::{Catalog, Type};

/// The AWS types an AWS-like provider serves (the contract's table), `aws_eip_association` included.
pub fn catalog() -> Catalog {
    let mut types = s3::schemas();
    types.extend(iam::schemas());
    types.extend(logs::schemas());
    types.extend(ec2::schemas());
    Catalog::new(types)
}

fn string() -> Type {
    Type::String
}

fn arn() -> AttributeSchema {
    AttributeSchema::computed("arn", Type::String)
}

fn fields(names: &[&str]) -> BindMatch {
    BindMatch::Fields(names.iter().map(|s| (*s).to_owned()).collect())
}
