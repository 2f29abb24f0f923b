//! The SSM Parameter Store side of the store: [`SsmStore`], its parameter names, and building an SSM
//! client from the standard AWS SDK environment (the same HTTPS client as S3's).

/// Builds an SSM client from the standard AWS SDK environment (credential chain, `AWS_REGION`,
/// `AWS_ENDPOINT_URL`); `region` and `endpoint`, when given, override what the environment says.
pub async fn client_from_env(
    region: Option<String>,
    endpoint: Option<String>,
) -> aws_sdk_ssm::Client {
    let shared = crate::sdk::sdk_config_from_env(region, endpoint).await;
    aws_sdk_ssm::Client::new(&shared)
}

mod names;
mod store;

/// The SDK's SSM client, as [`SsmStore::new`] takes it.
pub use aws_sdk_ssm::Client as SsmClient;
pub use names::{MAX_LEVELS, ParameterNames, PrefixError};
#[cfg(feature = "testkit")]
pub use store::BeforeWrite;
pub use store::{SsmStore, SsmTier};
