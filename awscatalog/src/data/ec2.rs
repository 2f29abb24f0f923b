//! The EC2 data sources as schema data and typed requests: `aws_availability_zones`, `aws_ami`,
//! `aws_vpc`, `aws_subnet`, `aws_subnets` and `aws_security_group`, their arguments and attributes as
//! the AWS provider v5 documents them, and what a configuration's arguments ask of the EC2 API (the
//! `Describe*` call's ids and filters, built as the provider builds them).
//!
//! Data only: which live system answers the describe, and how, is the provider's business. The shape of
//! an answer is in [`super::ec2_shape`].

use std::collections::{BTreeMap, BTreeSet};

use provider::schema::{AttributeSchema, BlockSchema, DataSourceSchema, Nesting};
use provider::{Type, Value};

/// `aws_availability_zones`: the region's zones (one `ec2:DescribeAvailabilityZones`).
pub const AVAILABILITY_ZONES: &str = "aws_availability_zones";
/// `aws_ami`: one image (one `ec2:DescribeImages` per page).
pub const AMI: &str = "aws_ami";
/// `aws_vpc`: exactly one VPC (one `ec2:DescribeVpcs` per page).
pub const VPC: &str = "aws_vpc";
/// `aws_subnet`: exactly one subnet (one `ec2:DescribeSubnets` per page).
pub const SUBNET: &str = "aws_subnet";
/// `aws_subnets`: the ids of the subnets matching (one `ec2:DescribeSubnets` per page).
pub const SUBNETS: &str = "aws_subnets";
/// `aws_security_group`: exactly one security group (one `ec2:DescribeSecurityGroups` per page).
pub const SECURITY_GROUP: &str = "aws_security_group";

/// The EC2 describe operations the data sources call.
pub const DESCRIBE_AVAILABILITY_ZONES: &str = "ec2:DescribeAvailabilityZones";
/// See [`DESCRIBE_AVAILABILITY_ZONES`].
pub const DESCRIBE_IMAGES: &str = "ec2:DescribeImages";
/// See [`DESCRIBE_AVAILABILITY_ZONES`].
pub const DESCRIBE_VPCS: &str = "ec2:DescribeVpcs";
/// See [`DESCRIBE_AVAILABILITY_ZONES`].
pub const DESCRIBE_SUBNETS: &str = "ec2:DescribeSubnets";
/// See [`DESCRIBE_AVAILABILITY_ZONES`].
pub const DESCRIBE_SECURITY_GROUPS: &str = "ec2:DescribeSecurityGroups";

/// The describe operation that answers the EC2 data source `type_name`.
pub fn describe_operation(type_name: &str) -> &'static str {
    match type_name {
        AVAILABILITY_ZONES => DESCRIBE_AVAILABILITY_ZONES,
        AMI => DESCRIBE_IMAGES,
        VPC => DESCRIBE_VPCS,
        SUBNET | SUBNETS => DESCRIBE_SUBNETS,
        _ => DESCRIBE_SECURITY_GROUPS,
    }
}

/// The states `aws_availability_zones`' `state` accepts (the EC2 API's zone states).
pub const ZONE_STATES: &[&str] = &[
    "available",
    "information",
    "impaired",
    "unavailable",
    "constrained",
];

fn list(t: Type) -> Type {
    Type::List(Box::new(t))
}

fn set(t: Type) -> Type {
    Type::Set(Box::new(t))
}

fn strings() -> Type {
    list(Type::String)
}

fn tags() -> Type {
    Type::Map(Box::new(Type::String))
}

/// The `filter` block every EC2 data source takes: a `name` and its `values`.
fn filter_block() -> AttributeSchema {
    AttributeSchema::block(
        "filter",
        BlockSchema::new(Nesting::Set)
            .with_attribute(AttributeSchema::required("name", Type::String))
            .with_attribute(AttributeSchema::required("values", set(Type::String))),
    )
}

fn computed(names: &[(&str, Type)], schema: DataSourceSchema) -> DataSourceSchema {
    names.iter().fold(schema, |s, (n, t)| {
        s.with_attribute(AttributeSchema::computed(*n, t.clone()))
    })
}

fn optional(names: &[(&str, Type)], schema: DataSourceSchema) -> DataSourceSchema {
    names.iter().fold(schema, |s, (n, t)| {
        s.with_attribute(AttributeSchema::optional_computed(*n, t.clone()))
    })
}

