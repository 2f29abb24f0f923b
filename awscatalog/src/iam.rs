//! The IAM types: roles and users (client-named) and access keys (list-and-match under their user).

use provider::schema::{AttributeSchema, DestroyArguments, ResourceTypeSchema};
use provider::{AdmissionPath, Type, Value};

use crate::{arn, string};

/// The IAM types: roles, users and access keys.
pub(crate) fn schemas() -> Vec<ResourceTypeSchema> {
    use AdmissionPath::{ClientNamed, ListMatch};
    let req = AttributeSchema::required;
    let opt = AttributeSchema::optional;
    vec![
        ResourceTypeSchema::new("aws_iam_role", Some(ClientNamed))
            .identity(["name"])
            .taggable(false)
            .with_attribute(req("name", string()).force_new())
            .with_attribute(req("assume_role_policy", string()).json_document())
            .with_attribute(opt("description", string(), Value::from("")))
            .with_attribute(opt("path", string(), Value::from("/")).force_new())
            .with_attribute(opt("max_session_duration", Type::Number, Value::from(3600)))
            .with_attribute(opt("permissions_boundary", string(), Value::Null))
            .with_attribute(opt("force_detach_policies", Type::Bool, Value::Bool(false)).residue())
            .with_attribute(arn())
            .destroy_arguments(DestroyArguments {
                with_contents: Some("force_detach_policies".to_owned()),
                release: None,
            }),
        ResourceTypeSchema::new("aws_iam_user", Some(ClientNamed))
            .identity(["name"])
            .taggable(false)
            .with_attribute(req("name", string()).force_new())
            .with_attribute(opt("path", string(), Value::from("/")))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_iam_access_key", Some(ListMatch))
            .identity(["user"])
            .parent("user", "aws_iam_user", false)
            .match_content(["status", "user"])
            .server_ids("AKIA", 16)
            .with_attribute(req("user", string()).force_new().references("aws_iam_user"))
            .with_attribute(
                opt("status", string(), Value::from("Active")).one_of(["Active", "Inactive"]),
            )
            .with_attribute(
                AttributeSchema::computed("secret", string())
                    .sensitive()
                    .residue(),
            ),
    ]
}
