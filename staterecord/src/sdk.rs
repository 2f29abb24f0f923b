//! The AWS SDK configuration every AWS client of the workspace starts from (the S3 and SSM record
//! stores, the AWS provider): the standard environment, with the lean HTTPS client.

use aws_config::BehaviorVersion;
use aws_smithy_http_client::tls;

/// Loads the shared AWS SDK configuration from the standard environment (credential chain, `AWS_REGION`,
/// `AWS_ENDPOINT_URL`) with the lean HTTPS client (rustls with ring); `region` and `endpoint`, when given,
/// override what the environment says.
pub async fn sdk_config_from_env(
    region: Option<String>,
    endpoint: Option<String>,
) -> aws_config::SdkConfig {
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
    loader.load().await
}
