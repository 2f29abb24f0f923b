//! The AWS provider's reads of `aws_iam_role` (one `iam:GetRole`), `aws_iam_policy` (`iam:GetPolicy`
//! and `iam:GetPolicyVersion`, after `iam:ListPolicies` pages of 100 when found by name; feature
//! `iam` for both), `aws_s3_bucket` (one `s3:HeadBucket`, whose answer names the region;
//! `s3:GetBucketLocation` only when it does not) and `aws_iam_policy_document` (computed, no call).
//!
//! A read never writes; what it does not find is an error, never an empty result. Documents IAM
//! answers URL-encoded are decoded as the AWS provider decodes them.

use awscatalog::data::s3::bucket_value;
use provider::{Call, DataSourceRequest, ProviderError, ProviderErrorKind, Value};

use crate::AwsProvider;
use crate::error::from_sdk;

const READ: &str = "read_data_source";
const HEAD_BUCKET: &str = "s3:HeadBucket";
const GET_BUCKET_LOCATION: &str = "s3:GetBucketLocation";

/// The argument `name` as a string, or the error that it is missing.
pub(super) fn required<'a>(
    request: &'a DataSourceRequest,
    name: &str,
) -> Result<&'a str, ProviderError> {
    request
        .arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("`{name}` is required")))
}

fn invalid(message: String) -> ProviderError {
    ProviderError::new(READ, ProviderErrorKind::InvalidArgument, message)
}

/// `aws_iam_policy_document`: computed from the arguments, no call.
pub(super) fn policy_document(request: &DataSourceRequest) -> Result<Value, ProviderError> {
    awscatalog::data::policy_document_value(&request.arguments).map_err(invalid)
}

impl AwsProvider {
    /// `aws_s3_bucket`: `s3:HeadBucket` (a redirect to the bucket's own region is an answer too), and
    /// `s3:GetBucketLocation` when the answer names no region.
    pub(super) async fn read_bucket_data(
        &self,
        call: &Call<'_>,
        request: &DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        let bucket = required(request, "bucket")?;
        call.attempt(HEAD_BUCKET);
        let region = match self.s3.head_bucket().bucket(bucket).send().await {
            Ok(out) => out.bucket_region().map(str::to_owned),
            Err(e) => {
                let raw = e.raw_response();
                let status = raw.map(|r| r.status().as_u16());
                let header = raw
                    .and_then(|r| r.headers().get("x-amz-bucket-region"))
                    .map(str::to_owned);
                match status {
                    Some(301) if header.is_some() => header,
                    Some(404) => {
                        return Err(ProviderError::not_found(
                            HEAD_BUCKET,
                            format!("S3 bucket {bucket}"),
                        ));
                    }
                    _ => return Err(from_sdk(HEAD_BUCKET, e)),
                }
            }
        };
        let region = match region {
            Some(r) => r,
            None => self.bucket_location(call, bucket).await?,
        };
        Ok(bucket_value(bucket, &region))
    }

    /// `s3:GetBucketLocation`: the bucket's region (an empty constraint is `us-east-1`).
    async fn bucket_location(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<String, ProviderError> {
        call.attempt(GET_BUCKET_LOCATION);
        let out = self
            .s3
            .get_bucket_location()
            .bucket(bucket)
            .send()
            .await
            .map_err(|e| from_sdk(GET_BUCKET_LOCATION, e))?;
        Ok(out
            .location_constraint()
            .map(|c| c.as_str().to_owned())
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| "us-east-1".to_owned()))
    }
}

#[cfg(feature = "iam")]
mod with_iam {
    use aws_sdk_iam::primitives::{DateTime, DateTimeFormat};
    use awscatalog::data::iam::{
        PolicyFacts, PolicyQuery, RoleFacts, policy_query, policy_value, query_unescape, role_value,
    };
    use provider::{Call, DataSourceRequest, ProviderError, ProviderErrorKind, Value};

    use super::{invalid, required};
    use crate::AwsProvider;
    use crate::error::from_sdk;

    const GET_ROLE: &str = "iam:GetRole";
    const GET_POLICY: &str = "iam:GetPolicy";
    const GET_POLICY_VERSION: &str = "iam:GetPolicyVersion";
    const LIST_POLICIES: &str = "iam:ListPolicies";
    const LIST_PAGE: i32 = 100;

    fn rfc3339(at: &DateTime) -> Option<String> {
        DateTime::from_secs(at.secs())
            .fmt(DateTimeFormat::DateTime)
            .ok()
    }

    fn decoded(operation: &str, text: Option<&str>) -> Result<String, ProviderError> {
        query_unescape(text.unwrap_or_default())
            .map_err(|e| ProviderError::new(operation, ProviderErrorKind::ServerError, e))
    }

