//! Logging: the one tracing subscriber of the workspace, installed by the binary before anything runs.
//!
//! Logs go to stderr so that stdout stays the plan, the JSON document or the event stream. Nothing is
//! logged unless `--log-level` or `RUST_LOG` asks for it. This module must never log a secret itself and
//! never be installed by a library.

use tracing_subscriber::EnvFilter;

/// Installs the stderr subscriber: `--log-level` wins over `RUST_LOG`; with neither, logging is off.
pub fn install(level: Option<&str>) {
    let filter = match level {
        Some(level) => EnvFilter::try_new(level).ok(),
        None => EnvFilter::try_from_default_env().ok(),
    }
    .unwrap_or_else(|| EnvFilter::new("off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(true)
        .try_init();
}
