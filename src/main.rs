//! The `liveplan` command line.
//!
//! The only place in the workspace that prints, parses arguments and installs a tracing subscriber. It
//! reads the arguments, sets up logging on stderr, runs one command on a tokio runtime and turns its
//! outcome into the process exit code; everything else lives in the `cli` module. It must never hold
//! plan logic of its own: planning, applying and the ownership rules belong to the library crates.

mod cli;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

/// mimalloc, not the system allocator: a plan builds and drops many small maps and strings, and on
/// glibc's allocator that costs about a third of its CPU (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Terraform's spellings (`-var`, `-chdir=DIR`, `-version`, TF_CLI_ARGS) in liveplan's, for clap.
    let flags = cli::spelling::long_flags(&cli::Cli::command());
    let argv = match cli::spelling::respell(std::env::args_os().collect(), &flags, &|name| {
        std::env::var(name).ok()
    }) {
        Ok(argv) => argv,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args = match cli::Cli::try_parse_from(argv) {
        Ok(args) => args,
        // `--help` prints and succeeds; a usage error exits 1, as Terraform's do, never 2,
        // which `plan --detailed-exitcode` reserves for "changes present".
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    cli::logging::install(args.common.log_level.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(cli::run(args));
    ExitCode::from(code.as_u8())
}
