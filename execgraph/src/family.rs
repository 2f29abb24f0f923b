//! The type family: the concrete types a graph carries, supplied by the crate that embeds it.
//!
//! The graph moves values, addresses, objects and plans around without looking inside them. This module
//! must never name a concrete type of the engine; the few things the graph must do with those types (render
//! them, turn an object into a value, re-target a destroy plan) are the family's functions.

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Diagnostic;

/// Why [`CompiledGraph::resource_instance_value`](crate::CompiledGraph::resource_instance_value) could not
/// give a resource instance's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unavailable {
    /// The address has no registered final state in the graph: the planner did not expect anyone to ask.
    DependencyMissing,
    /// The operations producing the value failed (they reported why), or the request would wait on itself.
    EvaluationError,
}

/// The concrete types an execution graph carries, and the few pure functions it needs on them.
///
/// Implement it on a zero-sized marker type. Constants (values, addresses, deposed keys) are stored in the
/// graph, rendered in its debug text with `Display` and serialized by [`Graph::marshal`](crate::Graph::marshal),
/// so they need `Display` and serde; the other types only travel between operations.
pub trait Family: Send + Sync + Sized + 'static {
    /// A configuration value (planned values, and what other instances read of this one).
    type Value: fmt::Display + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// A resource instance address. Its order sorts the final states in the debug text.
    type Addr: fmt::Display + Ord + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The key of a deposed object. Rendered in quotes in the debug text.
    type DeposedKey: fmt::Display + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The metadata of a resource instance object.
    type Meta: Send + Sync + 'static;
    /// The desired state of a resource instance.
    type Desired: Send + Sync + 'static;
    /// A resource instance object (current or deposed).
    type Object: Send + Sync + 'static;
    /// A final plan for one managed resource instance object.
    type FinalPlan: Send + Sync + 'static;

    /// The value other instances see of an object.
    fn object_value(object: &Self::Object) -> Self::Value;

    /// The value of an instance that has no object (it was destroyed).
    fn null_value() -> Self::Value;

    /// An unknown value marked with why the instance's value is not available.
    fn unavailable_value(addr: &Self::Addr, why: Unavailable) -> Self::Value;

    /// The `ManagedPrepareDepose` intrinsic: the destroy plan of a current object turned into the equivalent
    /// plan for that object once deposed under `key`. Pure: it must not perform any side effect.
    fn prepare_depose(
        plan: &Self::FinalPlan,
        key: &Self::DeposedKey,
    ) -> Result<Self::FinalPlan, Diagnostic>;
}
