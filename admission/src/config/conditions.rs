//! Custom conditions as the configuration writes them: a variable's `validation` blocks, the
//! `precondition` and `postcondition` blocks of a resource's `lifecycle` and of an output, and the
//! `assert` blocks of a `check` block.
//!
//! The model holds the expressions only; evaluating a condition is [`crate::eval`]'s job and deciding what
//! a failure means (an error for validations and pre/postconditions, a warning for checks) the caller's.

use super::expr::{Expr, Loc};

/// One condition block: `condition` and `error_message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Which block kind holds it.
    pub kind: ConditionKind,
    /// The condition, true when the object is fine.
    pub condition: Expr,
    /// The message reported when it is false.
    pub error_message: Expr,
    /// Where the block starts.
    pub loc: Loc,
}

/// The block kinds that hold a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConditionKind {
    /// A variable's `validation`.
    Validation,
    /// A `precondition` of a resource or an output.
    Precondition,
    /// A resource's `postcondition`.
    Postcondition,
    /// A check block's `assert`.
    Assert,
}

impl ConditionKind {
    /// The block name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionKind::Validation => "validation",
            ConditionKind::Precondition => "precondition",
            ConditionKind::Postcondition => "postcondition",
            ConditionKind::Assert => "assert",
        }
    }
}

/// `check "name" { assert { ... } ... }`: assertions whose failures are warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The check's name.
    pub name: String,
    /// The `assert` blocks, in order.
    pub asserts: Vec<Condition>,
    /// Where the block starts.
    pub loc: Loc,
}
