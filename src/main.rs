//! The `liveplan` command line.
//!
//! The only place in the workspace that prints, parses arguments and installs a tracing subscriber.

use clap::Parser;

/// Plan and apply infrastructure without a state file.
#[derive(Debug, Parser)]
#[command(name = "liveplan", version, about, long_about = None)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
