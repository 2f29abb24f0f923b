//! The EC2 side of the AWS provider: the network types, one file per family (VPCs, subnets, security
//! groups, internet gateways, route tables with their routes and associations, elastic IPs), and what they
//! share: the tag specifications of a create, the tag calls (`CreateTags` / `DeleteTags`), the tag filters
//! of a listing, the objects AWS makes by itself that a listing leaves out, and the dispatch from the
//! protocol's calls to each family.
//!
//! Every EC2 type with a listing of its own is marker-owned: its markers go into the create call itself
//! (`TagSpecifications`), so an object never exists unmarked, and its `Describe*` answers carry the tags.
//! Routes and route table associations have no listing and no tags: they come back inline with their
//! route table from `DescribeRouteTables`. `aws_eip_association` is in the schemas (so the lint names it
//! `unadmitted-type`) and every protocol call of it is refused, as on the simulated cloud.
//!
//! Each API operation is one private method that counts the attempt, opens a span named after the
//! operation and turns an SDK failure into a [`ProviderError`]. This module must never read an error as an
//! absence except on a read, where EC2's `Invalid…ID.NotFound` means the object is not there.

mod addresses;
mod gateways;
mod route_tables;
mod rules;
mod security_groups;
mod subnets;
mod vpcs;

use std::collections::BTreeMap;

use aws_sdk_ec2::types::{Filter, ResourceType, Tag, TagSpecification};
use provider::{
    Call, CreateRequest, Identity, ListPage, ListRequest, LiveObject, ProviderError,
    ProviderErrorKind, TagChange, TagFilter, UpdateRequest, Value,
};

use super::error::from_sdk;
use super::{AwsProvider, invalid, unsupported};

/// The VPC type this provider serves with the feature `ec2`.
pub const VPC: &str = "aws_vpc";
/// The subnet type this provider serves with the feature `ec2`.
pub const SUBNET: &str = "aws_subnet";
/// The security group type this provider serves with the feature `ec2`.
pub const SECURITY_GROUP: &str = "aws_security_group";
/// The internet gateway type this provider serves with the feature `ec2`.
pub const INTERNET_GATEWAY: &str = "aws_internet_gateway";
/// The route table type this provider serves with the feature `ec2`.
pub const ROUTE_TABLE: &str = "aws_route_table";
/// The route type this provider serves with the feature `ec2` (inline in its route table).
pub const ROUTE: &str = "aws_route";
/// The route table association type this provider serves with the feature `ec2` (inline in its table).
pub const ROUTE_TABLE_ASSOCIATION: &str = "aws_route_table_association";
/// The elastic IP type this provider serves with the feature `ec2`.
pub const EIP: &str = "aws_eip";
/// The address association type: in the schemas, with no admission path; every call of it is refused.
pub const EIP_ASSOCIATION: &str = "aws_eip_association";

/// The EC2 types of the schemas, `aws_eip_association` included.
pub(super) const TYPES: &[&str] = &[
    VPC,
    SUBNET,
    SECURITY_GROUP,
    INTERNET_GATEWAY,
    ROUTE_TABLE,
    ROUTE,
    ROUTE_TABLE_ASSOCIATION,
    EIP,
    EIP_ASSOCIATION,
];

/// The page size asked of the `Describe*` listings that page (EC2's largest; route tables take 100).
const DESCRIBE_PAGE: i32 = 1000;

const CREATE_TAGS: &str = "ec2:CreateTags";
const DELETE_TAGS: &str = "ec2:DeleteTags";

/// The tagging API's resource types of the EC2 types in its index, and the resource part of their ARNs
/// (`arn:aws:ec2:<region>:<account>:<kind>/<id>`).
pub(super) const INDEXED: &[(&str, &str, &str)] = &[
    (VPC, "ec2:vpc", "vpc"),
    (SUBNET, "ec2:subnet", "subnet"),
    (SECURITY_GROUP, "ec2:security-group", "security-group"),
    (INTERNET_GATEWAY, "ec2:internet-gateway", "internet-gateway"),
    (ROUTE_TABLE, "ec2:route-table", "route-table"),
    (EIP, "ec2:elastic-ip", "elastic-ip"),
];

/// The EC2 type and id an ARN's resource part (`vpc/vpc-0a1b…`) names, for the types served.
pub(super) fn resource_of_arn(resource: &str) -> Option<(&'static str, String)> {
    let (kind, id) = resource.split_once('/')?;
    let (type_name, _, _) = INDEXED.iter().find(|(_, _, k)| *k == kind)?;
    (!id.is_empty() && !id.contains('/')).then(|| (*type_name, id.to_owned()))
}

