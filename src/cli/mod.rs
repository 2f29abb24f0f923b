//! The `liveplan` commands: their arguments (clap), and the dispatch from a parsed command line to the
//! command that runs it and the exit code it ends with.
//!
//! Each command lives in its own module and prints only through [`terminal`]. This module must never
//! plan, apply or judge ownership itself: that is the engine's job, and the CLI only wires the engine to a
//! live system, a record store and a terminal.

mod apply;
mod apply_file;
mod commands;
mod install;
mod live;
pub mod logging;
mod output;
mod progress;
mod show;
pub mod spelling;
mod state;
mod stores;
mod target;
mod terminal;
mod validate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Plan and apply infrastructure without a state file.
///
/// liveplan reads the live cloud on every plan to find what this estate owns (by the ownership tags it
/// writes on every object it creates), compares it with the configuration (`*.tf`, `*.tf.json`, `*.tofu`
/// and `*.tofu.json` files, as Terraform 1.9 and OpenTofu 1.8 read them) and shows or applies the
/// difference. It never deletes an object it does not own.
///
/// With no `provider "aws"` block, commands run against an embedded simulated cloud kept in
/// `<dir>/.liveplan/cloud.json`, so you can try everything with no account.
#[derive(Debug, Parser)]
#[command(name = "liveplan", about, long_about, disable_version_flag = true)]
#[command(after_help = "Start with `liveplan plan -C examples/quickstart`, then `liveplan apply`.")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Options every command takes.
    #[command(flatten)]
    pub common: Common,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show what apply would change; writes nothing anywhere.
    ///
    /// Reads the configuration, the live system and the estate's records, and prints the changes, the
    /// objects it found but does not own, and every problem. Exit code 0 on success (1 on error); with
    /// `--detailed-exitcode`: 0 no changes, 1 error, 2 changes (withheld ones included).
    Plan {
        /// Exit 0 when there is nothing to change, 2 when there are changes (a create withheld until an
        /// interrupted one may be retried included), 1 on error.
        #[arg(long)]
        detailed_exitcode: bool,
        /// Also save the plan in FILE (owner-only; relative to the configuration directory), for `show
        /// FILE` and `show -json FILE`; a plan with errors is saved too, marked errored.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Show a saved plan (`plan -out FILE`), or with no file what the estate owns.
    ///
    /// `show FILE` prints the plan as `plan` printed it, with no live read; `show -json FILE` prints it as
    /// Terraform's JSON plan representation (for policy checkers and pull-request tools), on one line.
    /// With no FILE, `show` lists the instances the estate owns (address and id) and `show -json` prints
    /// them as Terraform's state representation, both found by reading the live system.
    Show {
        /// The saved plan file.
        file: Option<PathBuf>,
    },
    /// Plan, ask for confirmation, then make the changes; or apply a saved plan (`apply FILE`).
    ///
    /// On a terminal, apply shows the plan and waits for you to type `yes`. Without a terminal (CI,
    /// scripts) it refuses to run unless `--auto-approve` is given. Ctrl-C stops new operations from
    /// starting, lets the running ones finish and exits 1. `apply FILE` applies exactly the plan that
    /// `plan -out FILE` saved, without asking (the plan was the review) and without `-var` or
    /// `-var-file` (the file holds the values); it refuses with `stale-plan`, changing nothing, when
    /// anything the plan relies on moved since.
    Apply {
        /// Apply without asking for confirmation.
        #[arg(long)]
        auto_approve: bool,
        /// A saved plan (`plan -out FILE`; relative to the configuration directory).
        file: Option<PathBuf>,
    },
    /// Plan the destroy of everything this estate owns, ask for confirmation, then destroy it.
    ///
    /// The same as `apply -destroy`: every object the estate owns is planned for deletion, as if the
    /// configuration declared no resource; foreign objects are never touched, and a block with
    /// `prevent_destroy` refuses the plan.
    Destroy {
        /// Destroy without asking for confirmation.
        #[arg(long)]
        auto_approve: bool,
    },
    /// Check the configuration (syntax, references, what may be managed); no live read.
    ///
    /// With `-json`, prints Terraform's validate document (format 1.0: `valid`, `error_count`,
    /// `warning_count`, `diagnostics` with their source `range`), each diagnostic with liveplan's `code`.
    Validate,
    /// Read what the estate owns, as `terraform state list` and `terraform state show` do.
    ///
    /// liveplan keeps no state file: both find the estate's objects by reading the live system, as
    /// `show` does, and write nothing anywhere.
    State {
        /// Which reading.
        #[command(subcommand)]
        command: StateCommand,
    },
    /// The root module's outputs as the last apply recorded them, as `terraform output` prints them.
    ///
    /// With no NAME, every output (`<sensitive>` for a sensitive one); with NAME, its value alone, in
    /// the clear. `-json` prints them as JSON (sensitive values in the clear, as Terraform does), and
    /// `-raw NAME` prints a string, number or bool with no quotes and no newline, for shell scripts.
    Output {
        /// The output to print.
        name: Option<String>,
        /// Print NAME's value as raw text (a string, a number or a bool only).
        #[arg(long)]
        raw: bool,
    },
    /// Take ownership of an existing object by writing this estate's tags on it.
    ///
    /// For a client-named type (a bucket, an IAM role) ADDRESS's configured name is the object. For a
    /// server-named type (a VPC, a subnet), give the bind candidate's id with `--id`, as the plan's
    /// "Adoption candidates" section shows. Only tags change; another estate's object is refused, and so
    /// is an address an apply is creating. `--release ID` does the opposite for a marker collision: it
    /// removes this estate's tags from ID, one of the objects claiming ADDRESS, unless a record names it.
    Adopt {
        /// The declared resource address, e.g. `aws_s3_bucket.data` or `'aws_subnet.this["a"]'`.
        address: String,
        /// The id of the object to adopt (required for server-named types).
        #[arg(long)]
        id: Option<String>,
        /// The id of an object of a marker collision at ADDRESS to take this estate's tags off.
        #[arg(long, value_name = "ID", conflicts_with = "id")]
        release: Option<String>,
    },
    /// Rename an object's address: rewrite its ownership tag and move its records, with no churn.
    ///
    /// Use it after renaming a resource block (or changing a for_each key), so that the next plan
    /// binds the existing object instead of destroying it and creating a new one.
    Mv {
        /// The address the object carries now.
        old: String,
        /// The address it should carry.
        new: String,
        /// Check the rename and show what would change; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Allow NEW even though the configuration does not declare it.
        #[arg(long)]
        allow_missing_config: bool,
    },
    /// Print the execution graph of the current plan as Graphviz DOT (`| dot -Tsvg > plan.svg`).
    Graph {
        /// Print the graph's debug text instead of DOT.
        #[arg(long)]
        debug: bool,
    },
    /// List the estate's micro-state records (key, kind, size, version).
    Records,
    /// Show liveplan's version and the Terraform language level it implements (also `-version`).
    Version,
    /// Check that the configuration directory is ready to plan, as `terraform init` does; changes nothing.
    ///
    /// liveplan has no providers to install (the `aws` and `random` providers are built in) and keeps no
    /// state file, so there is no backend to set up: init reads the configuration, reports what would
    /// stop a plan from reading it (syntax, `required_version`, `required_providers`), installs the
    /// `git::` module sources with the git command into `.terraform/modules/` (with the manifest
    /// `terraform init` writes) and says where the estate's records go. It is harmless to repeat, and
    /// takes the flags CI wrappers pass.
    Init {
        /// Accepted for Terraform's wrappers (`-backend=false`); liveplan has no backend to configure.
        #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
        backend: Option<bool>,
        /// Clone the `git::` module sources again, as `terraform init -upgrade` does.
        #[arg(long)]
        upgrade: bool,
        /// Accepted for Terraform's wrappers; there is no backend to reconfigure.
        #[arg(long)]
        reconfigure: bool,
        /// `-get=false` installs no module.
        #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
        get: Option<bool>,
    },
}

