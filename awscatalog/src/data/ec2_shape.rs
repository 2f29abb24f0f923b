//! The shape of what the EC2 data sources give: the records a describe answers (a zone, an image, a
//! VPC, a subnet, a security group), the choices the AWS provider makes among them (zones sorted by
//! name and excluded, `name_regex` and `most_recent` over images, exactly one VPC), and the attribute
//! values a read gives, which both clouds build their answers with.

use std::collections::BTreeMap;

use provider::Value;

use super::ec2::{ImagesRequest, ZonesRequest, singular_mismatch};
use super::partition_of;

/// One availability zone as `ec2:DescribeAvailabilityZones` answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    /// `us-east-1a`.
    pub name: String,
    /// `use1-az6`.
    pub zone_id: String,
    /// `available`, `information`, `impaired`, `unavailable`, `constrained`.
    pub state: String,
    /// The zone group (the region for an availability zone, `us-west-2-lax-1` for a local zone).
    pub group_name: String,
}

/// What `aws_availability_zones` gives for the zones the describe answered: sorted by name, the
/// excluded names and zone ids left out, `id` the region.
pub fn zones_value(region: &str, request: &ZonesRequest, zones: &[Zone]) -> Value {
    let mut zones: Vec<&Zone> = zones
        .iter()
        .filter(|z| !request.exclude_names.contains(&z.name))
        .filter(|z| !request.exclude_zone_ids.contains(&z.zone_id))
        .collect();
    zones.sort_by(|a, b| a.name.cmp(&b.name));
    let texts =
        |f: fn(&Zone) -> &str| -> Vec<Value> { zones.iter().map(|z| Value::from(f(z))).collect() };
    Value::Map(BTreeMap::from([
        ("id".to_owned(), Value::from(region)),
        ("names".to_owned(), Value::List(texts(|z| &z.name))),
        ("zone_ids".to_owned(), Value::List(texts(|z| &z.zone_id))),
        (
            "group_names".to_owned(),
            Value::Set(texts(|z| &z.group_name).into_iter().collect()),
        ),
        (
            "all_availability_zones".to_owned(),
            Value::Bool(request.all),
        ),
    ]))
}

/// One image as `ec2:DescribeImages` answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Image {
    /// `ami-0123456789abcdef0`.
    pub image_id: String,
    /// `al2023-ami-2023.6.20241212.0-kernel-6.1-x86_64`.
    pub name: String,
    /// The owner's account id.
    pub owner_id: String,
    /// The owner's alias (`amazon`), if any.
    pub owner_alias: Option<String>,
    /// `x86_64`, `arm64`, `i386`.
    pub architecture: String,
    /// When it was made, as EC2 gives it (`2024-12-12T19:20:41.000Z`).
    pub creation_date: String,
    /// When it is deprecated, if it is to be.
    pub deprecation_time: Option<String>,
    /// Its description.
    pub description: String,
    /// `ebs` or `instance-store`.
    pub root_device_type: String,
    /// `/dev/xvda`.
    pub root_device_name: String,
    /// `hvm` or `paravirtual`.
    pub virtualization_type: String,
    /// `amazon/al2023-ami-...`.
    pub image_location: String,
    /// `machine`.
    pub image_type: String,
    /// `available`.
    pub state: String,
    /// Whether anyone may launch it.
    pub public: bool,
    /// Whether enhanced networking is on.
    pub ena_support: bool,
    /// `windows` for Windows images, else empty.
    pub platform: String,
    /// `Linux/UNIX`.
    pub platform_details: String,
    /// `RunInstances`.
    pub usage_operation: String,
    /// `xen`.
    pub hypervisor: String,
    /// `uefi`, `legacy-bios`, `uefi-preferred`, or empty.
    pub boot_mode: String,
    /// `simple`, or empty.
    pub sriov_net_support: String,
    /// `v2.0`, or empty.
    pub imds_support: String,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// The string attributes `aws_ami` gives (besides `public`, `ena_support` and `tags`).
