//! Typed references to graph nodes: the handles a builder hands out and takes back as operands.
//!
//! A reference is a plain index into one of the builder's tables, so it is `Copy` and costs four bytes. It
//! must never own or borrow the node it refers to, and it carries no lifetime tying it to its builder: a
//! reference used with another builder is caught when that builder's graph is finished or compiled.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// Marker types naming what a [`ResultRef`] refers to. They have no values; they only make operand
/// mistakes compile errors.
pub mod kind {
    /// A constant value.
    #[derive(Debug)]
    pub enum Value {}
    /// A resource instance address.
    #[derive(Debug)]
    pub enum Addr {}
    /// The key of a deposed object.
    #[derive(Debug)]
    pub enum DeposedKey {}
    /// The metadata of a resource instance object.
    #[derive(Debug)]
    pub enum Meta {}
    /// The desired state of a resource instance.
    #[derive(Debug)]
    pub enum Desired {}
    /// A resource instance object (or nil).
    #[derive(Debug)]
    pub enum Object {}
    /// A final plan for a managed resource instance object.
    #[derive(Debug)]
    pub enum FinalPlan {}
}

const TAG_SHIFT: u32 = 29;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
const NIL: u32 = u32::MAX;

/// The largest number of entries one table of a graph may hold.
pub(crate) const MAX_TABLE_LEN: usize = INDEX_MASK as usize;

/// The table a raw reference points into, with the index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Nil,
    Value(u32),
    Addr(u32),
    Key(u32),
    Op(u32),
    Waiter(u32),
}

/// An untyped reference: three bits of table tag and 29 bits of index, or all ones for nil.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RawRef(u32);

impl RawRef {
    pub(crate) const NIL: RawRef = RawRef(NIL);

    pub(crate) fn new(target: Target) -> RawRef {
        let (tag, index) = match target {
            Target::Nil => return RawRef::NIL,
            Target::Value(i) => (0, i),
            Target::Addr(i) => (1, i),
            Target::Key(i) => (2, i),
            Target::Op(i) => (3, i),
            Target::Waiter(i) => (4, i),
        };
        debug_assert!(index <= INDEX_MASK);
        RawRef((tag << TAG_SHIFT) | (index & INDEX_MASK))
    }

    pub(crate) fn target(self) -> Target {
        if self.0 == NIL {
            return Target::Nil;
        }
        let index = self.0 & INDEX_MASK;
        match self.0 >> TAG_SHIFT {
            0 => Target::Value(index),
            1 => Target::Addr(index),
            2 => Target::Key(index),
            3 => Target::Op(index),
            // Only `new` builds raw references, so every other tag is a waiter.
            _ => Target::Waiter(index),
        }
    }

    pub(crate) fn is_nil(self) -> bool {
        self.0 == NIL
    }
}

impl fmt::Display for RawRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target() {
            Target::Nil => f.write_str("nil"),
            Target::Value(i) => write!(f, "v[{i}]"),
            Target::Addr(i) => write!(f, "a[{i}]"),
            Target::Key(i) => write!(f, "k[{i}]"),
            Target::Op(i) => write!(f, "r[{i}]"),
            Target::Waiter(i) => write!(f, "w[{i}]"),
        }
    }
}

impl fmt::Debug for RawRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A typed reference to the result of a graph node: a constant, an operation or (erased) a waiter.
///
/// `T` is one of the [`kind`] markers, so passing a metadata result where a final plan is expected does not
/// compile. [`ResultRef::nil`] stands for "no value" and resolves at once to the typed nil when executed.
pub struct ResultRef<T> {
    raw: RawRef,
    kind: PhantomData<fn() -> T>,
}

/// A reference to a resource instance object result (an object or nil).
pub type ResourceInstanceResultRef = ResultRef<kind::Object>;

impl<T> ResultRef<T> {
    /// The nil reference: the operand has no value.
    pub const fn nil() -> Self {
        ResultRef {
            raw: RawRef::NIL,
            kind: PhantomData,
        }
    }

    pub(crate) fn from_raw(raw: RawRef) -> Self {
        ResultRef {
            raw,
            kind: PhantomData,
        }
    }

    pub(crate) fn raw(self) -> RawRef {
        self.raw
    }

    /// Whether this is the nil reference.
    pub fn is_nil(self) -> bool {
        self.raw.is_nil()
    }

    /// Erases the result type, for use as a waiter dependency or a "wait for" operand.
    pub fn any(self) -> AnyResultRef {
        AnyResultRef { raw: self.raw }
    }
}

impl<T> Clone for ResultRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ResultRef<T> {}

impl<T> PartialEq for ResultRef<T> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<T> Eq for ResultRef<T> {}

impl<T> Hash for ResultRef<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.raw.hash(state);
    }
}

impl<T> Default for ResultRef<T> {
    fn default() -> Self {
        Self::nil()
    }
}

impl<T> fmt::Debug for ResultRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.raw, f)
    }
}

/// A reference to the result of any graph node, its type erased: waiter dependencies and "wait for"
/// operands take these, since only the completion matters there.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AnyResultRef {
    raw: RawRef,
}

impl Default for RawRef {
    fn default() -> Self {
        RawRef::NIL
    }
}

impl AnyResultRef {
    /// The nil reference: nothing to wait for.
    pub const fn nil() -> Self {
        AnyResultRef { raw: RawRef::NIL }
    }

    pub(crate) fn from_raw(raw: RawRef) -> Self {
        AnyResultRef { raw }
    }

    pub(crate) fn raw(self) -> RawRef {
        self.raw
    }

    /// Whether this is the nil reference.
    pub fn is_nil(self) -> bool {
        self.raw.is_nil()
    }
}

impl<T> From<ResultRef<T>> for AnyResultRef {
    fn from(r: ResultRef<T>) -> Self {
        r.any()
    }
}

impl fmt::Debug for AnyResultRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.raw, f)
    }
}

/// A handle to add dependencies to a waiter made by [`Builder::mutable_waiter`](crate::Builder::mutable_waiter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WaiterHandle {
    pub(crate) index: u32,
}
