//! Unpadded base64url (RFC 4648 §5), the encoding of addresses in record keys (and of the engine's
//! `random_id.b64_url`).
//!
//! No crate of the workspace carries base64, and only this one alphabet is needed, so it is written here in
//! a few lines. It must never pad and never accept the standard alphabet's `+` and `/`,
//! which would put a path separator into a key.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `bytes` as unpadded base64url.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let index = (n >> (18 - 6 * i)) & 0x3f;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

fn value_of(c: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == c).map(|p| p as u32)
}

/// The bytes of unpadded base64url `text`; `None` when it is not such text (padding, another alphabet,
/// a length no encoding produces, or stray low bits in the last character).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value_of(c)? << (18 - 6 * i);
        }
        let produced = chunk.len() - 1;
        let full = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        // Bits below the last produced byte must be zero, or two texts would decode alike.
        if produced < 3 && (n & (0xff_ffff >> (8 * produced))) != 0 {
            return None;
        }
        out.extend_from_slice(&full[..produced]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn encodes_the_rfc_vectors_without_padding() {
        let cases = [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded).as_deref(), Some(plain.as_bytes()));
        }
    }

    #[test]
    fn uses_the_url_alphabet() {
        assert_eq!(encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(
            encode(br#"aws_subnet.this["a"]"#),
            "YXdzX3N1Ym5ldC50aGlzWyJhIl0"
        );
    }

    #[test]
    fn refuses_what_no_encoder_writes() {
        for bad in ["Zg==", "Z", "Zh", "a+b/", "Zm9v!"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn decode_inverts_encode(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            proptest::prop_assert_eq!(decode(&encode(&bytes)), Some(bytes));
        }
    }
}
