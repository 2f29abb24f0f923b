//! Saved plans on the command line: `plan -out FILE` writes one (`apply FILE` applies it, in
//! `apply_file`), `show FILE` prints it as `plan` printed it, `show -json FILE` as Terraform's JSON plan representation, and `show -json` with no file prints
//! what discovery finds as Terraform's state representation.
//!
//! A plan file is written owner-only (0600), whole or not at all (a temporary file beside it, renamed
//! over it). A path is relative to the configuration directory, as after Terraform's `-chdir`. `show`
//! never writes anything, and `show FILE` reads nothing live: the file is the plan.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use admission::{Code, Diagnostic};
use anyhow::Context as _;
use engine::{Plan, SavedPlan, SystemClock};

use super::commands::{self, Planned};
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit};

/// `path` as a command names it: relative to the configuration directory.
pub fn plan_file_path(common: &Common, path: &Path) -> PathBuf {
    common.dir.join(path)
}

/// Writes `planned`'s plan, made from `inputs` with the command line's options, to `path`: owner-only,
/// and never half written. An applicable plan carries what `apply FILE` needs (its sensitive variables
/// sealed under the estate's key, which the record store keeps).
pub async fn write_plan_file(
    common: &Common,
    path: &Path,
    planned: &Planned,
    inputs: &Inputs,
) -> anyhow::Result<()> {
    let saved = match (&planned.engine, commands::plan_options(common)) {
        (Some(engine), Ok(options)) => engine
            .save(&planned.plan, inputs.sources(), &options)
            .await
            .context("the plan could not be saved")?,
        (Some(engine), Err(_)) => {
            SavedPlan::of(&planned.plan, &inputs.files, engine.clock().as_ref())
        }
        (None, _) => SavedPlan::of(&planned.plan, &inputs.files, &SystemClock),
    };
    write_private(path, &saved.to_bytes())
        .with_context(|| format!("cannot write the plan file {}", path.display()))
}

/// `bytes` into `path` with mode 0600, through a temporary file in the same directory renamed over it.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan".to_owned());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let result = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Reads a saved plan file, or the `invalid-plan-file` diagnostic saying why it cannot be read.
pub fn read_plan_file(path: &Path) -> Result<SavedPlan, Box<Diagnostic>> {
    let invalid = |why: String| {
        Box::new(Diagnostic::new(
            Code::InvalidPlanFile,
            format!("{} cannot be read as a plan file: {why}", path.display()),
            "give a file that `liveplan plan -out FILE` wrote",
        ))
    };
    let bytes = std::fs::read(path).map_err(|e| invalid(e.to_string()))?;
    SavedPlan::from_slice(&bytes).map_err(|e| invalid(e.to_string()))
}

/// `liveplan show [FILE]`.
pub async fn show(common: &Common, term: &Terminal, file: Option<&Path>) -> anyhow::Result<Exit> {
    let Some(file) = file else {
        return show_state(common, term).await;
    };
    let saved = match read_plan_file(&plan_file_path(common, file)) {
        Ok(saved) => saved,
        Err(d) => {
            commands::print_refusal(common, term, &d);
            return Ok(Exit::Failure);
        }
    };
    if common.json {
        term.out(&saved.plan_json());
    } else {
        term.plan_text(saved.text(common.verbose));
    }
    Ok(Exit::Success)
}

/// `liveplan show` with no file: the instances the estate owns, found by discovery, as Terraform's state
/// representation with `-json`, else one line per instance (address and id).
async fn show_state(common: &Common, term: &Terminal) -> anyhow::Result<Exit> {
    let inputs = Inputs::read(common)?;
    let planned = commands::make_plan(common, &inputs, Access::Read).await?;
    let plan = &planned.plan;
    if !plan.applicable() {
        // The diagnostics say why the live system could not be read as this estate's.
        commands::show_plan(common, term, plan);
        return Ok(Exit::Failure);
    }
    if common.json {
        term.line(&engine::tfjson::state_document(plan).to_string());
    } else {
        term.out(&state_text(plan));
    }
    Ok(Exit::Success)
}

/// The owned instances, one `ADDRESS  ID` line each, or a sentence saying there are none.
fn state_text(plan: &Plan) -> String {
    let mut out = String::new();
    for (address, object) in plan.priors() {
        out.push_str(&format!("{address}  {}\n", object.id));
    }
    if out.is_empty() {
        out.push_str("The estate owns no objects.\n");
    }
    out
}
