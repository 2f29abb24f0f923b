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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::address::{InstanceAddress, InstanceKey};
use crate::error::Error;
use crate::path::AdmissionPath;
use crate::provider::TagChange;
use crate::value::is_identifier;

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

/// A valid estate name: `^[a-z][a-z0-9-]{0,127}$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Estate(String);

impl Estate {
    /// The estate `name`, or why it is outside the grammar.
    pub fn new(name: impl Into<String>) -> Result<Estate, Error> {
        let name = name.into();
        let reason = if name.is_empty() {
            Some("it is empty")
        } else if name.chars().count() > 128 {
            Some("it is longer than 128 characters")
        } else if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            Some("it must start with a lowercase letter")
        } else if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            Some("it may hold only lowercase letters, digits and hyphens")
        } else {
            None
        };
        match reason {
            Some(r) => Err(Error::InvalidEstate {
                name,
                reason: r.to_owned(),
            }),
            None => Ok(Estate(name)),
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Estate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Estate {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Estate::new(s)
    }
}

impl Serialize for Estate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Estate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Estate::new(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// Whether AWS accepts `c` in a tag value: Unicode letters and digits, space and `+ - = . _ : / @`.
pub fn is_tag_value_char(c: char) -> bool {
    c.is_alphabetic()
        || c.is_numeric()
        || matches!(c, ' ' | '+' | '-' | '=' | '.' | '_' | ':' | '/' | '@')
}

/// Checks that a `for_each` key may enter an address (lint `for-each-key`): not empty, and free of
/// `"` `\` `$` `%` `[` `]` and control characters.
pub fn check_for_each_key(key: &str) -> Result<(), Error> {
    let refuse = |reason: String| {
        Err(Error::InvalidForEachKey {
            key: key.to_owned(),
            reason,
        })
    };
    if key.is_empty() {
        return refuse("the key is empty".to_owned());
    }
    if let Some(c) = key
        .chars()
        .find(|c| matches!(c, '"' | '\\' | '$' | '%' | '[' | ']'))
    {
        return refuse(format!("the key holds {c:?}"));
    }
    if let Some(c) = key.chars().find(|c| c.is_control()) {
        return refuse(format!(
            "the key holds the control character U+{:04X}",
            c as u32
        ));
    }
    Ok(())
}

/// The grammars a `for_each` key has been escaped with in markers, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyGrammar {
    /// The hex layer, then the separator layer: what every new write uses.
    Current,
    /// The separator layer only (markers written before the hex layer existed).
    SeparatorsOnly,
    /// The key as it is (markers written before either layer).
    Raw,
}

impl KeyGrammar {
    /// Every grammar, newest first.
    pub const ALL: [KeyGrammar; 3] = [
        KeyGrammar::Current,
        KeyGrammar::SeparatorsOnly,
        KeyGrammar::Raw,
    ];
}

fn hex_layer(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        if c == '+' {
            out.push_str("++");
        } else if is_tag_value_char(c) {
            out.push(c);
        } else {
            out.push_str(&format!("+{:06X}", c as u32));
        }
    }
    out
}

