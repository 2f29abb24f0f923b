//! The S3 side of the store: [`S3Store`], the bucket contract it asserts before it is trusted, and
//! building an S3 client from the standard AWS SDK environment.
//!
//! The client uses rustls with the ring provider (no aws-lc build) and path-style addressing whenever an
//! endpoint override such as a local emulator is configured. It never reads credentials itself: the SDK's
//! default chain does.

use aws_config::BehaviorVersion;
use aws_smithy_http_client::tls;

/// Builds an S3 client from the standard AWS SDK environment (credential chain, `AWS_REGION`,
/// `AWS_ENDPOINT_URL`); `region` and `endpoint`, when given, override what the environment says.
pub async fn client_from_env(
    region: Option<String>,
    endpoint: Option<String>,
) -> aws_sdk_s3::Client {
    let http = aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https();
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(http);
    if let Some(region) = region {
        loader = loader.region(aws_config::Region::new(region));
    }
    if let Some(endpoint) = endpoint {
        loader = loader.endpoint_url(endpoint);
    }
    let shared = loader.load().await;
    let path_style = shared.endpoint_url().is_some();
    let config = aws_sdk_s3::config::Builder::from(&shared)
        .force_path_style(path_style)
        .build();
    aws_sdk_s3::Client::from_conf(config)
}

mod contract;
mod store;

pub use contract::{BucketFinding, BucketSetting, UnknownBucketSetting, split_waived};
pub use store::{DEFAULT_GET_ALL_PARALLELISM, S3Store};
