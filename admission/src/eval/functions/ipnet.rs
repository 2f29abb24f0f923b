//! IP network functions: `cidrhost`, `cidrnetmask`, `cidrsubnet`, `cidrsubnets`, with Terraform's
//! parsing (IPv4 octets with leading zeros read as decimal; an IPv4-mapped IPv6 prefix treated as the
//! IPv4 prefix it maps).
//!
//! Addresses are computed as 128-bit integers; network and host numbers are whole numbers of any size up
//! to 2^128, as Terraform takes them (big integers).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::Ctx;
use crate::eval::EvalError;
use crate::value::Value;

/// A parsed prefix: its address (masked or not), its length, and its family's width (32 or 128).
#[derive(Clone, Copy)]
struct Prefix {
    addr: u128,
    len: u32,
    width: u32,
}

impl Prefix {
    fn mask(&self, len: u32) -> u128 {
        if len == 0 {
            0
        } else {
            (!0u128 << (self.width - len)) & all_ones(self.width)
        }
    }

    fn network(&self) -> u128 {
        self.addr & self.mask(self.len)
    }

    fn text(&self, addr: u128) -> String {
        if self.width == 32 {
            Ipv4Addr::from(u32::try_from(addr).unwrap_or(0)).to_string()
        } else {
            Ipv6Addr::from(addr).to_string()
        }
    }
}

fn all_ones(width: u32) -> u128 {
    if width == 128 {
        !0
    } else {
        (1u128 << width) - 1
    }
}

/// An IPv4 address whose octets may carry leading zeros (read as decimal, as Terraform reads them).
fn parse_v4(s: &str) -> Option<u32> {
    let mut out = 0u32;
    let mut n = 0;
    for part in s.split('.') {
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let octet: u32 = part.parse().ok().filter(|o| *o <= 255)?;
        out = (out << 8) | octet;
        n += 1;
    }
    (n == 4).then_some(out)
}

fn parse_prefix(ctx: &Ctx<'_>, s: &str) -> Result<Prefix, EvalError> {
    let invalid = || {
        ctx.err(format!(
            "invalid CIDR expression: {s:?} is not a CIDR prefix"
        ))
    };
    let (addr, len) = s.split_once('/').ok_or_else(invalid)?;
    if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) || len.len() > 3 {
        return Err(invalid());
    }
    let len: u32 = len.parse().map_err(|_| invalid())?;
    let (addr, width) = match parse_v4(addr) {
        Some(v4) => (u128::from(v4), 32),
        None => (
            u128::from(addr.parse::<Ipv6Addr>().map_err(|_| invalid())?),
            128,
        ),
    };
    if len > width {
        return Err(invalid());
    }
    // An IPv4-mapped IPv6 prefix is the IPv4 prefix it maps, as Go prints it.
    if width == 128 && addr >> 32 == 0xffff && len >= 96 {
        return Ok(Prefix {
            addr: addr & 0xffff_ffff,
            len: len - 96,
            width: 32,
        });
    }
    Ok(Prefix { addr, len, width })
}

/// `cidrhost(prefix, hostnum)`: the address of host `hostnum` in the prefix (negative: from its end).
pub(super) fn cidrhost(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let p = parse_prefix(ctx, &ctx.str(&args[0])?)?;
    let host = ctx
        .num(&args[1])?
        .as_i128()
        .ok_or_else(|| ctx.err("a whole number is required"))?;
    let host_bits = p.width - p.len;
    let count: Option<u128> = 1u128.checked_shl(host_bits).filter(|_| host_bits < 128);
    let offset: u128 = if host >= 0 {
        let h = host as u128;
        if count.is_some_and(|c| h >= c) {
            return Err(ctx.err(format!(
                "prefix of {} does not accommodate a host numbered {host}",
                p.len
            )));
        }
        h
    } else {
        let back = host.unsigned_abs();
        match count {
            Some(c) if back <= c => c - back,
            Some(_) => {
                return Err(ctx.err(format!(
                    "prefix of {} does not accommodate a host numbered {host}",
                    p.len
                )));
            }
            None => (!0u128).wrapping_sub(back - 1),
        }
    };
    Ok(Value::String(p.text(p.network() | offset)))
}

