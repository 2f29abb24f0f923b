//! The CloudWatch Logs side of the AWS provider: log groups, client-named and taggable, in the tagging
//! index. Read with `DescribeLogGroups` (the name as prefix, paged until the exact name) and
//! `ListTagsForResource`; created with their tags in the `CreateLogGroup` call itself, so a log group never
//! exists unmarked, with its KMS key and log class; a retention set with `PutRetentionPolicy` (cleared with
//! `DeleteRetentionPolicy`); a KMS key changed with `AssociateKmsKey` / `DisassociateKmsKey` (the class
//! cannot change: it forces a new group); tags changed with `TagResource` / `UntagResource`; deleted with
//! `DeleteLogGroup`. `skip_destroy` never reaches this module: the engine releases such a group (takes its
//! markers off) instead of deleting it.
//!
//! Each API operation is one private method that counts the attempt, opens a span named after the operation
//! and turns an SDK failure into a [`ProviderError`]. This module must never read an error as an absence
//! except on a read, where `ResourceNotFoundException` means the log group is not there.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_cloudwatchlogs::types::{LogGroup, LogGroupClass};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    TagChange, UpdateRequest, Value,
};

use super::error::from_sdk;
use super::{AwsProvider, LOG_GROUP, check_names, invalid, string_attribute};

/// The page size asked of `DescribeLogGroups`: the API's largest.
const DESCRIBE_PAGE: i32 = 50;

const DESCRIBE_LOG_GROUPS: &str = "logs:DescribeLogGroups";
const CREATE_LOG_GROUP: &str = "logs:CreateLogGroup";
const DELETE_LOG_GROUP: &str = "logs:DeleteLogGroup";
const PUT_RETENTION_POLICY: &str = "logs:PutRetentionPolicy";
const DELETE_RETENTION_POLICY: &str = "logs:DeleteRetentionPolicy";
const LIST_TAGS_FOR_RESOURCE: &str = "logs:ListTagsForResource";
const TAG_RESOURCE: &str = "logs:TagResource";
const UNTAG_RESOURCE: &str = "logs:UntagResource";
const ASSOCIATE_KMS_KEY: &str = "logs:AssociateKmsKey";
const DISASSOCIATE_KMS_KEY: &str = "logs:DisassociateKmsKey";

/// The class of a log group created without one, and of one whose answer names none.
const STANDARD_CLASS: &str = "STANDARD";

/// A log group's ARN without the `:*` that `DescribeLogGroups` puts after it (the form tags are read and
/// written by, and the form the tagging API answers with).
fn group_arn(group: &LogGroup) -> Option<String> {
    if let Some(arn) = group.log_group_arn() {
        return Some(arn.to_owned());
    }
    group
        .arn()
        .map(|a| a.strip_suffix(":*").unwrap_or(a).to_owned())
}

/// The requested KMS key: `None` when the request does not set it, `Some(None)` to have none.
fn desired_kms_key<'a>(
    operation: &str,
    attributes: &'a BTreeMap<String, Value>,
) -> Result<Option<Option<&'a str>>, ProviderError> {
    match attributes.get("kms_key_id").map(Value::peel) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) if s.is_empty() => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s))),
        Some(other) => Err(invalid(
            operation,
            format!("{LOG_GROUP}.kms_key_id must be a KMS key ARN, not {other}"),
        )),
    }
}

/// The desired retention in days, 0 (never expire) when none is given.
fn desired_retention(
    operation: &str,
    attributes: &BTreeMap<String, Value>,
) -> Result<i32, ProviderError> {
    match attributes.get("retention_in_days").map(Value::peel) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|d| i32::try_from(d).ok())
            .filter(|d| *d >= 0)
            .ok_or_else(|| {
                invalid(
                    operation,
                    format!(
                        "{LOG_GROUP}.retention_in_days must be a whole number of days, not {n}"
                    ),
                )
            }),
        Some(other) => Err(invalid(
            operation,
            format!("{LOG_GROUP}.retention_in_days must be a number, not {other}"),
        )),
    }
}

