//! The key grammars and address escaping: how a `for_each` key and an instance address become the text of
//! a `tofu-address` tag, and the display-only decoding back.
//!
//! Binding compares escaped strings ([`escaped_forms`]); [`decode_address`] exists only to show a marker no
//! declared address matches. Nothing here reads or writes a tag map.

use super::MAX_ADDRESS_CHARS;
use crate::address::{InstanceAddress, InstanceKey};
use crate::error::Error;
use crate::value::is_identifier;

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

/// The escaped form of `address` under `grammar` for its keys: each module level as `module.NAME.` or
/// `module.NAME:KEY.`, then `TYPE.NAME` or `TYPE.NAME:KEY`, every string key escaped in both layers.
pub fn escape_address_with(address: &InstanceAddress, grammar: KeyGrammar) -> String {
    let block = address.block();
    let mut out = String::new();
    for step in block.module().steps() {
        out.push_str("module.");
        out.push_str(&step.name);
        push_key(&mut out, &step.key, grammar);
        out.push('.');
    }
    out.push_str(block.type_name());
    out.push('.');
    out.push_str(block.name());
    push_key(&mut out, address.key(), grammar);
    out
}

/// `:KEY` for a key (the index's digits, a string escaped under `grammar`), nothing for none.
fn push_key(out: &mut String, key: &InstanceKey, grammar: KeyGrammar) {
    match key {
        InstanceKey::None => {}
        InstanceKey::Int(i) => {
            out.push(':');
            out.push_str(&i.to_string());
        }
        InstanceKey::Str(k) => {
            out.push(':');
            out.push_str(&encode_key_with(k, grammar));
        }
    }
}

/// The escaped form of `address` a new marker carries; a refused `for_each` key is an error.
pub fn escape_address(address: &InstanceAddress) -> Result<String, Error> {
    let module_keys = address.block().module().steps().iter().map(|s| &s.key);
    for key in module_keys.chain([address.key()]) {
        if let InstanceKey::Str(k) = key {
            check_for_each_key(k)?;
        }
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

/// The parts of an escaped address after its module levels: type, name and the escaped key (if any).
/// `None` when the text is not `[module.NAME[:KEY].]...TYPE.NAME[:KEY]`.
pub fn split_escaped(escaped: &str) -> Option<(&str, &str, Option<&str>)> {
    let (_, rest) = split_module_levels(escaped)?;
    let (type_name, rest) = rest.split_once('.')?;
    let (name, key) = match rest.split_once(':') {
        Some((n, k)) => (n, Some(k)),
        None => (rest, None),
    };
    (is_identifier(type_name) && is_identifier(name) && key.is_none_or(|k| !k.is_empty()))
        .then_some((type_name, name, key))
}

/// One module level of an escaped address: the call's name and its escaped key.
type Level<'e> = (&'e str, Option<&'e str>);

/// The module levels at the start of an escaped address (each call's name and escaped key) and the
/// text after them. Escaped keys hold no `.`, so the levels split at dots.
fn split_module_levels(escaped: &str) -> Option<(Vec<Level<'_>>, &str)> {
    let mut levels = Vec::new();
    let mut rest = escaped;
    while let Some(after) = rest.strip_prefix("module.") {
        let (level, tail) = after.split_once('.')?;
        let (name, key) = match level.split_once(':') {
            Some((n, k)) if !k.is_empty() => (n, Some(k)),
            Some(_) => return None,
            None => (level, None),
        };
        if !is_identifier(name) {
            return None;
        }
        levels.push((name, key));
        rest = tail;
    }
    Some((levels, rest))
}

/// The instance key an escaped key shows as: an all-digit key an index, anything else a string key,
/// decoded with the current grammar or, failing that, read as an older one.
fn decode_shown_key(
    k: Option<&str>,
    invalid: &dyn Fn(&str) -> Error,
) -> Result<InstanceKey, Error> {
    Ok(match k {
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
    })
}

/// The address an escaped marker shows as (display only; binding never decodes): an all-digit key reads
/// as an index (`aws_eip.pool:2` → `aws_eip.pool[2]`), anything else as a key, decoded with the current
/// grammar or, failing that, read as an older one (`aws_subnet.this:a@db++c` → `aws_subnet.this["a.b+c"]`).
/// Module levels read the same way (`module.net:eu.aws_subnet.this` → `module.net["eu"].aws_subnet.this`).
pub fn decode_address(escaped: &str) -> Result<InstanceAddress, Error> {
    let invalid = |reason: &str| Error::InvalidAddress {
        input: escaped.to_owned(),
        reason: reason.to_owned(),
    };
    let (levels, _) =
        split_module_levels(escaped).ok_or_else(|| invalid("not an escaped address"))?;
    let (type_name, name, key) =
        split_escaped(escaped).ok_or_else(|| invalid("not an escaped address"))?;
    let mut module = crate::address::ModulePath::root();
    for (level, level_key) in levels {
        module = module.child(level, decode_shown_key(level_key, &invalid)?)?;
    }
    let block = crate::address::BlockAddress::in_module(module, type_name, name)?;
    Ok(block.instance(decode_shown_key(key, &invalid)?))
}

/// Whether an escaped key `k` reads as a `count` index: ASCII digits with no leading zero (`0` itself
/// excepted) and fewer than twenty of them, so it always fits a `u64`. Display and projection both read a
/// key this way, so an index and a `for_each` key of digits are told apart by one rule.
pub fn is_index(k: &str) -> bool {
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
