//! What a node resolves to: the payload every consumer of a result shares, the outcome an operation
//! reports with it, and the slot the scheduler keeps per node.
//!
//! A payload of the wrong kind is a [`Mismatch`], reported as a corrupt graph; this module must never
//! panic on one.

use std::sync::Arc;

use crate::{Diagnostic, Family};

/// A resolved result, shared by every consumer.
pub(super) enum Payload<F: Family> {
    Nil,
    Done,
    Value(Arc<F::Value>),
    Addr(Arc<F::Addr>),
    Key(Arc<F::DeposedKey>),
    Meta(Arc<F::Meta>),
    Desired(Arc<F::Desired>),
    Object(Arc<F::Object>),
    Plan(Arc<F::FinalPlan>),
}

impl<F: Family> Clone for Payload<F> {
    fn clone(&self) -> Self {
        match self {
            Payload::Nil => Payload::Nil,
            Payload::Done => Payload::Done,
            Payload::Value(v) => Payload::Value(Arc::clone(v)),
            Payload::Addr(a) => Payload::Addr(Arc::clone(a)),
            Payload::Key(k) => Payload::Key(Arc::clone(k)),
            Payload::Meta(m) => Payload::Meta(Arc::clone(m)),
            Payload::Desired(d) => Payload::Desired(Arc::clone(d)),
            Payload::Object(o) => Payload::Object(Arc::clone(o)),
            Payload::Plan(p) => Payload::Plan(Arc::clone(p)),
        }
    }
}

/// An operand of the wrong kind: impossible after compile's check, reported rather than panicking.
pub(super) struct Mismatch;

impl<F: Family> Payload<F> {
    pub(super) fn addr(&self) -> Result<&F::Addr, Mismatch> {
        if let Payload::Addr(a) = self {
            Ok(a)
        } else {
            Err(Mismatch)
        }
    }
    pub(super) fn key(&self) -> Result<&F::DeposedKey, Mismatch> {
        if let Payload::Key(k) = self {
            Ok(k)
        } else {
            Err(Mismatch)
        }
    }
    pub(super) fn meta(&self) -> Result<&F::Meta, Mismatch> {
        if let Payload::Meta(m) = self {
            Ok(m)
        } else {
            Err(Mismatch)
        }
    }
    pub(super) fn plan(&self) -> Result<&F::FinalPlan, Mismatch> {
        if let Payload::Plan(p) = self {
            Ok(p)
        } else {
            Err(Mismatch)
        }
    }
    pub(super) fn desired(&self) -> Result<Option<&F::Desired>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Desired(d) => Ok(Some(d)),
            _ => Err(Mismatch),
        }
    }
    pub(super) fn value(&self) -> Result<Option<&F::Value>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Value(v) => Ok(Some(v)),
            _ => Err(Mismatch),
        }
    }
    pub(super) fn object(&self) -> Result<Option<&Arc<F::Object>>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Object(o) => Ok(Some(o)),
            _ => Err(Mismatch),
        }
    }
}

pub(super) fn arg<F: Family>(args: &[Payload<F>], i: usize) -> Result<&Payload<F>, Mismatch> {
    args.get(i).ok_or(Mismatch)
}

/// What a node resolved to, with what it reports.
pub(super) struct Outcome<F: Family> {
    pub(super) result: Result<Payload<F>, ()>,
    /// On a failed create-before-destroy create: the deposed object, current again.
    pub(super) restored: Option<Arc<F::Object>>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl<F: Family> Outcome<F> {
    pub(super) fn ok(payload: Payload<F>) -> Self {
        Outcome {
            result: Ok(payload),
            restored: None,
            diagnostics: Vec::new(),
        }
    }
    pub(super) fn failed(diagnostics: Vec<Diagnostic>) -> Self {
        Outcome {
            result: Err(()),
            restored: None,
            diagnostics,
        }
    }
    pub(super) fn from_result<T>(
        result: Result<T, Vec<Diagnostic>>,
        wrap: impl FnOnce(T) -> Payload<F>,
    ) -> Self {
        match result {
            Ok(v) => Outcome::ok(wrap(v)),
            Err(diagnostics) => Outcome::failed(diagnostics),
        }
    }
}

pub(super) enum Slot<F: Family> {
    Pending,
    Ok(Payload<F>),
    Failed,
}
