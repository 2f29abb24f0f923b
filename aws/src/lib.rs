//! The real AWS provider: [`AwsProvider`] serves `aws_s3_bucket` and `aws_s3_bucket_versioning` through
//! the provider protocol with `aws-sdk-s3` and `aws-sdk-resourcegroupstagging`, `aws_iam_role`,
//! `aws_iam_user` and `aws_iam_access_key` with `aws-sdk-iam` (feature `iam`),
//! `aws_cloudwatch_log_group` with `aws-sdk-cloudwatchlogs` (feature `logs`), and the network types
//! `aws_vpc`, `aws_subnet`, `aws_security_group`, `aws_internet_gateway`, `aws_route_table`, `aws_route`,
//! `aws_route_table_association` and `aws_eip` with `aws-sdk-ec2` (feature `ec2`), so the engine plans and
//! applies against an AWS account (or a local emulator) exactly as it does against the simulated cloud.
//! The schemas are the shared catalog's (`awscatalog`), and a read returns the same ids, attributes and
//! tags as the simulated cloud's, so a configuration plans the same on both.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use provider::Provider;
//! use awsprovider::{AwsProvider, AwsProviderConfig};
//!
//! // Credentials, AWS_REGION and AWS_ENDPOINT_URL come from the standard SDK environment.
//! let provider: Arc<dyn Provider> = Arc::new(AwsProvider::from_env(&AwsProviderConfig::default()).await?);
//! assert!(provider.schemas().contains("aws_s3_bucket"));
//! # Ok(()) }
//! ```
//!
//! What each protocol call costs, in API calls (every attempt is one call, reported to the call's recorder;
//! the SDK's own retries are off, so the engine's retrying decorator is the only retry and the reported
//! cost is honest):
//!
//! | protocol call | API calls |
//! |---|---|
//! | list buckets (one page, no tags) | `s3:ListBuckets` |
//! | read a bucket (by name or id) | `s3:GetBucketTagging` (a missing tag set is a bucket without tags) |
//! | the tagging sweep (one page of 100) | `tagging:GetResources` |
//! | create a bucket | `s3:HeadBucket` in `us-east-1` only, `s3:CreateBucket`, and `s3:PutBucketTagging` when tags are set after the create |
//! | tags-only update of a bucket | `s3:GetBucketTagging`, then `s3:PutBucketTagging` (or `s3:DeleteBucketTagging` when no tag is left) |
//! | delete a bucket | `s3:DeleteBucket` |
//! | delete a bucket with `force_destroy` | `s3:ListObjectVersions` and `s3:DeleteObjects` a page of 1000 at a time until none is left, then `s3:DeleteBucket` |
//! | read a versioning configuration (or list it under its bucket) | `s3:GetBucketVersioning` |
//! | create, update, delete a versioning configuration | `s3:PutBucketVersioning` |
//! | read a role (by name or id) | `iam:GetRole` |
//! | list roles (one page of 1000, no tags) | `iam:ListRoles` |
//! | create a role, a user | `iam:CreateRole`, `iam:CreateUser` (their tags in the call) |
//! | update a role | `iam:GetRole`, then `iam:UpdateRole` when the description or maximum session duration differs, `iam:PutRolePermissionsBoundary` (or `iam:DeleteRolePermissionsBoundary`) when the permissions boundary does, `iam:UpdateAssumeRolePolicy` when the trust policy does, and the tag change as below |
//! | tags-only update of a role, a user | `iam:TagRole` / `iam:TagUser` for keys set, `iam:UntagRole` / `iam:UntagUser` for keys removed |
//! | delete a role | `iam:DeleteRole` |
//! | delete a role with `force_detach_policies` | `iam:ListAttachedRolePolicies` and `iam:DetachRolePolicy` for each, `iam:ListRolePolicies` and `iam:DeleteRolePolicy` for each, then `iam:DeleteRole` |
//! | read a user (by name or id) | `iam:GetUser` |
//! | list users (one page of 1000, no tags) | `iam:ListUsers` |
//! | update a user | `iam:GetUser`, the tag change; when the path differs, `iam:UpdateUser` and `iam:GetUser` again (the ARN carries the path) |
//! | delete a user | `iam:DeleteUser` |
//! | list a user's access keys, or read one by identity (list-and-match) | `iam:ListAccessKeys` (one page of 100) |
//! | read an access key by id | `iam:GetAccessKeyLastUsed` (which user holds it), then `iam:ListAccessKeys` |
//! | create an access key | `iam:CreateAccessKey`, and `iam:UpdateAccessKey` when it is to be `Inactive` (and `iam:DeleteAccessKey` when that fails, so no unasked active key stays) |
//! | update an access key's status | `iam:UpdateAccessKey` (plus `iam:GetAccessKeyLastUsed` when the request does not name the user) |
//! | delete an access key | `iam:GetAccessKeyLastUsed`, then `iam:DeleteAccessKey` |
//! | list log groups (one page of 50, no tags) | `logs:DescribeLogGroups` |
//! | read a log group (by name or id) | `logs:DescribeLogGroups` with the name as prefix (one call a page until the name shows), then `logs:ListTagsForResource` |
//! | create a log group | `logs:CreateLogGroup` (its tags in the call), `logs:PutRetentionPolicy` when a retention is set, then `logs:DescribeLogGroups` for its ARN |
//! | update a log group | a read, then `logs:AssociateKmsKey` (or `logs:DisassociateKmsKey`) when the KMS key differs, `logs:PutRetentionPolicy` (or `logs:DeleteRetentionPolicy` for 0) when the retention differs, `logs:TagResource` / `logs:UntagResource` for the tag change |
//! | tags-only update of a log group | `logs:DescribeLogGroups` (its ARN), `logs:TagResource` for keys set, `logs:UntagResource` for keys removed |
//! | delete a log group | `logs:DeleteLogGroup` |
//! | list VPCs (one page of 1000, with tags) | `ec2:DescribeVpcs`, then 2 × `ec2:DescribeVpcAttribute` per VPC listed (DNS support, DNS hostnames) |
//! | read a VPC | `ec2:DescribeVpcs`, 2 × `ec2:DescribeVpcAttribute` |
//! | create a VPC | `ec2:CreateVpc` (its tags in the call), `ec2:ModifyVpcAttribute` per DNS setting that differs from AWS's default |
//! | update a VPC | a read, `ec2:ModifyVpcAttribute` per DNS setting that differs, `ec2:ModifyVpcTenancy` when the tenancy differs, the tag change as below |
//! | list subnets, security groups, internet gateways (one page of 1000, with tags) | `ec2:DescribeSubnets`, `ec2:DescribeSecurityGroups`, `ec2:DescribeInternetGateways` (with one `ec2:DescribeVpcs` on `is-default` per page of the region's gateways, to leave the default VPC's out) |
//! | list route tables (one page of 100, with tags, routes and associations inline) | `ec2:DescribeRouteTables` |
//! | list elastic IPs (one answer, with tags) | `ec2:DescribeAddresses` |
//! | read a subnet, a security group, a gateway, a route table, an elastic IP | its `Describe*` with the id |
//! | read a route or an association (by identity or id) | `ec2:DescribeRouteTables` |
//! | create a subnet | `ec2:CreateSubnet` (tags in the call), `ec2:ModifySubnetAttribute` when `map_public_ip_on_launch` |
//! | create a security group | `ec2:CreateSecurityGroup` (tags in the call), `ec2:DescribeSecurityGroups` when the answer carries no ARN (the emulator) or no `vpc_id` was given, `ec2:RevokeSecurityGroupEgress` (AWS's allow-all outbound rule), then `ec2:AuthorizeSecurityGroupEgress` and `ec2:AuthorizeSecurityGroupIngress` for each direction with declared rules |
//! | create an internet gateway | `ec2:CreateInternetGateway` (tags in the call), `ec2:AttachInternetGateway` when `vpc_id` is set |
//! | create a route table, a route, an association, an elastic IP | `ec2:CreateRouteTable` (tags in the call) and one `ec2:CreateRoute` per declared inline route, `ec2:CreateRoute`, `ec2:AssociateRouteTable`, `ec2:AllocateAddress` (tags in the call) |
//! | update a subnet | a read, `ec2:ModifySubnetAttribute` when it differs, the tag change |
//! | update a gateway's VPC | a read, `ec2:DetachInternetGateway` (when attached), `ec2:AttachInternetGateway` (when set), the tag change |
//! | update a route's target | `ec2:ReplaceRoute` |
//! | update a security group | a read; per declared rule set that differs, one `ec2:RevokeSecurityGroup*` of the rules that go and one `ec2:AuthorizeSecurityGroup*` of those that come; the tag change |
//! | update a route table | a read; for a declared `route` set, `ec2:DeleteRoute`, `ec2:ReplaceRoute`, `ec2:CreateRoute` per route that goes, changes target or comes; the tag change |
//! | update an elastic IP (tags only: the rest forces replacement) | a read, the tag change |
//! | tags-only update of an EC2 object | `ec2:CreateTags` for keys set, `ec2:DeleteTags` for keys removed |
//! | delete a VPC, subnet, security group, route table, route, association, elastic IP | `ec2:DeleteVpc`, `ec2:DeleteSubnet`, `ec2:DeleteSecurityGroup`, `ec2:DeleteRouteTable`, `ec2:DeleteRoute`, `ec2:DisassociateRouteTable`, `ec2:ReleaseAddress` |
//! | read `aws_iam_role` | `iam:GetRole` |
//! | read `aws_iam_policy` | `iam:GetPolicy`, `iam:GetPolicyVersion`; by name, first `iam:ListPolicies` (a page of 100, every scope) to the last page |
//! | read `aws_s3_bucket` (the data source) | `s3:HeadBucket` (its answer names the region), `s3:GetBucketLocation` only when it does not |
//! | compute `aws_iam_policy_document` | none |
//! | delete an internet gateway | `ec2:DescribeInternetGateways`, `ec2:DetachInternetGateway` when attached, `ec2:DeleteInternetGateway` |
//! | read `aws_caller_identity` | `sts:GetCallerIdentity` (feature `sts`) |
//! | read `aws_region`, `aws_partition` | none: the provider's region answers them |
//! | read `aws_availability_zones` | `ec2:DescribeAvailabilityZones` (feature `ec2`) |
//! | read `aws_ami` | `ec2:DescribeImages`, one call per page of 1000 |
//! | read `aws_vpc` | `ec2:DescribeVpcs`, one call per page of 1000 (one call when `id` is given) |
//! | read `aws_subnet`, `aws_subnets` | `ec2:DescribeSubnets`, one call per page of 1000 (one when `id` is given) |
//! | read `aws_security_group` | `ec2:DescribeSecurityGroups`, one call per page of 1000 (one when `id` is given) |
//!
//! The tagging sweep asks for the services of the types it serves (`s3`, `logs` with the feature
//! `logs`, and the EC2 resource types `ec2:vpc`, `ec2:subnet`, `ec2:security-group`,
//! `ec2:internet-gateway`, `ec2:route-table` and `ec2:elastic-ip` with the feature `ec2`), so one sweep
//! page covers buckets, log groups and networks alike.
//!
//! EC2. The network types are owned by their markers, written in the create call itself
//! (`TagSpecifications`), so no object ever exists unmarked; each has one unfiltered, paged `Describe*`
//! listing (foreign objects included) whose answer carries the tags, and routes and associations come
//! inline from `DescribeRouteTables`. The objects AWS makes by itself are left out of every listing: the
//! default VPC and its default subnets, each VPC's main route table and `default` security group, every
//! table's `local` route and main association (a read by id still finds them). `Invalid…ID.NotFound` is an
//! absence on a read and not found everywhere else; `DependencyViolation` is a dependency violation;
//! `InvalidGroup.Duplicate`, `RouteAlreadyExists` and `Resource.AlreadyAssociated` are already exists;
//! `UnauthorizedOperation` is access denied; `RequestLimitExceeded` is throttling. An internet gateway
//! is detached from its VPC before its delete. `aws_eip_association` is in the schemas with no admission
//! path, and every call of it is refused.
//!
//! IAM. Roles, users and access keys are global and outside the tagging API: roles and users are found by
//! name (their tags come with `GetRole` / `GetUser`, and go into `CreateRole` / `CreateUser` so that they
//! never exist unmarked), access keys (without tags) by list-and-match under their user. A trust policy comes back URL-encoded from IAM and is
//! decoded. An access key's secret is returned by its create only (sensitive, residue). A role with policies
//! still attached, or a user with keys or policies, fails its delete as a dependency violation
//! (`DeleteConflict`); IAM's `NoSuchEntity` and Logs' `ResourceNotFoundException` are an absence on a read
//! and not found everywhere else; `EntityAlreadyExists` and `ResourceAlreadyExistsException` are already
//! exists; `ConcurrentModification` and `OperationAbortedException` are retried by the engine as throttling.
//!
//! Log groups. `CreateLogGroup` takes the tags, so a log group never exists unmarked; its `arn` is the
//! ARN without the `:*` that `DescribeLogGroups` appends (the form tags are written by and the tagging API
//! answers with); `retention_in_days` 0 means never expire.
//!
//! Creates and tags. S3 takes a new bucket's tags in the `CreateBucket` call itself
//! ([`BucketTagging::InCreateCall`], the default against AWS), so a bucket never exists unmarked. Emulators
//! and S3-compatible servers may ignore tags there, so with an endpoint override the default is
//! [`BucketTagging::AfterCreate`]: `CreateBucket`, then `PutBucketTagging`. Between the two calls the bucket
//! exists without its markers (a concurrent plan would see it unowned); if the tagging call fails, the create
//! deletes the bucket again and fails with the tagging error, so an unmarked bucket is left behind only if
//! that clean-up fails too (the error says so). In `us-east-1`, S3 answers a `CreateBucket` of a bucket the
//! account already owns with success, so the provider first looks with `HeadBucket` and refuses a taken name
//! as already existing; a bucket created by someone else between the two calls would still be taken over.
//!
//! Reads. Bucket names are global, so `ListBuckets` lists the account's buckets of every region, each with
//! its own region; a per-bucket call on a bucket of another region fails with an error naming that region
//! rather than following the redirect. A bucket of another account reads as access denied, never as absent.
//!
//! Versioning. S3 has no way back to "never versioned": deleting an `aws_s3_bucket_versioning` suspends
//! versioning, after which the configuration reads as `Suspended`. A read finds a configuration when the
//! bucket's status is `Enabled` or `Suspended`, and none when versioning was never enabled. As in the
//! AWS provider v5, the configuration is one `versioning_configuration { status, mfa_delete }` block;
//! `mfa_delete` is read back only once S3 reports it, and is sent as written (S3 also requires the MFA
//! device's code to change it, which the provider's `mfa` argument would carry: not implemented).
//!
//! `force_destroy` is residue: it is accepted at create, kept by the engine, and never returned by a read.
//! A destroy of a bucket whose applied `force_destroy` is true comes as
//! [`Provider::delete_with_contents`], which deletes every object version and delete marker first
//! (governance-mode locks bypassed, as the AWS provider does); a plain delete of a non-empty bucket fails
//! with a dependency violation (`BucketNotEmpty`).
//!
//! This crate talks to AWS and translates; it must never keep state between calls beyond its clients and
//! its call counts, never retry on its own, and never return an absence for a look that failed.

