//! Retries of provider calls: [`RetryConfig`] (plain configuration: attempts, delays, seed), [`Backoff`]
//! (the jitter state) and [`Retrying`], the decorator that retries the calls of the provider it wraps.
//!
//! Attempt `k` (from 1) that fails retryably (throttled, server error, timed out) waits a random time in
//! `[0, min(max_delay, base_delay × 2^(k-1))]` ("full jitter") before attempt `k+1`; after
//! `max_attempts` attempts the last error is returned. Jitter draws from a small seeded generator, so a
//! run is reproducible for a given seed. Each attempt is a call of the wrapped provider, which reports it
//! to the call's recorder: wrap a [`Counting`](provider::Counting) provider, never the other
//! way round, so that every attempt is counted. It must never retry an error that says something about the
//! world (not found, access denied, already exists), never retry without bound, and never start an
//! attempt once its cancellation token has fired.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use provider::{Decorate, Next, Provider, ProviderError};
use tokio_util::sync::CancellationToken;

/// How often and how patiently a provider call is retried: plain configuration, compared and cloned
/// freely. The jitter state lives in each [`Retrying`] decorator's [`Backoff`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryConfig {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// The cap of the first backoff.
    pub base_delay: Duration,
    /// The cap of any backoff.
    pub max_delay: Duration,
    /// The seed of the jitter.
    pub seed: u64,
}

impl Default for RetryConfig {
    /// 5 attempts, backoff capped at 100 ms, 200 ms, 400 ms, 800 ms (never over 5 s).
    fn default() -> Self {
        RetryConfig::new(
            5,
            Duration::from_millis(100),
            Duration::from_secs(5),
            0x5eed,
        )
    }
}

impl RetryConfig {
    /// `max_attempts` attempts (at least 1) with backoff between `base_delay` and `max_delay`, jitter drawn
    /// from `seed`.
    pub fn new(max_attempts: u32, base_delay: Duration, max_delay: Duration, seed: u64) -> Self {
        RetryConfig {
            max_attempts: max_attempts.max(1),
            base_delay,
            max_delay,
            seed,
        }
    }

    /// `max_attempts` attempts that never wait (tests, and callers that pace themselves).
    pub fn immediate(max_attempts: u32) -> Self {
        RetryConfig::new(max_attempts, Duration::ZERO, Duration::ZERO, 0)
    }

    /// The upper bound of the wait after failed attempt `attempt` (from 1).
    pub fn cap(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// The jitter of one retrying decorator: a seeded generator shared by its concurrent calls.
#[derive(Debug)]
pub struct Backoff {
    config: RetryConfig,
    state: AtomicU64,
}

impl Backoff {
    /// The backoff of `config`, its jitter drawn from `config.seed`.
    pub fn new(config: RetryConfig) -> Backoff {
        let state = AtomicU64::new(config.seed);
        Backoff { config, state }
    }

    /// The configuration it follows.
    pub fn config(&self) -> &RetryConfig {
        &self.config
    }

    /// The wait after failed attempt `attempt` (from 1): uniform in `[0, cap(attempt)]`.
    pub fn wait(&self, attempt: u32) -> Duration {
        let cap = self.config.cap(attempt);
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
}

/// A provider whose calls are retried as its [`RetryConfig`] says: each retryable failure waits its
/// backoff and tries again, up to `max_attempts` attempts; any other answer is returned at once.
///
/// Every method forwards to the wrapped provider (its own overrides included) through its [`Decorate`]
/// hook, so wrapping changes what a call costs only by its retries. With a cancellation token ([`Retrying::until_cancelled`]) a call
/// that is waiting between attempts when the token fires stops waiting and returns its last error, and
/// no attempt starts after the token fired.
#[derive(Debug)]
pub struct Retrying<P> {
    inner: P,
    backoff: Backoff,
    cancel: Option<CancellationToken>,
}

impl<P> Retrying<P> {
    /// `inner`, retried as `config` says.
    pub fn new(inner: P, config: &RetryConfig) -> Retrying<P> {
        Retrying {
            inner,
            backoff: Backoff::new(config.clone()),
            cancel: None,
        }
    }

    /// This decorator, with waits between attempts cut short and no attempt started once `cancel` fires.
    pub fn until_cancelled(mut self, cancel: CancellationToken) -> Retrying<P> {
        self.cancel = Some(cancel);
        self
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// Runs `attempt` until it succeeds, fails for good, `max_attempts` attempts failed retryably, or the
    /// cancellation token fired.
    async fn run<T, F, Fut>(&self, mut attempt: F) -> Result<T, ProviderError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        let max_attempts = self.backoff.config().max_attempts;
        let mut n = 1;
        loop {
            match attempt().await {
                Err(e) if e.is_retryable() && n < max_attempts => {
                    tracing::debug!(operation = %e.operation, attempt = n, "retrying after a transient failure");
                    if !self.wait(n).await {
                        return Err(e);
                    }
                    n += 1;
                }
                other => return other,
            }
        }
    }

    /// Waits the backoff after failed attempt `n`; `false` when the cancellation token fired first (or
    /// had fired already), so that no further attempt is made.
    async fn wait(&self, n: u32) -> bool {
        let wait = self.backoff.wait(n);
        let Some(cancel) = &self.cancel else {
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            return true;
        };
        if cancel.is_cancelled() {
            return false;
        }
        if !wait.is_zero() {
            tokio::select! {
                () = cancel.cancelled() => return false,
                () = tokio::time::sleep(wait) => {}
            }
        }
        !cancel.is_cancelled()
    }
}

#[async_trait]
impl<P: Provider> Decorate for Retrying<P> {
    type Inner = P;

    fn inner(&self) -> &P {
        &self.inner
    }

    /// Each attempt is a call of the wrapped provider with the caller's [`Call`](provider::Call).
    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        self.run(|| next.forward()).await
    }
}