fn separator_layer(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        match c {
            '@' => out.push_str("@@"),
            '.' => out.push_str("@d"),
            ':' => out.push_str("@c"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a `for_each` key under `grammar`, without checking that the key is admitted.
pub fn encode_key_with(key: &str, grammar: KeyGrammar) -> String {
    match grammar {
        KeyGrammar::Current => separator_layer(&hex_layer(key)),
        KeyGrammar::SeparatorsOnly => separator_layer(key),
        KeyGrammar::Raw => key.to_owned(),
    }
}

/// Escapes an admitted `for_each` key with the current grammar (`alice.smith` → `alice@dsmith`,
/// `a(b)` → `a+000028b+000029`); a refused key is an error.
pub fn encode_key(key: &str) -> Result<String, Error> {
    check_for_each_key(key)?;
    Ok(encode_key_with(key, KeyGrammar::Current))
}

/// Reverses [`encode_key`] in one left-to-right scan; text the current grammar cannot have produced is an
/// error.
pub fn decode_key(escaped: &str) -> Result<String, Error> {
    let fail = |reason: String| Error::UndecodableKey {
        escaped: escaped.to_owned(),
        reason,
    };
    let mut out = String::with_capacity(escaped.len());
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        match c {
            '@' => match chars.next() {
                Some('@') => out.push('@'),
                Some('d') => out.push('.'),
                Some('c') => out.push(':'),
                Some(other) => return Err(fail(format!("@{other} is not an escape"))),
                None => return Err(fail("it ends in a lone @".to_owned())),
            },
            '+' => {
                let mut hex = String::new();
                match chars.next() {
                    Some('+') => {
                        out.push('+');
                        continue;
                    }
                    Some(h) => hex.push(h),
                    None => return Err(fail("it ends in a lone +".to_owned())),
                }
                for _ in 0..5 {
                    hex.push(
                        chars
                            .next()
                            .ok_or_else(|| fail("a + escape needs six hex digits".to_owned()))?,
                    );
                }
                if !hex
                    .chars()
                    .all(|h| h.is_ascii_digit() || ('A'..='F').contains(&h))
                {
                    return Err(fail(format!("+{hex} is not six uppercase hex digits")));
                }
                let code = u32::from_str_radix(&hex, 16)
                    .map_err(|_| fail(format!("+{hex} is not hex")))?;
                let ch = char::from_u32(code)
                    .ok_or_else(|| fail(format!("+{hex} is not a character")))?;
                out.push(ch);
            }
            '.' | ':' => return Err(fail(format!("a bare {c:?} is never written"))),
            c if !is_tag_value_char(c) => {
                return Err(fail(format!("{c:?} is not allowed in a tag value")));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Escapes an address's text by the marker rule: every `[` becomes `:`, every `]` and `"` is deleted
/// (`module.net["eu"].aws_subnet.this` → `module.net:eu.aws_subnet.this`). Keys must be escaped already.
pub fn escape_address_text(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, ']' | '"'))
        .map(|c| if c == '[' { ':' } else { c })
        .collect()
}

/// The escaped form of `address` under `grammar` for its key.
pub fn escape_address_with(address: &InstanceAddress, grammar: KeyGrammar) -> String {
    let block = address.block();
    match address.key() {
        InstanceKey::None => format!("{}.{}", block.type_name(), block.name()),
        InstanceKey::Int(i) => format!("{}.{}:{i}", block.type_name(), block.name()),
        InstanceKey::Str(k) => {
            format!(
                "{}.{}:{}",
                block.type_name(),
                block.name(),
                encode_key_with(k, grammar)
            )
        }
    }
}

/// The escaped form of `address` a new marker carries; a refused `for_each` key is an error.
pub fn escape_address(address: &InstanceAddress) -> Result<String, Error> {
    if let InstanceKey::Str(k) = address.key() {
        check_for_each_key(k)?;
    }
    Ok(escape_address_with(address, KeyGrammar::Current))
}

/// The escaped forms a marker of `address` may carry, current grammar first, without repeats: binding
/// compares a live marker against each.
pub fn escaped_forms(address: &InstanceAddress) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in KeyGrammar::ALL {
        let e = escape_address_with(address, g);
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// Checks an escaped address against the length limit (lint `overlong-address`).
pub fn check_address_length(escaped: &str) -> Result<(), Error> {
    let chars = escaped.chars().count();
    if chars > MAX_ADDRESS_CHARS {
        Err(Error::OverlongAddress { chars })
    } else {
        Ok(())
    }
}

/// The parts of an escaped address: type, name and the escaped key (if any). `None` when the text is not
/// `TYPE.NAME` or `TYPE.NAME:KEY`.
pub fn split_escaped(escaped: &str) -> Option<(&str, &str, Option<&str>)> {
    let (type_name, rest) = escaped.split_once('.')?;
    let (name, key) = match rest.split_once(':') {
        Some((n, k)) => (n, Some(k)),
        None => (rest, None),
    };
    (is_identifier(type_name) && is_identifier(name) && key.is_none_or(|k| !k.is_empty()))
        .then_some((type_name, name, key))
}

/// The address an escaped marker shows as (display only; binding never decodes): an all-digit key reads
/// as an index (`aws_eip.pool:2` → `aws_eip.pool[2]`), anything else as a key, decoded with the current
/// grammar or, failing that, read as an older one (`aws_subnet.this:a@db++c` → `aws_subnet.this["a.b+c"]`).
pub fn decode_address(escaped: &str) -> Result<InstanceAddress, Error> {
    let invalid = |reason: &str| Error::InvalidAddress {
        input: escaped.to_owned(),
        reason: reason.to_owned(),
    };
    let (type_name, name, key) =
        split_escaped(escaped).ok_or_else(|| invalid("not an escaped address"))?;
    let block = crate::address::BlockAddress::new(type_name, name)?;
    let key = match key {
        None => InstanceKey::None,
        Some(k) if is_index(k) => {
            InstanceKey::Int(k.parse().map_err(|_| invalid("index out of range"))?)
        }
        Some(k) => {
            let decoded = match decode_key(k) {
                Ok(decoded) => decoded,
                // An older grammar left the hex layer out (or both layers): read it as plainly as possible.
                Err(_) => decode_separators(k).unwrap_or_else(|| k.to_owned()),
            };
            // A key no configuration could declare (a control character, a quote) is not an address: showing
            // it as one would name an instance that can never be written back.
            check_for_each_key(&decoded)
                .map_err(|_| invalid("the key holds a character no for_each key may hold"))?;
            InstanceKey::Str(decoded)
        }
    };
    Ok(block.instance(key))
}

fn is_index(k: &str) -> bool {
    !k.is_empty()
        && k.bytes().all(|b| b.is_ascii_digit())
        && (k == "0" || !k.starts_with('0'))
        && k.len() < 20
}

fn decode_separators(k: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = k.chars();
    while let Some(c) = chars.next() {
        if c == '@' {
            match chars.next()? {
                '@' => out.push('@'),
                'd' => out.push('.'),
                'c' => out.push(':'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

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

/// A count-set member's slot: an unsigned base-10 integer up to 4294967295, no leading zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Slot(pub u32);

impl Slot {
    /// The first slot minted for a block.
    pub const FIRST: Slot = Slot(0);

    /// The slot after this one, if there is one.
    pub fn next(self) -> Option<Slot> {
        self.0.checked_add(1).map(Slot)
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Slot {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| Error::MalformedSlot {
            value: s.to_owned(),
            reason: reason.to_owned(),
        };
        if s.is_empty() {
            return Err(fail("it is empty"));
        }
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail("it must be ASCII digits only"));
        }
        if s.len() > 1 && s.starts_with('0') {
            return Err(fail("it has a leading zero"));
        }
        s.parse::<u32>()
            .map(Slot)
            .map_err(|_| fail("it is over 4294967295"))
    }
}

/// The next `n` slots for a block: above the larger of the highest live slot and the highest slot ever
/// recorded for it, starting at 0 for a block that never had one. Gaps are never filled.
pub fn mint_slots(
    live_high: Option<Slot>,
    recorded_high: Option<Slot>,
    n: usize,
) -> Result<Vec<Slot>, Error> {
    let high = live_high.max(recorded_high);
    let mut next = match high {
        None => Some(Slot::FIRST),
        Some(h) => h.next(),
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let s = next.ok_or(Error::SlotsExhausted {
            highest: high.map_or(0, |h| h.0),
        })?;
        out.push(s);
        next = s.next();
    }
    Ok(out)
}

/// What a slot tag says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotMarker {
    /// No `tofu-slot` tag.
    Absent,
    /// A valid slot.
    Valid(Slot),
    /// A value outside the grammar (`malformed-slot`).
    Malformed(String),
}

/// Why an object carrying this estate's name is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MalformedReason {
    /// No address tag at all (bound anyway when found at a declared client-named identity).
    MissingAddress,
    /// The address chain is broken.
    BrokenChain(String),
    /// The address is not `TYPE.NAME` or `TYPE.NAME:KEY`.
    Unparseable(String),
    /// The address names another resource type.
    OtherType(String),
}

impl fmt::Display for MalformedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedReason::MissingAddress => f.write_str("the tofu-address tag is missing"),
            MalformedReason::BrokenChain(r) => write!(f, "the address chain is broken: {r}"),
            MalformedReason::Unparseable(a) => write!(f, "the address {a:?} does not parse"),
            MalformedReason::OtherType(t) => {
                write!(f, "the address names another resource type, {t}")
            }
        }
    }
}

/// The ownership verdict of one live object's tags, for one estate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// This estate's object at a parseable address of its own type (escaped, as the tag holds it).
    Owned {
        /// The escaped address the markers carry.
        escaped_address: String,
        /// What the slot tag says.
        slot: SlotMarker,
    },
    /// No estate tag: reported, protected, never deleted.
    Foreign,
    /// Another estate's object: counted, never bound, never touched.
    OtherEstate(String),
    /// This estate's name with an unreadable address: an error, never changed.
    Malformed(MalformedReason),
}

/// Judges an object of `type_name` by its tags for `estate` (markers.md, ownership verdicts).
pub fn ownership(estate: &Estate, type_name: &str, tags: &BTreeMap<String, String>) -> Ownership {
    match tags.get(ESTATE_TAG) {
        None => return Ownership::Foreign,
        Some(e) if e != estate.as_str() => return Ownership::OtherEstate(e.clone()),
        Some(_) => {}
    }
    let escaped = match read_address(tags) {
        Ok(Some(a)) => a,
        Ok(None) => return Ownership::Malformed(MalformedReason::MissingAddress),
        Err(Error::MalformedMarker { reason }) => {
            return Ownership::Malformed(MalformedReason::BrokenChain(reason));
        }
        Err(other) => return Ownership::Malformed(MalformedReason::BrokenChain(other.to_string())),
    };
    match split_escaped(&escaped) {
        None => Ownership::Malformed(MalformedReason::Unparseable(escaped)),
        Some((t, _, _)) if t != type_name => {
            Ownership::Malformed(MalformedReason::OtherType(t.to_owned()))
        }
        Some(_) => {
            let slot = match tags.get(SLOT_TAG) {
                None => SlotMarker::Absent,
                Some(v) => match v.parse() {
                    Ok(s) => SlotMarker::Valid(s),
                    Err(_) => SlotMarker::Malformed(v.clone()),
                },
            };
            Ownership::Owned {
                escaped_address: escaped,
                slot,
            }
        }
    }
}

/// A live owned member of a `count` block, as binding sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountMember {
    /// The object's id.
    pub id: String,
    /// Its valid slot, if it carries one.
    pub slot: Option<Slot>,
    /// The index its address marker names.
    pub address_index: u64,
}

/// One declared index bound to a live member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundMember {
    /// The object's id.
    pub id: String,
    /// The slot it carries, or the slot a tags-only update gives it (an unslotted member).
    pub slot: Slot,
    /// The member carries no slot yet: the next apply writes `slot` with a tags-only update.
    pub needs_slot: bool,
    /// Its address marker names another index: the next apply repairs it with a tags-only update.
    pub stale_address: bool,
}

/// How a `count` block's declared indices meet its live members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountBinding {
    /// The bound indices.
    pub bound: BTreeMap<u64, BoundMember>,
    /// The indices with no member: each is created with the slot given here.
    pub create: BTreeMap<u64, Slot>,
    /// The members beyond `count`, to destroy (ids, highest slots or indices first).
    pub surplus: Vec<String>,
}

