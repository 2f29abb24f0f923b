//! `liveplan apply`: plan, show, confirm, apply, report.
//!
//! Confirmation is a typed `yes` on a terminal, or `--auto-approve`; without a terminal and without the
//! flag apply refuses, so a script never hangs on a prompt. SIGINT and SIGTERM cancel the apply: running
//! operations finish and write their records, nothing new starts, and the command exits 1 with
//! `cancelled`. This module must never apply a plan that has an error diagnostic.

use std::io::{BufRead as _, Write as _};
use std::num::NonZeroUsize;
use std::time::Duration;

use admission::{Code, Diagnostic, Severity};
use anyhow::Context as _;
use engine::render;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::commands::{make_plan, show_plan};
use super::progress::{ApplyView, Tally};
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit};

/// How often a running operation says it is still running.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(10);

/// SIGINT and SIGTERM, listened to from the moment this is made (so a signal that arrives while apply
/// starts is not lost to the default handler, which would kill the process mid-operation).
struct Interrupts {
    #[cfg(unix)]
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Interrupts {
    fn listen() -> Interrupts {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = signal(SignalKind::interrupt())
                .and_then(|int| signal(SignalKind::terminate()).map(|term| (int, term)))
                .ok();
            Interrupts { streams }
        }
        #[cfg(not(unix))]
        {
            Interrupts {}
        }
    }

