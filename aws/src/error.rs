//! How the AWS provider names what went wrong: an SDK failure of one API operation becomes a
//! [`ProviderError`] whose kind means the same as on every other provider (throttled and server errors are
//! retryable, a denial names the missing permission, a missing bucket is not found, a taken name already
//! exists, a non-empty bucket or a VPC with subnets is a dependency violation), plus the construction error of the provider itself.
//!
//! This module only classifies; it must never retry, sleep, log or decide what a caller does next.

use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use provider::{ProviderError, ProviderErrorKind};

/// Why an [`AwsProvider`](super::AwsProvider) could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AwsError {
    /// Neither the configuration, `AWS_REGION` nor the SDK profile names a region.
    #[error("no AWS region is configured: set AWS_REGION or the provider's region")]
    NoRegion,
    /// The SDK's credential chain found no credentials anywhere it looks.
    #[error(
        "no AWS credentials were found; tried: the environment (AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY), the shared config and credentials files for profile `{profile}` (with its \
         SSO settings and credential_process), web identity (AWS_WEB_IDENTITY_TOKEN_FILE), the container \
         credentials endpoint and the instance metadata service"
    )]
    NoCredentials {
        /// The profile the chain read (`AWS_PROFILE`, else `default`).
        profile: String,
    },
    /// Credentials are configured but could not be loaded (an expired SSO session, a credential command
    /// that failed, a profile that does not parse).
    #[error("the AWS credentials of profile `{profile}` could not be loaded: {detail}")]
    CredentialsFailed {
        /// The profile the chain read (`AWS_PROFILE`, else `default`).
        profile: String,
        /// What the SDK said.
        detail: String,
    },
}

/// The IAM permission an operation needs, for a denial that does not say it (`s3:HeadBucket` needs
/// `s3:ListBucket`, `tagging:GetResources` needs `tag:GetResources`).
pub(crate) fn permission_of(operation: &str) -> &str {
    match operation {
        "s3:HeadBucket" => "s3:ListBucket",
        "s3:ListBuckets" => "s3:ListAllMyBuckets",
        "s3:DeleteBucketTagging" => "s3:PutBucketTagging",
        "tagging:GetResources" => "tag:GetResources",
        other => other,
    }
}

/// The permission an AWS denial message names ("... is not authorized to perform: s3:TagResource on ...").
fn permission_in(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("perform: ")?;
    let permission = rest.split_whitespace().next()?;
    let permission = permission.trim_end_matches([',', '.', ';']);
    permission.contains(':').then_some(permission)
}

/// The kind of failure an error code and HTTP status mean. Codes win over statuses: S3's `SlowDown` comes
/// as a 503 and is throttling, its `RequestTimeout` comes as a 400 and is a timeout.
fn kind_of(
    operation: &str,
    code: Option<&str>,
    status: Option<u16>,
    message: &str,
) -> ProviderErrorKind {
    use ProviderErrorKind as K;
    let code = code.unwrap_or_default();
    // Every service spells throttling its own way (`Throttling`, `ThrottlingException`, ...).
    if code.starts_with("Throttl") {
        return K::Throttled;
    }
    // EC2 names each missing kind of object (`InvalidVpcID.NotFound`, `InvalidRoute.NotFound`, ...).
    if code.ends_with(".NotFound") {
        return K::NotFound;
    }
    match code {
        "SlowDown"
        | "TooManyRequestsException"
        | "RequestLimitExceeded"
        | "RequestThrottled"
        | "RequestThrottledException"
        | "ProvisionedThroughputExceededException" => return K::Throttled,
        "RequestTimeout" | "RequestTimeoutException" => return K::TimedOut,
        "AccessDenied" | "AccessDeniedException" | "Forbidden" | "AllAccessDisabled"
        // EC2's denial.
        | "UnauthorizedOperation" => {
            let permission = permission_in(message).unwrap_or_else(|| permission_of(operation));
            return K::AccessDenied {
                permission: permission.to_owned(),
            };
        }
        // S3's missing bucket or key, IAM's missing role, user or key, CloudWatch Logs' missing group.
        "NoSuchBucket"
        | "NotFound"
        | "NoSuchKey"
        | "NoSuchEntity"
        | "ResourceNotFoundException" => {
            return K::NotFound;
        }
        "BucketAlreadyExists"
        | "BucketAlreadyOwnedByYou"
        | "EntityAlreadyExists"
        | "ResourceAlreadyExistsException"
        // EC2: a group name taken in the VPC, a destination the table routes already, a subnet with a
        // table, a gateway attached already.
        | "InvalidGroup.Duplicate"
        | "RouteAlreadyExists"
        | "Resource.AlreadyAssociated" => return K::AlreadyExists,
        // A non-empty bucket; a role with policies attached or a user with keys or policies.
        // EC2: a VPC with subnets, a subnet with an association, a group in use, an attached gateway.
        "BucketNotEmpty" | "DeleteConflict" | "DependencyViolation" => {
            return K::DependencyViolation;
        }
        "InternalError"
        | "InternalServiceException"
        | "ServiceUnavailable"
        | "ServiceFailure"
        | "ServiceUnavailableException"
        // EC2's server-side failures.
        | "Unavailable"
        | "InternalFailure" => {
            return K::ServerError;
        }
        // Another change of the same object is under way (IAM, CloudWatch Logs): waiting fixes it.
        "ConcurrentModification" | "OperationAbortedException" => return K::Throttled,
        _ => {}
    }
    match status {
        Some(429) => K::Throttled,
        Some(403) => K::AccessDenied {
            permission: permission_of(operation).to_owned(),
        },
        Some(404) => K::NotFound,
        Some(408) => K::TimedOut,
        Some(s) if s >= 500 => K::ServerError,
        _ => K::InvalidArgument,
    }
}

