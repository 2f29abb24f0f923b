//! Retrying provider calls that were throttled or hit a transient server error: bounded, jittered,
//! exponential backoff.
//!
//! The policy is plain data so tests can make it instant. This module must never retry an error that is
//! not retryable (a refused create is final), and never retry without bound.

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use admission::ProviderError;

/// How throttled and transient failures are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// The delay before the first retry; each further retry doubles it.
    pub base_delay: Duration,
    /// The longest delay between two attempts.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// A policy that retries at once, for tests and the simulated cloud.
    pub fn immediate(max_attempts: u32) -> RetryPolicy {
        RetryPolicy {
            max_attempts,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
        }
    }

    /// The delay before retry number `retry` (from 1): exponential, capped, with up to half of it jittered.
    pub fn delay(&self, retry: u32) -> Duration {
        let exp = self.base_delay.saturating_mul(
            1u32.checked_shl(retry.saturating_sub(1))
                .unwrap_or(u32::MAX),
        );
        let capped = exp.min(self.max_delay);
        if capped.is_zero() {
            return capped;
        }
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(retry);
        let jitter = h.finish() % (capped.as_millis() as u64 / 2 + 1);
        capped - Duration::from_millis(jitter)
    }

    /// Runs `call` until it succeeds, fails for good, or the attempts run out.
    pub async fn run<T, F, Fut>(&self, mut call: F) -> Result<T, ProviderError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        let mut attempt = 1;
        loop {
            match call().await {
                Err(e) if e.is_retryable() && attempt < self.max_attempts.max(1) => {
                    let d = self.delay(attempt);
                    if !d.is_zero() {
                        tokio::time::sleep(d).await;
                    }
                    attempt += 1;
                }
                other => return other,
            }
        }
    }
}