/// The readings of `liveplan state`.
#[derive(Debug, Subcommand)]
pub enum StateCommand {
    /// The addresses of the instances the estate owns, one a line, sorted as Terraform sorts them.
    ///
    /// ADDRESS filters: a resource (`aws_subnet.this`) selects its instances, an instance
    /// (`aws_subnet.this[0]`) itself; an address matching nothing is `unknown-instance`.
    List {
        /// Resource or instance addresses to list (all instances when none is given).
        addresses: Vec<String>,
        /// Only the instance whose id is ID.
        #[arg(long, value_name = "ID")]
        id: Option<String>,
    },
    /// One owned instance's attributes, as the live system holds them, in Terraform's layout.
    Show {
        /// The instance address, e.g. `aws_vpc.main` or `'aws_subnet.this["a"]'`.
        address: String,
    },
}

/// Options every command accepts, before or after the command name.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// The configuration directory (of `*.tf`, `*.tf.json`, `*.tofu` and `*.tofu.json` files).
    #[arg(
        short = 'C',
        long = "chdir",
        value_name = "DIR",
        default_value = ".",
        global = true
    )]
    pub dir: PathBuf,
    /// Set a variable: `--var name=value` (repeatable; wins over files and TF_VAR_name).
    #[arg(long = "var", value_name = "NAME=VALUE", global = true)]
    pub vars: Vec<String>,
    /// Read variables from a file of `name = value` lines (repeatable).
    #[arg(long = "var-file", value_name = "FILE", global = true)]
    pub var_files: Vec<PathBuf>,
    /// The estate name, when the configuration's `live` block gives none (else LIVEPLAN_ESTATE).
    #[arg(long, value_name = "NAME", global = true)]
    pub estate: Option<String>,
    /// Use the simulated cloud persisted in FILE (default `<dir>/.liveplan/cloud.json`).
    #[arg(long, value_name = "FILE", global = true)]
    pub sim: Option<PathBuf>,
    /// With `--sim`, keep the records in the S3 or SSM store the configuration names instead of refusing
    /// it (a simulated cloud's records belong in a local folder beside its file).
    #[arg(long, global = true)]
    pub sim_remote_records: bool,
    /// Print machine-readable JSON (for apply: one JSON event per line).
    #[arg(long, global = true)]
    pub json: bool,
    /// Also list the instances that need no change.
    #[arg(long, global = true)]
    pub verbose: bool,
    /// Never color the output (colors are used only on a terminal anyway).
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Provider operations in flight at once during apply.
    #[arg(long, value_name = "N", default_value_t = 10, global = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub parallelism: u32,
    /// Reads in flight at once during discovery.
    #[arg(long, value_name = "N", default_value_t = 16, global = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub read_concurrency: u32,
    /// Log filter for diagnostics on stderr (`info`, `debug`, `engine=trace`); defaults to RUST_LOG.
    #[arg(long, value_name = "FILTER", global = true)]
    pub log_level: Option<String>,
    /// `-input=false` (or `TF_INPUT=0`): never prompt; apply then needs `-auto-approve`, as in Terraform.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true",
          global = true)]
    pub input: Option<bool>,
    /// Accepted for Terraform's habits: a stateless plan always reads the live system, so only
    /// `-refresh=true` is meaningful; `-refresh=false` is refused.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true",
          global = true)]
    pub refresh: Option<bool>,
    /// Refused: there is no state to refresh; every plan reads the live system.
    #[arg(long, global = true)]
    pub refresh_only: bool,
    /// Accepted and ignored: liveplan takes no state lock (records are written with compare-and-swap).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true",
          global = true)]
    pub lock: Option<bool>,
    /// Plan (or apply) the destroy of everything this estate owns, as `terraform plan -destroy` does.
    #[arg(long, global = true)]
    pub destroy: bool,
    /// Replace this instance even when nothing forces it (repeatable), as `terraform plan -replace`.
    #[arg(long, value_name = "ADDRESS", global = true)]
    pub replace: Vec<String>,
    /// Plan only this resource or instance and what it depends on (repeatable), as Terraform's
    /// `-target`: for exceptional cases; the plan may be incomplete.
    #[arg(long, value_name = "ADDRESS", global = true)]
    pub target: Vec<String>,
    /// Accepted and ignored, like `-lock`.
    #[arg(long, value_name = "DURATION", global = true)]
    pub lock_timeout: Option<String>,
}

