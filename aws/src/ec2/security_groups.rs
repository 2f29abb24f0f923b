//! Security groups: created with their tags in `CreateSecurityGroup`, read and listed with
//! `DescribeSecurityGroups`, deleted with `DeleteSecurityGroup`. Name, VPC and description force
//! replacement, so an update only changes tags. Rules (`ingress`, `egress`) are not managed yet: the
//! egress rule AWS adds to a new group is left as it is.
//!
//! A listing leaves out each VPC's `default` group, which AWS makes with the VPC and deletes with it; a
//! read by id still finds it.

use aws_sdk_ec2::types::{Filter, ResourceType, SecurityGroup};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, UpdateRequest, Value,
};

use super::{
    DESCRIBE_PAGE, SECURITY_GROUP, absent_when_not_found, describe_filters, filter, next_token,
    optional_string, refuse_changed, some_filters, tag_map, tag_specification, vpc_scope,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, string_attribute};

const DESCRIBE_SECURITY_GROUPS: &str = "ec2:DescribeSecurityGroups";
const CREATE_SECURITY_GROUP: &str = "ec2:CreateSecurityGroup";
const DELETE_SECURITY_GROUP: &str = "ec2:DeleteSecurityGroup";

/// The name of the group AWS makes in every VPC.
const DEFAULT_GROUP: &str = "default";

/// The description a group gets when none is written (the shared catalog's default).
const DEFAULT_DESCRIPTION: &str = "Managed by liveplan";

impl AwsProvider {
    fn security_group_object(&self, group: &SecurityGroup) -> Option<LiveObject> {
        let id = group.group_id()?;
        let arn = match group.security_group_arn() {
            Some(arn) => arn.to_owned(),
            None => self.ec2_arn(group.owner_id().unwrap_or_default(), "security-group", id),
        };
        Some(self.ec2_object(
            SECURITY_GROUP,
            id,
            [
                ("name", Value::from(group.group_name().unwrap_or_default())),
                ("vpc_id", Value::from(group.vpc_id().unwrap_or_default())),
                (
                    "description",
                    Value::from(group.description().unwrap_or_default()),
                ),
                ("arn", Value::from(arn)),
            ],
            tag_map(group.tags()),
        ))
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_SECURITY_GROUPS), err)]
    async fn call_describe_security_groups(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
        token: Option<String>,
    ) -> Result<(Vec<SecurityGroup>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_SECURITY_GROUPS);
        let paged = ids.is_none();
        let out = self
            .ec2
            .describe_security_groups()
            .set_group_ids(ids)
            .set_filters(some_filters(filters))
            .set_max_results(paged.then_some(DESCRIBE_PAGE))
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_SECURITY_GROUPS, e))?;
        Ok((out.security_groups().to_vec(), next_token(out.next_token())))
    }

    /// Creates the group; the answer is its id and, from AWS, its ARN.
    #[tracing::instrument(skip_all, fields(operation = CREATE_SECURITY_GROUP), err)]
    async fn call_create_security_group(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
        name: &str,
        vpc_id: Option<&str>,
        description: &str,
    ) -> Result<(String, Option<String>), ProviderError> {
        call.attempt(CREATE_SECURITY_GROUP);
        let tags = tag_specification(ResourceType::SecurityGroup, &request.tags);
        let out = self
            .ec2
            .create_security_group()
            .group_name(name)
            .set_vpc_id(vpc_id.map(str::to_owned))
            .description(description)
            .set_tag_specifications(tags.map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_SECURITY_GROUP, e))?;
        Ok((
            out.group_id().unwrap_or_default().to_owned(),
            out.security_group_arn().map(str::to_owned),
        ))
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_SECURITY_GROUP, id = %id), err)]
    async fn call_delete_security_group(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_SECURITY_GROUP);
        self.ec2
            .delete_security_group()
            .group_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_SECURITY_GROUP, e))?;
        Ok(())
    }

    // ----- Security groups through the protocol. -----

    /// One page of security groups (those of one VPC, when the listing is scoped), each VPC's `default`
    /// group left out.
    pub(super) async fn list_security_groups(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let mut filters = describe_filters(&request.tag_filters);
        filters.extend(vpc_scope(DESCRIBE_SECURITY_GROUPS, request)?.map(|v| filter("vpc-id", &v)));
        let (groups, next_page_token) = self
            .call_describe_security_groups(call, None, filters, request.page_token.clone())
            .await?;
        let objects = groups
            .iter()
            .filter(|g| g.group_name() != Some(DEFAULT_GROUP))
            .filter_map(|g| self.security_group_object(g))
            .collect();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: true,
            next_page_token,
        })
    }

    pub(super) async fn read_security_group(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let answer = self
            .call_describe_security_groups(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await;
        let Some((groups, _)) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        Ok(groups
            .iter()
            .find(|g| g.group_id() == Some(id))
            .and_then(|g| self.security_group_object(g)))
    }

    /// Creates the group with its tags in the call, in the region's default VPC when no `vpc_id` is given
    /// (as AWS does). The answer is built from the request and the create's answer; a group without a
    /// `vpc_id` (whose VPC AWS chose) or a server that answers without the ARN (the emulator) costs one
    /// `DescribeSecurityGroups`.
    pub(super) async fn create_security_group(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let op = CREATE_SECURITY_GROUP;
        let attributes = &request.attributes;
        check_names(op, SECURITY_GROUP, attributes)?;
        let name = string_attribute(op, SECURITY_GROUP, attributes, "name")?;
        let vpc_id = optional_string(op, SECURITY_GROUP, attributes, "vpc_id")?;
        let description = optional_string(op, SECURITY_GROUP, attributes, "description")?
            .unwrap_or(DEFAULT_DESCRIPTION);
        let (id, arn) = self
            .call_create_security_group(call, request, name, vpc_id, description)
            .await?;
        let (arn, vpc_id) = match (arn, vpc_id) {
            (Some(arn), Some(vpc_id)) => (arn, vpc_id.to_owned()),
            _ => match self.read_security_group(call, &id).await? {
                Some(group) => (
                    group.attribute_str("arn").unwrap_or_default().to_owned(),
                    group.attribute_str("vpc_id").unwrap_or_default().to_owned(),
                ),
                None => {
                    return Err(ProviderError::not_found(
                        DESCRIBE_SECURITY_GROUPS,
                        format!("the security group {id} vanished right after its create"),
                    ));
                }
            },
        };
        Ok(self.ec2_object(
            SECURITY_GROUP,
            &id,
            [
                ("name", Value::from(name)),
                ("vpc_id", Value::from(vpc_id)),
                ("description", Value::from(description)),
                ("arn", Value::from(arn)),
            ],
            request.tags.clone(),
        ))
    }

    /// Everything but the tags forces replacement: reads the group, refuses a changed argument and applies
    /// the tag change.
    pub(super) async fn update_security_group(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(super::CREATE_TAGS, SECURITY_GROUP, attributes)?;
        let Some(mut group) = self.read_security_group(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_SECURITY_GROUPS,
                format!("the security group {} does not exist", request.id),
            ));
        };
        refuse_changed(
            super::CREATE_TAGS,
            SECURITY_GROUP,
            &group,
            attributes,
            &["name", "vpc_id", "description"],
        )?;
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        group.tags = request.tags.applied_to(&group.tags);
        Ok(group)
    }

    pub(super) async fn delete_security_group(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_security_group(call, id).await
    }
}
