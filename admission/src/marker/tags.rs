//! Marker tag sets: a long escaped address split into 256-character chunks over `tofu-address` and its
//! continuations, read back and checked as a chain, and the full set of marker tags a new object carries.
//!
//! These functions only build and read tag maps; they never decide which object is tagged.

use std::collections::BTreeMap;

use super::escape::{check_address_length, escape_address, escaped_forms};
use super::{ADDRESS_TAG, CHUNK_CHARS, ESTATE_TAG, Estate, MAX_CHUNKS, SLOT_TAG, Slot, chunk_key};
use crate::address::InstanceAddress;
use crate::error::Error;
use ::provider::TagChange;

/// The address tags for an escaped address: the first 256 characters in `tofu-address`, the rest in
/// `tofu-address-2` .. `-4` (counted in Unicode characters); over 1,024 characters is an error.
pub fn address_tags(escaped: &str) -> Result<BTreeMap<String, String>, Error> {
    check_address_length(escaped)?;
    let chars: Vec<char> = escaped.chars().collect();
    let mut tags = BTreeMap::new();
    if chars.is_empty() {
        tags.insert(ADDRESS_TAG.to_owned(), String::new());
    }
    for (i, chunk) in chars.chunks(CHUNK_CHARS).enumerate() {
        tags.insert(chunk_key(i + 1), chunk.iter().collect());
    }
    Ok(tags)
}

/// Reads the escaped address back from an object's tags: `Ok(None)` when it carries no address tag at
/// all, an error when the chain is broken (a continuation without the primary, a gap, a chunk beyond the
/// fourth, or a non-final chunk shorter than 256 characters).
pub fn read_address(tags: &BTreeMap<String, String>) -> Result<Option<String>, Error> {
    let malformed = |reason: String| Error::MalformedMarker { reason };
    let mut chunks: BTreeMap<usize, &str> = BTreeMap::new();
    if let Some(primary) = tags.get(ADDRESS_TAG) {
        chunks.insert(1, primary);
    }
    let continuation_prefix = format!("{ADDRESS_TAG}-");
    for (key, value) in tags {
        let Some(suffix) = key.strip_prefix(&continuation_prefix) else {
            continue;
        };
        if suffix.is_empty() || !suffix.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        match suffix.parse::<usize>() {
            Ok(n @ 2..=MAX_CHUNKS) if suffix == n.to_string() => {
                chunks.insert(n, value);
            }
            _ => return Err(malformed(format!("{key} is not an address continuation"))),
        }
    }
    if chunks.is_empty() {
        return Ok(None);
    }
    let mut out = String::new();
    let last = chunks.keys().next_back().copied().unwrap_or(1);
    for n in 1..=last {
        let Some(chunk) = chunks.get(&n) else {
            let present = chunk_key(last);
            return Err(malformed(format!("{present} without {}", chunk_key(n))));
        };
        let len = chunk.chars().count();
        if n < last && len != CHUNK_CHARS {
            return Err(malformed(format!(
                "{} holds {len} characters but a continuation follows",
                chunk_key(n)
            )));
        }
        if n > 1 && len == 0 {
            return Err(malformed(format!("{} is empty", chunk_key(n))));
        }
        out.push_str(chunk);
    }
    Ok(Some(out))
}

/// The tag change that makes an object carry the escaped address `escaped` instead of what its `tags` say:
/// sets every chunk and removes the continuations the new address no longer needs (a rename, a repair).
pub fn address_tag_change(
    tags: &BTreeMap<String, String>,
    escaped: &str,
) -> Result<TagChange, Error> {
    let set = address_tags(escaped)?;
    let continuation_prefix = format!("{ADDRESS_TAG}-");
    let remove = tags
        .keys()
        .filter(|k| k.starts_with(&continuation_prefix) && !set.contains_key(*k))
        .cloned()
        .collect();
    let set = set
        .into_iter()
        .filter(|(k, v)| tags.get(k) != Some(v))
        .collect();
    Ok(TagChange { set, remove })
}

/// Every marker tag a new object of this estate carries: the estate, the address chunks and, for a count
/// member, the slot.
pub fn marker_tags(
    estate: &Estate,
    address: &InstanceAddress,
    slot: Option<Slot>,
) -> Result<BTreeMap<String, String>, Error> {
    marker_tags_for(estate, &escape_address(address)?, slot)
}

/// Every marker tag for an address already escaped (`escaped`): the estate, the address chunks and, for a
/// count member, the slot.
pub fn marker_tags_for(
    estate: &Estate,
    escaped: &str,
    slot: Option<Slot>,
) -> Result<BTreeMap<String, String>, Error> {
    let mut tags = address_tags(escaped)?;
    tags.insert(ESTATE_TAG.to_owned(), estate.as_str().to_owned());
    if let Some(s) = slot {
        tags.insert(SLOT_TAG.to_owned(), s.to_string());
    }
    Ok(tags)
}

/// The escaped address `tags` carry when it marks `address` in an older grammar than the current one
/// (`aws_subnet.this:alice.smith` for `aws_subnet.this["alice.smith"]`): such a marker still binds, and is
/// never rewritten just to modernize it. `None` when the tags carry the current form, another address, or
/// no readable address at all.
pub fn older_form(address: &InstanceAddress, tags: &BTreeMap<String, String>) -> Option<String> {
    let escaped = read_address(tags).ok()??;
    let current = escape_address(address).ok()?;
    (escaped != current && escaped_forms(address).contains(&escaped)).then_some(escaped)
}
