//! What a command works against: the configuration directory's files and variable inputs, the live
//! system (the simulated cloud by default, real AWS with a `provider "aws"` block) and the record store
//! (a local directory by default, S3 with `record_store "s3"`).
//!
//! Opening is side-effect free for commands that only read: a missing sim file reads as an empty cloud
//! and a missing local record directory as an empty store, and neither is created. This module must
//! never plan or write anything itself.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use admission::{Config, ProviderKind, RecordStoreKind, SourceFile, VarInput, VariableInputs};
use admission::{EstateSource, OutsideEstate, Value};
use admission::{Evaluator, Instance, ModuleContext};
use anyhow::Context as _;
use staterecord::Store;

use super::Common;
use super::live::Live;

/// The directory (under the configuration directory) where the embedded defaults live.
pub const STATE_DIR: &str = ".liveplan";

/// The environment variable that names the estate when neither the configuration nor `--estate` does.
pub const ESTATE_ENV: &str = "LIVEPLAN_ESTATE";

/// The configuration and variable inputs of one command.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The configuration directory.
    pub dir: PathBuf,
    /// The configuration files (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`, `liveplan.hcl`).
    pub files: Vec<SourceFile>,
    /// The estate named from outside the configuration: `--estate`, else `LIVEPLAN_ESTATE`.
    pub outside_estate: Option<(String, EstateSource)>,
    /// Variable values from the environment, the automatic var files and the command line.
    pub variables: VariableInputs,
    /// Where the configuration's expressions run: the configuration directory, `TF_WORKSPACE`, `HOME`.
    pub module: ModuleContext,
    /// The configuration as far as it parses (to pick the provider and the store).
    pub config: Config,
    /// The variables' values as far as they resolve.
    pub values: BTreeMap<String, Value>,
    /// The record key prefix of an S3 record store (empty, or ending with `/`).
    pub key_prefix: String,
    /// The simulated cloud's file given with `--sim`, joined to the configuration directory.
    pub sim: Option<PathBuf>,
    /// `--sim-remote-records`: an S3 or SSM record store is kept under `--sim`.
    pub sim_remote_records: bool,
}

