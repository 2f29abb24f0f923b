//! VPCs: created with their tags in `CreateVpc`, their DNS settings read with `DescribeVpcAttribute`
//! (one call per setting: `DescribeVpcs` does not carry them) and changed with `ModifyVpcAttribute` (one
//! setting per call), deleted with `DeleteVpc`.
//!
//! A listing leaves out the region's default VPC (`IsDefault`), which AWS makes by itself and no estate
//! declares; a read by id still finds it.

use std::collections::BTreeMap;

use aws_sdk_ec2::types::{
    AttributeBooleanValue, Filter, ResourceType, Tenancy, Vpc, VpcAttributeName, VpcTenancy,
};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, UpdateRequest, Value,
};

use super::{
    DESCRIBE_PAGE, VPC, absent_when_not_found, bool_attribute, describe_filters, next_token,
    refuse_changed, some_filters, tag_map, tag_specification,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, string_attribute};

const DESCRIBE_VPCS: &str = "ec2:DescribeVpcs";
const DESCRIBE_VPC_ATTRIBUTE: &str = "ec2:DescribeVpcAttribute";
const CREATE_VPC: &str = "ec2:CreateVpc";
const MODIFY_VPC_ATTRIBUTE: &str = "ec2:ModifyVpcAttribute";
const MODIFY_VPC_TENANCY: &str = "ec2:ModifyVpcTenancy";
const DELETE_VPC: &str = "ec2:DeleteVpc";

/// A VPC's DNS settings, as the provider's arguments name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DnsSettings {
    support: bool,
    hostnames: bool,
}

