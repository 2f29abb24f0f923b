//! The marker tag keys: the estate, address-chunk and slot keys, the `tofu-` prefix every marker key
//! starts with, and the limits of an address held in tags.

use std::collections::{BTreeMap, BTreeSet};

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
