//! Ownership markers: the tags that carry a live object's owner (`tofu-estate`), its address
//! (`tofu-address` and its continuations) and its count-set slot (`tofu-slot`), byte-compatible with the
//! stateless OpenTofu fork's marker spec version 1.
//!
//! Everything here is a pure function over strings and tag maps: estate names, the two-layer escaping of
//! `for_each` keys (and the older grammars still bound), address escaping into a tag value and the
//! display-only decoding back, long addresses split into 256-character chunks, slots, the ownership verdict
//! of a tag set, slot binding of a count set, and the rules that refuse a rename, an adoption or a release.
//!
//! Binding never decodes a tag: it escapes the declared address ([`escaped_forms`]) and compares strings.
//! Decoding ([`decode_address`]) exists only to *show* a marker that no declared address matches. This
//! module must never decide what to write to a live system beyond the tag values themselves.
//!
//! The module is a facade: its rooms are private and it only re-exports. It stays a namespace of its own
//! because the grammar is a family of free functions and tag-key constants that read best qualified
//! (`marker::escape_address`, `marker::ESTATE_TAG`); its two vocabulary types, [`Estate`] and [`Slot`], are
//! also at the crate root.
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
mod keys;
mod ownership;
mod rules;
mod slot;
mod tags;

pub use count_set::{
    BoundMember, CountBinding, CountMember, CountSetError, HeldSlot, bind_count_set,
    bind_count_set_holding,
};
pub use escape::{
    KeyGrammar, check_address_length, check_for_each_key, decode_address, decode_key, encode_key,
    encode_key_with, escape_address, escape_address_text, escape_address_with, escaped_forms,
    is_index, is_tag_value_char, split_escaped,
};
pub use estate::Estate;
pub use keys::{
    ADDRESS_TAG, CHUNK_CHARS, ESTATE_TAG, MARKER_PREFIX, MAX_ADDRESS_CHARS, MAX_CHUNKS, SLOT_TAG,
    chunk_key, is_marker_key, marker_keys, non_marker_tags,
};
pub use ownership::{MalformedReason, Ownership, ownership};
pub use rules::{
    AdoptFacts, AdoptRefusal, DeclarationMatch, ObjectAtAddress, ReleaseFacts, ReleaseRefusal,
    RenameFacts, RenameRefusal, check_adopt, check_release, check_rename,
};
pub use slot::{Slot, SlotMarker, mint_slots};
pub use tags::{
    address_tag_change, address_tags, marker_tags, marker_tags_for, older_form, read_address,
};