mod data_sources;
#[cfg(feature = "ec2")]
mod ec2;
mod error;
#[cfg(feature = "iam")]
mod iam;
#[cfg(feature = "logs")]
mod logs;
mod s3;
mod tagging;

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use provider::Value;
use provider::{
    Call, CreateRequest, Identity, ListPage, ListRequest, ProviderError, ProviderErrorKind,
    TagChange, TagQuery, TaggedPage, UpdateRequest,
};
use provider::{Catalog, LiveObject, Provider};

#[cfg(feature = "ec2")]
pub use ec2::{
    EIP, EIP_ASSOCIATION, INTERNET_GATEWAY, ROUTE, ROUTE_TABLE, ROUTE_TABLE_ASSOCIATION,
    SECURITY_GROUP, SUBNET, VPC,
};
pub use error::AwsError;

/// The bucket type this provider serves.
pub const BUCKET: &str = "aws_s3_bucket";
/// The bucket versioning type this provider serves.
pub const BUCKET_VERSIONING: &str = "aws_s3_bucket_versioning";
/// The IAM role type this provider serves with the feature `iam`.
pub const IAM_ROLE: &str = "aws_iam_role";
/// The IAM user type this provider serves with the feature `iam`.
pub const IAM_USER: &str = "aws_iam_user";
/// The IAM access key type this provider serves with the feature `iam`.
pub const IAM_ACCESS_KEY: &str = "aws_iam_access_key";
/// The log group type this provider serves with the feature `logs`.
pub const LOG_GROUP: &str = "aws_cloudwatch_log_group";