/// Why a count set cannot be bound; nothing is planned for the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountSetError {
    /// Two members carry the same slot (`duplicate-slot`), naming their ids.
    DuplicateSlot {
        /// The slot.
        slot: Slot,
        /// The members carrying it, sorted.
        ids: Vec<String>,
    },
    /// Unslotted members carry the same address (`indistinguishable-instances`), naming their ids.
    Indistinguishable {
        /// The index their addresses name.
        index: u64,
        /// The members, sorted.
        ids: Vec<String>,
    },
    /// No slot is left to mint.
    SlotsExhausted,
}

/// Binds a `count = count` block to its live members (markers.md, slots): slotted members in slot order
/// take indices 0, 1, ...; unslotted members then take the next free indices in address order. A wholly
/// unslotted set keeps its addresses and is given slot i = index i; in a mixed set the unslotted members
/// get new slots above the high-water mark. Surplus is the highest indices; a deficit mints slots above
/// the larger of every live slot and `recorded_high`.
pub fn bind_count_set(
    members: &[CountMember],
    count: u64,
    recorded_high: Option<Slot>,
) -> Result<CountBinding, CountSetError> {
    let mut by_slot: BTreeMap<Slot, Vec<&CountMember>> = BTreeMap::new();
    let mut by_index: BTreeMap<u64, Vec<&CountMember>> = BTreeMap::new();
    for m in members {
        match m.slot {
            Some(s) => by_slot.entry(s).or_default().push(m),
            None => by_index.entry(m.address_index).or_default().push(m),
        }
    }
    if let Some((slot, ms)) = by_slot.iter().find(|(_, ms)| ms.len() > 1) {
        let mut ids: Vec<String> = ms.iter().map(|m| m.id.clone()).collect();
        ids.sort();
        return Err(CountSetError::DuplicateSlot { slot: *slot, ids });
    }
    if let Some((index, ms)) = by_index.iter().find(|(_, ms)| ms.len() > 1) {
        let mut ids: Vec<String> = ms.iter().map(|m| m.id.clone()).collect();
        ids.sort();
        return Err(CountSetError::Indistinguishable { index: *index, ids });
    }
    let wholly_unslotted = by_slot.is_empty();
    // Every member in binding order: slotted by slot, then unslotted by address index.
    let ordered: Vec<&CountMember> = by_slot
        .values()
        .flatten()
        .copied()
        .chain(by_index.values().flatten().copied())
        .collect();
    let mut binding = CountBinding::default();
    let mut high = by_slot.keys().next_back().copied().max(recorded_high);
    let mint = |high: &mut Option<Slot>| -> Result<Slot, CountSetError> {
        let s = match *high {
            None => Slot::FIRST,
            Some(h) => h.next().ok_or(CountSetError::SlotsExhausted)?,
        };
        *high = Some(s);
        Ok(s)
    };
    if wholly_unslotted {
        // An unslotted set binds by address: index i keeps its member and gets slot i.
        for m in &ordered {
            if m.address_index < count {
                let slot = u32::try_from(m.address_index)
                    .map(Slot)
                    .map_err(|_| CountSetError::SlotsExhausted)?;
                binding.bound.insert(
                    m.address_index,
                    BoundMember {
                        id: m.id.clone(),
                        slot,
                        needs_slot: true,
                        stale_address: false,
                    },
                );
            }
        }
        let mut surplus: Vec<&&CountMember> = ordered
            .iter()
            .filter(|m| m.address_index >= count)
            .collect();
        surplus.sort_by_key(|m| std::cmp::Reverse(m.address_index));
        binding.surplus = surplus.into_iter().map(|m| m.id.clone()).collect();
        high = high.max(binding.bound.values().map(|b| b.slot).max());
    } else {
        for (index, m) in (0u64..).zip(ordered.iter()) {
            if index >= count {
                break;
            }
            let (slot, needs_slot) = match m.slot {
                Some(s) => (s, false),
                None => (mint(&mut high)?, true),
            };
            binding.bound.insert(
                index,
                BoundMember {
                    id: m.id.clone(),
                    slot,
                    needs_slot,
                    stale_address: m.address_index != index,
                },
            );
        }
        binding.surplus = ordered
            .iter()
            .skip(usize::try_from(count).unwrap_or(usize::MAX))
            .rev()
            .map(|m| m.id.clone())
            .collect();
    }
    for index in 0..count {
        if !binding.bound.contains_key(&index) {
            binding.create.insert(index, mint(&mut high)?);
        }
    }
    Ok(binding)
}

