//! What a person (or a machine) sees while apply runs: a line per started and finished operation, the
//! periodic `Still creating...` lines, a progress bar of operations done / total on a terminal, or one JSON
//! event per line with `--json`.
//!
//! The view is fed by the engine's event sink and only prints; it must never influence the apply, and on
//! a non-terminal it must never draw a bar or cursor movements.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use engine::EventSink;
use engine::graph::FinalKind;
use engine::{ApplyEvent, ApplyEventKind};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::terminal::Terminal;

/// How many operations finished, by what they did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Creates completed.
    pub added: usize,
    /// Updates completed.
    pub changed: usize,
    /// Deletes completed.
    pub destroyed: usize,
    /// Operations that failed.
    pub failed: usize,
}

/// The apply's live output.
pub struct ApplyView {
    json: bool,
    bar: Option<ProgressBar>,
    tally: Mutex<Tally>,
}

impl ApplyView {
    /// A view for `total` operations: NDJSON with `json`, else lines, with a bar when stdout is a terminal.
    pub fn new(term: &Terminal, json: bool, total: usize) -> Arc<ApplyView> {
        let bar = (!json && term.stdout_tty).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total as u64),
                ProgressDrawTarget::stdout_with_hz(10),
            );
            let template = if term.color {
                "{bar:30.green/white} {pos}/{len} operations done [{elapsed}]"
            } else {
                "{bar:30} {pos}/{len} operations done [{elapsed}]"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Arc::new(ApplyView {
            json,
            bar,
            tally: Mutex::new(Tally::default()),
        })
    }

    /// The engine's event sink feeding this view.
    pub fn sink(self: &Arc<Self>) -> EventSink {
        let view = Arc::clone(self);
        Arc::new(move |event: &ApplyEvent| view.event(event))
    }

    /// Prints a line above the bar (or plainly, without one).
    pub fn println(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => println!("{text}"),
        }
    }

    /// Prints one JSON value as one line.
    pub fn json_line(&self, value: &serde_json::Value) {
        println!("{value}");
    }

    fn event(&self, event: &ApplyEvent) {
        if matches!(
            event.kind,
            ApplyEventKind::Completed | ApplyEventKind::Errored
        ) {
            let mut tally = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
            match (event.kind, event.action) {
                (ApplyEventKind::Errored, _) => tally.failed += 1,
                (_, FinalKind::Create) => tally.added += 1,
                (_, FinalKind::Update) => tally.changed += 1,
                (_, FinalKind::Delete) => tally.destroyed += 1,
            }
            if let Some(bar) = &self.bar {
                bar.inc(1);
            }
        }
        if self.json {
            self.json_line(&event.json());
        } else {
            self.println(&event.line());
        }
    }

    /// Removes the bar (leaving the lines printed above it).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// What finished so far.
    pub fn tally(&self) -> Tally {
        *self.tally.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
