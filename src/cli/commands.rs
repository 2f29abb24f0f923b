//! The commands that read or make one small change: `plan`, `adopt`, `mv`, `graph` and `records` (apply,
//! with its prompt and progress, `validate`, `state` and `output` have modules of their own).
//!
//! Each command opens its target, calls one engine function and prints the result for a person or, with
//! `--json`, for a machine. None of them prompts, and `plan`, `graph` and `records` never
//! write anything: not to the cloud, not to the store, not to the sim file.

use admission::{Code, Diagnostic, InstanceAddress, Severity};
use anyhow::Context as _;
use engine::render::{self, RenderOptions};
use engine::{Engine, MvOptions, Plan, Validation};
use fixtures::{SimCloud, SimConfig};
use provider::Catalog;
use serde_json::json;

use super::live;
use super::stores;
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit};

/// A plan with the engine (the live system and the store) it was made with: absent when they could not
/// be opened, in which case the plan holds the diagnostic saying why.
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// The engine over the live system and the store.
    pub engine: Option<Engine>,
    /// The simulated cloud the plan was made against, when it is one.
    pub sim: Option<std::sync::Arc<SimCloud>>,
}

/// Opens the target and plans. A live system or store that cannot be opened or read gives a plan holding
/// only the configuration's diagnostics and the one saying what went wrong.
pub async fn make_plan(
    common: &Common,
    inputs: &Inputs,
    access: Access,
) -> anyhow::Result<Planned> {
    inputs.require_configuration()?;
    let live = match live::open_live(inputs).await {
        Ok(live) => live,
        Err(d) => {
            return Ok(Planned {
                plan: refused_plan(inputs, d),
                engine: None,
                sim: None,
            });
        }
    };
    let store = match stores::open_store(inputs, access).await? {
        Ok(store) => store,
        Err(d) => {
            return Ok(Planned {
                plan: refused_plan(inputs, d),
                engine: None,
                sim: None,
            });
        }
    };
    let engine = inputs.engine(common, &live, store);
    let options = match plan_options(common) {
        Ok(options) => options,
        Err(d) => {
            return Ok(Planned {
                plan: refused_plan(inputs, *d),
                engine: None,
                sim: None,
            });
        }
    };
    let plan = match engine.plan_with(inputs.sources(), &options).await {
        Ok(plan) => plan.with_diagnostics(live.warnings),
        // An unreadable record store or a configuration the lint let through but the projection cannot
        // use: reported like any other finding, so `plan --json` still prints one plan.
        Err(e) => refused_plan(inputs, e.to_diagnostic()),
    };
    Ok(Planned {
        plan,
        engine: Some(engine),
        sim: live.sim,
    })
}

/// The plan options of the command line: `-destroy`, `-replace=ADDR` and `-target=ADDR`. An address that
/// does not parse is `invalid-address`.
pub(super) fn plan_options(common: &Common) -> Result<engine::PlanOptions, Box<Diagnostic>> {
    let invalid = |flag: &str, given: &str, e: admission::Error| {
        Box::new(Diagnostic::new(
            Code::InvalidAddress,
            format!("-{flag}={given} is not a resource address: {e}"),
            "give an address as the plan lists it: TYPE.NAME, TYPE.NAME[0] or 'TYPE.NAME[\"key\"]'",
        ))
    };
    let mut options = engine::PlanOptions::default();
    if common.destroy {
        options = options.with_mode(engine::PlanMode::Destroy);
    }
    for given in &common.replace {
        let address = given.parse().map_err(|e| invalid("replace", given, e))?;
        options = options.with_replace(address);
    }
    for given in &common.target {
        let target = given.parse().map_err(|e| invalid("target", given, e))?;
        options = options.with_target(target);
    }
    Ok(options)
}

/// The resource types of the live system a command runs against (the AWS provider's, or the simulated
/// cloud's under `--sim` or without an `aws` block), known without opening it.
fn offline_catalog(inputs: &Inputs) -> Catalog {
    use provider::Provider as _;
    #[cfg(feature = "aws")]
    if !inputs.on_sim() {
        return liveplan::aws::catalog();
    }
    #[cfg(not(feature = "aws"))]
    let _ = inputs;
    SimCloud::new(SimConfig::default()).schemas().clone()
}

/// The configuration's own findings, made without the live system.
pub(super) fn offline_validation(inputs: &Inputs) -> Validation {
    engine::validate(inputs.sources(), &offline_catalog(inputs))
}

/// A plan that could not be made (the live system or the store could not be opened or read): the lint's
/// findings plus `problem`, and no changes.
fn refused_plan(inputs: &Inputs, problem: Diagnostic) -> Plan {
    offline_validation(inputs).into_refused_plan(problem)
}