/// The EC2 data source schemas.
pub(crate) fn schemas() -> Vec<DataSourceSchema> {
    use Type::{Bool, Number, String as S};
    let zones = optional(
        &[
            ("all_availability_zones", Bool),
            ("exclude_names", set(S)),
            ("exclude_zone_ids", set(S)),
            ("state", S),
            ("id", S),
        ],
        DataSourceSchema::new(AVAILABILITY_ZONES).with_attribute(filter_block()),
    );
    let zones = computed(
        &[
            ("names", strings()),
            ("zone_ids", strings()),
            ("group_names", set(S)),
        ],
        zones,
    );
    let ami = optional(
        &[
            ("owners", strings()),
            ("executable_users", strings()),
            ("most_recent", Bool),
            ("name_regex", S),
            ("include_deprecated", Bool),
            ("allow_unsafe_filter", Bool),
            ("id", S),
        ],
        DataSourceSchema::new(AMI).with_attribute(filter_block()),
    );
    let ami = computed(
        &super::ec2_shape::IMAGE_STRINGS
            .iter()
            .map(|n| (*n, S))
            .chain([("public", Bool), ("ena_support", Bool), ("tags", tags())])
            .collect::<Vec<_>>(),
        ami,
    );
    let vpc = optional(
        &[
            ("id", S),
            ("default", Bool),
            ("cidr_block", S),
            ("dhcp_options_id", S),
            ("state", S),
            ("tags", tags()),
        ],
        DataSourceSchema::new(VPC).with_attribute(filter_block()),
    );
    let vpc = computed(
        &[
            ("arn", S),
            ("instance_tenancy", S),
            ("owner_id", S),
            ("ipv6_association_id", S),
            ("ipv6_cidr_block", S),
        ],
        vpc,
    );
    let subnet = optional(
        &[
            ("id", S),
            ("vpc_id", S),
            ("availability_zone", S),
            ("availability_zone_id", S),
            ("cidr_block", S),
            ("default_for_az", Bool),
            ("ipv6_cidr_block", S),
            ("state", S),
            ("tags", tags()),
        ],
        DataSourceSchema::new(SUBNET).with_attribute(filter_block()),
    );
    let subnet = computed(
        &[
            ("arn", S),
            ("owner_id", S),
            ("map_public_ip_on_launch", Bool),
            ("assign_ipv6_address_on_creation", Bool),
            ("available_ip_address_count", Number),
        ],
        subnet,
    );
    let subnets = optional(
        &[("tags", tags()), ("id", S)],
        DataSourceSchema::new(SUBNETS).with_attribute(filter_block()),
    );
    let subnets = computed(&[("ids", strings())], subnets);
    let group = optional(
        &[("id", S), ("name", S), ("vpc_id", S), ("tags", tags())],
        DataSourceSchema::new(SECURITY_GROUP).with_attribute(filter_block()),
    );
    let group = computed(&[("arn", S), ("description", S), ("owner_id", S)], group);
    vec![zones, ami, vpc, subnet, subnets, group]
}

/// One EC2 API filter: a name (`vpc-id`, `tag:Name`) and the values any of which matches (`*` and `?`
/// are wildcards).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Filter {
    /// The filter's name.
    pub name: String,
    /// The values, any of which matches.
    pub values: Vec<String>,
}

impl Filter {
    /// A filter of one value.
    pub fn one(name: impl Into<String>, value: impl Into<String>) -> Filter {
        Filter {
            name: name.into(),
            values: vec![value.into()],
        }
    }
}

/// What a data source's arguments ask of an EC2 describe: the ids it names and the filters, as the AWS
/// provider sends them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Describe {
    /// The ids asked for (`VpcIds`, `SubnetIds`, `GroupIds`); empty for all.
    pub ids: Vec<String>,
    /// The filters, all of which must match.
    pub filters: Vec<Filter>,
}

/// What an `aws_availability_zones` read asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZonesRequest {
    /// `all_availability_zones`: zones of every opt-in status, not only the opted-in ones.
    pub all: bool,
    /// `state` and the `filter` blocks, as filters.
    pub filters: Vec<Filter>,
    /// `exclude_names`.
    pub exclude_names: BTreeSet<String>,
    /// `exclude_zone_ids`.
    pub exclude_zone_ids: BTreeSet<String>,
}

/// What an `aws_ami` read asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImagesRequest {
    /// `owners` (account ids, `self`, `amazon`, an alias).
    pub owners: Vec<String>,
    /// `executable_users`.
    pub executable_users: Vec<String>,
    /// `include_deprecated`.
    pub include_deprecated: bool,
    /// The `filter` blocks.
    pub filters: Vec<Filter>,
    /// `most_recent`.
    pub most_recent: bool,
    /// `name_regex`, as written.
    pub name_regex: Option<String>,
}

