//! One result of a benchmark: the JSON line on stdout and the human table on stderr.
//!
//! A result names its scenario and the inputs that tell its lines apart (size, latency, backend,
//! parallelism), then exactly the figures the performance spec lists for the scenario. Notes and warnings
//! (the depth behind a bound, a plan that did not converge) go only to the human table. This module never
//! computes a figure.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// One result line.
#[derive(Debug, Clone)]
pub struct Report {
    scenario: &'static str,
    inputs: Vec<(&'static str, Value)>,
    metrics: Vec<(&'static str, Value)>,
    notes: Vec<(String, String)>,
    warnings: Vec<String>,
}

impl Report {
    /// An empty result of `scenario`.
    pub fn new(scenario: &'static str) -> Report {
        Report {
            scenario,
            inputs: Vec::new(),
            metrics: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Adds an input that identifies the line.
    pub fn input(&mut self, name: &'static str, value: Value) {
        self.inputs.push((name, value));
    }

    /// Adds a figure.
    pub fn metric(&mut self, name: &'static str, value: Value) {
        self.metrics.push((name, value));
    }

    /// A figure already added, as an integer.
    pub fn metric_u64(&self, name: &str) -> Option<u64> {
        self.metrics
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_u64())
    }

    /// Adds a line for the human table only.
    pub fn note(&mut self, what: impl Into<String>, text: String) {
        self.notes.push((what.into(), text));
    }

    /// Adds a warning: the figures may not mean what they say.
    pub fn warn(&mut self, text: String) {
        self.warnings.push(text);
    }

    /// The JSON object of the line.
    pub fn json(&self) -> Value {
        let mut map = Map::new();
        map.insert("scenario".to_owned(), Value::from(self.scenario));
        for (name, value) in self.inputs.iter().chain(&self.metrics) {
            map.insert((*name).to_owned(), value.clone());
        }
        Value::Object(map)
    }

    /// The human table.
    pub fn table(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|(n, v)| format!("{n}={}", plain(v)))
            .collect();
        let mut out = format!("{} ({})\n", self.scenario, inputs.join(", "));
        for (name, value) in &self.metrics {
            match value {
                Value::Object(map) => {
                    let _ = writeln!(out, "  {name:<24}");
                    for (k, v) in map {
                        let _ = writeln!(out, "    {k:<32} {:>10}", plain(v));
                    }
                }
                _ => {
                    let _ = writeln!(out, "  {name:<24} {:>12}", plain(value));
                }
            }
        }
        for (what, text) in &self.notes {
            let _ = writeln!(out, "  note: {what}: {text}");
        }
        for text in &self.warnings {
            let _ = writeln!(out, "  WARNING: {text}");
        }
        out
    }
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    }
}
