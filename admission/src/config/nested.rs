//! Nested blocks as written inside a resource body: static blocks (`versioning_configuration { … }`) and
//! `dynamic` blocks (`for_each`, `iterator`, `labels`, `content`), possibly nested in each other.
//!
//! The blocks of one type in one body are one argument of the body whose expression is
//! [`ExprKind::Blocks`](super::ExprKind::Blocks): every reader of arguments (references, cycles, static
//! values, the evaluator) sees them as it sees any other expression. The evaluator builds their value (a
//! list of objects, or a map of objects by label for labelled blocks) and the schema gives it its nesting.
//! Nothing here evaluates or judges a block.

use super::expr::{Expr, Loc};

/// One block of a nested block type, as written.
#[derive(Debug, Clone, PartialEq)]
pub enum NestedBlock {
    /// `name "label"… { body }`.
    Static(BlockBody),
    /// `dynamic "name" { for_each = …, iterator = …, labels = […], content { body } }`.
    Dynamic(Box<DynamicBlock>),
}

impl NestedBlock {
    /// Where the block starts.
    pub fn loc(&self) -> &Loc {
        match self {
            NestedBlock::Static(b) => &b.loc,
            NestedBlock::Dynamic(d) => &d.loc,
        }
    }
}

/// A block body: its labels and its arguments in the order written (the nested block types among them
/// as [`ExprKind::Blocks`](super::ExprKind::Blocks) arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockBody {
    /// The block's labels.
    pub labels: Vec<String>,
    /// The arguments by name, in the order written.
    pub attrs: Vec<(String, Expr)>,
    /// Where the block starts.
    pub loc: Loc,
}

/// `dynamic "name" { … }`: one block of type `name` per element of `for_each`.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicBlock {
    /// The collection iterated.
    pub for_each: Expr,
    /// The name the `content` reads the element by (`iterator`, else the block type's name), bound to
    /// an object with `key` and `value`.
    pub iterator: String,
    /// The labels of each generated block.
    pub labels: Vec<Expr>,
    /// The body of each generated block.
    pub content: Vec<(String, Expr)>,
    /// Where the block starts.
    pub loc: Loc,
}

impl NestedBlock {
    /// The direct sub-expressions, in source order.
    pub(crate) fn children(&self) -> Vec<&Expr> {
        match self {
            NestedBlock::Static(b) => b.attrs.iter().map(|(_, e)| e).collect(),
            NestedBlock::Dynamic(d) => std::iter::once(&d.for_each)
                .chain(d.labels.iter())
                .chain(d.content.iter().map(|(_, e)| e))
                .collect(),
        }
    }
}
