//! Record keys as SSM parameter names, and back.
//!
//! A parameter name allows only `a-zA-Z0-9_.-` and `/`, at most 15 levels, a bounded length, and no first
//! level starting with `aws` or `ssm` (any case). A record key may hold any other character (the `~` of a
//! digest key, the `=` of a padded text): each byte outside `a-zA-Z0-9_-/` is written `.XX` (its two
//! upper-case hex digits), `.` itself included, so the mapping is one-to-one and keeps string prefixes
//! (the name of a prefix of a key is a prefix of the key's name).

use crate::key::KeyError;

/// The most levels (segments between `/`) a parameter name may have.
pub const MAX_LEVELS: usize = 15;

/// The longest parameter name SSM accepts with the ARN in front of it (`arn:aws:ssm:REGION:ACCOUNT:parameter`
/// followed by the name); see [`ParameterNames::max_name_len`].
const MAX_NAME_WITH_ARN: usize = 1011;

/// The ARN's text before the name, beside the region: `arn:` + the longest partition (`aws-us-gov`) +
/// `:ssm:` + `:` + a 12-digit account + `:parameter`.
const ARN_TEXT_BESIDE_REGION: usize = "arn:aws-us-gov:ssm::123456789012:parameter".len();

/// Why a prefix cannot hold records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    /// The prefix's first level starts with `aws` or `ssm`, which SSM reserves.
    #[error("SSM parameter prefix {prefix:?} starts with {reserved:?}, which SSM reserves")]
    Reserved {
        /// The prefix as given.
        prefix: String,
        /// `aws` or `ssm`.
        reserved: &'static str,
    },
    /// The prefix holds a character a parameter name may not.
    #[error(
        "SSM parameter prefix {prefix:?} holds {found:?}; a name allows a-z A-Z 0-9 _ . - and /"
    )]
    Character {
        /// The prefix as given.
        prefix: String,
        /// The first refused character.
        found: char,
    },
    /// The prefix has an empty level (`/a//b`).
    #[error("SSM parameter prefix {prefix:?} has an empty level")]
    EmptyLevel {
        /// The prefix as given.
        prefix: String,
    },
}

/// The names of one store's parameters: `prefix + "/" + encoded key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterNames {
    /// With its leading `/` and without a trailing one; `""` for the root.
    prefix: String,
    max_name_len: usize,
}

impl ParameterNames {
    /// The names under `prefix` (a leading `/` added when missing, a trailing one trimmed; `""` or `/` for
    /// the root), for a store in `region`.
    pub fn new(prefix: &str, region: &str) -> Result<ParameterNames, PrefixError> {
        let trimmed = prefix.trim_matches('/');
        let owned = || prefix.to_owned();
        if let Some(found) = trimmed.chars().find(|c| !allowed(*c) && *c != '.') {
            return Err(PrefixError::Character {
                prefix: owned(),
                found,
            });
        }
        if !trimmed.is_empty() && trimmed.split('/').any(str::is_empty) {
            return Err(PrefixError::EmptyLevel { prefix: owned() });
        }
        let first = trimmed
            .split('/')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        for reserved in ["aws", "ssm"] {
            if first.starts_with(reserved) {
                return Err(PrefixError::Reserved {
                    prefix: owned(),
                    reserved,
                });
            }
        }
        Ok(ParameterNames {
            prefix: if trimmed.is_empty() {
                String::new()
            } else {
                format!("/{trimmed}")
            },
            max_name_len: MAX_NAME_WITH_ARN - ARN_TEXT_BESIDE_REGION - region.len(),
        })
    }

    /// The prefix, with its leading `/` (`""` for the root).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The longest name this store writes: SSM's 1,011 characters less the ARN in front of the name.
    pub fn max_name_len(&self) -> usize {
        self.max_name_len
    }

    /// The parameter name of record `key` (already a valid record key), checked against SSM's depth and
    /// length before any call.
    pub fn name(&self, key: &str) -> Result<String, KeyError> {
        let name = self.encoded(key);
        let levels = name.split('/').filter(|s| !s.is_empty()).count();
        if levels > MAX_LEVELS {
            return Err(KeyError::Unstorable {
                key: key.to_owned(),
                reason: format!(
                    "its SSM parameter name has {levels} levels; SSM allows {MAX_LEVELS}"
                ),
            });
        }
        if name.len() > self.max_name_len {
            return Err(KeyError::Unstorable {
                key: key.to_owned(),
                reason: format!(
                    "its SSM parameter name is {} characters long; SSM allows {} here",
                    name.len(),
                    self.max_name_len
                ),
            });
        }
        Ok(name)
    }

    /// The name a list of `prefix` starts with, unchecked (a prefix need not be a whole key).
    pub fn encoded(&self, key: &str) -> String {
        let mut out = String::with_capacity(self.prefix.len() + 1 + key.len());
        out.push_str(&self.prefix);
        out.push('/');
        for byte in key.bytes() {
            if allowed(byte as char) && byte.is_ascii() {
                out.push(byte as char);
            } else {
                out.push_str(&format!(".{byte:02X}"));
            }
        }
        out
    }

    /// The record key of parameter `name`; `None` for a name outside the prefix or one no key encodes to.
    pub fn key(&self, name: &str) -> Option<String> {
        let rest = name.strip_prefix(&self.prefix)?.strip_prefix('/')?;
        let mut bytes = Vec::with_capacity(rest.len());
        let mut chars = rest.bytes();
        while let Some(b) = chars.next() {
            if b == b'.' {
                let hex = [chars.next()?, chars.next()?];
                let text = std::str::from_utf8(&hex).ok()?;
                if text.bytes().any(|c| c.is_ascii_lowercase()) {
                    return None;
                }
                let decoded = u8::from_str_radix(text, 16).ok()?;
                if allowed(decoded as char) && decoded.is_ascii() {
                    // Written as itself, never escaped: not a name this store made.
                    return None;
                }
                bytes.push(decoded);
            } else if allowed(b as char) {
                bytes.push(b);
            } else {
                return None;
            }
        }
        String::from_utf8(bytes).ok()
    }

    /// The nearest path SSM can list (`GetParametersByPath`) that holds every name starting with the name
    /// of `prefix`: the name up to its last `/`, the store's prefix at least, `/` for the root.
    pub fn enclosing_path(&self, prefix: &str) -> String {
        let name = self.encoded(prefix);
        let cut = name.rfind('/').unwrap_or(0);
        let path = name[..cut].to_owned();
        if path.is_empty() {
            "/".to_owned()
        } else {
            path
        }
    }
}

/// A character a name may hold as itself (`.` is the escape, so it is always escaped).
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '/'
}
