//! The `count.index` injectivity rule for identity arguments (admission.md).
//!
//! A client-named identity (or a component of a parent-derived one) that reads `count.index` must give every
//! index a different value, or two instances would claim one live object. The rule is syntactic, judged on
//! the expression as written, so it never depends on the values variables happen to have today. It must
//! never admit a form that can map two indices to one value whatever the variables are.

use crate::config::{BinaryOp, Expr, ExprKind, Step, TemplatePart, UnaryOp};

/// How an expression uses `count.index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexUse {
    /// It does not read the index.
    Free,
    /// It reads the index in an admitted, injective form.
    Admitted,
    /// It reads the index in a form that may map two indices to one value.
    Refused,
}

/// Whether `e` reads `count.index` anywhere.
pub fn reads_index(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if is_count_index(x) {
            found = true;
        }
    });
    found
}

fn is_count_index(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Traversal(base, steps) => {
            matches!(&base.kind, ExprKind::Variable(n) if n == "count")
                && matches!(steps.first(), Some(Step::Attr(a)) if a == "index")
                && steps.len() == 1
        }
        _ => false,
    }
}

/// A nonzero number literal (possibly negated).
fn is_nonzero_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(n) => !n.is_zero(),
        ExprKind::Unary(UnaryOp::Neg, inner) => is_nonzero_literal(inner),
        _ => false,
    }
}

/// Classifies one expression under the rule.
pub fn classify(e: &Expr) -> IndexUse {
    if !reads_index(e) {
        return IndexUse::Free;
    }
    if is_count_index(e) {
        return IndexUse::Admitted;
    }
    let admitted = |ok: bool| {
        if ok {
            IndexUse::Admitted
        } else {
            IndexUse::Refused
        }
    };
    match &e.kind {
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, a, b) => {
            // index ± c and c ± index: a shift by a constant keeps distinct indices distinct.
            admitted(matches!(
                (classify(a), classify(b)),
                (IndexUse::Admitted, IndexUse::Free) | (IndexUse::Free, IndexUse::Admitted)
            ))
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => admitted(
            (classify(a) == IndexUse::Admitted && is_nonzero_literal(b))
                || (classify(b) == IndexUse::Admitted && is_nonzero_literal(a)),
        ),
        ExprKind::Unary(UnaryOp::Neg, inner) => admitted(classify(inner) == IndexUse::Admitted),
        ExprKind::Traversal(base, steps) => {
            // Another block's instance picked by an admitted index: `aws_subnet.s[count.index].id`.
            let resource_root = matches!(&base.kind, ExprKind::Variable(n)
                if !matches!(n.as_str(), "var" | "local" | "count" | "each"));
            let ok = resource_root
                && matches!(steps.first(), Some(Step::Attr(_)))
                && matches!(steps.get(1), Some(Step::Index(i)) if classify(i) == IndexUse::Admitted)
                && steps[2..].iter().all(|s| match s {
                    Step::Attr(_) => true,
                    Step::Index(i) => !reads_index(i),
                    Step::Splat | Step::AttrSplat => false,
                });
            admitted(ok)
        }
        ExprKind::Call {
            name,
            args,
            expand: false,
        } if name == "format" => admitted(
            !args.is_empty()
                && classify(&args[0]) == IndexUse::Free
                && args[1..].iter().all(|a| classify(a) != IndexUse::Refused),
        ),
        ExprKind::Template(parts) => admitted(parts_admitted(parts)),
        ExprKind::Conditional(c, t, f) => admitted(
            classify(c) == IndexUse::Free
                && classify(t) != IndexUse::Refused
                && classify(f) != IndexUse::Refused,
        ),
        _ => IndexUse::Refused,
    }
}

/// Whether every index-reading piece of a template is admitted: interpolations as expressions are, and
/// `%{if}` as a conditional is; a `%{for}` that reads the index is never admitted.
fn parts_admitted(parts: &[TemplatePart]) -> bool {
    parts.iter().all(|p| match p {
        TemplatePart::Literal(_) => true,
        TemplatePart::Interpolation(i) => classify(i) != IndexUse::Refused,
        TemplatePart::If {
            cond,
            then,
            otherwise,
        } => classify(cond) == IndexUse::Free && parts_admitted(then) && parts_admitted(otherwise),
        TemplatePart::For {
            collection, body, ..
        } => {
            let mut reads = reads_index(collection);
            let mut inner = Vec::new();
            body.iter().for_each(|b| collect_exprs(b, &mut inner));
            reads |= inner.iter().any(|e| reads_index(e));
            !reads
        }
    })
}

fn collect_exprs<'a>(part: &'a TemplatePart, out: &mut Vec<&'a Expr>) {
    match part {
        TemplatePart::Literal(_) => {}
        TemplatePart::Interpolation(e) => out.push(e),
        TemplatePart::If {
            cond,
            then,
            otherwise,
        } => {
            out.push(cond);
            then.iter()
                .chain(otherwise)
                .for_each(|p| collect_exprs(p, out));
        }
        TemplatePart::For {
            collection, body, ..
        } => {
            out.push(collection);
            body.iter().for_each(|p| collect_exprs(p, out));
        }
    }
}

/// The identity arguments of one block (name and expression) that break the rule. A single argument is
/// judged alone; in a composite identity, one admitted component makes the whole tuple injective.
pub fn violations<'e>(args: &[(&'e str, &'e Expr)], composite: bool) -> Vec<(&'e str, &'e Expr)> {
    let classes: Vec<IndexUse> = args.iter().map(|(_, e)| classify(e)).collect();
    if composite && classes.contains(&IndexUse::Admitted) {
        return Vec::new();
    }
    args.iter()
        .zip(&classes)
        .filter(|(_, c)| **c == IndexUse::Refused)
        .map(|(a, _)| *a)
        .collect()
}