/// What a rename (`liveplan mv OLD NEW`) found, as plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameFacts {
    /// The estate of the run, if there is one.
    pub estate: Option<Estate>,
    /// The old address.
    pub old: InstanceAddress,
    /// The new address.
    pub new: InstanceAddress,
    /// What carries OLD.
    pub at_old: ObjectAtAddress,
    /// A live object of this estate already carries NEW.
    pub new_claimed: bool,
    /// NEW is declared in the configuration.
    pub new_declared: bool,
    /// `--allow-missing-config` was given.
    pub allow_missing_config: bool,
}

/// What carries an address (or sits at a client-named identity) for a rename or an adoption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectAtAddress {
    /// Nothing.
    Nothing,
    /// Exactly one object of this estate.
    Ours {
        /// Its id.
        id: String,
    },
    /// Several objects of this estate (a collision).
    Several {
        /// Their ids, sorted.
        ids: Vec<String>,
    },
    /// An object with no estate tag.
    Unowned {
        /// Its id.
        id: String,
    },
    /// An object of another estate.
    AnotherEstate {
        /// Its id.
        id: String,
        /// The estate that owns it.
        estate: String,
    },
}

/// Why a rename is refused (`mv-refused`); the display is the diagnostic's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameRefusal {
    /// No estate name.
    NoEstate,
    /// OLD and NEW are of different resource types.
    DifferentTypes,
    /// No live object of this estate carries OLD.
    NothingAtOld,
    /// Several live objects carry OLD.
    CollisionAtOld(Vec<String>),
    /// The object at OLD belongs to another estate.
    AnotherEstate(String),
    /// NEW is already claimed by a live object of this estate.
    NewClaimed,
    /// NEW is not declared, and `--allow-missing-config` was not given.
    NewNotDeclared,
}