/// The provider's error for a failed attempt at `operation`.
pub(crate) fn from_sdk<E>(operation: &str, err: SdkError<E>) -> ProviderError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    use ProviderErrorKind as K;
    match &err {
        SdkError::ServiceError(_) | SdkError::ResponseError(_) => {
            let status = err.raw_response().map(|r| r.status().as_u16());
            let code = err.code().map(str::to_owned);
            let mut message = err.message().unwrap_or_default().to_owned();
            if message.is_empty()
                && let Some(code) = &code
            {
                message = code.clone();
            }
            // A bucket in another region answers with a redirect naming its region; say so instead of
            // leaving the caller with a bare 301.
            if let Some(region) = err
                .raw_response()
                .and_then(|r| r.headers().get("x-amz-bucket-region"))
                && (matches!(
                    code.as_deref(),
                    Some("PermanentRedirect" | "AuthorizationHeaderMalformed")
                ) || status == Some(301))
            {
                return ProviderError::new(
                    operation,
                    K::InvalidArgument,
                    format!("the bucket is in region {region}, not this provider's region"),
                );
            }
            if code.is_none() {
                // The answer could not be read: a proxy's error page, a truncated body, a document of
                // the wrong shape.
                let detail = aws_sdk_s3::error::DisplayErrorContext(&err).to_string();
                let kind = match status {
                    Some(s) if (400..500).contains(&s) => kind_of(operation, None, status, ""),
                    _ => K::ServerError,
                };
                return ProviderError::new(operation, kind, detail);
            }
            let kind = kind_of(operation, code.as_deref(), status, &message);
            ProviderError::new(operation, kind, message)
        }
        SdkError::TimeoutError(_) => ProviderError::new(
            operation,
            K::TimedOut,
            "no answer within the attempt timeout",
        ),
        SdkError::DispatchFailure(failure) => {
            let detail = aws_sdk_s3::error::DisplayErrorContext(&err).to_string();
            let unreachable = |kind| {
                ProviderError::new(
                    operation,
                    kind,
                    format!("could not reach the endpoint: {detail}"),
                )
            };
            if failure.is_timeout() {
                unreachable(K::TimedOut)
            } else if failure.is_io() {
                // Connection refused, reset, DNS failure: the endpoint is unavailable for now.
                unreachable(K::ServerError)
            } else if failure.is_user() {
                ProviderError::new(operation, K::InvalidArgument, detail)
            } else {
                // Nothing was sent: no credentials in the chain, a profile that cannot be loaded, a request
                // that could not be signed. Waiting does not fix that, so it is not retried.
                ProviderError::new(
                    operation,
                    K::AccessDenied {
                        permission: operation.to_owned(),
                    },
                    format!("the request could not be sent: {detail}"),
                )
            }
        }
        _ => {
            // The request could not be built (a bad argument, missing credentials).
            let detail = aws_sdk_s3::error::DisplayErrorContext(&err).to_string();
            ProviderError::new(operation, K::InvalidArgument, detail)
        }
    }
}
