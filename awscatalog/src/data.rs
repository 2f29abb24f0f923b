//! The AWS data sources an AWS-like provider reads, as schema data: each one's arguments and the
//! attributes a read returns, named as the AWS provider v5 documents them.
//!
//! Data and the shape of what a read gives (`caller_identity_value`, `region_value`, `partition_value`):
//! which live system answers a read, and how, is the provider's business. The EC2 data sources
//! (`aws_availability_zones`, `aws_ami`, `aws_vpc`, `aws_subnet`, `aws_subnets`,
//! `aws_security_group`) are in [`ec2`] (schemas and requests) and [`ec2_shape`] (answers).

use std::collections::BTreeMap;

use provider::Value;
use provider::schema::{AttributeSchema, DataSourceSchema};

use crate::string;

pub mod ec2;
pub mod ec2_shape;
mod go_json;
pub mod iam;
pub mod policy_document;
mod policy_source;
pub mod s3;

pub use policy_document::{POLICY_DOCUMENT, policy_document_value};

/// `aws_caller_identity`: who the provider's credentials are (one `sts:GetCallerIdentity`).
pub const CALLER_IDENTITY: &str = "aws_caller_identity";
/// `aws_region`: the provider's region, or the region `name` selects (no API call).
pub const REGION: &str = "aws_region";
/// `aws_partition`: the partition of the provider's region (no API call).
pub const PARTITION: &str = "aws_partition";

/// The data source schemas: these, then each family's (IAM, the policy document, S3, EC2).
pub(crate) fn schemas() -> Vec<DataSourceSchema> {
    let mut all = vec![
        DataSourceSchema::new(CALLER_IDENTITY)
            .with_attribute(AttributeSchema::optional_computed("id", string()))
            .with_attribute(AttributeSchema::computed("account_id", string()))
            .with_attribute(AttributeSchema::computed("arn", string()))
            .with_attribute(AttributeSchema::computed("user_id", string())),
        DataSourceSchema::new(PARTITION)
            .with_attribute(AttributeSchema::optional_computed("id", string()))
            .with_attribute(AttributeSchema::computed("partition", string()))
            .with_attribute(AttributeSchema::computed("dns_suffix", string()))
            .with_attribute(AttributeSchema::computed("reverse_dns_prefix", string())),
        DataSourceSchema::new(REGION)
            .with_attribute(AttributeSchema::optional_computed("name", string()))
            .with_attribute(AttributeSchema::optional_computed("endpoint", string()))
            .with_attribute(AttributeSchema::optional_computed("id", string()))
            .with_attribute(AttributeSchema::computed("description", string())),
    ];
    all.extend(iam::schemas());
    all.push(policy_document::schema());
    all.push(s3::schema());
    all.extend(ec2::schemas());
    all
}

/// An AWS partition, as `aws_partition` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// Its identifier (`aws`, `aws-cn`, `aws-us-gov`).
    pub name: &'static str,
    /// The base DNS domain of its endpoints (`amazonaws.com`).
    pub dns_suffix: &'static str,
    /// The DNS suffix reversed (`com.amazonaws`).
    pub reverse_dns_prefix: &'static str,
}

/// The partition `region` belongs to, by the region name's prefix (`cn-`, `us-gov-`; every other
/// region is in `aws`).
pub fn partition_of(region: &str) -> Partition {
    if region.starts_with("cn-") {
        Partition {
            name: "aws-cn",
            dns_suffix: "amazonaws.com.cn",
            reverse_dns_prefix: "cn.com.amazonaws",
        }
    } else if region.starts_with("us-gov-") {
        Partition {
            name: "aws-us-gov",
            dns_suffix: "amazonaws.com",
            reverse_dns_prefix: "com.amazonaws",
        }
    } else {
        Partition {
            name: "aws",
            dns_suffix: "amazonaws.com",
            reverse_dns_prefix: "com.amazonaws",
        }
    }
}