impl fmt::Display for RenameRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameRefusal::NoEstate => f.write_str("no estate name: set live { estate } or pass --estate"),
            RenameRefusal::DifferentTypes => f.write_str("the old and new addresses are of different resource types"),
            RenameRefusal::NothingAtOld => f.write_str("no live object of this estate carries the old address"),
            RenameRefusal::CollisionAtOld(ids) => {
                write!(f, "several live objects carry the old address: {}", ids.join(", "))
            }
            RenameRefusal::AnotherEstate(e) => write!(f, "the object is owned by another estate, {e}"),
            RenameRefusal::NewClaimed => f.write_str("a live object of this estate already carries the new address"),
            RenameRefusal::NewNotDeclared => {
                f.write_str("the new address is not declared in the configuration (pass --allow-missing-config)")
            }
        }
    }
}

/// Decides whether a rename may proceed; `Ok` carries the id of the object to retag.
pub fn check_rename(facts: &RenameFacts) -> Result<String, RenameRefusal> {
    if facts.estate.is_none() {
        return Err(RenameRefusal::NoEstate);
    }
    if facts.old.type_name() != facts.new.type_name() {
        return Err(RenameRefusal::DifferentTypes);
    }
    let id = match &facts.at_old {
        ObjectAtAddress::Nothing | ObjectAtAddress::Unowned { .. } => {
            return Err(RenameRefusal::NothingAtOld);
        }
        ObjectAtAddress::Several { ids } => return Err(RenameRefusal::CollisionAtOld(ids.clone())),
        ObjectAtAddress::AnotherEstate { estate, .. } => {
            return Err(RenameRefusal::AnotherEstate(estate.clone()));
        }
        ObjectAtAddress::Ours { id } => id.clone(),
    };
    if facts.new_claimed {
        return Err(RenameRefusal::NewClaimed);
    }
    if !facts.new_declared && !facts.allow_missing_config {
        return Err(RenameRefusal::NewNotDeclared);
    }
    Ok(id)
}

