//! The resource type catalog: the AWS-like types of the contract as schema data, shared by the simulated
//! cloud and the real AWS provider, and the record-backed types the engine itself serves.
//!
//! [`aws_like`] is what an AWS-like provider serves (the unadmitted `aws_eip_association` included, so that
//! lint can name it `unadmitted-type` instead of `unsupported-type`); [`builtin`] is `random_id` and
//! `terraform_data`, which work with any provider; [`contract`] is both, the whole table. A [`Catalog`] is a
//! sorted map of schemas that an embedder can build from its own types and merge with these.
//!
//! This module is data; it must never depend on which live system serves the types.

use crate::path::AdmissionPath;
use crate::schema::{AttributeSchema, BindMatch, IdScheme, ResourceTypeSchema};
use crate::value::{Type, Value};
pub use provider::Catalog;

fn string() -> Type {
    Type::String
}

fn arn() -> AttributeSchema {
    AttributeSchema::computed("arn", Type::String)
}

fn fields(names: &[&str]) -> BindMatch {
    BindMatch::Fields(names.iter().map(|s| (*s).to_owned()).collect())
}

/// The AWS-like types an AWS-like provider serves (the contract's table), `aws_eip_association` included.
pub fn aws_like() -> Catalog {
    let mut types = s3();
    types.extend(iam());
    types.extend(logs());
    types.extend(ec2());
    Catalog::new(types)
}

/// The S3 types: buckets and their versioning.
fn s3() -> Vec<ResourceTypeSchema> {
    use AdmissionPath::{ClientNamed, ParentDerived};
    let req = AttributeSchema::required;
    let opt = AttributeSchema::optional;
    vec![
        ResourceTypeSchema::new("aws_s3_bucket", Some(ClientNamed))
            .identity(["bucket"])
            .taggable(true)
            .with_attribute(req("bucket", string()).force_new())
            .with_attribute(opt("force_destroy", Type::Bool, Value::Bool(false)).residue())
            .with_attribute(arn()),
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
            .with_attribute(req("status", string()).one_of(["Enabled", "Suspended"])),
    ]
}

/// The IAM types: roles, users and access keys.
fn iam() -> Vec<ResourceTypeSchema> {
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
            .with_attribute(arn()),
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

/// The CloudWatch Logs types.
fn logs() -> Vec<ResourceTypeSchema> {
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

/// The EC2 network types.
fn ec2() -> Vec<ResourceTypeSchema> {
    use AdmissionPath::{Marker, ParentDerived};
    let req = AttributeSchema::required;
    let opt = AttributeSchema::optional;
    vec![
        ResourceTypeSchema::new("aws_vpc", Some(Marker))
            .taggable(true)
            .server_ids("vpc-", 8)
            .bind_match(fields(&["cidr_block"]))
            .with_attribute(req("cidr_block", string()).force_new())
            .with_attribute(opt("enable_dns_support", Type::Bool, Value::Bool(true)))
            .with_attribute(opt("enable_dns_hostnames", Type::Bool, Value::Bool(false)))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_subnet", Some(Marker))
            .taggable(true)
            .server_ids("subnet-", 8)
            .bind_match(fields(&["availability_zone", "cidr_block"]))
            .with_attribute(req("vpc_id", string()).force_new().references("aws_vpc"))
            .with_attribute(req("cidr_block", string()).force_new())
            .with_attribute(
                AttributeSchema::optional_in_region("availability_zone", string(), "a").force_new(),
            )
            .with_attribute(opt(
                "map_public_ip_on_launch",
                Type::Bool,
                Value::Bool(false),
            ))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_security_group", Some(Marker))
            .taggable(true)
            .server_ids("sg-", 8)
            .bind_match(fields(&["name", "vpc_id"]))
            .with_attribute(req("name", string()).force_new())
            .with_attribute(req("vpc_id", string()).force_new().references("aws_vpc"))
            .with_attribute(
                opt("description", string(), Value::from("Managed by liveplan")).force_new(),
            )
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_internet_gateway", Some(Marker))
            .taggable(true)
            .server_ids("igw-", 8)
            .bind_match(BindMatch::Never)
            .with_attribute(opt("vpc_id", string(), Value::Null).references("aws_vpc"))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_route_table", Some(Marker))
            .taggable(true)
            .server_ids("rtb-", 8)
            .bind_match(BindMatch::Never)
            .with_attribute(req("vpc_id", string()).force_new().references("aws_vpc"))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_eip", Some(Marker))
            .taggable(true)
            .server_ids("eipalloc-", 8)
            .bind_match(BindMatch::Never)
            .with_attribute(opt("domain", string(), Value::from("vpc")).force_new())
            .with_attribute(AttributeSchema::computed("public_ip", string())),
        ResourceTypeSchema::new("aws_route", Some(ParentDerived))
            .identity(["route_table_id", "destination_cidr_block"])
            .parent("route_table_id", "aws_route_table", true)
            .id_scheme(IdScheme::Joined {
                separator: "_".to_owned(),
            })
            .with_attribute(
                req("route_table_id", string())
                    .force_new()
                    .references("aws_route_table"),
            )
            .with_attribute(req("destination_cidr_block", string()).force_new())
            .with_attribute(
                opt("gateway_id", string(), Value::Null).references("aws_internet_gateway"),
            ),
        ResourceTypeSchema::new("aws_route_table_association", Some(ParentDerived))
            .identity(["subnet_id", "route_table_id"])
            .parent("route_table_id", "aws_route_table", true)
            .server_ids("rtbassoc-", 8)
            .with_attribute(
                req("subnet_id", string())
                    .force_new()
                    .references("aws_subnet"),
            )
            .with_attribute(
                req("route_table_id", string())
                    .force_new()
                    .references("aws_route_table"),
            ),
        ResourceTypeSchema::new("aws_eip_association", None)
            .server_ids("eipassoc-", 8)
            .with_attribute(
                req("allocation_id", string())
                    .force_new()
                    .references("aws_eip"),
            )
            .with_attribute(opt("instance_id", string(), Value::Null).force_new())
            .with_attribute(opt("network_interface_id", string(), Value::Null).force_new()),
    ]
}

/// The record-backed types the engine serves with any provider: `random_id` and `terraform_data`.
pub fn builtin() -> Catalog {
    let record = Some(AdmissionPath::Record);
    Catalog::new([
        ResourceTypeSchema::new("random_id", record)
            .with_attribute(AttributeSchema::required("byte_length", Type::Number).force_new())
            .with_attribute(
                AttributeSchema::optional(
                    "keepers",
                    Type::Map(Box::new(Type::String)),
                    Value::empty_map(),
                )
                .force_new(),
            )
            .with_attribute(AttributeSchema::computed("hex", string()))
            .with_attribute(AttributeSchema::computed("b64_url", string()))
            .with_attribute(AttributeSchema::computed("dec", string())),
        ResourceTypeSchema::new("terraform_data", record)
            .with_attribute(AttributeSchema::optional("input", Type::Any, Value::Null))
            .with_attribute(
                AttributeSchema::optional("triggers_replace", Type::Any, Value::Null).force_new(),
            )
            .with_attribute(AttributeSchema::computed("output", Type::Any)),
    ])
}

/// The whole catalog of the contract: [`aws_like`] and [`builtin`].
pub fn contract() -> Catalog {
    aws_like().merged(builtin())
}
