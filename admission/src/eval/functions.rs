//! The built-in functions of the configuration subset, with Terraform's semantics.
//!
//! Every function sees its arguments already evaluated. The rules for marks are uniform: a result derived
//! from a sensitive argument is sensitive, and an argument that is unknown where the function needs its
//! content makes the result unknown (`length` of a list only needs the list, not its elements). Functions
//! never read the clock, the environment or randomness: `uuid()` and `timestamp()` are unknown at plan time.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::redact::unquoted;
use super::{EvalError, bad, primitive_text, quoted, to_bool, to_number};
use crate::config::Loc;
use crate::diag::{Code, Diagnostic};
use crate::value::{Number, Type, Value};

/// The names of every supported function.
pub const FUNCTIONS: &[&str] = &[
    "format",
    "join",
    "concat",
    "merge",
    "lookup",
    "length",
    "tostring",
    "tonumber",
    "upper",
    "lower",
    "toset",
    "tolist",
    "tomap",
    "keys",
    "values",
    "element",
    "contains",
    "coalesce",
    "range",
    "replace",
    "jsonencode",
    "cidrsubnet",
    "uuid",
    "timestamp",
];

/// The most elements `range()` may produce, as in Terraform.
const RANGE_LIMIT: usize = 1024;

/// Calls the function `name` with `args`; `impure` answers `uuid()` and `timestamp()` (unknown without it).
/// Its error never quotes a sensitive argument.
pub(crate) fn call(
    name: &str,
    args: Vec<Value>,
    loc: &Loc,
    impure: Option<&dyn super::ImpureValues>,
) -> Result<Value, EvalError> {
    call_marked(name, &args, loc, impure).map_err(|e| unquoted(name, e, &args))
}

/// [`call`], its error as the function words it.
fn call_marked(
    name: &str,
    args: &[Value],
    loc: &Loc,
    impure: Option<&dyn super::ImpureValues>,
) -> Result<Value, EvalError> {
    let arity = |min, max| argument_count(name, args.len(), min, max, loc);
    let marked = args.iter().any(Value::contains_sensitive);
    let out = match name {
        "uuid" | "timestamp" => {
            arity(0, 0)?;
            match impure {
                Some(i) if name == "uuid" => Value::String(i.uuid()),
                Some(i) => Value::String(i.timestamp()),
                None => Value::Unknown(Type::String),
            }
        }
        "length" => {
            arity(1, 1)?;
            length(&args[0], loc)?
        }
        "keys" | "values" => {
            arity(1, 1)?;
            keys_values(name == "keys", &args[0], loc)?
        }
        "concat" => concat(args, loc)?,
        "merge" => merge(args, loc)?,
        "lookup" => {
            arity(2, 3)?;
            lookup(args, loc)?
        }
        "element" => {
            arity(2, 2)?;
            element(args, loc)?
        }
        "contains" => {
            arity(2, 2)?;
            contains(args, loc)?
        }
        "coalesce" => {
            arity(1, usize::MAX)?;
            coalesce(args, loc)?
        }
        "tolist" | "toset" | "tomap" => {
            arity(1, 1)?;
            convert_collection(name, &args[0], loc)?
        }
        "tostring" | "tonumber" => {
            arity(1, 1)?;
            convert_primitive(name, &args[0], loc)?
        }
        _ if !FUNCTIONS.contains(&name) => {
            return Err(EvalError::Invalid(Box::new(
                Diagnostic::new(
                    Code::UnsupportedConstruct,
                    format!("function `{name}` is not supported"),
                    format!("the supported functions are: {}", FUNCTIONS.join(", ")),
                )
                .at(loc.to_pos()),
            )));
        }
        // The rest need every argument wholly known.
        _ if args.iter().any(|a| !a.is_known()) => {
            check_arity(name, args.len(), loc)?;
            let ty = match name {
                "range" => Type::List(Box::new(Type::Number)),
                _ => Type::String,
            };
            Value::Unknown(ty)
        }
        _ => call_known(name, args, loc)?,
    };
    Ok(out.mark_sensitive_if(marked))
}