    /// Resolves at the next SIGINT or SIGTERM.
    async fn next(&mut self) {
        #[cfg(unix)]
        {
            match &mut self.streams {
                Some((int, term)) => {
                    tokio::select! {
                        _ = int.recv() => {}
                        _ = term.recv() => {}
                    }
                }
                None => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Asks for `yes` on the terminal.
fn confirmed(term: &Terminal) -> anyhow::Result<bool> {
    term.out(&format!(
        "\n{}\n  liveplan will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n\n  {} ",
        term.bold("Do you want to perform these actions?"),
        term.bold("Enter a value:")
    ));
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    let _ = std::io::stdout().flush();
    Ok(answer.trim() == "yes")
}

fn diagnostic_event(d: &Diagnostic) -> serde_json::Value {
    let mut event = render::diagnostic_json(d);
    if let Some(map) = event.as_object_mut() {
        map.insert("type".to_owned(), json!("diagnostic"));
    }
    event
}

/// `liveplan apply`.
pub async fn run(common: &Common, term: &Terminal, auto_approve: bool) -> anyhow::Result<Exit> {
    if common.json && !auto_approve {
        term.error("apply --json cannot prompt for confirmation: pass --auto-approve as well");
        return Ok(Exit::Failure);
    }
    let inputs = Inputs::read(common)?;
    let planned = make_plan(common, &inputs, Access::Write).await?;
    let plan = planned.plan;
    let summary = plan.summary();
    if let Some(exit) = settle_before_apply(common, term, &plan, &summary, auto_approve)? {
        return Ok(exit);
    }
    let Some(engine) = planned.engine else {
        anyhow::bail!("the plan was made without a live system or a record store");
    };
    let reviewed = plan.review()?;
    execute(common, term, &engine, &reviewed, planned.sim.as_deref()).await
}

/// Applies `reviewed` through `engine` with the command line's parallelism, progress and signal handling,
/// and reports the outcome.
pub(super) async fn execute(
    common: &Common,
    term: &Terminal,
    engine: &engine::Engine,
    reviewed: &engine::ReviewedPlan,
    sim: Option<&fixtures::SimCloud>,
) -> anyhow::Result<Exit> {
    // The records this apply writes name the simulated cloud's id: the file keeps it from now on, even
    // when the apply changes nothing in the cloud.
    if let Some(sim) = sim {
        sim.claim_cloud_id()
            .await
            .context("the simulated cloud's file could not be written")?;
    }
    if !common.json && !reviewed.plan().summary().is_empty() {
        term.line("");
    }
    let total = reviewed.plan().effective_changes().count();
    let view = ApplyView::new(term, common.json, total);
    let cancel = CancellationToken::new();
    let config = engine::ApplyConfig {
        parallelism: NonZeroUsize::new(common.parallelism as usize).unwrap_or(NonZeroUsize::MIN),
        cancel: cancel.clone(),
        events: Some(view.sink()),
        progress_interval: PROGRESS_INTERVAL,
    };
    let mut interrupts = Interrupts::listen();
    let applying = engine.apply(reviewed, config);
    let result = until_done(applying, &mut interrupts, &view, &cancel).await;
    view.finish();
    let mut outcome = result.context("the apply could not run")?;
    if cancel.is_cancelled()
        && !outcome
            .diagnostics
            .iter()
            .any(|d| d.code == Code::Cancelled)
    {
        outcome.diagnostics.push(Diagnostic::new(
            Code::Cancelled,
            "apply was interrupted",
            "operations in flight finished and wrote their records; nothing new was started. \
             Run plan to see what is left to do",
        ));
    }
    let failed = outcome
        .diagnostics
        .iter()
        .any(|d| d.severity() == Severity::Error);
    let tally = view.tally();
    if common.json {
        report_json(&view, &outcome, failed, tally);
    } else {
        report_text(
            term,
            reviewed,
            &outcome,
            failed,
            tally,
            common.destroy || reviewed.plan().destroys_estate(),
        );
    }
    Ok(if failed { Exit::Failure } else { Exit::Success })
}

/// Shows the plan and decides whether the apply goes on: `Some` is the exit of an apply that stops here
/// (a plan with errors, nothing to run, or no confirmation).
fn settle_before_apply(
    common: &Common,
    term: &Terminal,
    plan: &engine::Plan,
    summary: &engine::Summary,
    auto_approve: bool,
) -> anyhow::Result<Option<Exit>> {
    if common.json {
        for d in &plan.diagnostics {
            println!("{}", diagnostic_event(d));
        }
    } else {
        show_plan(common, term, plan);
    }
    if !plan.applicable() {
        if common.json {
            println!(
                "{}",
                json!({"type": "summary", "applied": false, "add": 0, "change": 0, "destroy": 0})
            );
        } else {
            term.error("the plan has errors, so nothing was applied");
        }
        return Ok(Some(Exit::Failure));
    }
    // With nothing to change and nothing withheld, the engine still runs when there are outputs to show
    // (and record), as Terraform shows them after every apply, or records to settle (deposed records
    // naming objects already gone, intents of interrupted creates whose objects were found, records of
    // removed outputs); otherwise there is nothing to run. Withheld changes always run it: the apply ends
    // with their errors.
    let engine_has_work = plan.has_record_work();
    if summary.is_empty() && !engine_has_work {
        if common.json {
            println!(
                "{}",
                json!({"type": "summary", "applied": true, "add": 0, "change": 0, "destroy": 0})
            );
        } else {
            term.line(&term.green("\nApply complete! Resources: 0 added, 0 changed, 0 destroyed."));
        }
        return Ok(Some(Exit::Success));
    }
    // Only a change to apply now asks for a confirmation: with nothing but withheld changes, the apply
    // changes nothing and ends with their `create-withheld` errors.
    if !auto_approve && summary.has_changes() {
        if !term.stdin_tty {
            term.error(
                "apply needs a confirmation and stdin is not a terminal; \
                 pass --auto-approve to apply without a prompt",
            );
            return Ok(Some(Exit::Failure));
        }
        if !common.may_prompt() {
            term.error(
                "apply needs a confirmation and -input=false (or TF_INPUT) forbids asking; \
                 pass -auto-approve to apply without a prompt",
            );
            return Ok(Some(Exit::Failure));
        }
        if !confirmed(term)? {
            term.line("\nApply cancelled.");
            return Ok(Some(Exit::Failure));
        }
    }
    Ok(None)
}

/// Drives the apply to its end. A first interrupt cancels it (operations in flight finish, nothing new
/// starts); a second one exits the process at once.
async fn until_done<T>(
    applying: impl Future<Output = T>,
    interrupts: &mut Interrupts,
    view: &ApplyView,
    cancel: &CancellationToken,
) -> T {
    tokio::pin!(applying);
    loop {
        tokio::select! {
            result = &mut applying => break result,
            () = interrupts.next() => {
                if cancel.is_cancelled() {
                    // A second interrupt, as in Terraform: the user would rather stop now than wait.
                    view.println(
                        "Two interrupts received: exiting now. A call in flight may still finish in the cloud \
                         without its records; the next plan finds what it created by its markers and reports \
                         an interrupted create.",
                    );
                    view.finish();
                    std::process::exit(1);
                }
                cancel.cancel();
                view.println(
                    "Interrupt received: waiting for operations in flight to finish; nothing new will start. \
                     Interrupt again to exit now.",
                );
            }
        }
    }
}

/// The end of `apply --json`: one event per diagnostic, then the summary.
fn report_json(view: &ApplyView, outcome: &engine::ApplyOutcome, failed: bool, tally: Tally) {
    for d in &outcome.diagnostics {
        view.json_line(&diagnostic_event(d));
    }
    view.json_line(&json!({
        "type": "summary",
        "applied": !failed,
        "add": tally.added,
        "change": tally.changed,
        "destroy": tally.destroyed,
    }));
}

/// The end of a text apply: the diagnostics, the counts, and the outputs (sensitive ones hidden).
fn report_text(
    term: &Terminal,
    reviewed: &engine::ReviewedPlan,
    outcome: &engine::ApplyOutcome,
    failed: bool,
    tally: Tally,
    destroying: bool,
) {
    let mut text = String::from("\n");
    for d in &outcome.diagnostics {
        let label = match d.severity() {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        text.push_str(&format!("{label}: {} [{}]\n", d.summary, d.code));
        if let Some(a) = &d.address {
            text.push_str(&format!("  on {a}\n"));
        }
        if !d.detail.is_empty() {
            text.push_str(&format!("  {}\n", d.detail));
        }
        text.push('\n');
    }
    term.plan_text(&text);
    if destroying {
        // As Terraform ends a destroy: the count of objects destroyed, and no outputs (there is
        // nothing left for them to describe).
        let counts = format!("Resources: {} destroyed.", tally.destroyed);
        if failed {
            term.line(&term.red(&format!("Destroy failed! {counts}")));
        } else {
            term.line(&term.green(&format!("Destroy complete! {counts}")));
        }
        return;
    }
    let counts = format!(
        "Resources: {} added, {} changed, {} destroyed.",
        tally.added, tally.changed, tally.destroyed
    );
    if failed {
        term.line(&term.red(&format!("Apply failed! {counts}")));
    } else {
        term.line(&term.green(&format!("Apply complete! {counts}")));
    }
    if !outcome.outputs.is_empty() {
        let mut text = format!("\n{}\n\n", term.bold("Outputs:"));
        for (name, value) in &outcome.outputs {
            let sensitive = reviewed.plan().output_is_sensitive(name);
            if sensitive {
                text.push_str(&format!("{name} = (sensitive value)\n"));
            } else {
                text.push_str(&format!("{name} = {value:#}\n"));
            }
        }
        term.out(&text);
    }
}
