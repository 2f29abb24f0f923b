//! The operation vocabulary of the execution graph.

use std::fmt;

/// An operation of the execution graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpCode {
    /// Reads the prior object of a resource instance.
    ResourceInstancePrior,
    /// Builds the metadata of a resource instance's current object.
    ResourceInstanceCurrentMeta,
    /// Evaluates the desired value of a resource instance.
    ResourceInstanceDesired,
    /// Computes the final plan of a managed resource instance.
    ManagedFinalPlan,
    /// Applies a final plan through the provider.
    ManagedApply,
    /// Turns the destroy plan of a current object into the plan for it as a deposed object (no side effect).
    ManagedPrepareDepose,
    /// Deposes the current object of a resource instance.
    ManagedPerformDepose,
    /// Builds the metadata of a deposed object.
    ManagedDeposedMeta,
    /// Reads an object that was deposed by an earlier apply.
    ManagedAlreadyDeposed,
    /// Moves an object to a new address.
    ManagedChangeAddr,
    /// Reads a data source.
    DataRead,
}

impl OpCode {
    /// The name used in the graph's debug text.
    pub fn name(self) -> &'static str {
        match self {
            OpCode::ResourceInstancePrior => "ResourceInstancePrior",
            OpCode::ResourceInstanceCurrentMeta => "ResourceInstanceCurrentMeta",
            OpCode::ResourceInstanceDesired => "ResourceInstanceDesired",
            OpCode::ManagedFinalPlan => "ManagedFinalPlan",
            OpCode::ManagedApply => "ManagedApply",
            OpCode::ManagedPrepareDepose => "ManagedPrepareDepose",
            OpCode::ManagedPerformDepose => "ManagedPerformDepose",
            OpCode::ManagedDeposedMeta => "ManagedDeposedMeta",
            OpCode::ManagedAlreadyDeposed => "ManagedAlreadyDeposed",
            OpCode::ManagedChangeAddr => "ManagedChangeAddr",
            OpCode::DataRead => "DataRead",
        }
    }

    /// Whether the operation is computed inside the graph instead of calling the operations it was compiled with.
    pub fn is_intrinsic(self) -> bool {
        matches!(self, OpCode::ManagedPrepareDepose)
    }
}

impl fmt::Display for OpCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
