//! What a role holds that refuses its delete, removed first when its applied `force_detach_policies` is
//! true (as the AWS provider does): its attached managed policies (`ListAttachedRolePolicies`, then
//! `DetachRolePolicy` each) and its inline policies (`ListRolePolicies`, then `DeleteRolePolicy` each);
//! then the role is deleted. Its permissions boundary, set with `PutRolePermissionsBoundary` and removed
//! with `DeleteRolePermissionsBoundary`, is an argument of the role and changed here too, and so is the
//! reading of the role's settings a request carries (its session duration and boundary).
//!
//! This module must never detach or delete a policy of any role but the one it is given, and never
//! delete a managed policy itself (only its attachment).

use std::collections::BTreeMap;

use provider::{Call, ProviderError, Value};

use super::super::error::from_sdk;
use super::super::{AwsProvider, IAM_ROLE, invalid};

const LIST_ATTACHED_ROLE_POLICIES: &str = "iam:ListAttachedRolePolicies";
const DETACH_ROLE_POLICY: &str = "iam:DetachRolePolicy";
const LIST_ROLE_POLICIES: &str = "iam:ListRolePolicies";
const DELETE_ROLE_POLICY: &str = "iam:DeleteRolePolicy";
const PUT_ROLE_PERMISSIONS_BOUNDARY: &str = "iam:PutRolePermissionsBoundary";
const DELETE_ROLE_PERMISSIONS_BOUNDARY: &str = "iam:DeleteRolePermissionsBoundary";

/// The page size asked of the policy listings: IAM's largest.
const PAGE: i32 = 1000;

/// The maximum session duration IAM gives a role created without one (one hour).
pub(super) const DEFAULT_SESSION_DURATION: i32 = 3600;

/// The requested `max_session_duration` in seconds, `None` when the request does not set it.
pub(super) fn session_duration(
    operation: &str,
    attributes: &BTreeMap<String, Value>,
) -> Result<Option<i32>, ProviderError> {
    match attributes.get("max_session_duration").map(Value::peel) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|s| i32::try_from(s).ok())
            .filter(|s| (3600..=43200).contains(s))
            .map(Some)
            .ok_or_else(|| {
                invalid(
                    operation,
                    format!(
                        "{IAM_ROLE}.max_session_duration must be a whole number of seconds from 3600 to 43200, not {n}"
                    ),
                )
            }),
        Some(other) => Err(invalid(
            operation,
            format!("{IAM_ROLE}.max_session_duration must be a number, not {other}"),
        )),
    }
}

/// The requested permissions boundary: `None` when the request does not set it, `Some(None)` to have
/// none.
pub(super) fn boundary<'a>(
    operation: &str,
    attributes: &'a BTreeMap<String, Value>,
) -> Result<Option<Option<&'a str>>, ProviderError> {
    match attributes.get("permissions_boundary").map(Value::peel) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) if s.is_empty() => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s))),
        Some(other) => Err(invalid(
            operation,
            format!("{IAM_ROLE}.permissions_boundary must be a policy ARN, not {other}"),
        )),
    }
}