/// Calls one of the functions that need every argument wholly known, with known `args`.
fn call_known(name: &str, args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let arity = |min, max| argument_count(name, args.len(), min, max, loc);
    match name {
        "format" => {
            arity(1, usize::MAX)?;
            format(args, loc)
        }
        "join" => {
            arity(2, usize::MAX)?;
            join(args, loc)
        }
        "upper" | "lower" => {
            arity(1, 1)?;
            let s = string_arg(&args[0], loc)?;
            Ok(Value::String(if name == "upper" {
                s.to_uppercase()
            } else {
                s.to_lowercase()
            }))
        }
        "range" => {
            arity(1, 3)?;
            range(args, loc)
        }
        "replace" => {
            arity(3, 3)?;
            replace(args, loc)
        }
        "jsonencode" => {
            arity(1, 1)?;
            jsonencode(&args[0], loc)
        }
        _ => {
            arity(3, 3)?;
            cidrsubnet(args, loc)
        }
    }
}

/// Checks that `name()` is given `n` arguments, from `min` to `max` (`usize::MAX`: no upper bound).
fn argument_count(
    name: &str,
    n: usize,
    min: usize,
    max: usize,
    loc: &Loc,
) -> Result<(), EvalError> {
    if n < min || n > max {
        let want = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(bad(
            loc,
            format!("{name}() takes {want} argument(s), {n} given"),
        ));
    }
    Ok(())
}

fn check_arity(name: &str, n: usize, loc: &Loc) -> Result<(), EvalError> {
    let (min, max) = match name {
        "format" => (1, usize::MAX),
        "join" => (2, usize::MAX),
        "upper" | "lower" | "jsonencode" => (1, 1),
        "range" => (1, 3),
        _ => (3, 3),
    };
    if n < min || n > max {
        return Err(bad(
            loc,
            format!("{name}() is given {n} argument(s), which it does not take"),
        ));
    }
    Ok(())
}

fn string_arg(v: &Value, loc: &Loc) -> Result<String, EvalError> {
    match v.peel() {
        Value::Null => Err(bad(loc, "a string is required, found null")),
        other => primitive_text(other).ok_or_else(|| bad(loc, "a string is required")),
    }
}

/// The items of a list or set argument (under any mark); `None` when it is unknown.
fn items(v: &Value, loc: &Loc, what: &str) -> Result<Option<Vec<Value>>, EvalError> {
    let marked = v.is_sensitive();
    let list: Vec<Value> = match v.peel() {
        Value::Unknown(_) => return Ok(None),
        Value::List(items) => items.clone(),
        Value::Set(items) => items.iter().cloned().collect(),
        Value::Null => return Err(bad(loc, format!("{what} is null"))),
        _ => return Err(bad(loc, format!("{what} must be a list or set"))),
    };
    Ok(Some(
        list.into_iter()
            .map(|x| x.mark_sensitive_if(marked))
            .collect(),
    ))
}

fn length(v: &Value, loc: &Loc) -> Result<Value, EvalError> {
    Ok(match v.peel() {
        Value::Unknown(_) => Value::Unknown(Type::Number),
        Value::String(s) => Value::from(s.chars().count()),
        Value::List(items) => Value::from(items.len()),
        Value::Set(items) if items.iter().all(Value::is_known) => Value::from(items.len()),
        // Unknown members of a set may turn out equal and merge.
        Value::Set(_) => Value::Unknown(Type::Number),
        Value::Map(entries) => Value::from(entries.len()),
        Value::Null => return Err(bad(loc, "length() of null")),
        _ => return Err(bad(loc, "length() needs a string, list, set or map")),
    })
}

fn keys_values(keys: bool, v: &Value, loc: &Loc) -> Result<Value, EvalError> {
    Ok(match v.peel() {
        Value::Unknown(_) => Value::Unknown(Type::List(Box::new(Type::Any))),
        Value::Map(entries) if keys => {
            Value::List(entries.keys().map(|k| Value::String(k.clone())).collect())
        }
        Value::Map(entries) => Value::List(entries.values().cloned().collect()),
        _ => {
            return Err(bad(
                loc,
                format!("{}() needs a map", if keys { "keys" } else { "values" }),
            ));
        }
    })
}

