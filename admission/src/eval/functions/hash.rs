//! Hash and crypto functions: `md5`, `sha1`, `sha256`, `sha512`, `base64sha256`, `base64sha512`, their
//! `file*` forms, `uuidv5`, and the impure `uuid` and `bcrypt` (unknown until apply, where the caller's
//! [`ImpureValues`](crate::ImpureValues) give the randomness).
//!
//! A string is hashed as its UTF-8 bytes; a file as its bytes.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use super::Ctx;
use super::filesystem::read_bytes;
use crate::eval::EvalError;
use crate::value::{Type, Value};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest<D: Digest>(bytes: &[u8]) -> Vec<u8> {
    D::digest(bytes).to_vec()
}

fn text(ctx: &Ctx<'_>, args: &[Value]) -> Result<Vec<u8>, EvalError> {
    Ok(ctx.str(&args[0])?.into_bytes())
}

fn file(ctx: &Ctx<'_>, args: &[Value]) -> Result<Vec<u8>, EvalError> {
    read_bytes(ctx, &ctx.str(&args[0])?)
}

/// `md5(s)`: hex.
pub(super) fn md5(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Md5>(&text(ctx, args)?))))
}

/// `sha1(s)`: hex.
pub(super) fn sha1(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha1>(&text(ctx, args)?))))
}

/// `sha256(s)`: hex.
pub(super) fn sha256(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha256>(&text(ctx, args)?))))
}

/// `sha512(s)`: hex.
pub(super) fn sha512(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha512>(&text(ctx, args)?))))
}

/// `base64sha256(s)`: the raw digest in Base64.
pub(super) fn base64sha256(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(
        STANDARD.encode(digest::<Sha256>(&text(ctx, args)?)),
    ))
}

/// `base64sha512(s)`: the raw digest in Base64.
pub(super) fn base64sha512(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(
        STANDARD.encode(digest::<Sha512>(&text(ctx, args)?)),
    ))
}

/// `filemd5(path)`.
pub(super) fn filemd5(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Md5>(&file(ctx, args)?))))
}

/// `filesha1(path)`.
pub(super) fn filesha1(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha1>(&file(ctx, args)?))))
}

/// `filesha256(path)`.
pub(super) fn filesha256(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha256>(&file(ctx, args)?))))
}

/// `filesha512(path)`.
pub(super) fn filesha512(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(hex(&digest::<Sha512>(&file(ctx, args)?))))
}

/// `filebase64sha256(path)`.
pub(super) fn filebase64sha256(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(
        STANDARD.encode(digest::<Sha256>(&file(ctx, args)?)),
    ))
}

/// `filebase64sha512(path)`.
pub(super) fn filebase64sha512(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(
        STANDARD.encode(digest::<Sha512>(&file(ctx, args)?)),
    ))
}

/// `uuid()`: a fresh random UUID from the caller (the registry keeps it unknown before apply).
pub(super) fn uuid(ctx: &Ctx<'_>, _args: &[Value]) -> Result<Value, EvalError> {
    Ok(match ctx.impure {
        Some(i) => Value::String(i.uuid()),
        None => Value::Unknown(Type::String),
    })
}

/// `uuidv5(namespace, name)`: the name-based UUID of `name` in `namespace` (`dns`, `url`, `oid`, `x500`
/// or a UUID).
pub(super) fn uuidv5(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let ns = ctx.str(&args[0])?;
    let name = ctx.str(&args[1])?;
    let namespace = match ns.as_str() {
        "dns" => uuid::Uuid::NAMESPACE_DNS,
        "url" => uuid::Uuid::NAMESPACE_URL,
        "oid" => uuid::Uuid::NAMESPACE_OID,
        "x500" => uuid::Uuid::NAMESPACE_X500,
        other => uuid::Uuid::parse_str(other).map_err(|_| {
            ctx.err(format!(
                "uuidv5() doesn't support namespace {other:?}: use dns, url, oid, x500 or a UUID"
            ))
        })?,
    };
    Ok(Value::String(
        uuid::Uuid::new_v5(&namespace, name.as_bytes()).to_string(),
    ))
}

/// `bcrypt(s, cost)`: the `$2a$` hash of `s` with a fresh salt (cost 10 by default, 4 to 31).
pub(super) fn bcrypt(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let cost = match args.get(1) {
        Some(c) => ctx.int(c)?,
        None => 10,
    };
    if !(4..=31).contains(&cost) {
        return Err(ctx.err(format!(
            "crypto/bcrypt: cost {cost} is outside allowed range (4,31)"
        )));
    }
    let Some(salt) = ctx.impure.and_then(|i| i.bcrypt_salt()) else {
        return Ok(Value::Unknown(Type::String));
    };
    // Go's bcrypt refuses passwords over 72 bytes; this library truncates them: refuse as Go does.
    if s.len() > 72 {
        return Err(ctx.err("crypto/bcrypt: password length exceeds 72 bytes"));
    }
    let parts = ::bcrypt::hash_with_salt(s.as_bytes(), cost as u32, salt)
        .map_err(|_| ctx.err("failed to hash the string"))?;
    Ok(Value::String(
        parts.format_for_version(::bcrypt::Version::TwoA),
    ))
}