/// The types this build serves: the S3 types always, the IAM and Logs types with their features.
const SERVED: &[&str] = &[
    BUCKET,
    BUCKET_VERSIONING,
    #[cfg(feature = "iam")]
    IAM_ROLE,
    #[cfg(feature = "iam")]
    IAM_USER,
    #[cfg(feature = "iam")]
    IAM_ACCESS_KEY,
    #[cfg(feature = "logs")]
    LOG_GROUP,
];

/// Whether this build serves `type_name`: the types above, and the EC2 types with the feature `ec2`.
fn is_served(type_name: &str) -> bool {
    #[cfg(feature = "ec2")]
    if is_ec2(type_name) {
        return true;
    }
    SERVED.contains(&type_name)
}

/// Whether `type_name` is one of the EC2 types, served with the feature `ec2`.
#[cfg(feature = "ec2")]
fn is_ec2(type_name: &str) -> bool {
    ec2::TYPES.contains(&type_name)
}

/// How a new bucket gets its tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BucketTagging {
    /// In the `CreateBucket` call (`CreateBucketConfiguration.Tags`, needs `s3:TagResource`): the bucket
    /// never exists unmarked.
    InCreateCall,
    /// With `PutBucketTagging` right after `CreateBucket`, for servers that ignore tags in the create; the
    /// create deletes the bucket again when the tagging fails.
    AfterCreate,
}