fn concat(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let mut out = Vec::new();
    for a in args {
        match items(a, loc, "a concat() argument")? {
            Some(list) => out.extend(list),
            None => return Ok(Value::Unknown(Type::List(Box::new(Type::Any)))),
        }
    }
    Ok(Value::List(out))
}

fn merge(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let mut out = BTreeMap::new();
    for a in args {
        let marked = a.is_sensitive();
        match a.peel() {
            Value::Null => {}
            Value::Unknown(_) => return Ok(Value::unknown()),
            Value::Map(entries) => {
                for (k, v) in entries {
                    out.insert(k.clone(), v.clone().mark_sensitive_if(marked));
                }
            }
            _ => return Err(bad(loc, "merge() takes maps or objects")),
        }
    }
    Ok(Value::Map(out))
}

fn lookup(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let key = match args[1].peel() {
        Value::Unknown(_) => return Ok(Value::unknown()),
        other => primitive_text(other).ok_or_else(|| bad(loc, "lookup() key must be a string"))?,
    };
    match args[0].peel() {
        Value::Unknown(_) => Ok(Value::unknown()),
        Value::Map(entries) => match (entries.get(&key), args.get(2)) {
            (Some(v), _) => Ok(v.clone()),
            (None, Some(default)) => Ok(default.clone()),
            (None, None) => Err(bad(
                loc,
                format!(
                    "lookup() found no key {} and has no default",
                    quoted(&key, args[1].contains_sensitive())
                ),
            )),
        },
        _ => Err(bad(loc, "lookup() needs a map")),
    }
}

fn element(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let Some(list) = items(&args[0], loc, "element()'s first argument")? else {
        return Ok(Value::unknown());
    };
    if args[1].is_unknown() {
        return Ok(Value::unknown());
    }
    let n = to_number(&args[1], loc)?;
    let i = n
        .as_u64()
        .ok_or_else(|| bad(loc, "element() index must be a whole number of at least 0"))?;
    if list.is_empty() {
        return Err(bad(loc, "element() of an empty list"));
    }
    // The index wraps around, as in Terraform.
    let at = usize::try_from(i % list.len() as u64).unwrap_or(0);
    Ok(list[at].clone())
}

fn contains(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let Some(list) = items(&args[0], loc, "contains()'s first argument")? else {
        return Ok(Value::Unknown(Type::Bool));
    };
    let mut open = false;
    for item in &list {
        match item.equals(&args[1]).peel() {
            Value::Bool(true) => return Ok(Value::Bool(true)),
            Value::Bool(false) => {}
            _ => open = true,
        }
    }
    Ok(if open {
        Value::Unknown(Type::Bool)
    } else {
        Value::Bool(false)
    })
}

fn coalesce(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    for a in args {
        match a.peel() {
            // An unknown before any usable value could itself be the first usable one.
            Value::Unknown(_) => return Ok(Value::unknown()),
            Value::Null => {}
            Value::String(s) if s.is_empty() => {}
            _ => return Ok(a.clone()),
        }
    }
    Err(bad(
        loc,
        "coalesce() found no argument that is neither null nor an empty string",
    ))
}

