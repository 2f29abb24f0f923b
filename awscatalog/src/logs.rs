//! The CloudWatch Logs types: log groups (client-named).

use provider::schema::{AttributeSchema, ResourceTypeSchema};
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
            .with_attribute(arn()),
    ]
}
