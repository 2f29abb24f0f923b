//! The local AWS emulator (moto server) as tests see it: found through `AWS_ENDPOINT_URL`, probed before
//! use, and shared by every test of a binary, each test working in a bucket of its own. It never skips a
//! test when the emulator is missing, and never touches a bucket it did not create.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use thiserror::Error;

/// Why the emulator cannot be used.
#[derive(Debug, Error)]
pub enum EmulatorError {
    /// `AWS_ENDPOINT_URL` is not set.
    #[error(
        "AWS_ENDPOINT_URL is not set: run the tests through scripts/test, which starts the emulator"
    )]
    NotConfigured,
    /// The endpoint is set but did not answer an S3 call.
    #[error("the AWS emulator at {endpoint} did not answer: {message}")]
    Unreachable {
        /// The configured endpoint.
        endpoint: String,
        /// What the SDK reported.
        message: String,
    },
}

/// A handle on a running emulator.
#[derive(Debug, Clone)]
pub struct S3Emulator {
    /// The endpoint the SDK talks to.
    pub endpoint: String,
    /// An S3 client configured for the emulator.
    pub client: aws_sdk_s3::Client,
}

impl S3Emulator {
    /// Connects to the emulator named by `AWS_ENDPOINT_URL` and checks that it answers.
    pub async fn from_env() -> Result<Self, EmulatorError> {
        let endpoint =
            std::env::var("AWS_ENDPOINT_URL").map_err(|_| EmulatorError::NotConfigured)?;
        Self::connect(&endpoint).await
    }

    /// Connects to the emulator at `endpoint` and checks that it answers.
    pub async fn connect(endpoint: &str) -> Result<Self, EmulatorError> {
        let endpoint = endpoint.to_owned();
        let client = crate::s3::client_from_env(None, Some(endpoint.clone())).await;
        client
            .list_buckets()
            .send()
            .await
            .map_err(|err| EmulatorError::Unreachable {
                endpoint: endpoint.clone(),
                message: aws_sdk_s3::error::DisplayErrorContext(&err).to_string(),
            })?;
        Ok(S3Emulator { endpoint, client })
    }

    /// Creates a bucket whose name no other test of any process uses, and returns its name.
    pub async fn fresh_bucket(&self, hint: &str) -> Result<String, EmulatorError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let name = format!(
            "{hint}-{}-{}-{nanos:08x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.client
            .create_bucket()
            .bucket(&name)
            .send()
            .await
            .map_err(|err| EmulatorError::Unreachable {
                endpoint: self.endpoint.clone(),
                message: aws_sdk_s3::error::DisplayErrorContext(&err).to_string(),
            })?;
        Ok(name)
    }
}