/// What an adoption (`liveplan adopt ADDRESS [--id ID]`) found, as plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdoptFacts {
    /// The estate of the run, if there is one.
    pub estate: Option<Estate>,
    /// ADDRESS is declared in the configuration.
    pub declared: bool,
    /// The admission path of ADDRESS's type (`None` for an unadmitted type).
    pub admission: Option<AdmissionPath>,
    /// `--id` was given.
    pub id_given: bool,
    /// The type's objects carry tags.
    pub taggable: bool,
    /// A live object of this estate is already bound to ADDRESS.
    pub already_bound: bool,
    /// The object to adopt: at ADDRESS's client-named identity, or the one `--id` names.
    pub target: ObjectAtAddress,
    /// Whether the object is the one ADDRESS declares. Adopting anything else would hand the next apply
    /// an object that differs from the declaration, and it would replace (destroy) or rewrite it.
    pub declaration: DeclarationMatch,
}

/// How the object to adopt meets ADDRESS's declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclarationMatch {
    /// It is the object at the declared client-named identity, or a bind candidate of the marker-path
    /// instance (its bind-candidate fields equal the declared values).
    Matches,
    /// A client-named instance, and the object is not the one at the declared identity.
    OtherIdentity {
        /// The declared identity (a bucket or role name).
        declared: String,
    },
    /// A marker-path instance, and the object is not one of its bind candidates.
    NotACandidate,
}

/// Why an adoption is refused (`adopt-refused`); the display is the diagnostic's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdoptRefusal {
    /// No estate name.
    NoEstate,
    /// ADDRESS is not declared.
    NotDeclared,
    /// Objects of the type carry no markers, so they cannot be adopted.
    NotTaggable,
    /// A marker-path instance needs `--id` naming the bind candidate.
    IdRequired,
    /// There is no object to adopt.
    NothingToAdopt,
    /// The object belongs to another estate.
    AnotherEstate(String),
    /// The object is already this estate's.
    AlreadyOwned,
    /// ADDRESS is already bound to a live object of this estate.
    AlreadyBound,
    /// The object (its id) is not the one at the declared client-named identity.
    OtherIdentity {
        /// The object named with `--id`.
        id: String,
        /// The declared identity.
        declared: String,
    },
    /// The object (its id) is not a bind candidate of the marker-path instance.
    NotACandidate(String),
}

