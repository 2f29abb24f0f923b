//! Elastic IPs: allocated with their tags in `AllocateAddress`, read and listed with `DescribeAddresses`
//! (one answer, no pages: the API has none), released with `ReleaseAddress`. The domain forces
//! replacement, so an update only changes tags; `public_ip` is the address AWS handed out.

use aws_sdk_ec2::types::{Address, DomainType, Filter, ResourceType};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    UpdateRequest, Value,
};

use super::{
    EIP, absent_when_not_found, describe_filters, optional_string, refuse_changed, some_filters,
    tag_map, tag_specification,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, invalid};

const DESCRIBE_ADDRESSES: &str = "ec2:DescribeAddresses";
const ALLOCATE_ADDRESS: &str = "ec2:AllocateAddress";
const RELEASE_ADDRESS: &str = "ec2:ReleaseAddress";

/// The domain asked for, `vpc` unless written.
fn desired_domain(
    attributes: &std::collections::BTreeMap<String, Value>,
) -> Result<DomainType, ProviderError> {
    match optional_string(ALLOCATE_ADDRESS, EIP, attributes, "domain")? {
        None | Some("vpc") => Ok(DomainType::Vpc),
        Some("standard") => Ok(DomainType::Standard),
        Some(other) => Err(invalid(
            ALLOCATE_ADDRESS,
            format!("{EIP}.domain must be vpc or standard, not {other:?}"),
        )),
    }
}

impl AwsProvider {
    fn address_object(&self, address: &Address) -> Option<LiveObject> {
        let id = address.allocation_id()?;
        let domain = address.domain().map_or("vpc", DomainType::as_str);
        Some(self.ec2_object(
            EIP,
            id,
            [
                ("domain", Value::from(domain)),
                (
                    "public_ip",
                    Value::from(address.public_ip().unwrap_or_default()),
                ),
            ],
            tag_map(address.tags()),
        ))
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_ADDRESSES), err)]
    async fn call_describe_addresses(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
    ) -> Result<Vec<Address>, ProviderError> {
        call.attempt(DESCRIBE_ADDRESSES);
        let out = self
            .ec2
            .describe_addresses()
            .set_allocation_ids(ids)
            .set_filters(some_filters(filters))
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_ADDRESSES, e))?;
        Ok(out.addresses().to_vec())
    }

    #[tracing::instrument(skip_all, fields(operation = ALLOCATE_ADDRESS), err)]
    async fn call_allocate_address(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
        domain: DomainType,
    ) -> Result<(String, String), ProviderError> {
        call.attempt(ALLOCATE_ADDRESS);
        let tags = tag_specification(ResourceType::ElasticIp, &request.tags);
        let out = self
            .ec2
            .allocate_address()
            .domain(domain)
            .set_tag_specifications(tags.map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(ALLOCATE_ADDRESS, e))?;
        match (out.allocation_id(), out.public_ip()) {
            (Some(id), Some(ip)) => Ok((id.to_owned(), ip.to_owned())),
            _ => Err(ProviderError::new(
                ALLOCATE_ADDRESS,
                ProviderErrorKind::ServerError,
                "AllocateAddress answered without the allocation id or the address",
            )),
        }
    }

    #[tracing::instrument(skip_all, fields(operation = RELEASE_ADDRESS, id = %id), err)]
    async fn call_release_address(&self, call: &Call<'_>, id: &str) -> Result<(), ProviderError> {
        call.attempt(RELEASE_ADDRESS);
        self.ec2
            .release_address()
            .allocation_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(RELEASE_ADDRESS, e))?;
        Ok(())
    }

    // ----- Elastic IPs through the protocol. -----

    /// Every address of the region, in one answer.
    pub(super) async fn list_addresses(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        if let Some(parent) = &request.parent {
            return Err(invalid(
                DESCRIBE_ADDRESSES,
                format!("{EIP} is not listed under a {}", parent.type_name),
            ));
        }
        let addresses = self
            .call_describe_addresses(call, None, describe_filters(&request.tag_filters))
            .await?;
        Ok(ListPage {
            objects: addresses
                .iter()
                .filter_map(|a| self.address_object(a))
                .collect(),
            children: Vec::new(),
            tags_included: true,
            next_page_token: None,
        })
    }

    pub(super) async fn read_address(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let answer = self
            .call_describe_addresses(call, Some(vec![id.to_owned()]), Vec::new())
            .await;
        let Some(addresses) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        Ok(addresses
            .iter()
            .find(|a| a.allocation_id() == Some(id))
            .and_then(|a| self.address_object(a)))
    }

    pub(super) async fn create_address(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(ALLOCATE_ADDRESS, EIP, &request.attributes)?;
        let domain = desired_domain(&request.attributes)?;
        let (id, ip) = self
            .call_allocate_address(call, request, domain.clone())
            .await?;
        Ok(self.ec2_object(
            EIP,
            &id,
            [
                ("domain", Value::from(domain.as_str())),
                ("public_ip", Value::from(ip)),
            ],
            request.tags.clone(),
        ))
    }

    /// The domain forces replacement: reads the address, refuses a change of it and applies the tag
    /// change.
    pub(super) async fn update_address(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(super::CREATE_TAGS, EIP, &request.attributes)?;
        let Some(mut address) = self.read_address(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_ADDRESSES,
                format!("the elastic IP {} does not exist", request.id),
            ));
        };
        refuse_changed(
            super::CREATE_TAGS,
            EIP,
            &address,
            &request.attributes,
            &["domain"],
        )?;
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        address.tags = request.tags.applied_to(&address.tags);
        Ok(address)
    }

    pub(super) async fn release_address(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.call_release_address(call, id).await
    }
}