/// An address given on the command line, or the error saying why it is none.
fn address(text: &str) -> Result<InstanceAddress, engine::Error> {
    text.parse()
        .map_err(|e: admission::Error| engine::Error::InvalidAddress {
            input: text.to_owned(),
            reason: e.to_string(),
        })
}

/// Prints a plan: the JSON document with `--json`, else the human text.
pub fn show_plan(common: &Common, term: &Terminal, plan: &Plan) {
    let options = RenderOptions {
        verbose: common.verbose,
    };
    if common.json {
        term.out(&render::json(plan, options));
    } else {
        term.plan_text(&render::text(plan, options));
    }
}

/// `liveplan plan`.
pub async fn plan(
    common: &Common,
    term: &Terminal,
    detailed_exitcode: bool,
    out: Option<&std::path::Path>,
) -> anyhow::Result<Exit> {
    let inputs = match Inputs::read_configured(common) {
        Ok(inputs) => inputs,
        // `plan --json` prints one plan whatever happens; a person reads the error on stderr.
        Err(e) if common.json => {
            let problem = Inputs::unreadable(&e);
            show_plan(
                common,
                term,
                &Validation::default().into_refused_plan(problem),
            );
            return Ok(Exit::Failure);
        }
        Err(e) => return Err(e),
    };
    // A saved plan may seal sensitive values under the estate's key, which the record store keeps.
    let access = if out.is_some() {
        Access::Write
    } else {
        Access::Read
    };
    let planned = make_plan(common, &inputs, access).await?;
    show_plan(common, term, &planned.plan);
    if let Some(out) = out {
        let path = super::show::plan_file_path(common, out);
        super::show::write_plan_file(common, &path, &planned, &inputs).await?;
    }
    Ok(if !planned.plan.applicable() {
        Exit::Failure
    } else if detailed_exitcode && !planned.plan.summary().is_empty() {
        Exit::Changes
    } else {
        Exit::Success
    })
}

/// Diagnostics as the text commands print: one `Error:` or `Warning:` paragraph each, with its code.
pub(super) fn diagnostics_text(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let label = match d.severity() {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        out.push_str(&format!("{label}: {} [{}]", d.summary, d.code));
        if let Some(pos) = &d.pos {
            out.push_str(&format!(" ({pos})"));
        }
        out.push('\n');
        if let Some(a) = &d.address {
            out.push_str(&format!("  on {a}\n"));
        }
        if !d.ids().is_empty() {
            out.push_str(&format!("  objects: {}\n", d.ids().join(", ")));
        }
        if !d.detail.is_empty() {
            out.push_str(&format!("  {}\n", d.detail));
        }
        out.push('\n');
    }
    out
}

fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity() == Severity::Error)
}

/// `liveplan version` (also `-version`, `--version`, `-v`): liveplan's version and the language level it
/// implements, the Terraform release (and the OpenTofu one, which `.tofu` files' `required_version`
/// names) whose configurations it plans, and the AWS provider release whose resource arguments it takes.
pub fn version(common: &Common, term: &Terminal) -> anyhow::Result<Exit> {
    let ours = env!("CARGO_PKG_VERSION");
    if common.json {
        // Terraform's `version -json` fields first (wrappers read `terraform_version`), then liveplan's.
        let doc = json!({
            "terraform_version": admission::TERRAFORM_VERSION,
            "platform": platform(),
            "provider_selections": {},
            "terraform_outdated": false,
            "liveplan_version": ours,
            "opentofu_version": admission::OPENTOFU_VERSION,
            "language_additions": admission::LANGUAGE_ADDITIONS,
            "aws_provider_version": admission::AWS_PROVIDER_VERSION,
        });
        term.line(&serde_json::to_string_pretty(&doc)?);
    } else {
        term.line(&format!("liveplan {ours}"));
        term.line(&format!(
            "language: Terraform {} (OpenTofu {} in .tofu files)",
            admission::TERRAFORM_VERSION,
            admission::OPENTOFU_VERSION
        ));
        for addition in admission::LANGUAGE_ADDITIONS {
            term.line(&format!("beyond that level: {addition}"));
        }
        term.line(&format!(
            "resource arguments: hashicorp/aws v{}",
            admission::AWS_PROVIDER_VERSION
        ));
    }
    Ok(Exit::Success)
}

