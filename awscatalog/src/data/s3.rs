//! `aws_s3_bucket` as a data source: a bucket by name (`s3:HeadBucket`, which also answers its
//! region), with the attributes the AWS provider v5 documents, and the shape of a read.
//!
//! Data and shaping only: which calls answer a read is the provider's.

use std::collections::BTreeMap;

use provider::schema::{AttributeSchema, DataSourceSchema};
use provider::{Type, Value};

use super::partition_of;

/// `aws_s3_bucket` (the data source): a bucket by name.
pub const BUCKET: &str = "aws_s3_bucket";

/// The schema of the `aws_s3_bucket` data source.
pub(crate) fn schema() -> DataSourceSchema {
    let computed = |name: &str| AttributeSchema::computed(name, Type::String);
    DataSourceSchema::new(BUCKET)
        .with_attribute(AttributeSchema::required("bucket", Type::String))
        .with_attribute(AttributeSchema::optional_computed("id", Type::String))
        .with_attribute(computed("arn"))
        .with_attribute(computed("bucket_domain_name"))
        .with_attribute(computed("bucket_regional_domain_name"))
        .with_attribute(computed("hosted_zone_id"))
        .with_attribute(computed("region"))
        .with_attribute(computed("website_domain"))
        .with_attribute(computed("website_endpoint"))
}

/// The Route 53 hosted zone of S3's website endpoints in each region, as the AWS provider's table
/// gives them.
const HOSTED_ZONES: &[(&str, &str)] = &[
    ("af-south-1", "Z83WF9RJE8B12"),
    ("ap-east-1", "ZNB98KWMFR0R6"),
    ("ap-northeast-1", "Z2M4EHUR26P7ZW"),
    ("ap-northeast-2", "Z3W03O7B5YMIYP"),
    ("ap-northeast-3", "Z2YQB5RD63NC85"),
    ("ap-south-1", "Z11RGJOFQNVJUP"),
    ("ap-southeast-1", "Z3O0J2DXBE1FTB"),
    ("ap-southeast-2", "Z1WCIGYICN2BYD"),
    ("ca-central-1", "Z1QDHH18159H29"),
    ("cn-north-1", "Z5CN8UMXT92WN"),
    ("cn-northwest-1", "Z282HJ1KT0DH03"),
    ("eu-central-1", "Z21DNDUVLTQW6Q"),
    ("eu-north-1", "Z3BAZG2TWCNX0D"),
    ("eu-south-1", "Z30OZKI7KPW7MI"),
    ("eu-west-1", "Z1BKCTXD74EZPE"),
    ("eu-west-2", "Z3GKZC51ZF0DB4"),
    ("eu-west-3", "Z3R1K369G5AVDG"),
    ("me-south-1", "Z1MPMWCPA7YB62"),
    ("sa-east-1", "Z7KQH4QJS55SO"),
    ("us-east-1", "Z3AQBSTGFYJSTF"),
    ("us-east-2", "Z2O1EMRO9K5GLX"),
    ("us-gov-east-1", "Z2NIFVYYW2VKV1"),
    ("us-gov-west-1", "Z31GFT0UA1I2HV"),
    ("us-west-1", "Z2F56UZL2M1ACD"),
    ("us-west-2", "Z3BJ6K6RIION7M"),
];

/// The hosted zone of S3's website endpoints in `region`, if the table knows the region.
pub fn hosted_zone_id(region: &str) -> Option<&'static str> {
    HOSTED_ZONES
        .iter()
        .find(|(r, _)| *r == region)
        .map(|(_, z)| *z)
}

/// What the `aws_s3_bucket` data source gives for the bucket `bucket` living in `region` (no website
/// configuration: `website_endpoint` and `website_domain` are null).
pub fn bucket_value(bucket: &str, region: &str) -> Value {
    let partition = partition_of(region);
    let out: BTreeMap<String, Value> = [
        ("id", Value::from(bucket)),
        ("bucket", Value::from(bucket)),
        (
            "arn",
            Value::from(format!("arn:{}:s3:::{bucket}", partition.name)),
        ),
        (
            "bucket_domain_name",
            Value::from(format!("{bucket}.s3.{}", partition.dns_suffix)),
        ),
        (
            "bucket_regional_domain_name",
            Value::from(format!("{bucket}.s3.{region}.{}", partition.dns_suffix)),
        ),
        (
            "hosted_zone_id",
            hosted_zone_id(region).map_or(Value::Null, Value::from),
        ),
        ("region", Value::from(region)),
        ("website_domain", Value::Null),
        ("website_endpoint", Value::Null),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Value::Map(out)
}
