//! `liveplan apply FILE`: apply exactly the plan `plan -out FILE` saved, without planning anew.
//!
//! As in Terraform, the saved plan was the review: `apply FILE` never prompts, and refuses `-var`,
//! `-var-file` and the planning options (`-destroy`, `-target`, `-replace`), since the file holds what
//! the plan was made with. The engine checks everything the plan relies on first
//! ([`engine::Engine::review_saved`]); a plan with errors, or one that something moved under
//! (`stale-plan`, each moved object or record named), is refused and nothing is changed. This module
//! must never apply a plan the engine refused.

use std::path::Path;

use admission::{Code, Diagnostic};
use engine::SavedReview;
use serde_json::json;

use super::commands::print_refusals;
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit, live, show, stores};

/// `liveplan apply FILE`.
pub async fn run(common: &Common, term: &Terminal, file: &Path) -> anyhow::Result<Exit> {
    if let Some(refusal) = planning_flags(common) {
        return Ok(refuse(common, term, &[refusal]));
    }
    let saved = match show::read_plan_file(&show::plan_file_path(common, file)) {
        Ok(saved) => saved,
        Err(d) => return Ok(refuse(common, term, &[*d])),
    };
    let inputs = Inputs::from_saved(common, &saved);
    let live = match live::open_live(&inputs).await {
        Ok(live) => live,
        Err(d) => return Ok(refuse(common, term, &[d])),
    };
    let store = match stores::open_store(&inputs, Access::Write).await? {
        Ok(store) => store,
        Err(d) => return Ok(refuse(common, term, &[d])),
    };
    let engine = inputs.engine(common, &live, store);
    let reviewed = match engine.review_saved(&saved, Some(&inputs.module)).await {
        Ok(SavedReview::Current(reviewed)) => reviewed,
        Ok(SavedReview::Refused(problems)) => return Ok(refuse(common, term, &problems)),
        Err(e) => return Ok(refuse(common, term, &[e.to_diagnostic()])),
    };
    let plan = reviewed.plan();
    if plan.summary().is_empty() && !plan.has_record_work() {
        if common.json {
            println!(
                "{}",
                json!({"type": "summary", "applied": true, "add": 0, "change": 0, "destroy": 0})
            );
        } else {
            term.line(&term.green("Apply complete! Resources: 0 added, 0 changed, 0 destroyed."));
        }
        return Ok(Exit::Success);
    }
    super::apply::execute(common, term, &engine, &reviewed, live.sim.as_deref()).await
}

/// The refusal of options a saved plan already settled: variables and the planning options.
fn planning_flags(common: &Common) -> Option<Diagnostic> {
    let mut given = Vec::new();
    if !common.vars.is_empty() {
        given.push("-var");
    }
    if !common.var_files.is_empty() {
        given.push("-var-file");
    }
    if common.destroy {
        given.push("-destroy");
    }
    if !common.target.is_empty() {
        given.push("-target");
    }
    if !common.replace.is_empty() {
        given.push("-replace");
    }
    if given.is_empty() {
        return None;
    }
    Some(Diagnostic::new(
        Code::UnsupportedOption,
        format!(
            "apply FILE takes no {}: the saved plan holds the variable values and options it was made with",
            given.join(", ")
        ),
        "give them to `liveplan plan -out FILE` instead, review that plan, then apply the new file",
    ))
}

/// Prints `problems` and says that nothing was applied.
fn refuse(common: &Common, term: &Terminal, problems: &[Diagnostic]) -> Exit {
    print_refusals(common, term, problems);
    if !common.json {
        term.error("the saved plan was not applied; nothing was changed");
    }
    Exit::Failure
}