/// How to build an [`AwsProvider`]; everything left unset comes from the standard AWS SDK environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsProviderConfig {
    /// The region to serve, overriding `AWS_REGION` and the profile.
    pub region: Option<String>,
    /// The endpoint to talk to (a local emulator), overriding `AWS_ENDPOINT_URL`; S3 then uses path-style
    /// addressing.
    pub endpoint_url: Option<String>,
    /// How new buckets get their tags; `None` picks [`BucketTagging::InCreateCall`] against AWS and
    /// [`BucketTagging::AfterCreate`] when an endpoint override is set.
    pub bucket_tagging: Option<BucketTagging>,
    /// How long to wait for a connection.
    pub connect_timeout: Duration,
    /// How long one attempt of one API call may take before it fails as timed out (retryable).
    pub attempt_timeout: Duration,
}

impl Default for AwsProviderConfig {
    fn default() -> Self {
        AwsProviderConfig {
            region: None,
            endpoint_url: None,
            bucket_tagging: None,
            connect_timeout: Duration::from_millis(3_100),
            attempt_timeout: Duration::from_secs(30),
        }
    }
}

/// Loads the credentials of `shared` once, so that a machine with none is told so, with the places the
/// SDK looked, before any call is made: without this check every call of the first plan fails on its own
/// and reads as a denied permission. The clients load the credentials again through their own cache (a
/// second `sts:AssumeRole` or credential command run for profiles that use one).
pub async fn check_credentials(shared: &aws_config::SdkConfig) -> Result<(), AwsError> {
    use aws_credential_types::provider::ProvideCredentials as _;
    use aws_credential_types::provider::error::CredentialsError;
    let profile = std::env::var("AWS_PROFILE")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "default".to_owned());
    let Some(provider) = shared.credentials_provider() else {
        return Err(AwsError::NoCredentials { profile });
    };
    match provider.provide_credentials().await {
        Ok(_) => Ok(()),
        Err(CredentialsError::CredentialsNotLoaded(_)) => Err(AwsError::NoCredentials { profile }),
        Err(e) => Err(AwsError::CredentialsFailed {
            profile,
            detail: causes(&e),
        }),
    }
}