pub(crate) const IMAGE_STRINGS: &[&str] = &[
    "id",
    "image_id",
    "arn",
    "name",
    "architecture",
    "creation_date",
    "deprecation_time",
    "description",
    "owner_id",
    "image_owner_alias",
    "image_location",
    "image_type",
    "root_device_type",
    "root_device_name",
    "virtualization_type",
    "state",
    "platform",
    "platform_details",
    "usage_operation",
    "hypervisor",
    "boot_mode",
    "sriov_net_support",
    "imds_support",
];

/// The image an `aws_ami` read gives among `images` (what the describe answered), as the AWS provider
/// chooses it: those whose name `name_regex` matches, then, of several, the newest when `most_recent`
/// is set (the first answered among equally new ones). `Err` carries the provider's message: none
/// matched, several matched without `most_recent`, or `name_regex` is not a regular expression.
pub fn select_image<'a>(request: &ImagesRequest, images: &'a [Image]) -> Result<&'a Image, String> {
    let mut matched: Vec<&Image> = match &request.name_regex {
        Some(pattern) => {
            let re = regex::Regex::new(pattern).map_err(|e| {
                format!("name_regex {pattern:?} is not a valid regular expression: {e}")
            })?;
            images.iter().filter(|i| re.is_match(&i.name)).collect()
        }
        None => images.iter().collect(),
    };
    if matched.is_empty() {
        return Err(
            "Your query returned no results. Please change your search criteria and try again."
                .to_owned(),
        );
    }
    if matched.len() > 1 {
        if !request.most_recent {
            return Err(
                "Your query returned more than one result. Please try a more specific \
                        search criteria, or set `most_recent` attribute to true."
                    .to_owned(),
            );
        }
        // Newest first; a stable sort keeps the describe's order among equals.
        matched.sort_by_key(|i| std::cmp::Reverse(creation_seconds(&i.creation_date)));
    }
    Ok(matched[0])
}

/// The seconds since 1970 of an RFC 3339 time (`2024-12-12T19:20:41.000Z`), 0 when it is not one (as
/// the provider's failed parse gives the zero time).
pub fn creation_seconds(text: &str) -> i64 {
    let parse = || -> Option<i64> {
        let (date, time) = text.split_once('T')?;
        let mut d = date.splitn(3, '-').map(str::parse::<i64>);
        let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
        let time = time.trim_end_matches('Z');
        let time = time.split('.').next()?;
        let mut t = time.splitn(3, ':').map(str::parse::<i64>);
        let (h, min, s) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        Some(days * 86_400 + h * 3_600 + min * 60 + s)
    };
    parse().unwrap_or(0)
}

