//! Ownership markers: the tags that carry a live object's owner (`tofu-estate`), its address
//! (`tofu-address` and its continuations) and its count-set slot (`tofu-slot`), byte-compatible with the
//! stateless OpenTofu fork's marker spec version 1.
//!
//! Everything here is a pure function over strings and tag maps: estate names, the two-layer escaping of
//! `for_each` keys (and the older grammars still bound), address escaping into a tag value and the
//! display-only decoding back, long addresses split into 256-character chunks, slots, the ownership verdict
//! of a tag set, slot binding of a count set, and the rules that refuse a rename or an adoption.
//!
//! Binding never decodes a tag: it escapes the declared address ([`escaped_forms`]) and compares strings.
//! Decoding ([`decode_address`]) exists only to *show* a marker that no declared address matches. This
//! module must never decide what to write to a live system beyond the tag values themselves.
//!
//! ```
//! use admission::marker::{decode_address, escape_address};
//!
//! let addr = r#"aws_subnet.this["alice.smith"]"#.parse().unwrap();
//! let escaped = escape_address(&addr).unwrap();
//! assert_eq!(escaped, "aws_subnet.this:alice@dsmith");
//! assert_eq!(decode_address(&escaped).unwrap(), addr);
//! ```

mod count_set;
mod escape;
mod estate;
mod ownership;
mod rules;
mod slot;
mod tags;

use std::collections::{BTreeMap, BTreeSet};

pub use count_set::{BoundMember, CountBinding, CountMember, CountSetError, bind_count_set};
pub use escape::{
    KeyGrammar, check_address_length, check_for_each_key, decode_address, decode_key, encode_key,
    encode_key_with, escape_address, escape_address_text, escape_address_with, escaped_forms,
    is_index, is_tag_value_char, split_escaped,
};
pub use estate::Estate;
pub use ownership::{MalformedReason, Ownership, ownership};
pub use rules::{
    AdoptFacts, AdoptRefusal, DeclarationMatch, ObjectAtAddress, RenameFacts, RenameRefusal,
    check_adopt, check_rename,
};
pub use slot::{Slot, SlotMarker, mint_slots};
pub use tags::{
    address_tag_change, address_tags, marker_tags, marker_tags_for, older_form, read_address,
};

/// The tag holding the owning estate's name.
pub const ESTATE_TAG: &str = "tofu-estate";
/// The tag holding the escaped address (or its first chunk).
pub const ADDRESS_TAG: &str = "tofu-address";
/// The tag holding a count-set member's slot.
pub const SLOT_TAG: &str = "tofu-slot";
/// Every marker tag key starts with this; configurations may not write such tags themselves.
pub const MARKER_PREFIX: &str = "tofu-";
/// The characters one tag value holds, and so one address chunk.
pub const CHUNK_CHARS: usize = 256;
/// The longest escaped address: four chunks.
pub const MAX_ADDRESS_CHARS: usize = 1024;
/// The most address chunks: `tofu-address` and `-2`, `-3`, `-4`.
pub const MAX_CHUNKS: usize = 4;

/// Whether `key` is a marker tag key (`tofu-*`).
pub fn is_marker_key(key: &str) -> bool {
    key.starts_with(MARKER_PREFIX)
}

/// The tag key of address chunk `n` (1-based): `tofu-address`, `tofu-address-2`, ...
pub fn chunk_key(n: usize) -> String {
    if n <= 1 {
        ADDRESS_TAG.to_owned()
    } else {
        format!("{ADDRESS_TAG}-{n}")
    }
}

/// The tags of `tags` that are not markers (what a configuration's `tags` manages).
pub fn non_marker_tags(tags: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    tags.iter()
        .filter(|(k, _)| !is_marker_key(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The marker keys among `keys` (for `marker-in-config`), sorted.
pub fn marker_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    keys.into_iter().filter(|k| is_marker_key(k)).collect()
}