/// An error and its sources as one line, each message once (the credential providers repeat their own).
fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(text.as_str())) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

/// The real AWS provider: S3 buckets and their versioning, discovered in bulk (`ListBuckets`, the tagging
/// API) and changed with one API call per step, every attempt reported to the call's recorder by
/// operation name.
#[derive(Debug)]
pub struct AwsProvider {
    s3: aws_sdk_s3::Client,
    tagging: aws_sdk_resourcegroupstagging::Client,
    #[cfg(feature = "iam")]
    iam: aws_sdk_iam::Client,
    #[cfg(feature = "logs")]
    logs: aws_sdk_cloudwatchlogs::Client,
    #[cfg(feature = "ec2")]
    ec2: aws_sdk_ec2::Client,
    #[cfg(feature = "sts")]
    sts: aws_sdk_sts::Client,
    region: String,
    bucket_tagging: BucketTagging,
    /// The SDK configuration and settings the clients were built from, for another region's clients.
    built_from: (aws_config::SdkConfig, AwsProviderConfig),
}

impl AwsProvider {
    /// Builds the provider from the standard AWS SDK environment (credential chain, `AWS_REGION`,
    /// `AWS_ENDPOINT_URL`), with `config`'s region and endpoint overriding it.
    pub async fn from_env(config: &AwsProviderConfig) -> Result<AwsProvider, AwsError> {
        let shared = staterecord::s3::sdk_config_from_env(
            config.region.clone(),
            config.endpoint_url.clone(),
        )
        .await;
        check_credentials(&shared).await?;
        AwsProvider::from_sdk_config(&shared, config)
    }