/// The tag specification of a create: the object's tags, set in the create call itself. `None` when there
/// are no tags (EC2 refuses an empty specification).
fn tag_specification(
    kind: ResourceType,
    tags: &BTreeMap<String, String>,
) -> Option<TagSpecification> {
    (!tags.is_empty()).then(|| {
        TagSpecification::builder()
            .resource_type(kind)
            .set_tags(Some(ec2_tags(tags)))
            .build()
    })
}

fn ec2_tags(tags: &BTreeMap<String, String>) -> Vec<Tag> {
    tags.iter()
        .map(|(k, v)| Tag::builder().key(k).value(v).build())
        .collect()
}

/// The tags of a `Describe*` answer.
fn tag_map(tags: &[Tag]) -> BTreeMap<String, String> {
    tags.iter()
        .filter_map(|t| {
            Some((
                t.key()?.to_owned(),
                t.value().unwrap_or_default().to_owned(),
            ))
        })
        .collect()
}

/// A listing's tag filters as EC2 filters: `tag:<key>` with the values, `tag-key` for a key alone.
fn describe_filters(filters: &[TagFilter]) -> Vec<Filter> {
    filters
        .iter()
        .map(|f| {
            if f.values.is_empty() {
                Filter::builder().name("tag-key").values(&f.key).build()
            } else {
                Filter::builder()
                    .name(format!("tag:{}", f.key))
                    .set_values(Some(f.values.clone()))
                    .build()
            }
        })
        .collect()
}

/// A filter on one value.
fn filter(name: &str, value: &str) -> Filter {
    Filter::builder().name(name).values(value).build()
}

/// `Some(filters)` when there are any: EC2 takes no empty filter list.
fn some_filters(filters: Vec<Filter>) -> Option<Vec<Filter>> {
    (!filters.is_empty()).then_some(filters)
}

/// The token of the next page: AWS ends a listing with no token, some servers with an empty one.
fn next_token(token: Option<&str>) -> Option<String> {
    token.filter(|t| !t.is_empty()).map(str::to_owned)
}

/// A read's answer: EC2's `Invalid…ID.NotFound` is an absence there (and only there).
fn absent_when_not_found<T>(answer: Result<T, ProviderError>) -> Result<Option<T>, ProviderError> {
    match answer {
        Ok(found) => Ok(Some(found)),
        Err(e) if e.kind == ProviderErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The boolean attribute `name`, `default` when unset.
fn bool_attribute(
    operation: &str,
    type_name: &str,
    attributes: &BTreeMap<String, Value>,
    name: &str,
    default: bool,
) -> Result<bool, ProviderError> {
    match attributes.get(name).map(Value::peel) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_bool().ok_or_else(|| {
            invalid(
                operation,
                format!("{type_name}.{name} must be a bool, not {v}"),
            )
        }),
    }
}

/// The string attribute `name`, `None` when unset or null.
fn optional_string<'a>(
    operation: &str,
    type_name: &str,
    attributes: &'a BTreeMap<String, Value>,
    name: &str,
) -> Result<Option<&'a str>, ProviderError> {
    match attributes.get(name).map(Value::peel) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s)),
        Some(other) => Err(invalid(
            operation,
            format!("{type_name}.{name} must be a non-empty string, not {other}"),
        )),
    }
}

/// A string or null, as the simulated cloud answers an optional reference that is unset.
fn string_or_null(value: Option<&str>) -> Value {
    value.map_or(Value::Null, Value::from)
}

/// Refuses a change of an attribute that forces replacement: the engine replaces such objects instead.
fn refuse_changed(
    operation: &str,
    type_name: &str,
    object: &LiveObject,
    attributes: &BTreeMap<String, Value>,
    names: &[&str],
) -> Result<(), ProviderError> {
    for name in names {
        let Some(wanted) = attributes.get(*name).map(Value::peel) else {
            continue;
        };
        let current = object.attribute(name).map(Value::peel);
        if current != Some(wanted) {
            return Err(invalid(
                operation,
                format!("{type_name}.{name} cannot change in place: it forces replacement"),
            ));
        }
    }
    Ok(())
}

