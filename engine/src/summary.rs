//! The one-line summary that closes every plan.

use std::fmt;

/// How many resource changes of each kind a plan holds. A replace counts as one add and one destroy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Creates, the create leg of replaces included.
    pub add: usize,
    /// Updates in place, tags-only marker repairs included.
    pub change: usize,
    /// Deletes, the destroy leg of replaces included.
    pub destroy: usize,
}

impl Summary {
    /// Whether the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.add == 0 && self.change == 0 && self.destroy == 0
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("No changes. The live system matches the configuration.")
        } else {
            write!(
                f,
                "Plan: {} to add, {} to change, {} to destroy.",
                self.add, self.change, self.destroy
            )
        }
    }
}
