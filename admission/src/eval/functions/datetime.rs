//! Date and time: `formatdate`, `timeadd`, `timecmp`, `timestamp` (impure: unknown until apply) and
//! `plantimestamp` (the plan's start time, known during the plan when the caller gives it).
//!
//! Timestamps are RFC 3339 strings; durations are Go's (`"1h30m"`, `"-10m"`, `"300ms"`).

use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime, UtcOffset};

use super::Ctx;
use crate::eval::EvalError;
use crate::value::{Type, Value};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// `timestamp()`: the apply's time (the registry keeps it unknown before).
pub(super) fn timestamp(ctx: &Ctx<'_>, _args: &[Value]) -> Result<Value, EvalError> {
    match ctx.impure {
        Some(i) => Ok(Value::String(i.timestamp())),
        None => Ok(Value::Unknown(Type::String)),
    }
}

/// `plantimestamp()`: the plan's start time, unknown when the caller gave none.
pub(super) fn plantimestamp(ctx: &Ctx<'_>, _args: &[Value]) -> Result<Value, EvalError> {
    Ok(match &ctx.module.plan_timestamp {
        Some(t) => Value::String(t.clone()),
        None => Value::Unknown(Type::String),
    })
}

fn parse(ctx: &Ctx<'_>, s: &str) -> Result<OffsetDateTime, EvalError> {
    OffsetDateTime::parse(s, &Rfc3339).map_err(|_| {
        ctx.err(format!(
            "not a valid RFC3339 timestamp: {s:?} (write it like \"2006-01-02T15:04:05Z\")"
        ))
    })
}

fn offset_text(o: UtcOffset, colon: bool) -> String {
    let secs = o.whole_seconds();
    let sign = if secs < 0 { '-' } else { '+' };
    let (h, m) = (secs.abs() / 3600, (secs.abs() % 3600) / 60);
    if colon {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}{m:02}")
    }
}

/// RFC 3339 to the second, as Go's `time.RFC3339` writes it.
fn rfc3339(t: OffsetDateTime) -> String {
    let zone = if t.offset().is_utc() {
        "Z".to_owned()
    } else {
        offset_text(t.offset(), true)
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{zone}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// `formatdate(spec, timestamp)`.
pub(super) fn formatdate(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let spec = ctx.str(&args[0])?;
    let t = parse(ctx, &ctx.str(&args[1])?)?;
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // A quoted literal; a doubled quote is a quote.
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => return Err(ctx.err("unterminated literal '")),
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        out.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(&l) => {
                        out.push(l);
                        j += 1;
                    }
                }
            }
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            out.push(c);
            i += 1;
            continue;
        }
        let mut j = i;
        while chars.get(j) == Some(&c) {
            j += 1;
        }
        let token: String = chars[i..j].iter().collect();
        out.push_str(&verb(ctx, &token, t)?);
        i = j;
    }
    Ok(Value::String(out))
}

fn verb(ctx: &Ctx<'_>, token: &str, t: OffsetDateTime) -> Result<String, EvalError> {
    let hour12 = match t.hour() % 12 {
        0 => 12,
        h => h,
    };
    let month = usize::from(u8::from(t.month())) - 1;
    let day = usize::from(t.weekday().number_days_from_monday());
    Ok(match token {
        "YYYY" => format!("{:04}", t.year()),
        "YY" => format!("{:02}", t.year().rem_euclid(100)),
        "MMMM" => MONTHS[month].to_owned(),
        "MMM" => MONTHS[month][..3].to_owned(),
        "MM" => format!("{:02}", month + 1),
        "M" => format!("{}", month + 1),
        "DD" => format!("{:02}", t.day()),
        "D" => format!("{}", t.day()),
        "EEEE" => DAYS[day].to_owned(),
        "EEE" => DAYS[day][..3].to_owned(),
        "hh" => format!("{:02}", t.hour()),
        "h" => format!("{}", t.hour()),
        "HH" => format!("{hour12:02}"),
        "H" => format!("{hour12}"),
        "AA" => if t.hour() < 12 { "AM" } else { "PM" }.to_owned(),
        "aa" => if t.hour() < 12 { "am" } else { "pm" }.to_owned(),
        "mm" => format!("{:02}", t.minute()),
        "m" => format!("{}", t.minute()),
        "ss" => format!("{:02}", t.second()),
        "s" => format!("{}", t.second()),
        "ZZZZZ" => offset_text(t.offset(), true),
        "ZZZZ" => offset_text(t.offset(), false),
        "ZZZ" if t.offset().is_utc() => "UTC".to_owned(),
        "ZZZ" => offset_text(t.offset(), false),
        "Z" if t.offset().is_utc() => "Z".to_owned(),
        "Z" => offset_text(t.offset(), true),
        other => {
            return Err(ctx.err(format!(
                "invalid date format verb {other:?}: quote letters meant literally, like 'T'"
            )));
        }
    })
}

/// `timeadd(timestamp, duration)`: the timestamp moved by a Go duration, in the same offset.
pub(super) fn timeadd(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let t = parse(ctx, &ctx.str(&args[0])?)?;
    let nanos = duration(ctx, &ctx.str(&args[1])?)?;
    let d = Duration::new(
        i64::try_from(nanos / 1_000_000_000).map_err(|_| ctx.err("the duration is too long"))?,
        (nanos % 1_000_000_000) as i32,
    );
    let moved = t
        .checked_add(d)
        .ok_or_else(|| ctx.err("the result is out of the range of timestamps"))?;
    Ok(Value::String(rfc3339(moved)))
}

/// A Go duration in nanoseconds.
fn duration(ctx: &Ctx<'_>, s: &str) -> Result<i128, EvalError> {
    let invalid = || ctx.err(format!("invalid duration {s:?}"));
    let (negative, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| ctx.err(format!("missing unit in duration {s:?}")))?;
        let (num, after) = rest.split_at(num_end);
        let unit_end = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_end);
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(ctx.err(format!("unknown unit {unit:?} in duration {s:?}"))),
        };
        let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
        if whole.is_empty() && frac.is_empty() {
            return Err(invalid());
        }
        let whole: i128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| invalid())?
        };
        let mut part = whole.checked_mul(scale).ok_or_else(invalid)?;
        let mut unit_scale = scale;
        for d in frac.chars().take(18) {
            unit_scale /= 10;
            part += i128::from(d.to_digit(10).unwrap_or(0)) * unit_scale;
        }
        total = total.checked_add(part).ok_or_else(invalid)?;
        if total > i128::from(i64::MAX) {
            return Err(invalid());
        }
        rest = after;
    }
    Ok(if negative { -total } else { total })
}

/// `timecmp(a, b)`: -1, 0 or 1 as `a` is before, at or after `b`.
pub(super) fn timecmp(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let a = parse(ctx, &ctx.str(&args[0])?)?;
    let b = parse(ctx, &ctx.str(&args[1])?)?;
    Ok(Value::from(match a.cmp(&b) {
        std::cmp::Ordering::Less => -1i64,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }))
}