    /// Builds the provider from an SDK configuration the embedder loaded, with `config`'s region and
    /// endpoint, when set, overriding it. The SDK's own retries are turned off whatever `shared` says.
    pub fn from_sdk_config(
        shared: &aws_config::SdkConfig,
        config: &AwsProviderConfig,
    ) -> Result<AwsProvider, AwsError> {
        let mut builder = shared.to_builder();
        if let Some(region) = &config.region {
            builder.set_region(Some(aws_config::Region::new(region.clone())));
        }
        if let Some(endpoint) = &config.endpoint_url {
            builder.set_endpoint_url(Some(endpoint.clone()));
        }
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(config.connect_timeout)
            .operation_attempt_timeout(config.attempt_timeout)
            .build();
        builder.set_retry_config(Some(RetryConfig::disabled()));
        builder.set_timeout_config(Some(timeouts));
        let shared = builder.build();
        let built_from = (shared.clone(), config.clone());
        let region = shared
            .region()
            .map(|r| r.as_ref().to_owned())
            .filter(|r| !r.is_empty())
            .ok_or(AwsError::NoRegion)?;
        let bucket_tagging = config
            .bucket_tagging
            .unwrap_or(match shared.endpoint_url() {
                Some(_) => BucketTagging::AfterCreate,
                None => BucketTagging::InCreateCall,
            });
        let s3 = aws_sdk_s3::Client::from_conf(staterecord::s3::s3_config(&shared).build());
        let tagging = aws_sdk_resourcegroupstagging::Client::new(&shared);
        Ok(AwsProvider {
            s3,
            tagging,
            #[cfg(feature = "iam")]
            iam: aws_sdk_iam::Client::new(&shared),
            #[cfg(feature = "logs")]
            logs: aws_sdk_cloudwatchlogs::Client::new(&shared),
            #[cfg(feature = "ec2")]
            ec2: aws_sdk_ec2::Client::new(&shared),
            #[cfg(feature = "sts")]
            sts: aws_sdk_sts::Client::new(&shared),
            region,
            bucket_tagging,
            built_from,
        })
    }

    /// The same provider serving `region`: new clients for it, from the same credentials, endpoint,
    /// timeouts and bucket tagging.
    pub fn in_region(&self, region: &str) -> Result<AwsProvider, AwsError> {
        let (shared, config) = &self.built_from;
        let config = AwsProviderConfig {
            region: Some(region.to_owned()),
            bucket_tagging: Some(self.bucket_tagging),
            ..config.clone()
        };
        AwsProvider::from_sdk_config(shared, &config)
    }

    /// How this provider tags new buckets.
    pub fn bucket_tagging(&self) -> BucketTagging {
        self.bucket_tagging
    }

    /// The ARN partition of the provider's region (`aws`, `aws-cn`, `aws-us-gov`).
    fn partition(&self) -> &'static str {
        if self.region.starts_with("cn-") {
            "aws-cn"
        } else if self.region.starts_with("us-gov-") {
            "aws-us-gov"
        } else {
            "aws"
        }
    }
}

/// The types this provider serves, with the schemas of the contract's catalog: the two S3 types, the
/// three IAM types with the feature `iam`, the log group with the feature `logs` and the nine EC2 types
/// (`aws_eip_association`, whose calls are all refused, included) with the feature `ec2`.
pub fn catalog() -> Catalog {
    let all = awscatalog::catalog();
    let types: Catalog = all
        .iter()
        .filter(|s| is_served(&s.type_name))
        .cloned()
        .collect();
    all.data_sources()
        .filter(|d| data_sources::is_served(d))
        .cloned()
        .fold(types, Catalog::with_data_source)
}

fn unsupported(method: &str, type_name: &str) -> ProviderError {
    ProviderError::new(
        method,
        ProviderErrorKind::Unsupported,
        format!("the AWS provider does not serve {type_name}"),
    )
}

