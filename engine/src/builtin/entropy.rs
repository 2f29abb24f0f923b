//! Random bytes from the operating system's generator (through `getrandom`), and their text forms.
//!
//! Every random value of an apply comes from here: `random_id`'s bytes, `terraform_data`'s id, the create
//! intents' client tokens and `uuid()`. A failure of the generator is returned, never a panic, and no
//! value is ever made up in its place.

/// `n` fresh random bytes.
pub(crate) fn bytes(n: usize) -> Result<Vec<u8>, getrandom::Error> {
    let mut out = vec![0u8; n];
    getrandom::getrandom(&mut out)?;
    Ok(out)
}

/// Sixteen fresh random bytes.
pub(crate) fn bytes16() -> Result<[u8; 16], getrandom::Error> {
    let mut out = [0u8; 16];
    getrandom::getrandom(&mut out)?;
    Ok(out)
}

/// A fresh random (version 4) UUID in its hyphenated text form.
pub(crate) fn uuid() -> Result<String, getrandom::Error> {
    Ok(uuid::Builder::from_random_bytes(bytes16()?)
        .into_uuid()
        .to_string())
}

/// The lowercase hexadecimal text of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}