impl AwsProvider {
    /// One page of the ARNs of the managed policies attached to the role, and the marker of the next.
    #[tracing::instrument(skip_all, fields(operation = LIST_ATTACHED_ROLE_POLICIES, role = %role), err)]
    async fn call_list_attached_role_policies(
        &self,
        call: &Call<'_>,
        role: &str,
        marker: Option<String>,
    ) -> Result<(Vec<String>, Option<String>), ProviderError> {
        call.attempt(LIST_ATTACHED_ROLE_POLICIES);
        let out = self
            .iam
            .list_attached_role_policies()
            .role_name(role)
            .max_items(PAGE)
            .set_marker(marker)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_ATTACHED_ROLE_POLICIES, e))?;
        let arns = out
            .attached_policies()
            .iter()
            .filter_map(|p| p.policy_arn().map(str::to_owned))
            .collect();
        let next = out
            .marker()
            .filter(|_| out.is_truncated())
            .map(str::to_owned);
        Ok((arns, next))
    }

    #[tracing::instrument(skip_all, fields(operation = DETACH_ROLE_POLICY, role = %role, policy = %arn), err)]
    async fn call_detach_role_policy(
        &self,
        call: &Call<'_>,
        role: &str,
        arn: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DETACH_ROLE_POLICY);
        self.iam
            .detach_role_policy()
            .role_name(role)
            .policy_arn(arn)
            .send()
            .await
            .map_err(|e| from_sdk(DETACH_ROLE_POLICY, e))?;
        Ok(())
    }

    /// One page of the names of the role's inline policies, and the marker of the next.
    #[tracing::instrument(skip_all, fields(operation = LIST_ROLE_POLICIES, role = %role), err)]
    async fn call_list_role_policies(
        &self,
        call: &Call<'_>,
        role: &str,
        marker: Option<String>,
    ) -> Result<(Vec<String>, Option<String>), ProviderError> {
        call.attempt(LIST_ROLE_POLICIES);
        let out = self
            .iam
            .list_role_policies()
            .role_name(role)
            .max_items(PAGE)
            .set_marker(marker)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_ROLE_POLICIES, e))?;
        let next = out
            .marker()
            .filter(|_| out.is_truncated())
            .map(str::to_owned);
        Ok((out.policy_names().to_vec(), next))
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ROLE_POLICY, role = %role, policy = %name), err)]
    async fn call_delete_role_policy(
        &self,
        call: &Call<'_>,
        role: &str,
        name: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_ROLE_POLICY);
        self.iam
            .delete_role_policy()
            .role_name(role)
            .policy_name(name)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ROLE_POLICY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = PUT_ROLE_PERMISSIONS_BOUNDARY, role = %role), err)]
    async fn call_put_role_permissions_boundary(
        &self,
        call: &Call<'_>,
        role: &str,
        arn: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(PUT_ROLE_PERMISSIONS_BOUNDARY);
        self.iam
            .put_role_permissions_boundary()
            .role_name(role)
            .permissions_boundary(arn)
            .send()
            .await
            .map_err(|e| from_sdk(PUT_ROLE_PERMISSIONS_BOUNDARY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ROLE_PERMISSIONS_BOUNDARY, role = %role), err)]
    async fn call_delete_role_permissions_boundary(
        &self,
        call: &Call<'_>,
        role: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_ROLE_PERMISSIONS_BOUNDARY);
        self.iam
            .delete_role_permissions_boundary()
            .role_name(role)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ROLE_PERMISSIONS_BOUNDARY, e))?;
        Ok(())
    }

    /// Sets the role's permissions boundary to `arn`, or removes it for `None`.
    pub(super) async fn set_permissions_boundary(
        &self,
        call: &Call<'_>,
        role: &str,
        arn: Option<&str>,
    ) -> Result<(), ProviderError> {
        match arn {
            Some(arn) => {
                self.call_put_role_permissions_boundary(call, role, arn)
                    .await
            }
            None => self.call_delete_role_permissions_boundary(call, role).await,
        }
    }

    /// Detaches every managed policy and deletes every inline policy of the role, then deletes it.
    pub(crate) async fn delete_role_with_policies(
        &self,
        call: &Call<'_>,
        role: &str,
    ) -> Result<(), ProviderError> {
        let mut marker = None;
        let mut attached = Vec::new();
        loop {
            let (page, next) = self
                .call_list_attached_role_policies(call, role, marker)
                .await?;
            attached.extend(page);
            let Some(next) = next else { break };
            marker = Some(next);
        }
        for arn in &attached {
            self.call_detach_role_policy(call, role, arn).await?;
        }
        let mut marker = None;
        let mut inline = Vec::new();
        loop {
            let (page, next) = self.call_list_role_policies(call, role, marker).await?;
            inline.extend(page);
            let Some(next) = next else { break };
            marker = Some(next);
        }
        for name in &inline {
            self.call_delete_role_policy(call, role, name).await?;
        }
        self.delete_role(call, role).await
    }
}