fn invalid(operation: &str, message: impl Into<String>) -> ProviderError {
    ProviderError::new(operation, ProviderErrorKind::InvalidArgument, message)
}

/// Refuses attributes the type does not have, so that a typo never passes silently.
fn check_names(
    operation: &str,
    type_name: &str,
    attributes: &BTreeMap<String, Value>,
) -> Result<(), ProviderError> {
    let catalog = catalog();
    let Some(schema) = catalog.get(type_name) else {
        return Err(unsupported(operation, type_name));
    };
    match attributes
        .keys()
        .find(|name| schema.attribute(name).is_none())
    {
        Some(name) => Err(invalid(
            operation,
            format!("{type_name} has no attribute {name:?}"),
        )),
        None => Ok(()),
    }
}

/// The string attribute `name`, required.
fn string_attribute<'a>(
    operation: &str,
    type_name: &str,
    attributes: &'a BTreeMap<String, Value>,
    name: &str,
) -> Result<&'a str, ProviderError> {
    match attributes.get(name).map(Value::peel) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(other) => Err(invalid(
            operation,
            format!("{type_name}.{name} must be a non-empty string, not {other}"),
        )),
        None => Err(invalid(
            operation,
            format!("{type_name}.{name} is required"),
        )),
    }
}

#[async_trait]
impl Provider for AwsProvider {
    fn region(&self) -> String {
        self.region.clone()
    }

    /// Another region's provider ([`AwsProvider::in_region`]), built when the engine first reaches the
    /// region; nothing else is configurable here (credentials and roles come from the SDK environment).
    async fn configure(
        &self,
        call: &Call<'_>,
        config: &provider::ProviderConfig,
    ) -> Result<Option<std::sync::Arc<dyn Provider>>, ProviderError> {
        let _ = call;
        let region = config.region.as_deref().unwrap_or(&self.region);
        if let Some(setting) = config.first_setting_beyond(region) {
            return Err(ProviderError::new(
                "configure",
                provider::ProviderErrorKind::UnsupportedSetting {
                    setting: setting.to_owned(),
                },
                "the AWS provider is configured by its region alone; credentials come from the SDK \
                 environment",
            ));
        }
        if region == self.region {
            return Ok(None);
        }
        let other = self.in_region(region).map_err(|e| {
            ProviderError::new(
                "configure",
                provider::ProviderErrorKind::InvalidArgument,
                e.to_string(),
            )
        })?;
        Ok(Some(std::sync::Arc::new(other)))
    }

    fn schemas(&self) -> &Catalog {
        static SERVED: std::sync::LazyLock<Catalog> = std::sync::LazyLock::new(catalog);
        &SERVED
    }

    #[tracing::instrument(skip_all, fields(type_name = %request.type_name), err)]
    async fn read_data_source(
        &self,
        call: &Call<'_>,
        request: provider::DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        self.read_data(call, &request).await
    }

