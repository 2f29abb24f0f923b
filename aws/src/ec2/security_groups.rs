//! Security groups: created with their tags in `CreateSecurityGroup`, read and listed with
//! `DescribeSecurityGroups`, deleted with `DeleteSecurityGroup`. Name, VPC and description force
//! replacement. The rules are the `ingress` and `egress` sets (see [`super::rules`]): a create revokes the
//! allow-all outbound rule AWS adds to a new group, as the provider does, then authorizes the configured
//! rules; an update of a declared set revokes the rules it lacks and authorizes the new ones, one call per
//! direction and kind of change. A group created without `name` is named as the provider names it: its
//! `name_prefix` (else `terraform-`) and a unique suffix.
//!
//! A listing leaves out each VPC's `default` group, which AWS makes with the VPC and deletes with it; a
//! read by id still finds it.

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_ec2::types::{Filter, ResourceType, SecurityGroup};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, UpdateRequest, Value,
};

use super::rules::{Rule, allow_all_egress, permission, rules_of, rules_value, wanted_rules};
use super::{
    DESCRIBE_PAGE, SECURITY_GROUP, absent_when_not_found, describe_filters, filter, next_token,
    optional_string, refuse_changed, some_filters, tag_map, tag_specification, vpc_scope,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, invalid};

const DESCRIBE_SECURITY_GROUPS: &str = "ec2:DescribeSecurityGroups";
const CREATE_SECURITY_GROUP: &str = "ec2:CreateSecurityGroup";
const DELETE_SECURITY_GROUP: &str = "ec2:DeleteSecurityGroup";
const AUTHORIZE_INGRESS: &str = "ec2:AuthorizeSecurityGroupIngress";
const AUTHORIZE_EGRESS: &str = "ec2:AuthorizeSecurityGroupEgress";
const REVOKE_INGRESS: &str = "ec2:RevokeSecurityGroupIngress";
const REVOKE_EGRESS: &str = "ec2:RevokeSecurityGroupEgress";

/// The name prefix the provider gives a group with neither `name` nor `name_prefix`.
const UNIQUE_ID_PREFIX: &str = "terraform-";

/// How many characters the provider's unique name suffix has: 18 digits of time and 8 hex digits of a
/// counter.
const UNIQUE_SUFFIX_LEN: usize = 26;

/// The two directions of a group's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Ingress,
    Egress,
}

impl Direction {
    const BOTH: [Direction; 2] = [Direction::Ingress, Direction::Egress];

    /// The set's argument name.
    fn argument(self) -> &'static str {
        match self {
            Direction::Ingress => "ingress",
            Direction::Egress => "egress",
        }
    }

    fn authorize(self) -> &'static str {
        match self {
            Direction::Ingress => AUTHORIZE_INGRESS,
            Direction::Egress => AUTHORIZE_EGRESS,
        }
    }

    fn revoke(self) -> &'static str {
        match self {
            Direction::Ingress => REVOKE_INGRESS,
            Direction::Egress => REVOKE_EGRESS,
        }
    }
}

/// Whether a rule change grants or takes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grant {
    Authorize,
    Revoke,
}

/// A name as the provider mints it: `prefix`, the time to the 100 microseconds and a counter.
fn unique_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let now = aws_sdk_ec2::primitives::DateTime::from(std::time::SystemTime::now());
    let stamp = now
        .fmt(aws_sdk_ec2::primitives::DateTimeFormat::DateTime)
        .unwrap_or_default();
    let mut digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
    digits.truncate(UNIQUE_SUFFIX_LEN - 8);
    while digits.len() < UNIQUE_SUFFIX_LEN - 8 {
        digits.push('0');
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    format!("{prefix}{digits}{n:08x}")
}

/// The provider's `name_prefix` of a name (`create.NamePrefixFromName`): all but the unique suffix, for a
/// name longer than one that ends in as many hex digits; none for any other name.
fn name_prefix(name: &str) -> Option<&str> {
    let end = name
        .len()
        .checked_sub(UNIQUE_SUFFIX_LEN)
        .filter(|e| *e > 0)?;
    let suffix = name.get(end..)?;
    suffix
        .bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| name.get(..end))
        .flatten()
}