/// What `aws_ami` gives for `image` read in `region`.
pub fn image_value(region: &str, request: &ImagesRequest, image: &Image) -> Value {
    let partition = partition_of(region).name;
    let arn = format!("arn:{partition}:ec2:{region}::image/{}", image.image_id);
    let text = |s: &str| Value::from(s);
    let mut out = BTreeMap::from([
        ("id".to_owned(), text(&image.image_id)),
        ("image_id".to_owned(), text(&image.image_id)),
        ("arn".to_owned(), Value::from(arn)),
        ("name".to_owned(), text(&image.name)),
        ("architecture".to_owned(), text(&image.architecture)),
        ("creation_date".to_owned(), text(&image.creation_date)),
        (
            "deprecation_time".to_owned(),
            text(image.deprecation_time.as_deref().unwrap_or("")),
        ),
        ("description".to_owned(), text(&image.description)),
        ("owner_id".to_owned(), text(&image.owner_id)),
        (
            "image_owner_alias".to_owned(),
            text(image.owner_alias.as_deref().unwrap_or("")),
        ),
        ("image_location".to_owned(), text(&image.image_location)),
        ("image_type".to_owned(), text(&image.image_type)),
        ("root_device_type".to_owned(), text(&image.root_device_type)),
        ("root_device_name".to_owned(), text(&image.root_device_name)),
        (
            "virtualization_type".to_owned(),
            text(&image.virtualization_type),
        ),
        ("state".to_owned(), text(&image.state)),
        ("platform".to_owned(), text(&image.platform)),
        ("platform_details".to_owned(), text(&image.platform_details)),
        ("usage_operation".to_owned(), text(&image.usage_operation)),
        ("hypervisor".to_owned(), text(&image.hypervisor)),
        ("boot_mode".to_owned(), text(&image.boot_mode)),
        (
            "sriov_net_support".to_owned(),
            text(&image.sriov_net_support),
        ),
        ("imds_support".to_owned(), text(&image.imds_support)),
        ("public".to_owned(), Value::Bool(image.public)),
        ("ena_support".to_owned(), Value::Bool(image.ena_support)),
        ("tags".to_owned(), Value::from(image.tags.clone())),
        ("most_recent".to_owned(), Value::Bool(request.most_recent)),
        (
            "include_deprecated".to_owned(),
            Value::Bool(request.include_deprecated),
        ),
    ]);
    let lists = [
        ("owners", &request.owners),
        ("executable_users", &request.executable_users),
    ];
    for (name, items) in lists {
        if !items.is_empty() {
            out.insert(
                name.to_owned(),
                Value::List(items.iter().map(|s| Value::from(s.as_str())).collect()),
            );
        }
    }
    if let Some(re) = &request.name_regex {
        out.insert("name_regex".to_owned(), Value::from(re.as_str()));
    }
    Value::Map(out)
}

/// One VPC as `ec2:DescribeVpcs` answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vpc {
    /// `vpc-0123…`.
    pub id: String,
    /// Its primary IPv4 range.
    pub cidr_block: String,
    /// Whether it is the region's default VPC.
    pub default: bool,
    /// Its DHCP options set, if any.
    pub dhcp_options_id: String,
    /// `available` or `pending`.
    pub state: String,
    /// `default` or `dedicated`.
    pub instance_tenancy: String,
    /// The owner's account.
    pub owner_id: String,
    /// Its IPv6 range and association, if any.
    pub ipv6: Option<(String, String)>,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// One subnet as `ec2:DescribeSubnets` answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subnet {
    /// `subnet-0123…`.
    pub id: String,
    /// Its VPC.
    pub vpc_id: String,
    /// `us-east-1a`.
    pub availability_zone: String,
    /// `use1-az6`.
    pub availability_zone_id: String,
    /// Its IPv4 range.
    pub cidr_block: String,
    /// Whether it is its zone's default subnet.
    pub default_for_az: bool,
    /// Whether instances get public addresses.
    pub map_public_ip_on_launch: bool,
    /// Whether instances get IPv6 addresses.
    pub assign_ipv6_address_on_creation: bool,
    /// Free addresses.
    pub available_ip_address_count: i64,
    /// `available`.
    pub state: String,
    /// The owner's account.
    pub owner_id: String,
    /// Its IPv6 range, if any.
    pub ipv6_cidr_block: String,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// One security group as `ec2:DescribeSecurityGroups` answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecurityGroup {
    /// `sg-0123…`.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its VPC.
    pub vpc_id: String,
    /// Its description.
    pub description: String,
    /// The owner's account.
    pub owner_id: String,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

fn ec2_arn(region: &str, owner: &str, kind: &str, id: &str) -> Value {
    let partition = partition_of(region).name;
    Value::from(format!("arn:{partition}:ec2:{region}:{owner}:{kind}/{id}"))
}

/// The one object of `found` a singular data source (`type_name`) gives, or the provider's message
/// when there is not exactly one.
pub fn exactly_one<T>(type_name: &str, mut found: Vec<T>) -> Result<T, String> {
    match singular_mismatch(type_name, found.len()) {
        Some(message) => Err(message),
        None => Ok(found.remove(0)),
    }
}