    #[tracing::instrument(skip_all, fields(type_name = %request.type_name), err)]
    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        match request.type_name.as_str() {
            BUCKET => self.list_buckets(call, &request).await,
            BUCKET_VERSIONING => self.list_versioning(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ROLE | IAM_USER => self.list_iam(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => self.list_access_keys(call, &request).await,
            #[cfg(feature = "logs")]
            LOG_GROUP => self.list_log_groups(call, &request).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.list_ec2(call, &request).await,
            other => Err(unsupported("list", other)),
        }
    }

    #[tracing::instrument(skip_all, fields(type_name = %request.type_name), err)]
    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        match request.type_name.as_str() {
            BUCKET => self.create_bucket(call, &request).await,
            BUCKET_VERSIONING => self.create_versioning(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ROLE => self.create_role(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_USER => self.create_user(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => self.create_access_key(call, &request).await,
            #[cfg(feature = "logs")]
            LOG_GROUP => self.create_log_group(call, &request).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.create_ec2(call, &request).await,
            other => Err(unsupported("create", other)),
        }
    }

    #[tracing::instrument(skip_all, fields(type_name = %request.type_name, id = %request.id), err)]
    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        match request.type_name.as_str() {
            BUCKET => self.update_bucket(call, &request).await,
            BUCKET_VERSIONING => self.update_versioning(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ROLE => self.update_role(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_USER => self.update_user(call, &request).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => self.update_access_key(call, &request).await,
            #[cfg(feature = "logs")]
            LOG_GROUP => self.update_log_group(call, &request).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.update_ec2(call, &request).await,
            other => Err(unsupported("update", other)),
        }
    }

    #[tracing::instrument(skip_all, fields(type_name = %type_name, id = %id), err)]
    async fn delete(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        match type_name {
            BUCKET => self.delete_bucket(call, id).await,
            BUCKET_VERSIONING => self.suspend_versioning(call, id).await,
            #[cfg(feature = "iam")]
            IAM_ROLE => self.delete_role(call, id).await,
            #[cfg(feature = "iam")]
            IAM_USER => self.delete_user(call, id).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => self.delete_access_key(call, id).await,
            #[cfg(feature = "logs")]
            LOG_GROUP => self.delete_log_group(call, id).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.delete_ec2(call, other, id).await,
            other => Err(unsupported("delete", other)),
        }
    }

    #[tracing::instrument(skip_all, fields(type_name = %type_name, id = %id), err)]
    async fn delete_with_contents(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        match type_name {
            BUCKET => self.delete_bucket_with_contents(call, id).await,
            #[cfg(feature = "iam")]
            IAM_ROLE => self.delete_role_with_policies(call, id).await,
            _ => self.delete(call, type_name, id).await,
        }
    }

    #[tracing::instrument(skip_all, fields(type_name = %type_name, identity = %identity), err)]
    async fn read(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        #[cfg(feature = "iam")]
        if type_name == IAM_ACCESS_KEY {
            return self.read_access_key(call, identity).await;
        }
        #[cfg(feature = "ec2")]
        if is_ec2(type_name) {
            return self.read_ec2(call, type_name, identity).await;
        }
        // Every other type served is read by the one identity argument that is also its id.
        let argument = match type_name {
            BUCKET | BUCKET_VERSIONING => "bucket",
            _ => "name",
        };
        let name = match identity {
            Identity::Name(name) => Some(name.as_str()),
            Identity::Composite(parts) => parts.get(argument).map(String::as_str),
        };
        let Some(name) = name else {
            return Err(invalid(
                "read",
                format!("{type_name} is identified by its {argument}, not by {identity}"),
            ));
        };
        self.read_by_id(call, type_name, name).await
    }

    #[tracing::instrument(skip_all, fields(type_name = %type_name, id = %id), err)]
    async fn read_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        match type_name {
            BUCKET => self.read_bucket(call, id).await,
            BUCKET_VERSIONING => self.read_versioning(call, id).await,
            #[cfg(feature = "iam")]
            IAM_ROLE => self.read_role(call, id).await,
            #[cfg(feature = "iam")]
            IAM_USER => self.read_user(call, id).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => self.read_access_key_by_id(call, id).await,
            #[cfg(feature = "logs")]
            LOG_GROUP => self.read_log_group(call, id).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.read_ec2_by_id(call, other, id).await,
            other => Err(unsupported("read", other)),
        }
    }

    #[tracing::instrument(skip_all, fields(page = query.page_token.is_some()), err)]
    async fn tagged_resources(
        &self,
        call: &Call<'_>,
        query: TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        self.get_resources(call, &query).await
    }

    #[tracing::instrument(skip_all, fields(type_name = %type_name, id = %id), err)]
    async fn update_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        match type_name {
            BUCKET => self.change_bucket_tags(call, id, &change).await.map(drop),
            BUCKET_VERSIONING if change.is_empty() => Ok(()),
            BUCKET_VERSIONING => Err(invalid(
                "update_tags",
                format!("{BUCKET_VERSIONING} carries no tags"),
            )),
            #[cfg(feature = "iam")]
            IAM_ROLE | IAM_USER => self.change_iam_tags(call, type_name, id, &change).await,
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY if change.is_empty() => Ok(()),
            #[cfg(feature = "iam")]
            IAM_ACCESS_KEY => Err(invalid(
                "update_tags",
                format!("{IAM_ACCESS_KEY} carries no tags"),
            )),
            #[cfg(feature = "logs")]
            LOG_GROUP => self.change_log_group_tags(call, id, &change).await,
            #[cfg(feature = "ec2")]
            other if is_ec2(other) => self.change_ec2_tags(call, other, id, &change).await,
            other => Err(unsupported("update_tags", other)),
        }
    }
}
