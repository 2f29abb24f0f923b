//! Subnets: created with their tags in `CreateSubnet` (in the region's `a` zone unless one is given, as
//! the simulated cloud does), `map_public_ip_on_launch` set with `ModifySubnetAttribute`, read and listed
//! with `DescribeSubnets`, deleted with `DeleteSubnet`.
//!
//! A listing leaves out the default subnets of the default VPC (`DefaultForAz`), which AWS makes by
//! itself; a read by id still finds them.

use aws_sdk_ec2::types::{AttributeBooleanValue, Filter, ResourceType, Subnet};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    UpdateRequest, Value,
};

use super::{
    DESCRIBE_PAGE, SUBNET, absent_when_not_found, bool_attribute, describe_filters, filter,
    next_token, optional_string, refuse_changed, some_filters, tag_map, tag_specification,
    vpc_scope,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, string_attribute};

const DESCRIBE_SUBNETS: &str = "ec2:DescribeSubnets";
const CREATE_SUBNET: &str = "ec2:CreateSubnet";
const MODIFY_SUBNET_ATTRIBUTE: &str = "ec2:ModifySubnetAttribute";
const DELETE_SUBNET: &str = "ec2:DeleteSubnet";

impl AwsProvider {
    fn subnet_object(&self, subnet: &Subnet) -> Option<LiveObject> {
        let id = subnet.subnet_id()?;
        let arn = match subnet.subnet_arn() {
            Some(arn) => arn.to_owned(),
            None => self.ec2_arn(subnet.owner_id().unwrap_or_default(), "subnet", id),
        };
        Some(self.ec2_object(
            SUBNET,
            id,
            [
                ("vpc_id", Value::from(subnet.vpc_id().unwrap_or_default())),
                (
                    "cidr_block",
                    Value::from(subnet.cidr_block().unwrap_or_default()),
                ),
                (
                    "availability_zone",
                    Value::from(subnet.availability_zone().unwrap_or_default()),
                ),
                (
                    "map_public_ip_on_launch",
                    Value::Bool(subnet.map_public_ip_on_launch() == Some(true)),
                ),
                ("arn", Value::from(arn)),
            ],
            tag_map(subnet.tags()),
        ))
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_SUBNETS), err)]
    async fn call_describe_subnets(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
        token: Option<String>,
    ) -> Result<(Vec<Subnet>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_SUBNETS);
        let paged = ids.is_none();
        let out = self
            .ec2
            .describe_subnets()
            .set_subnet_ids(ids)
            .set_filters(some_filters(filters))
            .set_max_results(paged.then_some(DESCRIBE_PAGE))
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_SUBNETS, e))?;
        Ok((out.subnets().to_vec(), next_token(out.next_token())))
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_SUBNET), err)]
    async fn call_create_subnet(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
        vpc_id: &str,
        cidr: &str,
        zone: &str,
    ) -> Result<Subnet, ProviderError> {
        call.attempt(CREATE_SUBNET);
        let tags = tag_specification(ResourceType::Subnet, &request.tags);
        let out = self
            .ec2
            .create_subnet()
            .vpc_id(vpc_id)
            .cidr_block(cidr)
            .availability_zone(zone)
            .set_tag_specifications(tags.map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_SUBNET, e))?;
        out.subnet().cloned().ok_or_else(|| {
            ProviderError::new(
                CREATE_SUBNET,
                ProviderErrorKind::ServerError,
                "CreateSubnet answered without the subnet",
            )
        })
    }

    #[tracing::instrument(skip_all, fields(operation = MODIFY_SUBNET_ATTRIBUTE, id = %id), err)]
    async fn call_modify_subnet_attribute(
        &self,
        call: &Call<'_>,
        id: &str,
        map_public_ip: bool,
    ) -> Result<(), ProviderError> {
        call.attempt(MODIFY_SUBNET_ATTRIBUTE);
        self.ec2
            .modify_subnet_attribute()
            .subnet_id(id)
            .map_public_ip_on_launch(
                AttributeBooleanValue::builder()
                    .value(map_public_ip)
                    .build(),
            )
            .send()
            .await
            .map_err(|e| from_sdk(MODIFY_SUBNET_ATTRIBUTE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_SUBNET, id = %id), err)]
    async fn call_delete_subnet(&self, call: &Call<'_>, id: &str) -> Result<(), ProviderError> {
        call.attempt(DELETE_SUBNET);
        self.ec2
            .delete_subnet()
            .subnet_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_SUBNET, e))?;
        Ok(())
    }

    // ----- Subnets through the protocol. -----

    /// One page of subnets (those of one VPC, when the listing is scoped), default subnets left out.
    pub(super) async fn list_subnets(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let mut filters = describe_filters(&request.tag_filters);
        filters.extend(vpc_scope(DESCRIBE_SUBNETS, request)?.map(|v| filter("vpc-id", &v)));
        let (subnets, next_page_token) = self
            .call_describe_subnets(call, None, filters, request.page_token.clone())
            .await?;
        let objects = subnets
            .iter()
            .filter(|s| s.default_for_az() != Some(true))
            .filter_map(|s| self.subnet_object(s))
            .collect();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: true,
            next_page_token,
        })
    }

    pub(super) async fn read_subnet(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let answer = self
            .call_describe_subnets(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await;
        let Some((subnets, _)) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        Ok(subnets
            .iter()
            .find(|s| s.subnet_id() == Some(id))
            .and_then(|s| self.subnet_object(s)))
    }

    /// Creates the subnet with its tags in the call, then turns on `map_public_ip_on_launch` when asked.
    pub(super) async fn create_subnet(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_SUBNET, SUBNET, attributes)?;
        let vpc_id = string_attribute(CREATE_SUBNET, SUBNET, attributes, "vpc_id")?;
        let cidr = string_attribute(CREATE_SUBNET, SUBNET, attributes, "cidr_block")?;
        let zone = optional_string(CREATE_SUBNET, SUBNET, attributes, "availability_zone")?
            .map_or_else(|| format!("{}a", self.region), str::to_owned);
        let map_public_ip = bool_attribute(
            MODIFY_SUBNET_ATTRIBUTE,
            SUBNET,
            attributes,
            "map_public_ip_on_launch",
            false,
        )?;
        let subnet = self
            .call_create_subnet(call, request, vpc_id, cidr, &zone)
            .await?;
        let mut object = self.subnet_object(&subnet).ok_or_else(|| {
            ProviderError::new(
                CREATE_SUBNET,
                ProviderErrorKind::ServerError,
                "CreateSubnet answered without the subnet's id",
            )
        })?;
        if map_public_ip {
            self.call_modify_subnet_attribute(call, &object.id, true)
                .await?;
            object
                .attributes
                .insert("map_public_ip_on_launch".to_owned(), Value::Bool(true));
        }
        object.tags = request.tags.clone();
        Ok(object)
    }

    /// Reads the subnet, changes `map_public_ip_on_launch` when it differs and applies the tag change.
    pub(super) async fn update_subnet(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(MODIFY_SUBNET_ATTRIBUTE, SUBNET, attributes)?;
        let wanted = bool_attribute(
            MODIFY_SUBNET_ATTRIBUTE,
            SUBNET,
            attributes,
            "map_public_ip_on_launch",
            false,
        )?;
        let Some(mut subnet) = self.read_subnet(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_SUBNETS,
                format!("the subnet {} does not exist", request.id),
            ));
        };
        refuse_changed(
            MODIFY_SUBNET_ATTRIBUTE,
            SUBNET,
            &subnet,
            attributes,
            &["vpc_id", "cidr_block", "availability_zone"],
        )?;
        if subnet
            .attribute("map_public_ip_on_launch")
            .and_then(Value::as_bool)
            != Some(wanted)
        {
            self.call_modify_subnet_attribute(call, &request.id, wanted)
                .await?;
            subnet
                .attributes
                .insert("map_public_ip_on_launch".to_owned(), Value::Bool(wanted));
        }
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        subnet.tags = request.tags.applied_to(&subnet.tags);
        Ok(subnet)
    }

    pub(super) async fn delete_subnet(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_subnet(call, id).await
    }
}