/// The name of the group AWS makes in every VPC.
const DEFAULT_GROUP: &str = "default";

/// The description a group gets when none is written (the shared catalog's default).
const DEFAULT_DESCRIPTION: &str = "Managed by Terraform";

impl AwsProvider {
    fn security_group_object(&self, group: &SecurityGroup) -> Option<LiveObject> {
        let id = group.group_id()?;
        let arn = match group.security_group_arn() {
            Some(arn) => arn.to_owned(),
            None => self.ec2_arn(group.owner_id().unwrap_or_default(), "security-group", id),
        };
        let name = group.group_name().unwrap_or_default();
        let ingress = rules_of(group.ip_permissions(), id);
        let egress = rules_of(group.ip_permissions_egress(), id);
        let mut object = self.ec2_object(
            SECURITY_GROUP,
            id,
            [
                ("name", Value::from(name)),
                ("vpc_id", Value::from(group.vpc_id().unwrap_or_default())),
                (
                    "description",
                    Value::from(group.description().unwrap_or_default()),
                ),
                ("arn", Value::from(arn)),
                ("ingress", rules_value(&ingress)),
                ("egress", rules_value(&egress)),
            ],
            tag_map(group.tags()),
        );
        if let Some(prefix) = name_prefix(name) {
            object
                .attributes
                .insert("name_prefix".to_owned(), Value::from(prefix));
        }
        Some(object)
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

    /// Authorizes or revokes `rules` in one direction of group `id`: one call, every rule a permission of
    /// its own.
    #[tracing::instrument(skip_all, fields(id = %id), err)]
    async fn call_change_rules(
        &self,
        call: &Call<'_>,
        id: &str,
        direction: Direction,
        grant: Grant,
        rules: &[&Rule],
    ) -> Result<(), ProviderError> {
        let op = match grant {
            Grant::Authorize => direction.authorize(),
            Grant::Revoke => direction.revoke(),
        };
        call.attempt(op);
        let permissions: Vec<_> = rules.iter().map(|r| permission(r, id)).collect();
        // Four operations with one shape and four builder types.
        macro_rules! send {
            ($builder:ident) => {
                self.ec2
                    .$builder()
                    .group_id(id)
                    .set_ip_permissions(Some(permissions))
                    .send()
                    .await
                    .map(drop)
                    .map_err(|e| from_sdk(op, e))
            };
        }
        match (direction, grant) {
            (Direction::Ingress, Grant::Authorize) => send!(authorize_security_group_ingress),
            (Direction::Ingress, Grant::Revoke) => send!(revoke_security_group_ingress),
            (Direction::Egress, Grant::Authorize) => send!(authorize_security_group_egress),
            (Direction::Egress, Grant::Revoke) => send!(revoke_security_group_egress),
        }
    }

    /// Makes one direction's rules of group `id` exactly `wanted`, `current` being what it has: one revoke
    /// of the rules that go, then one authorize of those that come, each only when needed.
    async fn converge_rules(
        &self,
        call: &Call<'_>,
        id: &str,
        direction: Direction,
        current: &BTreeSet<Rule>,
        wanted: &BTreeSet<Rule>,
    ) -> Result<(), ProviderError> {
        let going: Vec<&Rule> = current.difference(wanted).collect();
        if !going.is_empty() {
            self.call_change_rules(call, id, direction, Grant::Revoke, &going)
                .await?;
        }
        let coming: Vec<&Rule> = wanted.difference(current).collect();
        if !coming.is_empty() {
            self.call_change_rules(call, id, direction, Grant::Authorize, &coming)
                .await?;
        }
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
    /// (as AWS does), then revokes the allow-all outbound rule AWS adds and authorizes the configured
    /// rules (egress, then ingress), as the provider does. The answer is built from the request and the
    /// create's answer; a group without a `vpc_id` (whose VPC AWS chose) or a server that answers without
    /// the ARN (the emulator) costs one `DescribeSecurityGroups`.
    pub(super) async fn create_security_group(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let op = CREATE_SECURITY_GROUP;
        let attributes = &request.attributes;
        check_names(op, SECURITY_GROUP, attributes)?;
        let ingress = requested_rules(op, attributes, Direction::Ingress)?.unwrap_or_default();
        let egress = requested_rules(op, attributes, Direction::Egress)?.unwrap_or_default();
        let prefix = optional_string(op, SECURITY_GROUP, attributes, "name_prefix")?;
        let name = match optional_string(op, SECURITY_GROUP, attributes, "name")? {
            Some(name) => name.to_owned(),
            None => unique_name(prefix.unwrap_or(UNIQUE_ID_PREFIX)),
        };
        let vpc_id = optional_string(op, SECURITY_GROUP, attributes, "vpc_id")?;
        let description = optional_string(op, SECURITY_GROUP, attributes, "description")?
            .unwrap_or(DEFAULT_DESCRIPTION);
        let (id, arn) = self
            .call_create_security_group(call, request, &name, vpc_id, description)
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
        let default_egress = allow_all_egress();
        self.call_change_rules(
            call,
            &id,
            Direction::Egress,
            Grant::Revoke,
            &[&default_egress],
        )
        .await?;
        let none = BTreeSet::new();
        self.converge_rules(call, &id, Direction::Egress, &none, &egress)
            .await?;
        self.converge_rules(call, &id, Direction::Ingress, &none, &ingress)
            .await?;
        let mut object = self.ec2_object(
            SECURITY_GROUP,
            &id,
            [
                ("name", Value::from(name.as_str())),
                ("vpc_id", Value::from(vpc_id)),
                ("description", Value::from(description)),
                ("arn", Value::from(arn)),
                ("ingress", rules_value(&ingress)),
                ("egress", rules_value(&egress)),
            ],
            request.tags.clone(),
        );
        if let Some(prefix) = name_prefix(&name) {
            object
                .attributes
                .insert("name_prefix".to_owned(), Value::from(prefix));
        }
        Ok(object)
    }

    /// Name, VPC and description force replacement: reads the group, refuses a change of them, makes each
    /// declared rule set exactly what is asked and applies the tag change.
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
        for direction in Direction::BOTH {
            let op = direction.authorize();
            let Some(wanted) = requested_rules(op, attributes, direction)? else {
                continue;
            };
            let current = group
                .attribute(direction.argument())
                .map(wanted_rules)
                .transpose()
                .map_err(|m| invalid(DESCRIBE_SECURITY_GROUPS, m))?
                .unwrap_or_default();
            self.converge_rules(call, &request.id, direction, &current, &wanted)
                .await?;
            group
                .attributes
                .insert(direction.argument().to_owned(), rules_value(&wanted));
        }
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

/// The rules a request declares in one direction; `None` when the set is not declared (not managed).
fn requested_rules(
    operation: &str,
    attributes: &BTreeMap<String, Value>,
    direction: Direction,
) -> Result<Option<BTreeSet<Rule>>, ProviderError> {
    let argument = direction.argument();
    match attributes.get(argument).map(Value::peel) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => wanted_rules(value)
            .map(Some)
            .map_err(|m| invalid(operation, format!("{SECURITY_GROUP}.{argument}: {m}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_name_has_the_provider_suffix_and_gives_back_its_prefix() {
        let first = unique_name("web-");
        let second = unique_name("web-");
        assert_ne!(first, second);
        assert_eq!(first.len(), "web-".len() + UNIQUE_SUFFIX_LEN);
        assert_eq!(name_prefix(&first), Some("web-"));
        assert_eq!(
            name_prefix(&unique_name(UNIQUE_ID_PREFIX)),
            Some("terraform-")
        );
        assert_eq!(name_prefix("web"), None);
        assert_eq!(name_prefix("x12345678901234567890123456"), Some("x"));
        assert_eq!(
            name_prefix("a-name-that-is-long-but-has-no-suffix-at-all"),
            None
        );
    }
}