    impl AwsProvider {
        /// `aws_iam_role`: one `iam:GetRole`.
        pub(in crate::data_sources) async fn read_role_data(
            &self,
            call: &Call<'_>,
            request: &DataSourceRequest,
        ) -> Result<Value, ProviderError> {
            let name = required(request, "name")?;
            call.attempt(GET_ROLE);
            let out = self
                .iam
                .get_role()
                .role_name(name)
                .send()
                .await
                .map_err(|e| from_sdk(GET_ROLE, e))?;
            let role = out
                .role()
                .ok_or_else(|| ProviderError::not_found(GET_ROLE, format!("IAM role {name}")))?;
            let facts = RoleFacts {
                name: role.role_name().to_owned(),
                arn: role.arn().to_owned(),
                unique_id: role.role_id().to_owned(),
                path: role.path().to_owned(),
                assume_role_policy: decoded(GET_ROLE, role.assume_role_policy_document())?,
                description: role.description().unwrap_or_default().to_owned(),
                max_session_duration: role.max_session_duration().map_or(3600, i64::from),
                permissions_boundary: role
                    .permissions_boundary()
                    .and_then(|b| b.permissions_boundary_arn())
                    .unwrap_or_default()
                    .to_owned(),
                create_date: rfc3339(role.create_date()),
                tags: role
                    .tags()
                    .iter()
                    .map(|t| (t.key().to_owned(), t.value().to_owned()))
                    .collect(),
            };
            Ok(role_value(&facts))
        }

        /// `aws_iam_policy`: by name, `iam:ListPolicies` pages to the end (exactly one match); then
        /// `iam:GetPolicy` and `iam:GetPolicyVersion` of its default version.
        pub(in crate::data_sources) async fn read_policy_data(
            &self,
            call: &Call<'_>,
            request: &DataSourceRequest,
        ) -> Result<Value, ProviderError> {
            let arn = match policy_query(&request.arguments).map_err(invalid)? {
                PolicyQuery::Arn(arn) => arn,
                PolicyQuery::Name { name, path_prefix } => {
                    self.policy_by_name(call, &name, path_prefix).await?
                }
            };
            call.attempt(GET_POLICY);
            let out = self
                .iam
                .get_policy()
                .policy_arn(&arn)
                .send()
                .await
                .map_err(|e| from_sdk(GET_POLICY, e))?;
            let policy = out
                .policy()
                .ok_or_else(|| ProviderError::not_found(GET_POLICY, format!("IAM policy {arn}")))?;
            let version = policy.default_version_id().unwrap_or("v1");
            call.attempt(GET_POLICY_VERSION);
            let got = self
                .iam
                .get_policy_version()
                .policy_arn(&arn)
                .version_id(version)
                .send()
                .await
                .map_err(|e| from_sdk(GET_POLICY_VERSION, e))?;
            let document = got.policy_version().and_then(|v| v.document());
            let facts = PolicyFacts {
                arn: policy.arn().unwrap_or(&arn).to_owned(),
                name: policy.policy_name().unwrap_or_default().to_owned(),
                path: policy.path().unwrap_or_default().to_owned(),
                policy_id: policy.policy_id().unwrap_or_default().to_owned(),
                description: policy.description().unwrap_or_default().to_owned(),
                attachment_count: policy.attachment_count().map_or(0, i64::from),
                document: decoded(GET_POLICY_VERSION, document)?,
                tags: policy
                    .tags()
                    .iter()
                    .map(|t| (t.key().to_owned(), t.value().to_owned()))
                    .collect(),
            };
            Ok(policy_value(&facts, &request.arguments))
        }

        /// The ARN of the one policy named `name` (every scope), a `iam:ListPolicies` call a page.
        async fn policy_by_name(
            &self,
            call: &Call<'_>,
            name: &str,
            path_prefix: Option<String>,
        ) -> Result<String, ProviderError> {
            let mut marker: Option<String> = None;
            let mut found = Vec::new();
            loop {
                call.attempt(LIST_POLICIES);
                let out = self
                    .iam
                    .list_policies()
                    .set_path_prefix(path_prefix.clone())
                    .max_items(LIST_PAGE)
                    .set_marker(marker.take())
                    .send()
                    .await
                    .map_err(|e| from_sdk(LIST_POLICIES, e))?;
                found.extend(
                    out.policies()
                        .iter()
                        .filter(|p| p.policy_name() == Some(name))
                        .filter_map(|p| p.arn().map(str::to_owned)),
                );
                marker = out
                    .marker()
                    .map(str::to_owned)
                    .filter(|_| out.is_truncated());
                if marker.is_none() {
                    break;
                }
            }
            match found.len() {
                1 => Ok(found.remove(0)),
                0 => Err(ProviderError::not_found(
                    LIST_POLICIES,
                    format!("no IAM policy named {name}"),
                )),
                n => Err(invalid(format!(
                    "{n} IAM policies are named {name}: narrow the search with path_prefix"
                ))),
            }
        }
    }
}
