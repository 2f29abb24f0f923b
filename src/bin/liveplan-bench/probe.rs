//! What the process costs, read by hand from `/proc/self`: CPU time from `stat`, resident memory and its
//! peak from `status`, and a reset of the peak through `clear_refs`.
//!
//! Linux only, and no libc: `/proc` reports CPU time in clock ticks of `USER_HZ`, which the kernel fixes at
//! 100 per second for this interface on every architecture we run on. A reading that fails is an error for
//! the caller to report; this module never guesses a figure.

use std::time::Duration;

use anyhow::{Context, bail};

/// Clock ticks per second in `/proc/<pid>/stat` (`USER_HZ`).
const TICKS_PER_SECOND: u64 = 100;

/// CPU time the process has used so far, user and system together, at a resolution of 10 ms.
pub fn cpu_time() -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").context("reading /proc/self/stat")?;
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last `)`.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .context("/proc/self/stat has no command name")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: field 3 (state) is index 0, so utime (field 14) is index 11 and stime index 12.
    let tick = |i: usize| -> anyhow::Result<u64> {
        fields
            .get(i)
            .context("/proc/self/stat is shorter than expected")?
            .parse::<u64>()
            .context("a CPU time field of /proc/self/stat is not a number")
    };
    let ticks = tick(11)? + tick(12)?;
    Ok(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// One `kB` line of `/proc/self/status` (`VmRSS`, `VmHWM`), in bytes.
fn status_bytes(field: &str) -> anyhow::Result<u64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    for line in status.lines() {
        if let Some(value) = line.strip_prefix(field).and_then(|v| v.strip_prefix(':')) {
            let kb = value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .with_context(|| format!("{field} in /proc/self/status is not a number"))?;
            return Ok(kb * 1024);
        }
    }
    bail!("/proc/self/status has no {field} line")
}

/// The resident set size now, in bytes.
pub fn rss_bytes() -> anyhow::Result<u64> {
    status_bytes("VmRSS")
}

/// The peak resident set size since the process started or since the last [`reset_peak_rss`], in bytes.
pub fn peak_rss_bytes() -> anyhow::Result<u64> {
    status_bytes("VmHWM")
}

/// Resets the peak resident set size to the current one (Linux 4.0 and later), so that a measurement's
/// peak excludes the set-up before it. Returns whether the kernel accepted the reset; when it did not, the
/// peak that follows includes everything before it.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Bytes in mebibytes, for reports.
pub fn mebibytes(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
