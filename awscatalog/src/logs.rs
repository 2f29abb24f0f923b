//! The CloudWatch Logs types: log groups (client-named), which `skip_destroy` leaves in place on destroy.

use provider::schema::{AttributeSchema, DestroyArguments, ResourceTypeSchema};
use provider::{AdmissionPath, Type, Value};

use crate::{arn, string};

/// The CloudWatch Logs types.
pub(crate) fn schemas() -> Vec<ResourceTypeSchema> {
    use AdmissionPath::ClientNamed;
    let req = AttributeSchema::required;
    let opt = AttributeSchema::optional;
    vec![
        ResourceTypeSchema::new("aws_cloudwatch_log_group", Some(ClientNamed))
            .identity(["name"])
            .taggable(true)
            .with_attribute(req("name", string()).force_new())
            .with_attribute(opt("retention_in_days", Type::Number, Value::from(0)))
            .with_attribute(opt("kms_key_id", string(), Value::Null))
            .with_attribute(
                opt("log_group_class", string(), Value::from("STANDARD"))
                    .force_new()
                    .one_of(["STANDARD", "INFREQUENT_ACCESS"]),
            )
            .with_attribute(opt("skip_destroy", Type::Bool, Value::Bool(false)).residue())
            .with_attribute(arn())
            .destroy_arguments(DestroyArguments {
                with_contents: None,
                release: Some("skip_destroy".to_owned()),
            }),
    ]
}
