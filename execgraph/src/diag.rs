//! Diagnostics: what execution reports to the person running an apply.
//!
//! A diagnostic is plain data (severity, stable code, summary, detail, address). The graph makes a few of its
//! own (see [`codes`]); every other one comes from the operations, which pick codes the engine maps onto the
//! product's contract. This module must never format for a terminal or decide exit codes.

use std::borrow::Cow;
use std::fmt;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The operation failed; the apply is not complete.
    Error,
    /// Something worth knowing; changes nothing.
    Warning,
}

/// The codes of the diagnostics the graph itself reports.
pub mod codes {
    /// An operation was not started because execution was cancelled.
    pub const CANCELLED: &str = "cancelled";
    /// The create leg of a create-before-destroy replace produced no object; the deposed one was restored.
    pub const APPLY_FAILED: &str = "apply-failed";
    /// Resource instances wait on each other's values at apply time (a dynamic dependency cycle).
    pub const SELF_DEPENDENCY: &str = "self-dependency";
    /// An operand does not fit its operation's signature (reported by compile).
    pub const INVALID_GRAPH: &str = "invalid-graph";
    /// A compiled graph was executed a second time.
    pub const ALREADY_EXECUTED: &str = "already-executed";
}

/// One problem or remark, with a stable code and a detail saying what to do.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable kebab-case code (for instance `cancelled` or `apply-failed`).
    pub code: Cow<'static, str>,
    /// What is wrong, in one line.
    pub summary: String,
    /// What happened in more detail, and what to do about it.
    pub detail: String,
    /// The resource instance the diagnostic is about, rendered, if any.
    pub address: Option<String>,
}

impl Diagnostic {
    /// An error diagnostic.
    pub fn error(
        code: impl Into<Cow<'static, str>>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: code.into(),
            summary: summary.into(),
            detail: detail.into(),
            address: None,
        }
    }

    /// A warning diagnostic.
    pub fn warning(
        code: impl Into<Cow<'static, str>>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, summary, detail)
        }
    }

    /// The same diagnostic, about the given resource instance.
    pub fn with_address(mut self, address: impl fmt::Display) -> Self {
        self.address = Some(address.to_string());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{severity}[{}]: {}", self.code, self.summary)?;
        if let Some(address) = &self.address {
            write!(f, " ({address})")?;
        }
        Ok(())
    }
}
