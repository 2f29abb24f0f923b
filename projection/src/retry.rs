//! `RetryPolicy`: bounded, jittered exponential backoff for provider calls that were throttled or failed
//! on the server's side, shared by discovery and apply.
//!
//! Attempt `k` (from 1) that fails retryably waits a random time in `[0, min(max_delay, base_delay ×
//! 2^(k-1))]` ("full jitter") before attempt `k+1`; after `max_attempts` attempts the last error is
//! returned. Jitter draws from a small seeded generator, so a run is reproducible for a given seed. It
//! must never retry an error that says something about the world (not found, access denied, already
//! exists), and never retry without bound.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use provider::ProviderError;

/// How often and how patiently a provider call is retried.
#[derive(Debug)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// The cap of the first backoff.
    pub base_delay: Duration,
    /// The cap of any backoff.
    pub max_delay: Duration,
    state: AtomicU64,
}

impl Clone for RetryPolicy {
    fn clone(&self) -> Self {
        RetryPolicy {
            max_attempts: self.max_attempts,
            base_delay: self.base_delay,
            max_delay: self.max_delay,
            state: AtomicU64::new(self.state.load(Ordering::Relaxed)),
        }
    }
}

impl Default for RetryPolicy {
    /// 5 attempts, backoff capped at 100 ms, 200 ms, 400 ms, 800 ms (never over 5 s).
    fn default() -> Self {
        RetryPolicy::new(
            5,
            Duration::from_millis(100),
            Duration::from_secs(5),
            0x5eed,
        )
    }
}

impl RetryPolicy {
    /// A policy of `max_attempts` attempts (at least 1) with backoff between `base_delay` and `max_delay`,
    /// jitter drawn from `seed`.
    pub fn new(max_attempts: u32, base_delay: Duration, max_delay: Duration, seed: u64) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            base_delay,
            max_delay,
            state: AtomicU64::new(seed),
        }
    }

    /// A policy of `max_attempts` attempts that never waits (tests, and callers that pace themselves).
    pub fn immediate(max_attempts: u32) -> Self {
        RetryPolicy::new(max_attempts, Duration::ZERO, Duration::ZERO, 0)
    }

    /// The upper bound of the wait after failed attempt `attempt` (from 1).
    pub fn cap(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// The wait after failed attempt `attempt`: uniform in `[0, cap(attempt)]`.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let cap = self.cap(attempt);
        if cap.is_zero() {
            return Duration::ZERO;
        }
        // splitmix64: small, seedable and good enough to spread retries apart.
        let mut z = self
            .state
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(z % nanos.saturating_add(1))
    }

    /// Runs `call` until it succeeds, fails for good, or `max_attempts` attempts failed retryably.
    pub async fn run<T, F, Fut>(&self, mut call: F) -> Result<T, ProviderError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        let mut attempt = 1;
        loop {
            match call().await {
                Err(e) if e.is_retryable() && attempt < self.max_attempts => {
                    tracing::debug!(operation = %e.operation, attempt, "retrying after a transient failure");
                    let wait = self.backoff(attempt);
                    if !wait.is_zero() {
                        tokio::time::sleep(wait).await;
                    }
                    attempt += 1;
                }
                other => return other,
            }
        }
    }
}
