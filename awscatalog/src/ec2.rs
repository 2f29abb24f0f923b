//! The EC2 network types: VPCs, subnets, security groups, gateways, route tables and elastic IPs
//! (marker-owned), routes and route table associations (parent-derived), and the unadmitted
//! `aws_eip_association`.

use provider::schema::{
    AttributeSchema, BindMatch, BlockSchema, IdScheme, Nesting, Normalize, ResourceTypeSchema,
};
use provider::{AdmissionPath, Type, Value};

use crate::{arn, fields, string};

/// The EC2 network types.
pub(crate) fn schemas() -> Vec<ResourceTypeSchema> {
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
            .with_attribute(
                opt("instance_tenancy", string(), Value::from("default"))
                    .one_of(["default", "dedicated"]),
            )
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
            .with_attribute(AttributeSchema::optional_computed("name", string()).force_new())
            .with_attribute(AttributeSchema::optional_computed("name_prefix", string()).force_new())
            .with_attribute(
                AttributeSchema::optional_computed("vpc_id", string())
                    .force_new()
                    .references("aws_vpc"),
            )
            .with_attribute(
                opt("description", string(), Value::from("Managed by Terraform")).force_new(),
            )
            .with_attribute(AttributeSchema::block("ingress", security_group_rule()))
            .with_attribute(AttributeSchema::block("egress", security_group_rule()))
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
            .with_attribute(AttributeSchema::block("route", inline_route()))
            .with_attribute(arn()),
        ResourceTypeSchema::new("aws_eip", Some(Marker))
            .taggable(true)
            .server_ids("eipalloc-", 8)
            .bind_match(BindMatch::Never)
            .with_attribute(opt("domain", string(), Value::from("vpc")).force_new())
            .with_attribute(opt("network_interface", string(), Value::Null))
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
            )
            .with_attribute(opt("network_interface_id", string(), Value::Null)),
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

/// A route table's inline `route` blocks (attributes as blocks, a set): IPv4 destinations to an internet
/// gateway or a network interface; the provider's other destinations and targets are refused by name.
fn inline_route() -> BlockSchema {
    let target = |what: &str| {
        format!("{what} are not served; route to a `gateway_id` or a `network_interface_id`")
    };
    BlockSchema::new(Nesting::Set)
        .as_attributes()
        .standalone("aws_route")
        .with_attribute(AttributeSchema::required("cidr_block", string()))
        .with_attribute(AttributeSchema::optional(
            "gateway_id",
            string(),
            Value::from(""),
        ))
        .with_attribute(AttributeSchema::optional(
            "network_interface_id",
            string(),
            Value::from(""),
        ))
        .refuse(
            "ipv6_cidr_block",
            "IPv6 routes are not served; give an IPv4 `cidr_block`",
        )
        .refuse(
            "destination_prefix_list_id",
            "prefix list destinations are not served; give an IPv4 `cidr_block`",
        )
        .refuse("carrier_gateway_id", target("carrier gateways"))
        .refuse("core_network_arn", target("core networks"))
        .refuse(
            "egress_only_gateway_id",
            target("egress-only internet gateways"),
        )
        .refuse("local_gateway_id", target("Outpost local gateways"))
        .refuse("nat_gateway_id", target("NAT gateways"))
        .refuse("transit_gateway_id", target("transit gateways"))
        .refuse("vpc_endpoint_id", target("VPC endpoints"))
        .refuse(
            "vpc_peering_connection_id",
            target("VPC peering connections"),
        )
}

/// A security group's inline `ingress` or `egress` rule (attributes as blocks, a set), with the values
/// the provider gives unset arguments (`[]`, `false`, `""`).
fn security_group_rule() -> BlockSchema {
    let strings = || Type::List(Box::new(string()));
    BlockSchema::new(Nesting::Set)
        .as_attributes()
        .with_attribute(AttributeSchema::required("from_port", Type::Number))
        .with_attribute(AttributeSchema::required("to_port", Type::Number))
        .with_attribute(
            AttributeSchema::required("protocol", string()).normalized(Normalize::IpProtocol),
        )
        .with_attribute(AttributeSchema::optional(
            "cidr_blocks",
            strings(),
            Value::List(Vec::new()),
        ))
        .with_attribute(AttributeSchema::optional(
            "ipv6_cidr_blocks",
            strings(),
            Value::List(Vec::new()),
        ))
        .with_attribute(AttributeSchema::optional(
            "prefix_list_ids",
            strings(),
            Value::List(Vec::new()),
        ))
        .with_attribute(AttributeSchema::optional(
            "security_groups",
            Type::Set(Box::new(string())),
            Value::Set(Default::default()),
        ))
        .with_attribute(AttributeSchema::optional(
            "self",
            Type::Bool,
            Value::Bool(false),
        ))
        .with_attribute(AttributeSchema::optional(
            "description",
            string(),
            Value::from(""),
        ))
}