impl AdoptRefusal {
    /// What to do about the refusal: the diagnostic's detail.
    pub fn detail(&self) -> String {
        match self {
            AdoptRefusal::OtherIdentity { declared, .. } => format!(
                "adopt takes only the object the configuration names, since the next apply would replace any \
                 other: run liveplan adopt without --id to adopt {declared}, or change the configuration to \
                 name this object; nothing was changed"
            ),
            AdoptRefusal::NotACandidate(_) => "its bind-candidate fields do not equal the declared values, so \
                 the next apply would replace or change it: adopt one of the objects liveplan plan lists under \
                 Adoption candidates, or change the configuration to match this object; nothing was changed"
                .to_owned(),
            AdoptRefusal::AlreadyOwned => "it carries this estate's tofu-estate tag; if the plan reports its \
                 markers as malformed, fix its tofu-* tags by hand, or remove them all and adopt it then; \
                 nothing was changed"
                .to_owned(),
            _ => "nothing was changed".to_owned(),
        }
    }
}

impl fmt::Display for AdoptRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdoptRefusal::NoEstate => {
                f.write_str("no estate name: set live { estate } or pass --estate")
            }
            AdoptRefusal::NotDeclared => {
                f.write_str("the address is not declared in the configuration")
            }
            AdoptRefusal::NotTaggable => {
                f.write_str("objects of this type carry no markers and cannot be adopted")
            }
            AdoptRefusal::IdRequired => {
                f.write_str("a marker-path instance is adopted with --id naming the object")
            }
            AdoptRefusal::NothingToAdopt => f.write_str("no live object to adopt"),
            AdoptRefusal::AnotherEstate(e) => {
                write!(f, "the object is owned by another estate, {e}")
            }
            AdoptRefusal::AlreadyOwned => f.write_str("the object already belongs to this estate"),
            AdoptRefusal::AlreadyBound => {
                f.write_str("the address is already bound to a live object of this estate")
            }
            AdoptRefusal::OtherIdentity { id, declared } => write!(
                f,
                "{id} is not the object at the declared identity {declared}"
            ),
            AdoptRefusal::NotACandidate(id) => {
                write!(f, "{id} is not a bind candidate of the address")
            }
        }
    }
}

/// Decides whether an adoption may proceed; `Ok` carries the id of the object to mark.
pub fn check_adopt(facts: &AdoptFacts) -> Result<String, AdoptRefusal> {
    if facts.estate.is_none() {
        return Err(AdoptRefusal::NoEstate);
    }
    if !facts.declared {
        return Err(AdoptRefusal::NotDeclared);
    }
    if !facts.taggable
        || !matches!(
            facts.admission,
            Some(AdmissionPath::ClientNamed | AdmissionPath::Marker)
        )
    {
        return Err(AdoptRefusal::NotTaggable);
    }
    if facts.admission == Some(AdmissionPath::Marker) && !facts.id_given {
        return Err(AdoptRefusal::IdRequired);
    }
    let id = match &facts.target {
        ObjectAtAddress::Nothing => return Err(AdoptRefusal::NothingToAdopt),
        ObjectAtAddress::AnotherEstate { estate, .. } => {
            return Err(AdoptRefusal::AnotherEstate(estate.clone()));
        }
        ObjectAtAddress::Ours { .. } | ObjectAtAddress::Several { .. } => {
            return Err(AdoptRefusal::AlreadyOwned);
        }
        ObjectAtAddress::Unowned { id } => id.clone(),
    };
    if facts.already_bound {
        return Err(AdoptRefusal::AlreadyBound);
    }
    match &facts.declaration {
        DeclarationMatch::Matches => Ok(id),
        DeclarationMatch::OtherIdentity { declared } => Err(AdoptRefusal::OtherIdentity {
            id,
            declared: declared.clone(),
        }),
        DeclarationMatch::NotACandidate => Err(AdoptRefusal::NotACandidate(id)),
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