fn convert_collection(name: &str, v: &Value, loc: &Loc) -> Result<Value, EvalError> {
    let marked = v.is_sensitive();
    let out = match (name, v.peel()) {
        (_, Value::Null) => Value::Null,
        ("tolist", Value::Unknown(_)) => Value::Unknown(Type::List(Box::new(Type::Any))),
        ("toset", Value::Unknown(_)) => Value::Unknown(Type::Set(Box::new(Type::Any))),
        (_, Value::Unknown(_)) => Value::Unknown(Type::Map(Box::new(Type::Any))),
        ("tolist", Value::List(items)) => Value::List(unify_primitives(items.clone(), loc)?),
        ("tolist", Value::Set(items)) => Value::List(items.iter().cloned().collect()),
        ("toset", Value::List(items)) => {
            Value::Set(unify_primitives(items.clone(), loc)?.into_iter().collect())
        }
        ("toset", Value::Set(items)) => Value::Set(items.clone()),
        ("tomap", Value::Map(entries)) => {
            let values = unify_primitives(entries.values().cloned().collect(), loc)?;
            Value::Map(entries.keys().cloned().zip(values).collect())
        }
        _ => return Err(bad(loc, format!("{name}() cannot convert this value"))),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// Terraform's element type unification for primitives: mixed strings, numbers and bools all become strings.
fn unify_primitives(items: Vec<Value>, _loc: &Loc) -> Result<Vec<Value>, EvalError> {
    let kinds: BTreeSet<u8> = items
        .iter()
        .filter_map(|v| match v.peel() {
            Value::String(_) => Some(0),
            Value::Number(_) => Some(1),
            Value::Bool(_) => Some(2),
            _ => None,
        })
        .collect();
    if kinds.len() <= 1 || !kinds.contains(&0) {
        return Ok(items);
    }
    Ok(items
        .into_iter()
        .map(|v| {
            let marked = v.is_sensitive();
            match primitive_text(&v) {
                Some(s) if !matches!(v.peel(), Value::String(_)) => {
                    Value::String(s).mark_sensitive_if(marked)
                }
                _ => v,
            }
        })
        .collect())
}

fn convert_primitive(name: &str, v: &Value, loc: &Loc) -> Result<Value, EvalError> {
    let marked = v.is_sensitive();
    let out = match (name, v.peel()) {
        (_, Value::Null) => Value::Null,
        ("tostring", Value::Unknown(_)) => Value::Unknown(Type::String),
        (_, Value::Unknown(_)) => Value::Unknown(Type::Number),
        ("tostring", other) => Value::String(
            primitive_text(other)
                .ok_or_else(|| bad(loc, "tostring() needs a string, number or bool"))?,
        ),
        (_, Value::Number(n)) => Value::Number(*n),
        (_, Value::String(s)) => Value::Number(s.parse::<Number>().map_err(|_| {
            if marked {
                bad(loc, "tonumber(): the (sensitive) argument is not a number")
            } else {
                bad(loc, format!("tonumber(): {s:?} is not a number"))
            }
        })?),
        _ => {
            return Err(bad(
                loc,
                "tonumber() needs a number or a string holding one",
            ));
        }
    };
    Ok(out.mark_sensitive_if(marked))
}

fn join(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let sep = string_arg(&args[0], loc)?;
    let mut parts = Vec::new();
    for list in &args[1..] {
        for item in items(list, loc, "a join() list")?.unwrap_or_default() {
            parts.push(string_arg(&item, loc)?);
        }
    }
    Ok(Value::String(parts.join(&sep)))
}

fn range(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let nums: Vec<f64> = args
        .iter()
        .map(|a| to_number(a, loc).map(Number::as_f64))
        .collect::<Result<_, _>>()?;
    let (start, limit, step) = match nums.as_slice() {
        [limit] => (0.0, *limit, 1.0),
        [start, limit] => (*start, *limit, if limit >= start { 1.0 } else { -1.0 }),
        [start, limit, step] => (*start, *limit, *step),
        _ => return Err(bad(loc, "range() takes 1 to 3 numbers")),
    };
    if step == 0.0 {
        return Err(bad(loc, "range() step must not be zero"));
    }
    if (step > 0.0 && limit < start) || (step < 0.0 && limit > start) {
        return Err(bad(
            loc,
            "range() step goes the wrong way for its start and limit",
        ));
    }
    let mut out = Vec::new();
    let mut x = start;
    while (step > 0.0 && x < limit) || (step < 0.0 && x > limit) {
        if out.len() >= RANGE_LIMIT {
            return Err(bad(
                loc,
                format!("range() would produce more than {RANGE_LIMIT} numbers"),
            ));
        }
        out.push(
            Value::number_f64(x)
                .map_err(|_| bad(loc, "range() produced a number that is not finite"))?,
        );
        x += step;
    }
    Ok(Value::List(out))
}

fn replace(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let s = string_arg(&args[0], loc)?;
    let from = string_arg(&args[1], loc)?;
    let to = string_arg(&args[2], loc)?;
    if from.len() > 1 && from.starts_with('/') && from.ends_with('/') {
        return Err(bad(
            loc,
            "replace() with a regular expression (`/.../`) is not supported; give a literal substring",
        ));
    }
    if from.is_empty() {
        return Ok(Value::String(s));
    }
    Ok(Value::String(s.replace(&from, &to)))
}

fn jsonencode(v: &Value, loc: &Loc) -> Result<Value, EvalError> {
    let json = v.to_json().map_err(|e| bad(loc, e.to_string()))?;
    let text = serde_json::to_string(&json).map_err(|e| bad(loc, e.to_string()))?;
    // Terraform's encoder escapes HTML-significant characters; do the same so outputs match byte for byte.
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(Value::String(out))
}

fn cidrsubnet(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let prefix = string_arg(&args[0], loc)?;
    // The messages below quote the prefix and the numbers only when they are not secrets.
    let shown_prefix = quoted(&prefix, args[0].contains_sensitive());
    let numbers_hidden = args[1].contains_sensitive() || args[2].contains_sensitive();
    let newbits = to_number(&args[1], loc)?.as_u64().ok_or_else(|| {
        bad(
            loc,
            "cidrsubnet() newbits must be a whole number of at least 0",
        )
    })?;
    let netnum = to_number(&args[2], loc)?.as_u64().ok_or_else(|| {
        bad(
            loc,
            "cidrsubnet() netnum must be a whole number of at least 0",
        )
    })?;
    let (addr, len) = prefix.split_once('/').ok_or_else(|| {
        bad(
            loc,
            format!("cidrsubnet(): {shown_prefix} is not a CIDR prefix"),
        )
    })?;
    let ip: IpAddr = addr.parse().map_err(|_| {
        let addr = quoted(addr, args[0].contains_sensitive());
        bad(loc, format!("cidrsubnet(): {addr} is not an IP address"))
    })?;
    let len: u32 = len.parse().map_err(|_| {
        bad(
            loc,
            format!("cidrsubnet(): {shown_prefix} has an invalid length"),
        )
    })?;
    let width = if ip.is_ipv4() { 32 } else { 128 };
    if len > width {
        return Err(bad(
            loc,
            format!("cidrsubnet(): {shown_prefix} has a length over {width}"),
        ));
    }
    let new_len = u64::from(len) + newbits;
    if new_len > u64::from(width) {
        return Err(bad(
            loc,
            if numbers_hidden || args[0].contains_sensitive() {
                "cidrsubnet(): the new bits do not fit in the (sensitive) prefix".to_owned()
            } else {
                format!("cidrsubnet(): {newbits} more bits do not fit in {prefix}")
            },
        ));
    }
    let new_len = new_len as u32;
    if newbits < 64 && netnum >= (1u64 << newbits) {
        return Err(bad(
            loc,
            if numbers_hidden {
                "cidrsubnet(): the (sensitive) network number does not fit in the new bits"
                    .to_owned()
            } else {
                format!("cidrsubnet(): network number {netnum} does not fit in {newbits} bits")
            },
        ));
    }
    let base: u128 = match ip {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    };
    let host_bits = width - new_len;
    let mask: u128 = if len == 0 {
        0
    } else {
        (!0u128 << (width - len)) & width_mask(width)
    };
    let net = (base & mask)
        | (u128::from(netnum).checked_shl(host_bits).unwrap_or(0) & width_mask(width));
    let text = if ip.is_ipv4() {
        Ipv4Addr::from(u32::try_from(net).unwrap_or(0)).to_string()
    } else {
        Ipv6Addr::from(net).to_string()
    };
    Ok(Value::String(format!("{text}/{new_len}")))
}

fn width_mask(width: u32) -> u128 {
    if width == 128 {
        !0
    } else {
        (1u128 << width) - 1
    }
}

/// Terraform's `format`: `%s %d %f %v %q %t %x %X %o %b %e %%`, with flags `-+ 0`, width and precision.
fn format(args: &[Value], loc: &Loc) -> Result<Value, EvalError> {
    let spec = string_arg(&args[0], loc)?;
    let mut out = String::new();
    let mut next = 1;
    let mut chars = spec.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek() {
            if "-+ 0#".contains(f) {
                flags.push(f);
                chars.next();
            } else {
                break;
            }
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        let mut precision: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                p.push(d);
                chars.next();
            }
            precision = Some(p.parse().unwrap_or(0));
        }
        let verb = chars
            .next()
            .ok_or_else(|| bad(loc, "format() spec ends inside a verb"))?;
        let arg = args.get(next).ok_or_else(|| {
            bad(
                loc,
                format!("format() has too few arguments for verb %{verb}"),
            )
        })?;
        next += 1;
        let width: usize = width.parse().unwrap_or(0);
        if width > 1024 || precision.is_some_and(|p| p > 1024) {
            return Err(bad(loc, "format() width or precision is too large"));
        }
        let body = format_verb(verb, &flags, precision, arg, loc)?;
        let len = body.chars().count();
        if len >= width {
            out.push_str(&body);
        } else if flags.contains('-') {
            out.push_str(&body);
            out.extend(std::iter::repeat_n(' ', width - len));
        } else if flags.contains('0') && matches!(verb, 'd' | 'f' | 'e' | 'x' | 'X' | 'o' | 'b') {
            let (sign, digits) = match body.strip_prefix(['-', '+']) {
                Some(rest) => (&body[..1], rest),
                None => ("", body.as_str()),
            };
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', width - len));
            out.push_str(digits);
        } else {
            out.extend(std::iter::repeat_n(' ', width - len));
            out.push_str(&body);
        }
    }
    if next < args.len() {
        return Err(bad(
            loc,
            format!(
                "format() has {} argument(s) more than its verbs use",
                args.len() - next
            ),
        ));
    }
    Ok(Value::String(out))
}