impl Common {
    /// Whether a prompt may be shown: not with `-input=false`, nor with `TF_INPUT` set to `false` or `0`.
    pub fn may_prompt(&self) -> bool {
        match self.input {
            Some(given) => given,
            None => !std::env::var("TF_INPUT")
                .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "false" | "0")),
        }
    }

    /// The stateless refusal of `-refresh=false` and `-refresh-only`, if either was given.
    fn refresh_refusal(&self) -> Option<admission::Diagnostic> {
        let flag = if self.refresh_only {
            "-refresh-only"
        } else if self.refresh == Some(false) {
            "-refresh=false"
        } else {
            return None;
        };
        Some(admission::Diagnostic::new(
            admission::Code::UnsupportedOption,
            format!("{flag} is not supported"),
            "liveplan keeps no state file, so every plan reads the live system: there is no stored \
             state to skip refreshing or to refresh alone. Plan without the flag",
        ))
    }
}

/// How a command ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done (or, for `plan --detailed-exitcode`, nothing to change).
    Success,
    /// Refused, failed or cancelled.
    Failure,
    /// `plan --detailed-exitcode` found changes.
    Changes,
}

impl Exit {
    /// The process exit code.
    pub fn as_u8(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Changes => 2,
        }
    }
}

/// Runs one command line to its end.
pub async fn run(cli: Cli) -> Exit {
    let term = terminal::Terminal::detect(cli.common.no_color);
    if let Some(refusal) = cli.common.refresh_refusal() {
        commands::print_refusal(&cli.common, &term, &refusal);
        return Exit::Failure;
    }
    let result = match &cli.command {
        Command::Plan {
            detailed_exitcode,
            out,
        } => commands::plan(&cli.common, &term, *detailed_exitcode, out.as_deref()).await,
        Command::Show { file } => show::show(&cli.common, &term, file.as_deref()).await,
        Command::Apply {
            file: Some(file), ..
        } => apply_file::run(&cli.common, &term, file).await,
        Command::Apply {
            auto_approve,
            file: None,
        } => apply::run(&cli.common, &term, *auto_approve).await,
        Command::Destroy { auto_approve } => {
            let common = Common {
                destroy: true,
                ..cli.common.clone()
            };
            apply::run(&common, &term, *auto_approve).await
        }
        Command::Validate => validate::validate(&cli.common, &term).await,
        Command::State {
            command: StateCommand::List { addresses, id },
        } => state::list(&cli.common, &term, addresses, id.as_deref()).await,
        Command::State {
            command: StateCommand::Show { address },
        } => state::show(&cli.common, &term, address).await,
        Command::Output { name, raw } => {
            output::output(&cli.common, &term, name.as_deref(), *raw).await
        }
        Command::Adopt {
            address,
            release: Some(release),
            ..
        } => commands::release(&cli.common, &term, address, release).await,
        Command::Adopt { address, id, .. } => {
            commands::adopt(&cli.common, &term, address, id.as_deref()).await
        }
        Command::Mv {
            old,
            new,
            dry_run,
            allow_missing_config,
        } => {
            let options = engine::MvOptions {
                dry_run: *dry_run,
                allow_missing_config: *allow_missing_config,
            };
            commands::mv(&cli.common, &term, old, new, options).await
        }
        Command::Graph { debug } => commands::graph(&cli.common, &term, *debug).await,
        Command::Records => commands::records(&cli.common, &term).await,
        Command::Version => commands::version(&cli.common, &term),
        Command::Init { upgrade, get, .. } => {
            commands::init(&cli.common, &term, *upgrade, *get != Some(false))
        }
    };
    match result {
        Ok(exit) => exit,
        Err(e) => {
            term.error(&format!("{e:#}"));
            Exit::Failure
        }
    }
}
