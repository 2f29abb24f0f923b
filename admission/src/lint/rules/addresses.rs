//! The address rules: every `for_each` key may enter an address (`for-each-key`), and every instance
//! address fits in the four address tags once escaped (`overlong-address`).
//!
//! Addresses are never truncated or rewritten to fit; a key or address that does not fit is reported.

use crate::address::{BlockAddress, InstanceAddress, InstanceKey};
use crate::config::{Loc, Resource};
use crate::diag::{Code, Diagnostic};
use crate::error::Error;
use crate::lint::Lint;
use crate::lint::expand::Repetitions;
use crate::marker::{self, KeyGrammar};

/// Whether every instance of a `count` block fits in the address tags, judged by its last index alone.
/// The indices come in order and an index's escaped address grows only with its digits: when the last one
/// fits, all do, and none needs escaping to be checked. Any other block is judged per instance.
pub(crate) fn all_indices_fit(block: &BlockAddress, repetitions: &Repetitions) -> bool {
    match repetitions.last() {
        Some((last @ InstanceKey::Int(_), _)) => {
            let escaped =
                marker::escape_address_with(&block.instance(last.clone()), KeyGrammar::Current);
            marker::check_address_length(&escaped).is_ok()
        }
        _ => false,
    }
}

impl Lint<'_, '_, '_> {
    /// Reports `address` (shown as `text`) when it is too long for the address tags once escaped.
    pub(crate) fn address_length(&mut self, res: &Resource, address: &InstanceAddress, text: &str) {
        let escaped = marker::escape_address_with(address, KeyGrammar::Current);
        if let Err(Error::OverlongAddress { chars: len }) = marker::check_address_length(&escaped) {
            self.push(
                Diagnostic::new(
                    Code::OverlongAddress,
                    format!(
                        "the address of `{text}` is {len} characters once escaped, over {}",
                        marker::MAX_ADDRESS_CHARS
                    ),
                    "shorten the resource name or the for_each key; addresses are never truncated",
                )
                .with_address(text)
                .at(res.loc.to_pos()),
            );
        }
    }

    /// Whether the `for_each` key `key` of the block `address` may enter an address; a refused key is
    /// reported at the block's `for_each` (`loc`).
    pub(crate) fn for_each_key_admitted(&mut self, key: &str, address: &str, loc: &Loc) -> bool {
        let Some(why) = for_each_key_problem(key) else {
            return true;
        };
        self.push(
            Diagnostic::new(
                Code::ForEachKey,
                format!("for_each key {key:?} of `{address}` cannot be used in an address: {why}"),
                "keys must be non-empty and hold no `\"`, `\\`, `$`, `%`, `[`, `]` or control characters",
            )
            .with_address(address)
            .at(loc.to_pos()),
        );
        false
    }
}

/// Why `key` may not enter an address, if it may not.
fn for_each_key_problem(key: &str) -> Option<String> {
    match marker::check_for_each_key(key) {
        Err(Error::InvalidForEachKey { reason, .. }) => Some(reason),
        Err(other) => Some(other.to_string()),
        Ok(()) => None,
    }
}