/// The VPC a listing is scoped to, for the types that live in one.
fn vpc_scope(operation: &str, request: &ListRequest) -> Result<Option<String>, ProviderError> {
    match &request.parent {
        None => Ok(None),
        Some(p) if p.type_name == VPC => Ok(Some(p.id.clone())),
        Some(p) => Err(invalid(
            operation,
            format!(
                "{} is not listed under a {}",
                request.type_name, p.type_name
            ),
        )),
    }
}

fn refuse_association(method: &str) -> ProviderError {
    ProviderError::new(
        method,
        ProviderErrorKind::Unsupported,
        format!("{EIP_ASSOCIATION} has no admission path: an address association cannot be owned"),
    )
}

impl AwsProvider {
    /// The ARN of an EC2 object in the provider's region.
    fn ec2_arn(&self, account: &str, kind: &str, id: &str) -> String {
        format!(
            "arn:{}:ec2:{}:{account}:{kind}/{id}",
            self.partition(),
            self.region
        )
    }

    /// An EC2 object as a read returns it: its attributes with `id`, and its tags.
    fn ec2_object(
        &self,
        type_name: &str,
        id: &str,
        attributes: impl IntoIterator<Item = (&'static str, Value)>,
        tags: BTreeMap<String, String>,
    ) -> LiveObject {
        let mut map: BTreeMap<String, Value> = attributes
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        map.insert("id".to_owned(), Value::from(id));
        LiveObject {
            type_name: type_name.to_owned(),
            id: id.to_owned(),
            region: self.region.clone(),
            attributes: map,
            tags,
        }
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_TAGS, id = %id), err)]
    async fn call_create_tags(
        &self,
        call: &Call<'_>,
        id: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        call.attempt(CREATE_TAGS);
        self.ec2
            .create_tags()
            .resources(id)
            .set_tags(Some(ec2_tags(tags)))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_TAGS, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_TAGS, id = %id), err)]
    async fn call_delete_tags(
        &self,
        call: &Call<'_>,
        id: &str,
        keys: Vec<String>,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_TAGS);
        let tags = keys.into_iter().map(|k| Tag::builder().key(k).build());
        self.ec2
            .delete_tags()
            .resources(id)
            .set_tags(Some(tags.collect()))
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_TAGS, e))?;
        Ok(())
    }

    /// Applies a tag change to one EC2 object: `CreateTags` for the keys set, `DeleteTags` for the keys
    /// removed, nothing for an empty change.
    async fn apply_ec2_tags(
        &self,
        call: &Call<'_>,
        id: &str,
        change: &TagChange,
    ) -> Result<(), ProviderError> {
        if !change.set.is_empty() {
            self.call_create_tags(call, id, &change.set).await?;
        }
        let removed: Vec<String> = change
            .remove
            .iter()
            .filter(|k| !change.set.contains_key(*k))
            .cloned()
            .collect();
        if !removed.is_empty() {
            self.call_delete_tags(call, id, removed).await?;
        }
        Ok(())
    }

    // ----- The protocol's calls, by type. -----

    pub(super) async fn list_ec2(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        match request.type_name.as_str() {
            VPC => self.list_vpcs(call, request).await,
            SUBNET => self.list_subnets(call, request).await,
            SECURITY_GROUP => self.list_security_groups(call, request).await,
            INTERNET_GATEWAY => self.list_internet_gateways(call, request).await,
            ROUTE_TABLE => self.list_route_tables(call, request).await,
            ROUTE | ROUTE_TABLE_ASSOCIATION => self.list_inline(call, request).await,
            EIP => self.list_addresses(call, request).await,
            EIP_ASSOCIATION => Err(refuse_association("list")),
            other => Err(unsupported("list", other)),
        }
    }

    pub(super) async fn create_ec2(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        match request.type_name.as_str() {
            VPC => self.create_vpc(call, request).await,
            SUBNET => self.create_subnet(call, request).await,
            SECURITY_GROUP => self.create_security_group(call, request).await,
            INTERNET_GATEWAY => self.create_internet_gateway(call, request).await,
            ROUTE_TABLE => self.create_route_table(call, request).await,
            ROUTE => self.create_route(call, request).await,
            ROUTE_TABLE_ASSOCIATION => self.create_association(call, request).await,
            EIP => self.create_address(call, request).await,
            EIP_ASSOCIATION => Err(refuse_association("create")),
            other => Err(unsupported("create", other)),
        }
    }

    pub(super) async fn update_ec2(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        match request.type_name.as_str() {
            VPC => self.update_vpc(call, request).await,
            SUBNET => self.update_subnet(call, request).await,
            SECURITY_GROUP => self.update_security_group(call, request).await,
            INTERNET_GATEWAY => self.update_internet_gateway(call, request).await,
            ROUTE_TABLE => self.update_route_table(call, request).await,
            ROUTE => self.update_route(call, request).await,
            ROUTE_TABLE_ASSOCIATION => self.update_association(call, request).await,
            EIP => self.update_address(call, request).await,
            EIP_ASSOCIATION => Err(refuse_association("update")),
            other => Err(unsupported("update", other)),
        }
    }

    pub(super) async fn delete_ec2(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        match type_name {
            VPC => self.delete_vpc(call, id).await,
            SUBNET => self.delete_subnet(call, id).await,
            SECURITY_GROUP => self.delete_security_group(call, id).await,
            INTERNET_GATEWAY => self.delete_internet_gateway(call, id).await,
            ROUTE_TABLE => self.delete_route_table(call, id).await,
            ROUTE => self.delete_route(call, id).await,
            ROUTE_TABLE_ASSOCIATION => self.delete_association(call, id).await,
            EIP => self.release_address(call, id).await,
            EIP_ASSOCIATION => Err(refuse_association("delete")),
            other => Err(unsupported("delete", other)),
        }
    }

    pub(super) async fn read_ec2_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        match type_name {
            VPC => self.read_vpc(call, id).await,
            SUBNET => self.read_subnet(call, id).await,
            SECURITY_GROUP => self.read_security_group(call, id).await,
            INTERNET_GATEWAY => self.read_internet_gateway(call, id).await,
            ROUTE_TABLE => self.read_route_table(call, id).await,
            ROUTE => self.read_route(call, id).await,
            ROUTE_TABLE_ASSOCIATION => self.read_association(call, id).await,
            EIP => self.read_address(call, id).await,
            EIP_ASSOCIATION => Err(refuse_association("read")),
            other => Err(unsupported("read", other)),
        }
    }

    /// A read by identity: a route by its table and destination, an association by its subnet and table
    /// (both from their table's `DescribeRouteTables` answer); the marker-owned types have no identity.
    pub(super) async fn read_ec2(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let part = |name: &str| match identity {
            Identity::Composite(parts) => parts.get(name).map(String::as_str),
            Identity::Name(_) => None,
        };
        match type_name {
            ROUTE => match (part("route_table_id"), part("destination_cidr_block")) {
                (Some(table), Some(destination)) => self.find_route(call, table, destination).await,
                _ => Err(invalid(
                    "read",
                    format!(
                        "{ROUTE} is identified by route_table_id and destination_cidr_block, not by {identity}"
                    ),
                )),
            },
            ROUTE_TABLE_ASSOCIATION => match (part("subnet_id"), part("route_table_id")) {
                (Some(subnet), Some(table)) => {
                    self.find_association(call, table, |a| {
                        a.attribute_str("subnet_id") == Some(subnet)
                    })
                    .await
                }
                _ => Err(invalid(
                    "read",
                    format!(
                        "{ROUTE_TABLE_ASSOCIATION} is identified by subnet_id and route_table_id, not by {identity}"
                    ),
                )),
            },
            EIP_ASSOCIATION => Err(refuse_association("read")),
            other => Err(invalid(
                "read",
                format!("{other} is owned by its markers and has no identity to read by"),
            )),
        }
    }

    /// A tags-only change of an EC2 object; routes and associations carry no tags.
    pub(super) async fn change_ec2_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: &TagChange,
    ) -> Result<(), ProviderError> {
        match type_name {
            _ if change.is_empty() => Ok(()),
            ROUTE | ROUTE_TABLE_ASSOCIATION => Err(invalid(
                "update_tags",
                format!("{type_name} carries no tags"),
            )),
            EIP_ASSOCIATION => Err(refuse_association("update_tags")),
            _ => self.apply_ec2_tags(call, id, change).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resource_of_arn;

    #[test]
    fn arns_of_the_served_ec2_types_map_to_their_type_and_id() {
        assert_eq!(
            resource_of_arn("vpc/vpc-0a1b2c3d"),
            Some(("aws_vpc", "vpc-0a1b2c3d".to_owned()))
        );
        assert_eq!(
            resource_of_arn("elastic-ip/eipalloc-1"),
            Some(("aws_eip", "eipalloc-1".to_owned()))
        );
        assert_eq!(resource_of_arn("instance/i-1"), None);
        assert_eq!(resource_of_arn("vpc/"), None);
    }
}