/// `cidrnetmask(prefix)`: the IPv4 netmask in dotted form.
pub(super) fn cidrnetmask(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let p = parse_prefix(ctx, &ctx.str(&args[0])?)?;
    if p.width != 32 {
        return Err(ctx.err("IPv6 addresses cannot have a netmask"));
    }
    Ok(Value::String(p.text(p.mask(p.len))))
}

/// `cidrsubnet(prefix, newbits, netnum)`: subnet `netnum` of the prefix extended by `newbits`.
pub(super) fn cidrsubnet(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let p = parse_prefix(ctx, &ctx.str(&args[0])?)?;
    let newbits = ctx.int(&args[1])?;
    let number = ctx.num(&args[2])?;
    if !number.is_integer() {
        return Err(ctx.err("a whole number is required"));
    }
    if newbits < 0 {
        return Err(ctx.err("newbits must not be negative"));
    }
    if number.is_negative() {
        return Err(ctx.err("netnum must not be negative"));
    }
    let new_len = i64::from(p.len) + newbits;
    if new_len > i64::from(p.width) {
        return Err(ctx.err(format!(
            "insufficient address space to extend prefix of {} by {newbits}",
            p.len
        )));
    }
    let new_len = new_len as u32;
    let newbits = newbits as u32;
    let too_big = || {
        ctx.err(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {number}"
        ))
    };
    let netnum = number.as_u128().ok_or_else(too_big)?;
    if newbits < 128 && netnum >= (1u128 << newbits) {
        return Err(too_big());
    }
    let host_bits = p.width - new_len;
    let shifted = netnum.checked_shl(host_bits).unwrap_or(0) & all_ones(p.width);
    let net = p.network() | shifted;
    Ok(Value::String(format!("{}/{new_len}", p.text(net))))
}

/// `cidrsubnets(prefix, newbits...)`: consecutive subnets of the given extra lengths, each aligned after
/// the one before.
pub(super) fn cidrsubnets(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let shown = ctx.str(&args[0])?;
    let p = parse_prefix(ctx, &shown)?;
    let base = p.network();
    let ones = all_ones(p.width);
    let hostmask = |len: u32| !p.mask(len) & ones;
    // The subnet just before the prefix, at its own length.
    let mut current = (base.wrapping_sub(1) & ones & p.mask(p.len), p.len);
    let mut out = Vec::with_capacity(args.len() - 1);
    for (i, a) in args[1..].iter().enumerate() {
        let n = ctx.int(a)?;
        if n < 1 {
            return Err(ctx.err(format!(
                "argument {}: must extend prefix by at least one bit",
                i + 2
            )));
        }
        if n > 32 {
            return Err(ctx.err(format!(
                "argument {}: may not extend prefix by more than 32 bits",
                i + 2
            )));
        }
        let len = p.len + n as u32;
        if len > p.width {
            return Err(ctx.err(format!(
                "argument {}: would extend prefix to {len} bits, which is too long for an IPv{} address",
                i + 2,
                if p.width == 32 { 4 } else { 6 }
            )));
        }
        let current_last = current.0 | hostmask(current.1);
        let sub = current_last & p.mask(len);
        let next = (sub | hostmask(len)).wrapping_add(1) & ones;
        if next == 0 || next & p.mask(p.len) != base {
            return Err(ctx.err(format!(
                "argument {}: not enough remaining address space for a subnet with a prefix of {len} bits after {}/{}",
                i + 2,
                p.text(current.0),
                current.1
            )));
        }
        current = (next & p.mask(len), len);
        out.push(Value::String(format!("{}/{len}", p.text(current.0))));
    }
    Ok(Value::List(out))
}
