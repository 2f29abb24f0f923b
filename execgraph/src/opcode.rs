//! The operation vocabulary of the execution graph: each opcode's name, operand signature and result kind.
//!
//! This module only describes operations; it must never run one or know a concrete value type.

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

/// The kind of result a graph node produces, and so the kind of operand a slot accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A constant value (a planned value, for instance).
    Value,
    /// A resource instance address.
    Addr,
    /// The key of a deposed object.
    DeposedKey,
    /// The metadata of a resource instance object.
    Meta,
    /// The desired state of a resource instance.
    Desired,
    /// A resource instance object, or nil when there is none.
    Object,
    /// A final plan for a managed resource instance object.
    FinalPlan,
    /// The completion of a waiter: no value, only "it happened".
    Completion,
}

impl Kind {
    /// The name used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Value => "value",
            Kind::Addr => "resource instance address",
            Kind::DeposedKey => "deposed key",
            Kind::Meta => "object metadata",
            Kind::Desired => "desired state",
            Kind::Object => "resource instance object",
            Kind::FinalPlan => "final plan",
            Kind::Completion => "waiter",
        }
    }
}

impl Kind {
    /// The name with its article, for sentences ("a final plan", "object metadata").
    pub fn with_article(self) -> &'static str {
        match self {
            Kind::Value => "a value",
            Kind::Addr => "a resource instance address",
            Kind::DeposedKey => "a deposed key",
            Kind::Meta => "object metadata",
            Kind::Desired => "a desired state",
            Kind::Object => "a resource instance object",
            Kind::FinalPlan => "a final plan",
            Kind::Completion => "a waiter",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one operand position of an opcode accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandSlot {
    /// The operand's role, as the graph's documentation names it.
    pub role: &'static str,
    /// The kind of result the operand must refer to; `None` accepts any kind (a "wait for" operand).
    pub kind: Option<Kind>,
    /// Whether the operand may be the nil reference.
    pub nilable: bool,
}

const fn slot(role: &'static str, kind: Kind, nilable: bool) -> OperandSlot {
    OperandSlot {
        role,
        kind: Some(kind),
        nilable,
    }
}

const WAIT_FOR: OperandSlot = OperandSlot {
    role: "wait-for",
    kind: None,
    nilable: true,
};

const PRIOR: &[OperandSlot] = &[slot("addr", Kind::Addr, false)];
const CURRENT_META: &[OperandSlot] = &[
    slot("addr", Kind::Addr, false),
    slot("prior", Kind::Object, true),
];
const DESIRED: &[OperandSlot] = &[slot("meta", Kind::Meta, false)];
const FINAL_PLAN: &[OperandSlot] = &[
    slot("meta", Kind::Meta, false),
    slot("desired", Kind::Desired, true),
    slot("prior", Kind::Object, true),
    slot("planned value", Kind::Value, true),
];
const APPLY: &[OperandSlot] = &[
    slot("final plan", Kind::FinalPlan, false),
    slot("fallback object", Kind::Object, true),
    WAIT_FOR,
];
const PREPARE_DEPOSE: &[OperandSlot] = &[
    slot("final plan", Kind::FinalPlan, false),
    slot("deposed key", Kind::DeposedKey, false),
];
const PERFORM_DEPOSE: &[OperandSlot] = &[
    slot("current object", Kind::Object, false),
    slot("final delete plan", Kind::FinalPlan, false),
    WAIT_FOR,
];
const DEPOSED_META: &[OperandSlot] = &[
    slot("addr", Kind::Addr, false),
    slot("deposed key", Kind::DeposedKey, false),
    slot("prior", Kind::Object, true),
];
const ALREADY_DEPOSED: &[OperandSlot] = &[
    slot("addr", Kind::Addr, false),
    slot("deposed key", Kind::DeposedKey, false),
];
const CHANGE_ADDR: &[OperandSlot] = &[
    slot("current object", Kind::Object, false),
    slot("new addr", Kind::Addr, false),
];
const DATA_READ: &[OperandSlot] = &[
    slot("meta", Kind::Meta, false),
    slot("desired", Kind::Desired, true),
    slot("planned value", Kind::Value, true),
    WAIT_FOR,
];

impl OpCode {
    /// Every opcode, in declaration order.
    pub const ALL: [OpCode; 11] = [
        OpCode::ResourceInstancePrior,
        OpCode::ResourceInstanceCurrentMeta,
        OpCode::ResourceInstanceDesired,
        OpCode::ManagedFinalPlan,
        OpCode::ManagedApply,
        OpCode::ManagedPrepareDepose,
        OpCode::ManagedPerformDepose,
        OpCode::ManagedDeposedMeta,
        OpCode::ManagedAlreadyDeposed,
        OpCode::ManagedChangeAddr,
        OpCode::DataRead,
    ];

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

    /// The opcode with the given debug-text name, if there is one.
    pub fn from_name(name: &str) -> Option<OpCode> {
        OpCode::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operation is computed inside the graph instead of calling the operations it was compiled with.
    pub fn is_intrinsic(self) -> bool {
        matches!(self, OpCode::ManagedPrepareDepose)
    }

    /// The operands the opcode takes, in order.
    pub fn operands(self) -> &'static [OperandSlot] {
        match self {
            OpCode::ResourceInstancePrior => PRIOR,
            OpCode::ResourceInstanceCurrentMeta => CURRENT_META,
            OpCode::ResourceInstanceDesired => DESIRED,
            OpCode::ManagedFinalPlan => FINAL_PLAN,
            OpCode::ManagedApply => APPLY,
            OpCode::ManagedPrepareDepose => PREPARE_DEPOSE,
            OpCode::ManagedPerformDepose => PERFORM_DEPOSE,
            OpCode::ManagedDeposedMeta => DEPOSED_META,
            OpCode::ManagedAlreadyDeposed => ALREADY_DEPOSED,
            OpCode::ManagedChangeAddr => CHANGE_ADDR,
            OpCode::DataRead => DATA_READ,
        }
    }

    /// The kind of result the operation produces.
    pub fn result(self) -> Kind {
        match self {
            OpCode::ResourceInstanceCurrentMeta | OpCode::ManagedDeposedMeta => Kind::Meta,
            OpCode::ResourceInstanceDesired => Kind::Desired,
            OpCode::ManagedFinalPlan | OpCode::ManagedPrepareDepose => Kind::FinalPlan,
            OpCode::ResourceInstancePrior
            | OpCode::ManagedApply
            | OpCode::ManagedPerformDepose
            | OpCode::ManagedAlreadyDeposed
            | OpCode::ManagedChangeAddr
            | OpCode::DataRead => Kind::Object,
        }
    }

    /// Whether a call of this operation holds one unit of the parallelism limit.
    ///
    /// Every call that reaches the provider or the store does. The two evaluator calls (current metadata and
    /// desired state) do not: they may wait for other instances' values, and holding a permit while waiting
    /// would deadlock the graph once every permit is held by a waiter.
    pub fn holds_permit(self) -> bool {
        !matches!(
            self,
            OpCode::ResourceInstanceCurrentMeta
                | OpCode::ResourceInstanceDesired
                | OpCode::ManagedPrepareDepose
        )
    }
}

impl fmt::Display for OpCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
