//! The S3 types: buckets (client-named) and their versioning (parent-derived, inside its bucket), whose
//! configuration is the AWS provider v5's `versioning_configuration { status, mfa_delete }` block.

use provider::schema::{
    AttributeSchema, BlockSchema, DestroyArguments, IdScheme, Nesting, ResourceTypeSchema,
};
use provider::{AdmissionPath, Type, Value};

use crate::{arn, string};

/// The S3 types: buckets and their versioning.
pub(crate) fn schemas() -> Vec<ResourceTypeSchema> {
    use AdmissionPath::{ClientNamed, ParentDerived};
    let req = AttributeSchema::required;
    let opt = AttributeSchema::optional;
    vec![
        ResourceTypeSchema::new("aws_s3_bucket", Some(ClientNamed))
            .identity(["bucket"])
            .taggable(true)
            .with_attribute(req("bucket", string()).force_new())
            .with_attribute(opt("force_destroy", Type::Bool, Value::Bool(false)).residue())
            .with_attribute(arn())
            .destroy_arguments(DestroyArguments {
                with_contents: Some("force_destroy".to_owned()),
                release: None,
            }),
        ResourceTypeSchema::new("aws_s3_bucket_versioning", Some(ParentDerived))
            .identity(["bucket"])
            .parent("bucket", "aws_s3_bucket", false)
            .id_scheme(IdScheme::Joined {
                separator: "_".to_owned(),
            })
            .with_attribute(
                req("bucket", string())
                    .force_new()
                    .references("aws_s3_bucket"),
            )
            .with_attribute(AttributeSchema::block(
                "versioning_configuration",
                BlockSchema::new(Nesting::List)
                    .items(1, Some(1))
                    .with_attribute(req("status", string()).one_of(["Enabled", "Suspended"]))
                    .with_attribute(
                        opt("mfa_delete", string(), Value::Null).one_of(["Enabled", "Disabled"]),
                    ),
            )),
    ]
}
