//! `random_id`: `byte_length` random bytes, given as `hex`, `b64_url` (also the id) and `dec`.
//!
//! Every argument forces a replacement, so an update changes nothing here. This module never draws more
//! than 1,024 bytes and never makes up bytes when the generator fails.

use std::collections::BTreeMap;

use admission::{InstanceAddress, Type, Value};
use provider::AdmissionPath;
use provider::schema::{AttributeSchema, ResourceTypeSchema};

use super::{Builtin, BuiltinError, draw_failed, entropy};

/// The schema of `random_id`: `byte_length` and `keepers` force a replacement; `hex`, `b64_url` and `dec`
/// are computed.
pub(super) fn schema() -> ResourceTypeSchema {
    ResourceTypeSchema::new("random_id", Some(AdmissionPath::Record))
        .with_attribute(AttributeSchema::required("byte_length", Type::Number).force_new())
        .with_attribute(
            AttributeSchema::optional(
                "keepers",
                Type::Map(Box::new(Type::String)),
                Value::empty_map(),
            )
            .force_new(),
        )
        .with_attribute(AttributeSchema::computed("hex", Type::String))
        .with_attribute(AttributeSchema::computed("b64_url", Type::String))
        .with_attribute(AttributeSchema::computed("dec", Type::String))
}

/// The behaviour of `random_id`.
pub(crate) struct RandomId;

impl Builtin for RandomId {
    fn create(
        &self,
        address: &InstanceAddress,
        attributes: &mut BTreeMap<String, Value>,
    ) -> Result<String, BuiltinError> {
        let n = attributes
            .get("byte_length")
            .and_then(|v| v.peel().as_number())
            .and_then(|n| n.as_u64())
            .filter(|n| (1..=1024).contains(n))
            .ok_or_else(|| BuiltinError {
                summary: format!("{address}: byte_length must be a whole number from 1 to 1024"),
                detail: "fix byte_length in the configuration".to_owned(),
            })?;
        let bytes = entropy::bytes(n as usize).map_err(|e| draw_failed(address, e))?;
        let b64 = projection::b64::encode(&bytes);
        attributes.insert("hex".to_owned(), Value::from(entropy::hex(&bytes)));
        attributes.insert("b64_url".to_owned(), Value::from(b64.clone()));
        attributes.insert("dec".to_owned(), Value::from(decimal(&bytes)));
        Ok(b64)
    }
}

/// The decimal text of a big-endian unsigned integer.
fn decimal(bytes: &[u8]) -> String {
    let mut digits: Vec<u8> = vec![0];
    for &b in bytes {
        let mut carry = u32::from(b);
        for d in digits.iter_mut() {
            let v = u32::from(*d) * 256 + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    digits.iter().rev().map(|d| char::from(b'0' + d)).collect()
}
