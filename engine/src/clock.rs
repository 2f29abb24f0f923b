//! The one clock the engine reads wall time through: "now" for the age of create intents (their
//! patience), the `time` written into intent records, `plantimestamp()` during a plan and `timestamp()`
//! during an apply.
//!
//! An [`Engine`](crate::Engine) reads the [`SystemClock`] unless given another with
//! [`Engine::with_clock`](crate::Engine::with_clock); a test moves a [`ManualClock`] past the patience
//! instead of waiting. Durations (an operation's elapsed time, the progress ticker, retry backoff) are
//! not wall time: they run on tokio's clock, which a paused test runtime moves. This module never sleeps.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where the engine reads the time of day.
pub trait Clock: fmt::Debug + Send + Sync {
    /// The time now.
    fn now(&self) -> SystemTime;

    /// The time now in whole seconds since the Unix epoch (0 before it).
    fn unix_secs(&self) -> u64 {
        self.now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }
}

/// `at` to the second in RFC 3339 form, UTC (`2026-12-02T20:15:00Z`): how `timestamp()` and
/// `plantimestamp()` give a time.
pub(crate) fn rfc3339(at: SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    at.replace_nanosecond(0)
        .unwrap_or(at)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The operating system's clock: the default.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that stands still until it is set or moved, to the second.
///
/// ```
/// use std::time::Duration;
/// use engine::{Clock, ManualClock};
///
/// let clock = ManualClock::at_unix_secs(4_102_444_800); // 2100-01-01T00:00:00Z
/// clock.advance(Duration::from_secs(601));
/// assert_eq!(clock.unix_secs(), 4_102_445_401);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    secs: AtomicU64,
}

impl ManualClock {
    /// A clock showing `secs` seconds since the Unix epoch.
    pub fn at_unix_secs(secs: u64) -> ManualClock {
        ManualClock {
            secs: AtomicU64::new(secs),
        }
    }

    /// Sets the clock to `secs` seconds since the Unix epoch.
    pub fn set_unix_secs(&self, secs: u64) {
        self.secs.store(secs, Ordering::SeqCst);
    }

    /// Moves the clock forward by `by` (whole seconds; a fraction is dropped).
    pub fn advance(&self, by: Duration) {
        self.secs.fetch_add(by.as_secs(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.secs.load(Ordering::SeqCst))
    }
}
