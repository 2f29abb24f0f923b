//! Operators on values: the conversions operators apply (to a number, to a bool, to text) and the binary
//! operators, with Terraform's rules for unknown and sensitive operands.
//!
//! These are pure functions of their operands; none reads the configuration.

use super::{EvalError, Fault, bad};
use crate::config::{BinaryOp, Loc};
use crate::value::{Number, Type, Value};

/// The text of a known string, number or bool (what templates and map keys accept).
pub(crate) fn primitive_text(v: &Value) -> Option<String> {
    match v.peel() {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A known value as a number (numbers, and strings holding one, as Terraform converts).
pub(crate) fn to_number(v: &Value, loc: &Loc) -> Result<Number, EvalError> {
    match v.peel() {
        Value::Number(n) => Ok(n.clone()),
        Value::String(s) => s.parse::<Number>().map_err(|_| {
            if v.contains_sensitive() {
                bad(
                    loc,
                    Fault::InvalidOperand,
                    "a number is required, found a (sensitive) string that is not one",
                )
            } else {
                bad(loc, Fault::InvalidOperand, format!("{s:?} is not a number"))
            }
        }),
        Value::Null => Err(bad(
            loc,
            Fault::InvalidOperand,
            "a number is required, found null",
        )),
        _ => Err(bad(loc, Fault::InvalidOperand, "a number is required")),
    }
}

/// A known value as a bool (bools, and the strings `"true"` / `"false"`).
pub(crate) fn to_bool(v: &Value, loc: &Loc) -> Result<bool, EvalError> {
    match v.peel() {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        Value::Null => Err(bad(
            loc,
            Fault::InvalidOperand,
            "a bool is required, found null",
        )),
        _ => Err(bad(loc, Fault::InvalidOperand, "a bool is required")),
    }
}

/// Where a bool is required, for the error's words: Terraform names the place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BoolPlace {
    /// The condition of `c ? a : b`.
    Conditional,
    /// The `if` clause of a `for` expression.
    ForCondition,
    /// The condition of a template's `%{ if }` directive.
    TemplateIf,
    /// The left operand of `&&` or `||`.
    LeftOperand,
    /// The right operand of `&&` or `||`.
    RightOperand,
    /// The operand of `!`.
    Negated,
}

impl BoolPlace {
    fn fault(self) -> Fault {
        match self {
            BoolPlace::Conditional | BoolPlace::TemplateIf => Fault::ConditionType,
            BoolPlace::ForCondition => Fault::ForCondition,
            BoolPlace::LeftOperand | BoolPlace::RightOperand | BoolPlace::Negated => {
                Fault::InvalidOperand
            }
        }
    }

    fn words(self) -> &'static str {
        match self {
            BoolPlace::Conditional => "the condition of a conditional expression",
            BoolPlace::ForCondition => "the `if` clause of a `for` expression",
            BoolPlace::TemplateIf => "the condition of a `%{ if }` directive",
            BoolPlace::LeftOperand => "the left operand",
            BoolPlace::RightOperand => "the right operand",
            BoolPlace::Negated => "the operand of `!`",
        }
    }
}

/// A known value as a bool where `place` requires one, the error naming the place and the type found.
pub(crate) fn bool_at(v: &Value, loc: &Loc, place: BoolPlace) -> Result<bool, EvalError> {
    to_bool(v, loc).map_err(|_| {
        let what = match v.peel() {
            Value::Null => format!("{} is null; it must be true or false", place.words()),
            other => format!("{} must be bool, not {}", place.words(), other.type_of()),
        };
        bad(loc, place.fault(), what)
    })
}

/// `l OP r`; `lloc` and `rloc` are where the operands are written, for the errors.
pub(super) fn binary(
    op: BinaryOp,
    l: Value,
    r: Value,
    lloc: &Loc,
    rloc: &Loc,
) -> Result<Value, EvalError> {
    let marked = l.contains_sensitive() || r.contains_sensitive();
    let result_type = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => {
            Type::Number
        }
        _ => Type::Bool,
    };
    let out = match op {
        BinaryOp::Eq | BinaryOp::NotEq => {
            let eq = l.equals(&r);
            match eq.peel() {
                Value::Bool(b) => Value::Bool(if op == BinaryOp::Eq { *b } else { !*b }),
                _ => Value::Unknown(Type::Bool),
            }
        }
        BinaryOp::And | BinaryOp::Or => {
            let lb = if l.is_unknown() {
                None
            } else {
                Some(bool_at(&l, lloc, BoolPlace::LeftOperand)?)
            };
            let rb = if r.is_unknown() {
                None
            } else {
                Some(bool_at(&r, rloc, BoolPlace::RightOperand)?)
            };
            let is_and = op == BinaryOp::And;
            match (lb, rb) {
                (Some(a), Some(b)) => Value::Bool(if is_and { a && b } else { a || b }),
                // A known operand that decides the result on its own makes the other's unknown irrelevant.
                (Some(x), None) | (None, Some(x)) if x != is_and => Value::Bool(x),
                _ => Value::Unknown(Type::Bool),
            }
        }
        _ if l.is_unknown() || r.is_unknown() => {
            // Type-check the known side, so `"a" + unknown` is still an error.
            for (v, loc) in [(&l, lloc), (&r, rloc)] {
                if !v.is_unknown() {
                    to_number(v, loc)?;
                }
            }
            Value::Unknown(result_type)
        }
        _ => {
            let a = to_number(&l, lloc)?;
            let b = to_number(&r, rloc)?;
            // Terraform's result past the range is an infinity, which no value can hold.
            let overflow = || {
                bad(
                    lloc,
                    Fault::OperationFailed,
                    "the result is out of the range of numbers",
                )
            };
            match op {
                BinaryOp::Add => Value::Number(a.checked_add(&b).ok_or_else(overflow)?),
                BinaryOp::Sub => Value::Number(a.checked_sub(&b).ok_or_else(overflow)?),
                BinaryOp::Mul => Value::Number(a.checked_mul(&b).ok_or_else(overflow)?),
                BinaryOp::Div if b.is_zero() => {
                    return Err(bad(rloc, Fault::OperationFailed, "division by zero"));
                }
                BinaryOp::Div => Value::Number(a.checked_div(&b).ok_or_else(overflow)?),
                // `x % 0` is `x`, as cty computes it.
                BinaryOp::Mod => Value::Number(a.checked_rem(&b).ok_or_else(overflow)?),
                BinaryOp::Less => Value::Bool(a < b),
                BinaryOp::LessEq => Value::Bool(a <= b),
                BinaryOp::Greater => Value::Bool(a > b),
                BinaryOp::GreaterEq => Value::Bool(a >= b),
                _ => Value::Unknown(result_type),
            }
        }
    };
    Ok(out.mark_sensitive_if(marked))
}