/// The strings of argument `name` (a list or set of strings), empty when unset.
fn strings_of(arguments: &BTreeMap<String, Value>, name: &str) -> Vec<String> {
    let Some(v) = arguments.get(name) else {
        return Vec::new();
    };
    match provider::value::convert(v.clone(), &strings()) {
        Ok(Value::List(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn string_of(arguments: &BTreeMap<String, Value>, name: &str) -> Option<String> {
    let v = provider::value::convert(arguments.get(name)?.clone(), &Type::String).ok()?;
    v.as_str().map(str::to_owned)
}

fn flag_of(arguments: &BTreeMap<String, Value>, name: &str) -> Option<bool> {
    let v = provider::value::convert(arguments.get(name)?.clone(), &Type::Bool).ok()?;
    v.as_bool()
}

/// The `filter` blocks of `arguments`, in the order written.
pub fn filter_blocks(arguments: &BTreeMap<String, Value>) -> Vec<Filter> {
    let blocks = match arguments.get("filter").map(Value::peel) {
        Some(Value::List(items)) => items.clone(),
        Some(Value::Set(items)) => items.iter().cloned().collect(),
        Some(one @ Value::Map(_)) => vec![one.clone()],
        _ => Vec::new(),
    };
    blocks
        .iter()
        .filter_map(|b| {
            let b = b.as_map()?.clone();
            Some(Filter {
                name: string_of(&b, "name")?,
                values: strings_of(&b, "values"),
            })
        })
        .collect()
}

/// The `tags` argument as `tag:KEY` filters, sorted by key.
fn tag_filters(arguments: &BTreeMap<String, Value>) -> Vec<Filter> {
    arguments
        .get("tags")
        .and_then(Value::as_string_map)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| Filter::one(format!("tag:{k}"), v))
        .collect()
}

/// The attribute filters of `pairs` (argument, filter name) that `arguments` sets: a true flag as
/// `true`, a false one as no filter.
fn attribute_filters(arguments: &BTreeMap<String, Value>, pairs: &[(&str, &str)]) -> Vec<Filter> {
    pairs
        .iter()
        .filter_map(|(arg, filter)| {
            let v = arguments.get(*arg)?;
            let text = match v.peel() {
                // A false flag is no filter, as the provider leaves it out.
                Value::Bool(false) => return None,
                Value::Bool(true) => "true".to_owned(),
                _ => string_of(arguments, arg)?,
            };
            Some(Filter::one(*filter, text))
        })
        .collect()
}

/// The request an `aws_availability_zones` block's arguments make.
pub fn zones_request(arguments: &BTreeMap<String, Value>) -> ZonesRequest {
    let mut filters: Vec<Filter> = string_of(arguments, "state")
        .map(|s| Filter::one("state", s))
        .into_iter()
        .collect();
    filters.extend(filter_blocks(arguments));
    ZonesRequest {
        all: flag_of(arguments, "all_availability_zones").unwrap_or(false),
        filters,
        exclude_names: strings_of(arguments, "exclude_names").into_iter().collect(),
        exclude_zone_ids: strings_of(arguments, "exclude_zone_ids")
            .into_iter()
            .collect(),
    }
}

/// The request an `aws_ami` block's arguments make.
pub fn images_request(arguments: &BTreeMap<String, Value>) -> ImagesRequest {
    ImagesRequest {
        owners: strings_of(arguments, "owners"),
        executable_users: strings_of(arguments, "executable_users"),
        include_deprecated: flag_of(arguments, "include_deprecated").unwrap_or(false),
        filters: filter_blocks(arguments),
        most_recent: flag_of(arguments, "most_recent").unwrap_or(false),
        name_regex: string_of(arguments, "name_regex"),
    }
}

/// The describe an `aws_vpc`, `aws_subnet`, `aws_subnets` or `aws_security_group` block's arguments
/// make: `id` as the ids asked for, the other arguments as the filters the AWS provider turns them
/// into, then `tags` as `tag:KEY` filters, then the `filter` blocks.
pub fn describe(type_name: &str, arguments: &BTreeMap<String, Value>) -> Describe {
    let pairs: &[(&str, &str)] = match type_name {
        VPC => &[
            ("cidr_block", "cidr"),
            ("default", "isDefault"),
            ("dhcp_options_id", "dhcp-options-id"),
            ("state", "state"),
        ],
        SUBNET => &[
            ("availability_zone", "availability-zone"),
            ("availability_zone_id", "availability-zone-id"),
            ("cidr_block", "cidr-block"),
            ("default_for_az", "default-for-az"),
            (
                "ipv6_cidr_block",
                "ipv6-cidr-block-association.ipv6-cidr-block",
            ),
            ("state", "state"),
            ("vpc_id", "vpc-id"),
        ],
        SECURITY_GROUP => &[("name", "group-name"), ("vpc_id", "vpc-id")],
        _ => &[],
    };
    let mut filters = attribute_filters(arguments, pairs);
    filters.extend(tag_filters(arguments));
    filters.extend(filter_blocks(arguments));
    let ids = match type_name {
        SUBNETS => Vec::new(),
        _ => string_of(arguments, "id").into_iter().collect(),
    };
    Describe { ids, filters }
}

/// What the AWS provider says when a singular EC2 data source (`aws_vpc`, `aws_subnet`,
/// `aws_security_group`) matches `count` objects other than one: `None` for exactly one.
pub fn singular_mismatch(type_name: &str, count: usize) -> Option<String> {
    let what = match type_name {
        VPC => ("EC2 VPC", "EC2 VPCs"),
        SUBNET => ("EC2 Subnet", "EC2 Subnets"),
        _ => ("EC2 Security Group", "EC2 Security Groups"),
    };
    match count {
        1 => None,
        0 => Some(format!("no matching {} found", what.0)),
        _ => Some(format!(
            "multiple {} matched; use additional constraints to reduce matches to a single {}",
            what.1, what.0
        )),
    }
}
