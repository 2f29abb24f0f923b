//! Internet gateways: created with their tags in `CreateInternetGateway` and attached to their VPC with
//! `AttachInternetGateway` when `vpc_id` is set; `vpc_id` changes in place (`DetachInternetGateway`, then
//! `AttachInternetGateway`); read and listed with `DescribeInternetGateways`, whose attachment names the
//! VPC. A delete reads the gateway first and detaches it, as the AWS provider does: EC2 refuses to delete
//! an attached gateway. A listing of the region leaves out the gateway AWS attached to the default VPC
//! (nothing in `DescribeInternetGateways` marks it, so each such page costs one `DescribeVpcs` filtered on
//! `is-default`), as it leaves out the default VPC itself; a read by id still finds it.

use aws_sdk_ec2::types::{Filter, InternetGateway, ResourceType};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    UpdateRequest,
};

use super::{
    DESCRIBE_PAGE, INTERNET_GATEWAY, absent_when_not_found, describe_filters, filter, next_token,
    optional_string, some_filters, string_or_null, tag_map, tag_specification, vpc_scope,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names};

const DESCRIBE_INTERNET_GATEWAYS: &str = "ec2:DescribeInternetGateways";
const CREATE_INTERNET_GATEWAY: &str = "ec2:CreateInternetGateway";
const ATTACH_INTERNET_GATEWAY: &str = "ec2:AttachInternetGateway";
const DETACH_INTERNET_GATEWAY: &str = "ec2:DetachInternetGateway";
const DELETE_INTERNET_GATEWAY: &str = "ec2:DeleteInternetGateway";

/// The VPC a gateway is attached to (a gateway has at most one attachment).
fn attached_vpc(gateway: &InternetGateway) -> Option<&str> {
    gateway.attachments().iter().find_map(|a| a.vpc_id())
}