/// Prints the outcome of `adopt` or `mv` and turns it into an exit code.
fn ownership_outcome(
    common: &Common,
    term: &Terminal,
    outcome: &engine::OwnershipOutcome,
    done: &str,
) -> anyhow::Result<Exit> {
    let ok = outcome.succeeded();
    if common.json {
        let doc = json!({
            "ok": ok,
            "id": outcome.id,
            "diagnostics": outcome.diagnostics.iter().map(render::diagnostic_json).collect::<Vec<_>>(),
        });
        term.line(&serde_json::to_string_pretty(&doc)?);
    } else {
        term.plan_text(&diagnostics_text(&outcome.diagnostics));
        if ok {
            term.line(&term.green(done));
        }
    }
    Ok(if ok && !has_errors(&outcome.diagnostics) {
        Exit::Success
    } else {
        Exit::Failure
    })
}

/// The platform as Terraform names it (`linux_amd64`, `darwin_arm64`).
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!("{}_{arch}", std::env::consts::OS)
}

/// `liveplan init`: reads the configuration and reports what would stop a plan from reading it (the
/// parse's errors: syntax, `required_version`, `required_providers`, blocks declared twice); installs
/// and writes nothing, so it is harmless to repeat.
pub fn init(common: &Common, term: &Terminal, upgrade: bool, get: bool) -> anyhow::Result<Exit> {
    let inputs = Inputs::read_configured(common)?;
    let (_, diagnostics) = admission::parse_config(&inputs.files);
    let errors: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    if !errors.is_empty() {
        term.plan_text(&diagnostics_text(&errors));
        term.line(
            "liveplan could not read this configuration; fix the errors above and run init again.",
        );
        return Ok(Exit::Failure);
    }
    term.line("Initializing liveplan in this directory...");
    term.line("- Providers: aws and random are built in; there is nothing to install.");
    if get {
        match super::install::install(&inputs.dir, &inputs.files, upgrade) {
            Ok(installed) => {
                for m in installed {
                    let how = if m.cloned {
                        "cloned into"
                    } else {
                        "already in"
                    };
                    term.line(&format!("- Module {}: {} {how} {}", m.key, m.source, m.dir));
                }
            }
            Err(why) => {
                let problem = Diagnostic::new(
                    admission::Code::ModuleSource,
                    why,
                    "fix the module's source, or install it with `terraform init`, and run init again",
                );
                term.plan_text(&diagnostics_text(&[problem]));
                return Ok(Exit::Failure);
            }
        }
    }
    term.line(&format!(
        "- State: none. This estate's records go to {}.",
        super::stores::records_location(&inputs)
    ));
    term.line("");
    term.line("liveplan has been successfully initialized!");
    Ok(Exit::Success)
}

/// Prints a refusal of the command line itself (before anything is read), as a setup problem is printed.
pub fn print_refusal(common: &Common, term: &Terminal, problem: &Diagnostic) {
    let _ = setup_failure(common, term, problem);
}

/// Prints the problems that stop a command before it changes anything.
pub fn print_refusals(common: &Common, term: &Terminal, problems: &[Diagnostic]) {
    if common.json {
        let diagnostics: Vec<_> = problems.iter().map(render::diagnostic_json).collect();
        let doc = json!({ "ok": false, "diagnostics": diagnostics });
        term.line(&serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        term.plan_text(&diagnostics_text(problems));
    }
}

/// Prints a setup problem (live system or store) and fails.
fn setup_failure(common: &Common, term: &Terminal, problem: &Diagnostic) -> anyhow::Result<Exit> {
    if common.json {
        let doc = json!({ "ok": false, "diagnostics": [render::diagnostic_json(problem)] });
        term.line(&serde_json::to_string_pretty(&doc)?);
    } else {
        term.plan_text(&diagnostics_text(std::slice::from_ref(problem)));
    }
    Ok(Exit::Failure)
}

/// `liveplan adopt ADDRESS [--id ID]`.
pub async fn adopt(
    common: &Common,
    term: &Terminal,
    address: &str,
    id: Option<&str>,
) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let live = match live::open_live(&inputs).await {
        Ok(live) => live,
        Err(d) => return setup_failure(common, term, &d),
    };
    // Adoption reads the records as a plan does (to check the object against the declaration) and writes
    // the ones the adopted object needs (located, slots).
    let store = match stores::open_store(&inputs, Access::Write).await? {
        Ok(store) => store,
        Err(d) => return setup_failure(common, term, &d),
    };
    let target = self::address(address)?;
    let outcome = inputs
        .engine(common, &live, store)
        .adopt(inputs.sources(), &target, id)
        .await?;
    let done = format!(
        "Adopted {} as {address}: the next plan binds it.",
        outcome.id.as_deref().unwrap_or("the object")
    );
    ownership_outcome(common, term, &outcome, &done)
}

