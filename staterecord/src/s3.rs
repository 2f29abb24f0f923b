//! The S3 side of the store: [`S3Store`], the bucket contract it asserts before it is trusted, and
//! building an S3 client from the standard AWS SDK environment.
//!
//! The client uses rustls with the ring provider (no aws-lc build) and path-style addressing whenever an
//! endpoint override such as a local emulator is configured. It never reads credentials itself: the SDK's
//! default chain does.

/// Builds an S3 client from the standard AWS SDK environment (credential chain, `AWS_REGION`,
/// `AWS_ENDPOINT_URL`); `region` and `endpoint`, when given, override what the environment says.
pub async fn client_from_env(
    region: Option<String>,
    endpoint: Option<String>,
) -> aws_sdk_s3::Client {
    let shared = sdk_config_from_env(region, endpoint).await;
    aws_sdk_s3::Client::from_conf(s3_config(&shared).build())
}

pub use crate::sdk::sdk_config_from_env;

/// The S3 client configuration for `shared`, with path-style addressing whenever an endpoint override
/// (a local emulator, an S3-compatible server) is set; callers may adjust it before building.
pub fn s3_config(shared: &aws_config::SdkConfig) -> aws_sdk_s3::config::Builder {
    aws_sdk_s3::config::Builder::from(shared).force_path_style(shared.endpoint_url().is_some())
}

mod contract;
mod store;

pub use contract::{BucketFinding, BucketSetting, UnknownBucketSetting, split_waived};
pub use store::{DEFAULT_GET_ALL_PARALLELISM, S3Store};