impl AwsProvider {
    /// A log group as a read returns it: `id` and `name` (its name), `retention_in_days` (0 for never
    /// expire), `kms_key_id` (null without one), `log_group_class` and `arn`, with `tags`.
    fn log_group_object(
        &self,
        group: &LogGroup,
        name: &str,
        arn: &str,
        tags: BTreeMap<String, String>,
    ) -> LiveObject {
        let retention = group.retention_in_days().unwrap_or(0);
        let class = group
            .log_group_class()
            .map_or(STANDARD_CLASS, LogGroupClass::as_str);
        LiveObject {
            type_name: LOG_GROUP.to_owned(),
            id: name.to_owned(),
            region: self.region.clone(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(name)),
                ("name".to_owned(), Value::from(name)),
                (
                    "retention_in_days".to_owned(),
                    Value::from(i64::from(retention)),
                ),
                (
                    "kms_key_id".to_owned(),
                    group.kms_key_id().map_or(Value::Null, Value::from),
                ),
                ("log_group_class".to_owned(), Value::from(class)),
                ("arn".to_owned(), Value::from(arn)),
            ]),
            tags,
        }
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    /// One page of log groups (those whose name starts with `prefix`, when given), without tags.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_LOG_GROUPS), err)]
    async fn call_describe_log_groups(
        &self,
        call: &Call<'_>,
        prefix: Option<&str>,
        token: Option<String>,
    ) -> Result<(Vec<LiveObject>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_LOG_GROUPS);
        let out = self
            .logs
            .describe_log_groups()
            .set_log_group_name_prefix(prefix.map(str::to_owned))
            .limit(DESCRIBE_PAGE)
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_LOG_GROUPS, e))?;
        let objects = out
            .log_groups()
            .iter()
            .filter_map(|g| {
                let name = g.log_group_name()?;
                let arn = group_arn(g).unwrap_or_default();
                Some(self.log_group_object(g, name, &arn, BTreeMap::new()))
            })
            .collect();
        let next = out
            .next_token()
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        Ok((objects, next))
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_LOG_GROUP, name = %name), err)]
    async fn call_create_log_group(
        &self,
        call: &Call<'_>,
        name: &str,
        (kms_key_id, class): (Option<&str>, &str),
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        call.attempt(CREATE_LOG_GROUP);
        let tags: HashMap<String, String> =
            tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        self.logs
            .create_log_group()
            .log_group_name(name)
            .set_kms_key_id(kms_key_id.map(str::to_owned))
            .log_group_class(LogGroupClass::from(class))
            .set_tags((!tags.is_empty()).then_some(tags))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_LOG_GROUP, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_LOG_GROUP, name = %name), err)]
    async fn call_delete_log_group(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_LOG_GROUP);
        self.logs
            .delete_log_group()
            .log_group_name(name)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_LOG_GROUP, e))?;
        Ok(())
    }

    /// Associates the KMS key `key` with the log group (`AssociateKmsKey`), or disassociates its key for
    /// `None` (`DisassociateKmsKey`).
    #[tracing::instrument(skip_all, fields(name = %name), err)]
    async fn call_set_kms_key(
        &self,
        call: &Call<'_>,
        name: &str,
        key: Option<&str>,
    ) -> Result<(), ProviderError> {
        match key {
            Some(key) => {
                call.attempt(ASSOCIATE_KMS_KEY);
                self.logs
                    .associate_kms_key()
                    .log_group_name(name)
                    .kms_key_id(key)
                    .send()
                    .await
                    .map_err(|e| from_sdk(ASSOCIATE_KMS_KEY, e))?;
            }
            None => {
                call.attempt(DISASSOCIATE_KMS_KEY);
                self.logs
                    .disassociate_kms_key()
                    .log_group_name(name)
                    .send()
                    .await
                    .map_err(|e| from_sdk(DISASSOCIATE_KMS_KEY, e))?;
            }
        }
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = PUT_RETENTION_POLICY, name = %name), err)]
    async fn call_put_retention_policy(
        &self,
        call: &Call<'_>,
        name: &str,
        days: i32,
    ) -> Result<(), ProviderError> {
        call.attempt(PUT_RETENTION_POLICY);
        self.logs
            .put_retention_policy()
            .log_group_name(name)
            .retention_in_days(days)
            .send()
            .await
            .map_err(|e| from_sdk(PUT_RETENTION_POLICY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_RETENTION_POLICY, name = %name), err)]
    async fn call_delete_retention_policy(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_RETENTION_POLICY);
        self.logs
            .delete_retention_policy()
            .log_group_name(name)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_RETENTION_POLICY, e))?;
        Ok(())
    }

    /// The tags of the log group `arn`; `None` when it does not exist.
    #[tracing::instrument(skip_all, fields(operation = LIST_TAGS_FOR_RESOURCE, arn = %arn), err)]
    async fn call_list_tags(
        &self,
        call: &Call<'_>,
        arn: &str,
    ) -> Result<Option<BTreeMap<String, String>>, ProviderError> {
        call.attempt(LIST_TAGS_FOR_RESOURCE);
        match self
            .logs
            .list_tags_for_resource()
            .resource_arn(arn)
            .send()
            .await
        {
            Ok(out) => Ok(Some(
                out.tags()
                    .map(|t| t.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default(),
            )),
            Err(e) => match from_sdk(LIST_TAGS_FOR_RESOURCE, e) {
                err if err.kind == ProviderErrorKind::NotFound => Ok(None),
                err => Err(err),
            },
        }
    }

    #[tracing::instrument(skip_all, fields(operation = TAG_RESOURCE, arn = %arn), err)]
    async fn call_tag_resource(
        &self,
        call: &Call<'_>,
        arn: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        call.attempt(TAG_RESOURCE);
        let tags: HashMap<String, String> =
            tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        self.logs
            .tag_resource()
            .resource_arn(arn)
            .set_tags(Some(tags))
            .send()
            .await
            .map_err(|e| from_sdk(TAG_RESOURCE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = UNTAG_RESOURCE, arn = %arn), err)]
    async fn call_untag_resource(
        &self,
        call: &Call<'_>,
        arn: &str,
        keys: Vec<String>,
    ) -> Result<(), ProviderError> {
        call.attempt(UNTAG_RESOURCE);
        self.logs
            .untag_resource()
            .resource_arn(arn)
            .set_tag_keys(Some(keys))
            .send()
            .await
            .map_err(|e| from_sdk(UNTAG_RESOURCE, e))?;
        Ok(())
    }

    // ----- Log groups through the protocol. -----

    /// The log group named exactly `name`, without tags: `DescribeLogGroups` with the name as prefix,
    /// paged until the name shows (names sort, so a page past it ends the search).
    async fn find_log_group(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let mut token = None;
        loop {
            let (page, next) = self
                .call_describe_log_groups(call, Some(name), token)
                .await?;
            if let Some(found) = page.into_iter().find(|g| g.id == name) {
                return Ok(Some(found));
            }
            match next {
                Some(t) => token = Some(t),
                None => return Ok(None),
            }
        }
    }

    pub(super) async fn list_log_groups(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        if let Some(parent) = &request.parent {
            return Err(invalid(
                DESCRIBE_LOG_GROUPS,
                format!("{LOG_GROUP} is not listed under a {}", parent.type_name),
            ));
        }
        // DescribeLogGroups returns no tags: the page says so, and the caller filters after reading them.
        let (objects, next_page_token) = self
            .call_describe_log_groups(call, None, request.page_token.clone())
            .await?;
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token,
        })
    }

    pub(super) async fn read_log_group(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let Some(mut group) = self.find_log_group(call, name).await? else {
            return Ok(None);
        };
        let arn = group.attribute_str("arn").unwrap_or_default().to_owned();
        match self.call_list_tags(call, &arn).await? {
            Some(tags) => group.tags = tags,
            // Deleted between the two calls: absent, as a fresh read would say.
            None => return Ok(None),
        }
        Ok(Some(group))
    }

    /// Creates the log group with its tags in the call, then sets its retention when one is asked; the
    /// answer is the group as `DescribeLogGroups` then shows it.
    pub(super) async fn create_log_group(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_LOG_GROUP, LOG_GROUP, attributes)?;
        let name = string_attribute(CREATE_LOG_GROUP, LOG_GROUP, attributes, "name")?;
        let retention = desired_retention(PUT_RETENTION_POLICY, attributes)?;
        let kms_key_id = desired_kms_key(CREATE_LOG_GROUP, attributes)?.flatten();
        let class = match attributes.get("log_group_class").map(Value::peel) {
            None | Some(Value::Null) => STANDARD_CLASS,
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(invalid(
                    CREATE_LOG_GROUP,
                    format!("{LOG_GROUP}.log_group_class must be a string, not {other}"),
                ));
            }
        };
        self.call_create_log_group(call, name, (kms_key_id, class), &request.tags)
            .await?;
        if retention != 0 {
            self.call_put_retention_policy(call, name, retention)
                .await?;
        }
        let Some(mut group) = self.find_log_group(call, name).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_LOG_GROUPS,
                format!("the log group {name} vanished right after its create"),
            ));
        };
        group.tags = request.tags.clone();
        Ok(group)
    }

    /// Changes the KMS key and the retention where the request sets them and they differ from the group's
    /// (after one read), and applies the request's tag change; what the request does not set is left as it
    /// is.
    pub(super) async fn update_log_group(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(PUT_RETENTION_POLICY, LOG_GROUP, attributes)?;
        let name = request.id.as_str();
        if let Some(v) = attributes.get("name")
            && v.peel().as_str() != Some(name)
        {
            return Err(invalid(
                PUT_RETENTION_POLICY,
                format!(
                    "a log group cannot be renamed in place ({name} to {v}): name forces replacement"
                ),
            ));
        }
        let Some(mut group) = self.read_log_group(call, name).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_LOG_GROUPS,
                format!("the log group {name} does not exist"),
            ));
        };
        if let Some(key) = desired_kms_key(ASSOCIATE_KMS_KEY, attributes)?
            && group.attribute_str("kms_key_id") != key
        {
            self.call_set_kms_key(call, name, key).await?;
            let value = key.map_or(Value::Null, Value::from);
            group.attributes.insert("kms_key_id".to_owned(), value);
        }
        if attributes.contains_key("retention_in_days") {
            self.set_retention(call, &mut group, attributes).await?;
        }
        let arn = group.attribute_str("arn").unwrap_or_default().to_owned();
        self.apply_log_group_tags(call, &arn, &request.tags).await?;
        group.tags = request.tags.applied_to(&group.tags);
        Ok(group)
    }

    /// Sets the retention the request asks when it differs from `group`'s, which is updated to match.
    async fn set_retention(
        &self,
        call: &Call<'_>,
        group: &mut LiveObject,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<(), ProviderError> {
        let name = group.id.clone();
        let retention = desired_retention(PUT_RETENTION_POLICY, attributes)?;
        let current = group
            .attribute("retention_in_days")
            .and_then(|v| v.peel().as_number())
            .and_then(|n| n.as_i64());
        if current != Some(i64::from(retention)) {
            if retention == 0 {
                self.call_delete_retention_policy(call, &name).await?;
            } else {
                self.call_put_retention_policy(call, &name, retention)
                    .await?;
            }
            group.attributes.insert(
                "retention_in_days".to_owned(),
                Value::from(i64::from(retention)),
            );
        }
        Ok(())
    }

    /// Applies a tag change to the log group `arn`: `TagResource` for the keys set, `UntagResource` for
    /// the keys removed, nothing for an empty change.
    async fn apply_log_group_tags(
        &self,
        call: &Call<'_>,
        arn: &str,
        change: &TagChange,
    ) -> Result<(), ProviderError> {
        if !change.set.is_empty() {
            self.call_tag_resource(call, arn, &change.set).await?;
        }
        let removed: Vec<String> = change
            .remove
            .iter()
            .filter(|k| !change.set.contains_key(*k))
            .cloned()
            .collect();
        if !removed.is_empty() {
            self.call_untag_resource(call, arn, removed).await?;
        }
        Ok(())
    }

    /// A tags-only change: the group's ARN comes from one `DescribeLogGroups` (the tag calls take the ARN).
    pub(super) async fn change_log_group_tags(
        &self,
        call: &Call<'_>,
        name: &str,
        change: &TagChange,
    ) -> Result<(), ProviderError> {
        if change.is_empty() {
            return Ok(());
        }
        let Some(group) = self.find_log_group(call, name).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_LOG_GROUPS,
                format!("the log group {name} does not exist"),
            ));
        };
        let arn = group.attribute_str("arn").unwrap_or_default().to_owned();
        self.apply_log_group_tags(call, &arn, change).await
    }

    pub(super) async fn delete_log_group(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_log_group(call, name).await
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use provider::Value;

    use super::desired_retention;

    #[test]
    fn a_retention_is_a_whole_non_negative_number_of_days() {
        let days = |v: Value| {
            desired_retention(
                "logs:PutRetentionPolicy",
                &BTreeMap::from([("retention_in_days".to_owned(), v)]),
            )
        };
        assert_eq!(days(Value::from(14)).ok(), Some(14));
        assert_eq!(desired_retention("x", &BTreeMap::new()).ok(), Some(0));
        assert!(days(Value::from(-1)).is_err());
        assert!(days(Value::from("14")).is_err());
    }
}