impl Inputs {
    /// Refuses a directory without a configuration file (`liveplan.hcl` alone is none), as Terraform
    /// does: a stateless plan of an empty configuration would destroy everything the estate owns, which
    /// a command run in the wrong directory (with `--estate`) must never propose.
    pub fn require_configuration(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.files
                .iter()
                .any(|f| f.name != admission::LIVEPLAN_FILE),
            "no configuration files (*.tf, *.tf.json, *.tofu, *.tofu.json) in {}: planning without a \
             configuration would destroy everything the estate owns. To destroy it all on purpose, keep \
             a configuration with only its `live` block (or an empty main.tf beside liveplan.hcl)",
            self.dir.display()
        );
        Ok(())
    }

    /// [`Inputs::read`], then [`Inputs::require_configuration`].
    pub fn read_configured(common: &Common) -> anyhow::Result<Inputs> {
        let inputs = Inputs::read(common)?;
        inputs.require_configuration()?;
        Ok(inputs)
    }

    /// A failure of [`Inputs::read_configured`] as the diagnostic a `-json` command prints in its document.
    pub fn unreadable(e: &anyhow::Error) -> admission::Diagnostic {
        admission::Diagnostic::new(
            admission::Code::NoConfiguration,
            format!("{e:#}"),
            "run liveplan in the configuration directory, or name it with -C DIR",
        )
    }

    /// Reads the configuration directory and every variable source.
    pub fn read(common: &Common) -> anyhow::Result<Inputs> {
        let dir = common.dir.clone();
        let read = admission::read_dir(&dir).with_context(|| {
            format!("cannot read the configuration directory {}", dir.display())
        })?;
        let mut cli = Vec::new();
        let mut vars = common.vars.iter();
        let mut files = common.var_files.iter();
        for is_file in var_order(std::env::args(), common.vars.len(), common.var_files.len()) {
            if is_file {
                if let Some(given) = files.next() {
                    // Relative to the configuration directory, as after Terraform's `-chdir`; shown as given.
                    let path = given;
                    let read_from = dir.join(given);
                    // An unreadable file is a diagnostic of the plan, like a bad `--var`.
                    cli.push(match std::fs::read_to_string(&read_from) {
                        Ok(text) => {
                            VarInput::File(SourceFile::new(path.display().to_string(), text))
                        }
                        Err(e) => VarInput::Unreadable {
                            path: path.display().to_string(),
                            reason: e.to_string(),
                        },
                    });
                }
            } else if let Some(v) = vars.next() {
                cli.push(VarInput::Var(v.clone()));
            }
        }
        let variables = VariableInputs {
            env: std::env::vars()
                .filter(|(k, _)| k.starts_with("TF_VAR_"))
                .collect(),
            auto_files: read.var_files,
            cli,
        };
        let module = ModuleContext::from_environment(&dir);
        let (mut config, _) = admission::parse_config(&read.config_files);
        config.set_module(module.clone());
        let (values, _) = admission::resolve_variables(&config, &variables);
        let outside_estate = match &common.estate {
            Some(name) => Some((name.clone(), EstateSource::Flag)),
            None => std::env::var(ESTATE_ENV)
                .ok()
                .filter(|v| !v.is_empty())
                .map(|v| (v, EstateSource::Environment)),
        };
        let mut inputs = Inputs {
            dir: dir.clone(),
            files: read.config_files,
            outside_estate,
            variables,
            module,
            config,
            values,
            key_prefix: String::new(),
            sim: common.sim.as_ref().map(|p| dir.join(p)),
            sim_remote_records: common.sim_remote_records,
        };
        inputs.key_prefix = inputs.s3_key_prefix();
        Ok(inputs)
    }

    /// The inputs of `apply FILE`: the saved plan's configuration, estate and variable values (those not
    /// sensitive: the engine opens the sealed ones), with the configuration directory's module context.
    pub fn from_saved(common: &Common, saved: &engine::SavedPlan) -> Inputs {
        let dir = common.dir.clone();
        let files: Vec<SourceFile> = saved
            .configuration()
            .iter()
            .map(|f| SourceFile::new(f.name.clone(), f.text.clone()))
            .collect();
        let variables = saved.clear_variables();
        let module = ModuleContext::from_environment(&dir);
        let (mut config, _) = admission::parse_config(&files);
        config.set_module(module.clone());
        let (values, _) = admission::resolve_variables(&config, &variables);
        let mut inputs = Inputs {
            dir: dir.clone(),
            files,
            outside_estate: saved
                .outside_estate()
                .map(|name| (name.to_owned(), EstateSource::Flag)),
            variables,
            module,
            config,
            values,
            key_prefix: String::new(),
            sim: common.sim.as_ref().map(|p| dir.join(p)),
            sim_remote_records: common.sim_remote_records,
        };
        inputs.key_prefix = inputs.s3_key_prefix();
        inputs
    }

    /// The `key_prefix` of a `record_store "s3"` block, ending with `/` when not empty.
    fn s3_key_prefix(&self) -> String {
        let block = self
            .config
            .live
            .as_ref()
            .and_then(|l| l.record_store.as_ref())
            .filter(|b| b.kind == RecordStoreKind::S3);
        let prefix = block
            .and_then(|b| self.setting_str(b.settings.get("key_prefix")))
            .unwrap_or_default();
        let prefix = prefix.trim_matches('/');
        if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        }
    }

    /// What the engine reads of these inputs: the files, the variables and the estate named from
    /// outside.
    pub fn sources(&self) -> engine::Sources<'_> {
        let outside = self
            .outside_estate
            .as_ref()
            .map(|(name, source)| OutsideEstate {
                name,
                source: *source,
            });
        engine::Sources::new(&self.files, &self.variables)
            .with_outside_estate(outside)
            .with_module(&self.module)
    }

    /// The engine over `live` and `store` with the command line's settings.
    pub fn engine(&self, common: &Common, live: &Live, store: Arc<dyn Store>) -> engine::Engine {
        engine::Engine::new(Arc::clone(&live.provider), store)
            .with_read_concurrency(common.read_concurrency as usize)
            .with_key_prefix(&self.key_prefix)
    }

    /// A static string setting of the configuration (provider region, record store setting).
    pub(super) fn setting(&self, attr: Option<&admission::Attr>) -> Option<Value> {
        let attr = attr?;
        Evaluator::new(&self.config, &self.values)
            .eval(&attr.expr, &Instance::Single)
            .ok()
    }

    pub(super) fn setting_str(&self, attr: Option<&admission::Attr>) -> Option<String> {
        self.setting(attr)
            .and_then(|v| v.as_str().map(str::to_owned))
    }

    /// The provider block the live system is opened with ([`Config::live_provider`]) and its region.
    pub fn provider_kind(&self) -> Option<(ProviderKind, Option<String>)> {
        let block = self.config.live_provider()?;
        Some((block.kind, self.setting_str(block.region.as_ref())))
    }

    /// Whether the command runs against a simulated cloud: `--sim FILE`, or a configuration without an
    /// `aws` provider block.
    pub fn on_sim(&self) -> bool {
        self.sim.is_some()
            || self
                .provider_kind()
                .is_none_or(|(kind, _)| kind != ProviderKind::Aws)
    }

    /// The simulated cloud's file: `--sim FILE` (relative to the configuration directory, as after
    /// Terraform's `-chdir`), else `<dir>/.liveplan/cloud.json`.
    pub fn sim_file(&self) -> PathBuf {
        self.sim
            .clone()
            .unwrap_or_else(|| self.dir.join(STATE_DIR).join("cloud.json"))
    }
}

/// The order `--var` (false) and `--var-file` (true) were given in, recovered from the raw arguments so
/// that later ones win as in Terraform. Falls back to files first when the counts do not add up.
fn var_order(args: impl Iterator<Item = String>, vars: usize, files: usize) -> Vec<bool> {
    let mut order = Vec::new();
    let mut after_separator = false;
    for arg in args.skip(1) {
        if after_separator {
            break;
        }
        if arg == "--" {
            after_separator = true;
        } else if arg == "--var-file" || arg.starts_with("--var-file=") {
            order.push(true);
        } else if arg == "--var" || arg.starts_with("--var=") {
            order.push(false);
        }
    }
    let counted_files = order.iter().filter(|f| **f).count();
    if counted_files != files || order.len() - counted_files != vars {
        order = std::iter::repeat_n(true, files)
            .chain(std::iter::repeat_n(false, vars))
            .collect();
    }
    order
}

/// Whether a command may write (apply, adopt, mv) or only reads (plan, graph, records, validate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only: nothing is created on disk.
    Read,
    /// Reads and writes.
    Write,
}

#[cfg(test)]
mod tests {
    use super::var_order;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        std::iter::once("liveplan".to_owned()).chain(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn var_order_follows_the_command_line() {
        let order = var_order(
            args(&["plan", "--var", "a=1", "--var-file=x.tfvars", "--var=b=2"]),
            2,
            1,
        );
        assert_eq!(order, vec![false, true, false]);
    }

    #[test]
    fn var_order_falls_back_to_files_first_when_counts_differ() {
        assert_eq!(var_order(args(&["plan"]), 1, 1), vec![true, false]);
    }
}
