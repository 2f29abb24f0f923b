//! The one-line summary that closes every plan.
//!
//! A plan without errors ends with `Plan: A to add, C to change, D to destroy.`, or with `No changes. The live
//! system matches the configuration.` when it changes nothing and holds nothing back; a plan with errors
//! ends with [`PLANNING_FAILED`] instead, never with counts or "No changes" (as Terraform, which prints no
//! plan summary when planning failed). A plan that withholds changes (an interrupted create that may be retried
//! later, and what waits on it) says how many: `Plan: 0 to add, 0 to change, 0 to destroy, 1 withheld.`,
//! never that the live system matches.

use std::fmt;

/// The last line of a plan with errors: the changes it could work out are listed above it, but it is not
/// applicable.
pub const PLANNING_FAILED: &str =
    "Planning failed: the errors above must be fixed. Nothing will be applied.";

/// How many resource changes of each kind a plan holds. A replace counts as one add and one destroy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Creates, the create leg of replaces included.
    pub add: usize,
    /// Updates in place, tags-only marker repairs included.
    pub change: usize,
    /// Deletes, the destroy leg of replaces included.
    pub destroy: usize,
    /// Changes held back until an interrupted create may be retried (not counted above).
    pub withheld: usize,
}

impl Summary {
    /// Whether the plan changes nothing and holds nothing back: only then does the live system match the
    /// configuration.
    pub fn is_empty(&self) -> bool {
        !self.has_changes() && self.withheld == 0
    }

    /// Whether the plan has a change to apply now (withheld ones are not).
    pub fn has_changes(&self) -> bool {
        self.add > 0 || self.change > 0 || self.destroy > 0
    }

    /// The counts line, even when they are all zero (`Plan: 0 to add, 0 to change, 0 to destroy.`), never
    /// the "No changes" form.
    pub fn counts(&self) -> impl fmt::Display + '_ {
        Counts(self)
    }
}

/// [`Summary::counts`].
struct Counts<'a>(&'a Summary);

impl fmt::Display for Counts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Plan: {} to add, {} to change, {} to destroy",
            self.0.add, self.0.change, self.0.destroy
        )?;
        if self.0.withheld > 0 {
            write!(f, ", {} withheld", self.0.withheld)?;
        }
        f.write_str(".")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("No changes. The live system matches the configuration.")
        } else {
            self.counts().fmt(f)
        }
    }
}
