//! The crate's error type: why a graph could not be finished or read back.
//!
//! Every variant is a condition the caller can act on. This module must never carry execution failures:
//! those are diagnostics, reported by the run that met them.

/// Why a graph was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// The graph has dependency cycles; each entry lists the members of one cycle.
    #[error("the graph has a dependency cycle: {}", render_cycles(.cycles))]
    Cycle {
        /// The members of every cycle, each rendered as `r[i] OpName (address)` or `w[j] waiter`.
        cycles: Vec<Vec<String>>,
    },
    /// An operand or final state refers to a node that no table of this graph holds.
    #[error("{user} refers to {reference}, which is not in the graph")]
    UnknownReference {
        /// The node (or final state) holding the reference.
        user: String,
        /// The reference.
        reference: String,
    },
    /// An operation refers to an operation added after it.
    #[error("{user} refers to {reference}, which is added after it")]
    ForwardReference {
        /// The operation holding the reference.
        user: String,
        /// The reference.
        reference: String,
    },
    /// An operand does not fit its operation's signature.
    #[error("operand {position} ({role}) of {user} must be {expected}, found {found}")]
    OperandMismatch {
        /// The operation.
        user: String,
        /// The operand's position, from 0.
        position: usize,
        /// The operand's role.
        role: &'static str,
        /// What the signature asks for.
        expected: String,
        /// What the operand is.
        found: String,
    },
    /// An operation has the wrong number of operands.
    #[error("{user} takes {expected} operands, found {found}")]
    OperandCount {
        /// The operation.
        user: String,
        /// How many its opcode takes.
        expected: usize,
        /// How many it has.
        found: usize,
    },
    /// An operation names no known opcode.
    #[error("unknown operation {name:?}")]
    UnknownOpcode {
        /// The name found.
        name: String,
    },
    /// A reference is not written as one.
    #[error("{reference:?} is not a node reference")]
    MalformedReference {
        /// The text found.
        reference: String,
    },
    /// Two final states are registered for one resource instance.
    #[error("resource instance {address} has two final states")]
    DuplicateFinalState {
        /// The address, rendered.
        address: String,
    },
    /// A final state refers to something other than a resource instance object.
    #[error(
        "the final state of {address} refers to {reference}, which is not a resource instance object"
    )]
    InvalidFinalState {
        /// The address, rendered.
        address: String,
        /// The reference.
        reference: String,
    },
    /// A table of the graph is larger than a graph can hold.
    #[error("the graph holds more {table} than one graph can")]
    TooLarge {
        /// Which table.
        table: &'static str,
    },
    /// Serialized bytes are not a serialized graph.
    #[error("the serialized graph does not parse: {reason}")]
    MalformedEncoding {
        /// What the decoder found.
        reason: String,
    },
    /// Serialized bytes are a graph in a format this version does not read.
    #[error(
        "the serialized graph has format {format}, and only format {} is supported",
        crate::marshal::FORMAT
    )]
    UnsupportedFormat {
        /// The format found.
        format: u64,
    },
}

fn render_cycles(cycles: &[Vec<String>]) -> String {
    cycles
        .iter()
        .map(|members| members.join(", "))
        .collect::<Vec<_>>()
        .join("; ")
}