impl DnsSettings {
    fn desired(
        operation: &str,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<Self, ProviderError> {
        Ok(DnsSettings {
            support: bool_attribute(operation, VPC, attributes, "enable_dns_support", true)?,
            hostnames: bool_attribute(operation, VPC, attributes, "enable_dns_hostnames", false)?,
        })
    }
}

impl AwsProvider {
    fn vpc_object(&self, vpc: &Vpc, dns: DnsSettings) -> Option<LiveObject> {
        let id = vpc.vpc_id()?;
        let arn = self.ec2_arn(vpc.owner_id().unwrap_or_default(), "vpc", id);
        Some(self.ec2_object(
            VPC,
            id,
            [
                (
                    "cidr_block",
                    Value::from(vpc.cidr_block().unwrap_or_default()),
                ),
                ("enable_dns_support", Value::Bool(dns.support)),
                ("enable_dns_hostnames", Value::Bool(dns.hostnames)),
                (
                    "instance_tenancy",
                    Value::from(vpc.instance_tenancy().map_or("default", |t| t.as_str())),
                ),
                ("arn", Value::from(arn)),
            ],
            tag_map(vpc.tags()),
        ))
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    /// One page of VPCs (or the VPCs `ids`, unpaged), with their tags.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_VPCS), err)]
    pub(super) async fn call_describe_vpcs(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
        token: Option<String>,
    ) -> Result<(Vec<Vpc>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_VPCS);
        let paged = ids.is_none();
        let out = self
            .ec2
            .describe_vpcs()
            .set_vpc_ids(ids)
            .set_filters(some_filters(filters))
            .set_max_results(paged.then_some(DESCRIBE_PAGE))
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_VPCS, e))?;
        Ok((out.vpcs().to_vec(), next_token(out.next_token())))
    }

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_VPC_ATTRIBUTE, id = %id), err)]
    async fn call_describe_vpc_attribute(
        &self,
        call: &Call<'_>,
        id: &str,
        attribute: VpcAttributeName,
    ) -> Result<bool, ProviderError> {
        call.attempt(DESCRIBE_VPC_ATTRIBUTE);
        let out = self
            .ec2
            .describe_vpc_attribute()
            .vpc_id(id)
            .attribute(attribute.clone())
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_VPC_ATTRIBUTE, e))?;
        let value = match attribute {
            VpcAttributeName::EnableDnsHostnames => out.enable_dns_hostnames(),
            _ => out.enable_dns_support(),
        };
        Ok(value
            .and_then(AttributeBooleanValue::value)
            .unwrap_or_default())
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_VPC), err)]
    async fn call_create_vpc(
        &self,
        call: &Call<'_>,
        cidr: &str,
        tenancy: Option<&str>,
        tags: &BTreeMap<String, String>,
    ) -> Result<Vpc, ProviderError> {
        call.attempt(CREATE_VPC);
        let out = self
            .ec2
            .create_vpc()
            .cidr_block(cidr)
            .set_instance_tenancy(tenancy.map(Tenancy::from))
            .set_tag_specifications(tag_specification(ResourceType::Vpc, tags).map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_VPC, e))?;
        out.vpc().cloned().ok_or_else(|| {
            ProviderError::new(
                CREATE_VPC,
                provider::ProviderErrorKind::ServerError,
                "CreateVpc answered without the VPC",
            )
        })
    }

    /// Changes the VPC's instance tenancy (AWS changes `dedicated` to `default` only).
    #[tracing::instrument(skip_all, fields(operation = MODIFY_VPC_TENANCY, id = %id), err)]
    async fn call_modify_vpc_tenancy(
        &self,
        call: &Call<'_>,
        id: &str,
        tenancy: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(MODIFY_VPC_TENANCY);
        self.ec2
            .modify_vpc_tenancy()
            .vpc_id(id)
            .instance_tenancy(VpcTenancy::from(tenancy))
            .send()
            .await
            .map_err(|e| from_sdk(MODIFY_VPC_TENANCY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = MODIFY_VPC_ATTRIBUTE, id = %id), err)]
    async fn call_modify_vpc_attribute(
        &self,
        call: &Call<'_>,
        id: &str,
        attribute: VpcAttributeName,
        value: bool,
    ) -> Result<(), ProviderError> {
        call.attempt(MODIFY_VPC_ATTRIBUTE);
        let value = AttributeBooleanValue::builder().value(value).build();
        let request = self.ec2.modify_vpc_attribute().vpc_id(id);
        let request = match attribute {
            VpcAttributeName::EnableDnsHostnames => request.enable_dns_hostnames(value),
            _ => request.enable_dns_support(value),
        };
        request
            .send()
            .await
            .map_err(|e| from_sdk(MODIFY_VPC_ATTRIBUTE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_VPC, id = %id), err)]
    async fn call_delete_vpc(&self, call: &Call<'_>, id: &str) -> Result<(), ProviderError> {
        call.attempt(DELETE_VPC);
        self.ec2
            .delete_vpc()
            .vpc_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_VPC, e))?;
        Ok(())
    }

    // ----- VPCs through the protocol. -----

    /// Both DNS settings of the VPC `id`.
    async fn dns_settings(&self, call: &Call<'_>, id: &str) -> Result<DnsSettings, ProviderError> {
        let support = self
            .call_describe_vpc_attribute(call, id, VpcAttributeName::EnableDnsSupport)
            .await?;
        let hostnames = self
            .call_describe_vpc_attribute(call, id, VpcAttributeName::EnableDnsHostnames)
            .await?;
        Ok(DnsSettings { support, hostnames })
    }

    /// One page of the region's VPCs without its default VPC, each with its DNS settings.
    pub(super) async fn list_vpcs(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        if let Some(parent) = &request.parent {
            return Err(crate::invalid(
                DESCRIBE_VPCS,
                format!("{VPC} is not listed under a {}", parent.type_name),
            ));
        }
        let (vpcs, next_page_token) = self
            .call_describe_vpcs(
                call,
                None,
                describe_filters(&request.tag_filters),
                request.page_token.clone(),
            )
            .await?;
        let mut objects = Vec::new();
        for vpc in vpcs.iter().filter(|v| v.is_default() != Some(true)) {
            let Some(id) = vpc.vpc_id() else { continue };
            // Deleted since the listing: left out, as a listing a moment later would.
            let Some(dns) = absent_when_not_found(self.dns_settings(call, id).await)? else {
                continue;
            };
            objects.extend(self.vpc_object(vpc, dns));
        }
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: true,
            next_page_token,
        })
    }

    pub(super) async fn read_vpc(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let answer = self
            .call_describe_vpcs(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await;
        let Some((vpcs, _)) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        let Some(vpc) = vpcs.iter().find(|v| v.vpc_id() == Some(id)) else {
            return Ok(None);
        };
        let Some(dns) = absent_when_not_found(self.dns_settings(call, id).await)? else {
            return Ok(None);
        };
        Ok(self.vpc_object(vpc, dns))
    }

    /// Sets the DNS settings that differ from `current`, one `ModifyVpcAttribute` each.
    async fn modify_dns(
        &self,
        call: &Call<'_>,
        id: &str,
        current: DnsSettings,
        desired: DnsSettings,
    ) -> Result<(), ProviderError> {
        // Hostnames need DNS support: turn support on first, and hostnames off before support goes off.
        if desired.support && !current.support {
            self.call_modify_vpc_attribute(call, id, VpcAttributeName::EnableDnsSupport, true)
                .await?;
        }
        if desired.hostnames != current.hostnames {
            self.call_modify_vpc_attribute(
                call,
                id,
                VpcAttributeName::EnableDnsHostnames,
                desired.hostnames,
            )
            .await?;
        }
        if !desired.support && current.support {
            self.call_modify_vpc_attribute(call, id, VpcAttributeName::EnableDnsSupport, false)
                .await?;
        }
        Ok(())
    }

    /// Creates the VPC with its tags in the call, then sets the DNS settings that differ from AWS's
    /// defaults (support on, hostnames off).
    pub(super) async fn create_vpc(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_VPC, VPC, attributes)?;
        let cidr = string_attribute(CREATE_VPC, VPC, attributes, "cidr_block")?;
        let desired = DnsSettings::desired(MODIFY_VPC_ATTRIBUTE, attributes)?;
        let tenancy = attributes.get("instance_tenancy").and_then(Value::as_str);
        let vpc = self
            .call_create_vpc(call, cidr, tenancy, &request.tags)
            .await?;
        let id = vpc.vpc_id().unwrap_or_default().to_owned();
        let defaults = DnsSettings {
            support: true,
            hostnames: false,
        };
        self.modify_dns(call, &id, defaults, desired).await?;
        let mut object = self.vpc_object(&vpc, desired).ok_or_else(|| {
            ProviderError::new(
                CREATE_VPC,
                provider::ProviderErrorKind::ServerError,
                "CreateVpc answered without the VPC's id",
            )
        })?;
        object.tags = request.tags.clone();
        Ok(object)
    }

    /// Reads the VPC, changes the DNS settings that differ and applies the tag change.
    pub(super) async fn update_vpc(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(MODIFY_VPC_ATTRIBUTE, VPC, attributes)?;
        let desired = DnsSettings::desired(MODIFY_VPC_ATTRIBUTE, attributes)?;
        let Some(mut vpc) = self.read_vpc(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_VPCS,
                format!("the VPC {} does not exist", request.id),
            ));
        };
        refuse_changed(MODIFY_VPC_ATTRIBUTE, VPC, &vpc, attributes, &["cidr_block"])?;
        let current = DnsSettings {
            support: vpc.attribute("enable_dns_support").and_then(Value::as_bool) == Some(true),
            hostnames: vpc
                .attribute("enable_dns_hostnames")
                .and_then(Value::as_bool)
                == Some(true),
        };
        self.modify_dns(call, &request.id, current, desired).await?;
        if let Some(tenancy) = attributes.get("instance_tenancy").and_then(Value::as_str)
            && vpc.attribute("instance_tenancy").and_then(Value::as_str) != Some(tenancy)
        {
            self.call_modify_vpc_tenancy(call, &request.id, tenancy)
                .await?;
            vpc.attributes
                .insert("instance_tenancy".to_owned(), Value::from(tenancy));
        }
        vpc.attributes.insert(
            "enable_dns_support".to_owned(),
            Value::Bool(desired.support),
        );
        vpc.attributes.insert(
            "enable_dns_hostnames".to_owned(),
            Value::Bool(desired.hostnames),
        );
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        vpc.tags = request.tags.applied_to(&vpc.tags);
        Ok(vpc)
    }

    pub(super) async fn delete_vpc(&self, call: &Call<'_>, id: &str) -> Result<(), ProviderError> {
        self.call_delete_vpc(call, id).await
    }
}