/// `liveplan adopt ADDRESS --release ID`.
pub async fn release(
    common: &Common,
    term: &Terminal,
    address: &str,
    id: &str,
) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let live = match live::open_live(&inputs).await {
        Ok(live) => live,
        Err(d) => return setup_failure(common, term, &d),
    };
    // A release reads the records (to refuse an object one names) and writes none.
    let store = match stores::open_store(&inputs, Access::Read).await? {
        Ok(store) => store,
        Err(d) => return setup_failure(common, term, &d),
    };
    let target = self::address(address)?;
    let outcome = inputs
        .engine(common, &live, store)
        .release(inputs.sources(), &target, id)
        .await?;
    let done = format!(
        "Released {id} from {address}: it no longer carries this estate's tags, and the next plan lists it \
         as a foreign object."
    );
    ownership_outcome(common, term, &outcome, &done)
}

/// `liveplan mv OLD NEW`.
pub async fn mv(
    common: &Common,
    term: &Terminal,
    old: &str,
    new: &str,
    options: MvOptions,
) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let live = match live::open_live(&inputs).await {
        Ok(live) => live,
        Err(d) => return setup_failure(common, term, &d),
    };
    let access = if options.dry_run {
        Access::Read
    } else {
        Access::Write
    };
    let store = match stores::open_store(&inputs, access).await? {
        Ok(store) => store,
        Err(d) => return setup_failure(common, term, &d),
    };
    let (from, to) = (address(old)?, address(new)?);
    let outcome = inputs
        .engine(common, &live, store)
        .mv(inputs.sources(), &from, &to, options)
        .await?;
    let id = outcome.id.as_deref().unwrap_or("the object");
    let done = if options.dry_run {
        format!("Would move {id} from {old} to {new} (dry run: nothing was changed).")
    } else {
        format!("Moved {id} from {old} to {new}.")
    };
    ownership_outcome(common, term, &outcome, &done)
}

/// `liveplan graph [--debug]`.
pub async fn graph(common: &Common, term: &Terminal, debug: bool) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let planned = make_plan(common, &inputs, Access::Read).await?;
    if !planned.plan.applicable() {
        term.plan_text(&diagnostics_text(&planned.plan.diagnostics));
        term.error("the plan has errors, so it has no execution graph");
        return Ok(Exit::Failure);
    }
    let graph = engine::graph::build(&planned.plan).context("the execution graph is invalid")?;
    if debug {
        term.out(&graph.debug_repr());
    } else {
        term.out(&graph.to_dot());
    }
    Ok(Exit::Success)
}

/// `liveplan records`: the estate's records, one line each.
pub async fn records(common: &Common, term: &Terminal) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let linted = offline_validation(&inputs);
    let Some(estate) = linted.estate.clone() else {
        let estate_problems: Vec<Diagnostic> = linted
            .diagnostics
            .into_iter()
            .filter(|d| d.severity() == Severity::Error)
            .collect();
        term.plan_text(&diagnostics_text(&estate_problems));
        term.error("no estate: set `estate` in the live block or pass --estate");
        return Ok(Exit::Failure);
    };
    let store = match stores::open_store(&inputs, Access::Read).await? {
        Ok(store) => store,
        Err(d) => return setup_failure(common, term, &d),
    };
    let prefix = format!("{}{estate}/", inputs.key_prefix);
    let mut keys = store
        .list(&prefix)
        .await
        .context("the record store could not be listed")?;
    keys.sort();
    let mut rows = Vec::new();
    for key in keys {
        let Some(record) = store
            .get(&key)
            .await
            .with_context(|| format!("the record {key} could not be read"))?
        else {
            continue;
        };
        let kind = key
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or("")
            .to_owned();
        rows.push((
            key,
            kind,
            record.payload.len(),
            record.version.as_str().to_owned(),
        ));
    }
    if common.json {
        let doc: Vec<_> = rows
            .iter()
            .map(|(key, kind, size, version)| {
                json!({ "key": key, "kind": kind, "size": size, "version": version })
            })
            .collect();
        term.line(&serde_json::to_string_pretty(
            &json!({ "estate": estate, "records": doc }),
        )?);
    } else if rows.is_empty() {
        term.line(&format!("No records for estate {estate}."));
    } else {
        let w_key = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).max(3);
        let w_kind = rows.iter().map(|r| r.1.len()).max().unwrap_or(4).max(4);
        let mut out = term.bold(&format!(
            "{:<w_key$}  {:<w_kind$}  {:>6}  VERSION",
            "KEY", "KIND", "SIZE"
        ));
        out.push('\n');
        for (key, kind, size, version) in &rows {
            out.push_str(&format!(
                "{key:<w_key$}  {kind:<w_kind$}  {size:>6}  {version}\n"
            ));
        }
        term.out(&out);
    }
    Ok(Exit::Success)
}