impl AwsProvider {
    fn internet_gateway_object(&self, gateway: &InternetGateway) -> Option<LiveObject> {
        let id = gateway.internet_gateway_id()?;
        let arn = self.ec2_arn(
            gateway.owner_id().unwrap_or_default(),
            "internet-gateway",
            id,
        );
        Some(self.ec2_object(
            INTERNET_GATEWAY,
            id,
            [
                ("vpc_id", string_or_null(attached_vpc(gateway))),
                ("arn", provider::Value::from(arn)),
            ],
            tag_map(gateway.tags()),
        ))
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_INTERNET_GATEWAYS), err)]
    async fn call_describe_internet_gateways(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
        token: Option<String>,
    ) -> Result<(Vec<InternetGateway>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_INTERNET_GATEWAYS);
        let paged = ids.is_none();
        let out = self
            .ec2
            .describe_internet_gateways()
            .set_internet_gateway_ids(ids)
            .set_filters(some_filters(filters))
            .set_max_results(paged.then_some(DESCRIBE_PAGE))
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_INTERNET_GATEWAYS, e))?;
        Ok((
            out.internet_gateways().to_vec(),
            next_token(out.next_token()),
        ))
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_INTERNET_GATEWAY), err)]
    async fn call_create_internet_gateway(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<InternetGateway, ProviderError> {
        call.attempt(CREATE_INTERNET_GATEWAY);
        let tags = tag_specification(ResourceType::InternetGateway, &request.tags);
        let out = self
            .ec2
            .create_internet_gateway()
            .set_tag_specifications(tags.map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_INTERNET_GATEWAY, e))?;
        out.internet_gateway().cloned().ok_or_else(|| {
            ProviderError::new(
                CREATE_INTERNET_GATEWAY,
                ProviderErrorKind::ServerError,
                "CreateInternetGateway answered without the gateway",
            )
        })
    }

    #[tracing::instrument(skip_all, fields(operation = ATTACH_INTERNET_GATEWAY, id = %id, vpc = %vpc), err)]
    async fn call_attach_internet_gateway(
        &self,
        call: &Call<'_>,
        id: &str,
        vpc: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(ATTACH_INTERNET_GATEWAY);
        self.ec2
            .attach_internet_gateway()
            .internet_gateway_id(id)
            .vpc_id(vpc)
            .send()
            .await
            .map_err(|e| from_sdk(ATTACH_INTERNET_GATEWAY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DETACH_INTERNET_GATEWAY, id = %id, vpc = %vpc), err)]
    async fn call_detach_internet_gateway(
        &self,
        call: &Call<'_>,
        id: &str,
        vpc: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DETACH_INTERNET_GATEWAY);
        self.ec2
            .detach_internet_gateway()
            .internet_gateway_id(id)
            .vpc_id(vpc)
            .send()
            .await
            .map_err(|e| from_sdk(DETACH_INTERNET_GATEWAY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_INTERNET_GATEWAY, id = %id), err)]
    async fn call_delete_internet_gateway(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_INTERNET_GATEWAY);
        self.ec2
            .delete_internet_gateway()
            .internet_gateway_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_INTERNET_GATEWAY, e))?;
        Ok(())
    }

    // ----- Internet gateways through the protocol. -----

    /// One page of internet gateways (those attached to one VPC, when the listing is scoped).
    pub(super) async fn list_internet_gateways(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let mut filters = describe_filters(&request.tag_filters);
        filters.extend(
            vpc_scope(DESCRIBE_INTERNET_GATEWAYS, request)?
                .map(|v| filter("attachment.vpc-id", &v)),
        );
        let (gateways, next_page_token) = self
            .call_describe_internet_gateways(call, None, filters, request.page_token.clone())
            .await?;
        let defaults = match request.parent {
            Some(_) => Vec::new(),
            None => self.default_vpc_ids(call).await?,
        };
        let made_by_aws = |g: &InternetGateway| {
            g.attachments()
                .iter()
                .any(|a| a.vpc_id().is_some_and(|v| defaults.iter().any(|d| d == v)))
        };
        let objects = gateways
            .iter()
            .filter(|g| !made_by_aws(g))
            .filter_map(|g| self.internet_gateway_object(g))
            .collect();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: true,
            next_page_token,
        })
    }

    /// The region's default VPC (none or one), by `DescribeVpcs` filtered on `is-default`.
    async fn default_vpc_ids(&self, call: &Call<'_>) -> Result<Vec<String>, ProviderError> {
        let (vpcs, _) = self
            .call_describe_vpcs(call, None, vec![filter("is-default", "true")], None)
            .await?;
        Ok(vpcs
            .iter()
            .filter_map(|v| v.vpc_id().map(str::to_owned))
            .collect())
    }

    pub(super) async fn read_internet_gateway(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let answer = self
            .call_describe_internet_gateways(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await;
        let Some((gateways, _)) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        Ok(gateways
            .iter()
            .find(|g| g.internet_gateway_id() == Some(id))
            .and_then(|g| self.internet_gateway_object(g)))
    }

    /// Creates the gateway with its tags in the call, then attaches it when `vpc_id` is set. If the attach
    /// fails, the gateway is left detached (owned, with its markers) and the next plan attaches it.
    pub(super) async fn create_internet_gateway(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_INTERNET_GATEWAY, INTERNET_GATEWAY, attributes)?;
        let vpc = optional_string(
            ATTACH_INTERNET_GATEWAY,
            INTERNET_GATEWAY,
            attributes,
            "vpc_id",
        )?;
        let gateway = self.call_create_internet_gateway(call, request).await?;
        let mut object = self.internet_gateway_object(&gateway).ok_or_else(|| {
            ProviderError::new(
                CREATE_INTERNET_GATEWAY,
                ProviderErrorKind::ServerError,
                "CreateInternetGateway answered without the gateway's id",
            )
        })?;
        if let Some(vpc) = vpc {
            self.call_attach_internet_gateway(call, &object.id, vpc)
                .await?;
            object
                .attributes
                .insert("vpc_id".to_owned(), provider::Value::from(vpc));
        }
        object.tags = request.tags.clone();
        Ok(object)
    }

    /// Moves the gateway to the VPC asked (detach, then attach) when it differs, and applies the tag
    /// change.
    pub(super) async fn update_internet_gateway(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(ATTACH_INTERNET_GATEWAY, INTERNET_GATEWAY, attributes)?;
        let wanted = optional_string(
            ATTACH_INTERNET_GATEWAY,
            INTERNET_GATEWAY,
            attributes,
            "vpc_id",
        )?;
        let Some(mut gateway) = self.read_internet_gateway(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_INTERNET_GATEWAYS,
                format!("the internet gateway {} does not exist", request.id),
            ));
        };
        let current = gateway.attribute_str("vpc_id").map(str::to_owned);
        if current.as_deref() != wanted {
            if let Some(old) = &current {
                self.call_detach_internet_gateway(call, &request.id, old)
                    .await?;
            }
            if let Some(new) = wanted {
                self.call_attach_internet_gateway(call, &request.id, new)
                    .await?;
            }
            gateway
                .attributes
                .insert("vpc_id".to_owned(), string_or_null(wanted));
        }
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        gateway.tags = request.tags.applied_to(&gateway.tags);
        Ok(gateway)
    }

    /// Reads the gateway, detaches it from its VPC when attached, and deletes it.
    pub(super) async fn delete_internet_gateway(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        let (gateways, _) = self
            .call_describe_internet_gateways(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await?;
        let vpc = gateways
            .iter()
            .find(|g| g.internet_gateway_id() == Some(id))
            .and_then(attached_vpc);
        if let Some(vpc) = vpc {
            self.call_detach_internet_gateway(call, id, vpc).await?;
        }
        self.call_delete_internet_gateway(call, id).await
    }
}
