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
//! Every served type has a checked-in list of the AWS provider v5's documented arguments, attributes and
//! blocks with what liveplan does with each ([`argument_list`], files `arguments/<type>.tsv`): the
//! catalog refuses by name each one it does not implement.
//!
//! This crate is data: it depends on `provider` alone, and must never depend on which live system serves
//! the types, nor do any I/O.

mod arguments;
pub mod data;
mod ec2;
mod iam;
mod logs;
mod s3;

use provider::schema::{AttributeSchema, BindMatch, ResourceTypeSchema};
use provider::{Catalog, Type};

pub use arguments::{
    ArgumentEntry, ArgumentList, EntryKind, EntryStatus, ListError, argument_list, listed_types,
};

/// The AWS types an AWS-like provider serves (the contract's table), `aws_eip_association` included.
pub fn catalog() -> Catalog {
    let mut types = s3::schemas();
    types.extend(iam::schemas());
    types.extend(logs::schemas());
    types.extend(ec2::schemas());
    data::schemas().into_iter().fold(
        Catalog::new(types.into_iter().map(with_refusals)),
        Catalog::with_data_source,
    )
}

/// `schema` refusing by name the top-level entries its argument list refuses. A list that breaks the
/// format refuses nothing (its arguments stay unknown ones); the crate's tests fail on it.
fn with_refusals(schema: ResourceTypeSchema) -> ResourceTypeSchema {
    let Some(Ok(list)) = argument_list(&schema.type_name) else {
        return schema;
    };
    list.entries
        .iter()
        .filter(|e| e.status.is_refused() && e.is_top_level())
        .fold(schema, |s, e| {
            s.refuse(e.name, e.status == EntryStatus::DeprecatedRefused, e.note)
        })
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