/// What `aws_vpc` gives for `vpc` in `region`.
pub fn vpc_value(region: &str, vpc: &Vpc) -> Value {
    let (ipv6_cidr, ipv6_assoc) = vpc.ipv6.clone().unwrap_or_default();
    Value::Map(BTreeMap::from([
        ("id".to_owned(), Value::from(vpc.id.as_str())),
        (
            "arn".to_owned(),
            ec2_arn(region, &vpc.owner_id, "vpc", &vpc.id),
        ),
        (
            "cidr_block".to_owned(),
            Value::from(vpc.cidr_block.as_str()),
        ),
        ("default".to_owned(), Value::Bool(vpc.default)),
        (
            "dhcp_options_id".to_owned(),
            Value::from(vpc.dhcp_options_id.as_str()),
        ),
        ("state".to_owned(), Value::from(vpc.state.as_str())),
        (
            "instance_tenancy".to_owned(),
            Value::from(vpc.instance_tenancy.as_str()),
        ),
        ("owner_id".to_owned(), Value::from(vpc.owner_id.as_str())),
        ("ipv6_cidr_block".to_owned(), Value::from(ipv6_cidr)),
        ("ipv6_association_id".to_owned(), Value::from(ipv6_assoc)),
        ("tags".to_owned(), Value::from(vpc.tags.clone())),
    ]))
}

/// What `aws_subnet` gives for `subnet` in `region`.
pub fn subnet_value(region: &str, subnet: &Subnet) -> Value {
    let s = |v: &str| Value::from(v);
    Value::Map(BTreeMap::from([
        ("id".to_owned(), s(&subnet.id)),
        (
            "arn".to_owned(),
            ec2_arn(region, &subnet.owner_id, "subnet", &subnet.id),
        ),
        ("vpc_id".to_owned(), s(&subnet.vpc_id)),
        ("availability_zone".to_owned(), s(&subnet.availability_zone)),
        (
            "availability_zone_id".to_owned(),
            s(&subnet.availability_zone_id),
        ),
        ("cidr_block".to_owned(), s(&subnet.cidr_block)),
        (
            "default_for_az".to_owned(),
            Value::Bool(subnet.default_for_az),
        ),
        (
            "map_public_ip_on_launch".to_owned(),
            Value::Bool(subnet.map_public_ip_on_launch),
        ),
        (
            "assign_ipv6_address_on_creation".to_owned(),
            Value::Bool(subnet.assign_ipv6_address_on_creation),
        ),
        (
            "available_ip_address_count".to_owned(),
            Value::from(subnet.available_ip_address_count),
        ),
        ("state".to_owned(), s(&subnet.state)),
        ("owner_id".to_owned(), s(&subnet.owner_id)),
        ("ipv6_cidr_block".to_owned(), s(&subnet.ipv6_cidr_block)),
        ("tags".to_owned(), Value::from(subnet.tags.clone())),
    ]))
}

/// What `aws_subnets` gives: the ids of the subnets matched, sorted, `id` the region.
pub fn subnets_value(region: &str, subnets: &[Subnet]) -> Value {
    let mut ids: Vec<&str> = subnets.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    Value::Map(BTreeMap::from([
        ("id".to_owned(), Value::from(region)),
        (
            "ids".to_owned(),
            Value::List(ids.into_iter().map(Value::from).collect()),
        ),
    ]))
}

/// What `aws_security_group` gives for `group` in `region`.
pub fn security_group_value(region: &str, group: &SecurityGroup) -> Value {
    Value::Map(BTreeMap::from([
        ("id".to_owned(), Value::from(group.id.as_str())),
        (
            "arn".to_owned(),
            ec2_arn(region, &group.owner_id, "security-group", &group.id),
        ),
        ("name".to_owned(), Value::from(group.name.as_str())),
        ("vpc_id".to_owned(), Value::from(group.vpc_id.as_str())),
        (
            "description".to_owned(),
            Value::from(group.description.as_str()),
        ),
        ("owner_id".to_owned(), Value::from(group.owner_id.as_str())),
        ("tags".to_owned(), Value::from(group.tags.clone())),
    ]))
}
