//! The sealing of a saved plan's sensitive variable values, so that the plan file alone reveals none.
//!
//! `apply FILE` takes no variables (the plan was the review), so the values a plan was made with travel in
//! the file; those of sensitive variables travel sealed with ChaCha20-Poly1305 under a key of the estate,
//! kept as one record of the store beside the estate's (`_saved-plan-keys/ESTATE`, under the key prefix)
//! and written once with compare-and-swap: whoever reads both the file and the store can read them, as
//! whoever reads the store can read the estate's other secrets. The estate's name is the associated data,
//! so a sealed box moved into another estate's file does not open. This module never logs a value.

use serde::{Deserialize, Serialize};
use staterecord::{Store, StoreError};

use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use super::pins::hex;

/// The length of an estate's key, in bytes.
const KEY_LEN: usize = 32;

/// Sensitive values, sealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Sealed {
    /// The nonce, in hex.
    nonce: String,
    /// The sealed bytes with their tag, in hex.
    sealed: String,
}

/// Why sealed values cannot be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SealError {
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The estate has no key record (removed since the plan), or one that is not a key.
    #[error("the estate's saved-plan key record {key} is missing or damaged")]
    NoKey {
        /// The record's key.
        key: String,
    },
    /// The sealed box does not open with the estate's key.
    #[error("the sealed variable values do not open with the estate's key")]
    Unopenable,
    /// The operating system's random generator failed.
    #[error("no random bytes for the saved plan's key: {0}")]
    Random(String),
}

/// The key of the record holding `estate`'s saved-plan key. It lies outside the estate's own prefix
/// (`ESTATE/`), which no estate name starting with `_` can reach, so a plan never reads it as a record
/// of the estate.
pub(crate) fn key_record(key_prefix: &str, estate: &str) -> String {
    format!("{key_prefix}_saved-plan-keys/{estate}")
}

/// `estate`'s key, written once (create-if-absent; a racing writer's key wins and is read back).
pub(crate) async fn key_for_sealing(store: &dyn Store, record: &str) -> Result<Vec<u8>, SealError> {
    if let Some(key) = read_key(store, record).await? {
        return Ok(key);
    }
    let mut key = vec![0u8; KEY_LEN];
    getrandom::getrandom(&mut key).map_err(|e| SealError::Random(e.to_string()))?;
    match store.put_if_absent(record, hex(&key).as_bytes()).await {
        Ok(_) => Ok(key),
        Err(e) if e.as_conflict().is_some() => {
            read_key(store, record)
                .await?
                .ok_or_else(|| SealError::NoKey {
                    key: record.to_owned(),
                })
        }
        Err(e) => Err(e.into()),
    }
}

/// `estate`'s key as the record holds it, for opening.
pub(crate) async fn key_for_opening(store: &dyn Store, record: &str) -> Result<Vec<u8>, SealError> {
    read_key(store, record)
        .await?
        .ok_or_else(|| SealError::NoKey {
            key: record.to_owned(),
        })
}

async fn read_key(store: &dyn Store, record: &str) -> Result<Option<Vec<u8>>, SealError> {
    let Some(found) = store.get(record).await? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&found.payload);
    match unhex(text.trim()) {
        Some(key) if key.len() == KEY_LEN => Ok(Some(key)),
        _ => Err(SealError::NoKey {
            key: record.to_owned(),
        }),
    }
}

fn cipher(key: &[u8]) -> Result<LessSafeKey, SealError> {
    UnboundKey::new(&CHACHA20_POLY1305, key)
        .map(LessSafeKey::new)
        .map_err(|_| SealError::Unopenable)
}

fn associated(estate: &str) -> Vec<u8> {
    format!("liveplan saved plan variables\0{estate}").into_bytes()
}

/// `plain` sealed under `key` for `estate`, with a fresh random nonce.
pub(crate) fn seal(key: &[u8], estate: &str, plain: &[u8]) -> Result<Sealed, SealError> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::getrandom(&mut nonce).map_err(|e| SealError::Random(e.to_string()))?;
    let mut bytes = plain.to_vec();
    cipher(key)?
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(associated(estate)),
            &mut bytes,
        )
        .map_err(|_| SealError::Unopenable)?;
    Ok(Sealed {
        nonce: hex(&nonce),
        sealed: hex(&bytes),
    })
}

/// The bytes `sealed` holds, opened with `key` for `estate`.
pub(crate) fn open(key: &[u8], estate: &str, sealed: &Sealed) -> Result<Vec<u8>, SealError> {
    let nonce: [u8; NONCE_LEN] = unhex(&sealed.nonce)
        .and_then(|n| n.try_into().ok())
        .ok_or(SealError::Unopenable)?;
    let mut bytes = unhex(&sealed.sealed).ok_or(SealError::Unopenable)?;
    let plain = cipher(key)?
        .open_in_place(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(associated(estate)),
            &mut bytes,
        )
        .map_err(|_| SealError::Unopenable)?;
    Ok(plain.to_vec())
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_box_opens_with_its_key_and_estate_only() {
        let key = [7u8; KEY_LEN];
        let sealed = seal(&key, "acme", b"{\"password\":\"hunter2\"}").unwrap();
        assert!(!sealed.sealed.contains(&hex(b"hunter2")));
        assert_eq!(
            open(&key, "acme", &sealed).unwrap(),
            b"{\"password\":\"hunter2\"}"
        );
        assert!(open(&key, "other", &sealed).is_err());
        assert!(open(&[8u8; KEY_LEN], "acme", &sealed).is_err());
    }
}