/// The regions `aws_region` knows by name, with their descriptions as the AWS provider's endpoint data
/// gives them.
const REGIONS: &[(&str, &str)] = &[
    ("af-south-1", "Africa (Cape Town)"),
    ("ap-east-1", "Asia Pacific (Hong Kong)"),
    ("ap-northeast-1", "Asia Pacific (Tokyo)"),
    ("ap-northeast-2", "Asia Pacific (Seoul)"),
    ("ap-northeast-3", "Asia Pacific (Osaka)"),
    ("ap-south-1", "Asia Pacific (Mumbai)"),
    ("ap-southeast-1", "Asia Pacific (Singapore)"),
    ("ap-southeast-2", "Asia Pacific (Sydney)"),
    ("ca-central-1", "Canada (Central)"),
    ("cn-north-1", "China (Beijing)"),
    ("cn-northwest-1", "China (Ningxia)"),
    ("eu-central-1", "Europe (Frankfurt)"),
    ("eu-north-1", "Europe (Stockholm)"),
    ("eu-south-1", "Europe (Milan)"),
    ("eu-west-1", "Europe (Ireland)"),
    ("eu-west-2", "Europe (London)"),
    ("eu-west-3", "Europe (Paris)"),
    ("me-south-1", "Middle East (Bahrain)"),
    ("sa-east-1", "South America (Sao Paulo)"),
    ("us-east-1", "US East (N. Virginia)"),
    ("us-east-2", "US East (Ohio)"),
    ("us-gov-east-1", "AWS GovCloud (US-East)"),
    ("us-gov-west-1", "AWS GovCloud (US-West)"),
    ("us-west-1", "US West (N. California)"),
    ("us-west-2", "US West (Oregon)"),
];

/// The description of the region `name` (`US East (N. Virginia)`), if it is one `aws_region` knows.
pub fn region_description(name: &str) -> Option<&'static str> {
    REGIONS
        .iter()
        .find(|(region, _)| *region == name)
        .map(|(_, description)| *description)
}

/// The EC2 endpoint `aws_region` gives for `region` (`ec2.us-east-1.amazonaws.com`).
pub fn region_endpoint(region: &str) -> String {
    format!("ec2.{region}.{}", partition_of(region).dns_suffix)
}

/// What `aws_caller_identity` gives for the caller `arn` and `user_id` of `account`.
pub fn caller_identity_value(account: &str, arn: &str, user_id: &str) -> Value {
    object([
        ("id", account),
        ("account_id", account),
        ("arn", arn),
        ("user_id", user_id),
    ])
}

/// What `aws_partition` gives for a provider in `region`.
pub fn partition_value(region: &str) -> Value {
    let p = partition_of(region);
    object([
        ("id", p.name),
        ("partition", p.name),
        ("dns_suffix", p.dns_suffix),
        ("reverse_dns_prefix", p.reverse_dns_prefix),
    ])
}

/// What `aws_region` gives for the region `name`, or `None` for a name it does not know. The
/// provider's own region is known even when the table has no description of it (the description is
/// then empty).
pub fn region_value(name: &str, own_region: &str) -> Option<Value> {
    let description = match region_description(name) {
        Some(d) => d,
        None if name == own_region => "",
        None => return None,
    };
    let endpoint = region_endpoint(name);
    Some(object([
        ("id", name),
        ("name", name),
        ("endpoint", endpoint.as_str()),
        ("description", description),
    ]))
}

/// The region `aws_region`'s request selects: its `name`, else the region its `endpoint` names, else
/// the provider's own. `Err` names what selects no region.
pub fn requested_region(
    arguments: &BTreeMap<String, Value>,
    own_region: &str,
) -> Result<String, String> {
    let name = arguments.get("name").and_then(Value::as_str);
    let endpoint = arguments.get("endpoint").and_then(Value::as_str);
    let region = match (name, endpoint) {
        (Some(name), _) => name.to_owned(),
        (None, Some(endpoint)) => REGIONS
            .iter()
            .map(|(r, _)| *r)
            .chain([own_region])
            .find(|r| region_endpoint(r) == endpoint)
            .ok_or_else(|| format!("no region has the endpoint {endpoint}"))?
            .to_owned(),
        (None, None) => own_region.to_owned(),
    };
    if let Some(endpoint) = endpoint
        && region_endpoint(&region) != endpoint
    {
        return Err(format!(
            "region {region} does not have the endpoint {endpoint}"
        ));
    }
    Ok(region)
}

/// A string-valued object.
fn object<const N: usize>(pairs: [(&str, &str); N]) -> Value {
    Value::Map(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::from(v)))
            .collect(),
    )
}
