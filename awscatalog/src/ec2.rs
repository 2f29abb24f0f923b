//! The EC2 network types: VPCs, subnets, security groups, gateways, route tables and elastic IPs
//! (marker-owned), routes and route table associations (parent-derived), and the unadmitted
//! `aws_eip_association`.

use provider::schema::{AttributeSchema, BindMatch, IdScheme, ResourceTypeSchema};
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