fn format_verb(
    verb: char,
    flags: &str,
    precision: Option<usize>,
    arg: &Value,
    loc: &Loc,
) -> Result<String, EvalError> {
    let sign = |n: f64, s: String| {
        if flags.contains('+') && n >= 0.0 {
            format!("+{s}")
        } else {
            s
        }
    };
    let integer = |arg: &Value| -> Result<i64, EvalError> {
        to_number(arg, loc)?
            .as_i64()
            .ok_or_else(|| bad(loc, format!("format() %{verb} needs a whole number")))
    };
    Ok(match verb {
        's' => {
            let s = string_arg(arg, loc)?;
            match precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            }
        }
        'v' => match arg.peel() {
            Value::Null => "null".to_string(),
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => jsonencode(arg, loc)?
                .as_str()
                .unwrap_or_default()
                .to_string(),
        },
        'q' => {
            let s = string_arg(arg, loc)?;
            serde_json::to_string(&s).map_err(|e| bad(loc, e.to_string()))?
        }
        't' => to_bool(arg, loc)?.to_string(),
        'd' => {
            let i = integer(arg)?;
            sign(i as f64, i.to_string())
        }
        'f' | 'e' => {
            let n = to_number(arg, loc)?.as_f64();
            let p = precision.unwrap_or(6);
            let s = if verb == 'f' {
                format!("{n:.p$}")
            } else {
                go_exponent(&format!("{n:.p$e}"))
            };
            sign(n, s)
        }
        'x' => format!("{:x}", integer(arg)?),
        'X' => format!("{:X}", integer(arg)?),
        'o' => format!("{:o}", integer(arg)?),
        'b' => format!("{:b}", integer(arg)?),
        other => return Err(bad(loc, format!("format() verb %{other} is not supported"))),
    })
}

/// Rust writes `1.5e3`; Go (and so Terraform) writes `1.5e+03`.
fn go_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s.to_string(),
    }
}
