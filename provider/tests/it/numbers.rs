//! Terraform's numbers: 512-bit binary floats with exact integers, `/` never integer division, printed in
//! the shortest form that reads back. Every expected text is Terraform's answer as
//! `shared/findings/expressions.md` gives it (the case number is named), or one that follows from the
//! language's documentation by hand.

use provider::ValueError;
use provider::value::{Number, Value};

fn n(text: &str) -> Number {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} should be a number: {e}"))
}

/// `a OP b` printed as Terraform prints it.
fn show(a: &str, op: char, b: &str) -> String {
    let (a, b) = (n(a), n(b));
    let out = match op {
        '+' => a.checked_add(&b),
        '-' => a.checked_sub(&b),
        '*' => a.checked_mul(&b),
        '/' => a.checked_div(&b),
        '%' => a.checked_rem(&b),
        _ => None,
    };
    out.map_or_else(|| "out of range".to_owned(), |x| x.to_string())
}

fn digits(text: &str) -> usize {
    text.bytes().filter(u8::is_ascii_digit).count()
}

#[test]
fn numbers_add_and_divide_at_512_bits_as_terraform() {
    // #325, #326: 0.3, not 0.30000000000000004.
    assert_eq!(show("0.1", '+', "0.2"), "0.3");
    assert_eq!(n("0.1").checked_add(&n("0.2")), Some(n("0.3")));
    // #324: `/` is never integer division, and has about 155 digits.
    let third = show("10", '/', "3");
    assert!(third.starts_with("3.3333333333333333333333"), "{third}");
    assert_eq!(digits(&third), 155, "{third}");
    // #327
    let tenth = show("1", '-', "0.9");
    assert!(tenth.starts_with("0.1000000000000000000000"), "{tenth}");
    assert_eq!(digits(&tenth), 156, "{tenth}");
    assert_eq!(show("5", '/', "2"), "2.5");
    assert_eq!(show("6", '/', "3"), "2");
}

#[test]
fn integers_stay_exact_past_64_bits() {
    // #341: 2^53 + 1 is not rounded.
    assert_eq!(n("9007199254740993").to_string(), "9007199254740993");
    assert!(n("9007199254740993") > n("9007199254740992"));
    // #342, #343, #344, #345, #412
    assert_eq!(show("9223372036854775807", '+', "1"), "9223372036854775808");
    assert_eq!(
        show("-9223372036854775808", '-', "1"),
        "-9223372036854775809"
    );
    assert_eq!(
        show("12345678901234567890123", '+', "1"),
        "12345678901234567890124"
    );
    assert_eq!(
        n("12345678901234567890").to_string(),
        "12345678901234567890"
    );
    assert_eq!(
        show("9223372036854775807", '*', "9223372036854775807"),
        "85070591730234615847396907784232501249"
    );
}

#[test]
fn the_smallest_integer_divides_by_minus_one_without_a_panic() {
    // #413 (a panic before), and `%` on the same operands is 0.
    assert_eq!(
        show("-9223372036854775808", '/', "-1"),
        "9223372036854775808"
    );
    assert_eq!(show("-9223372036854775808", '%', "-1"), "0");
    assert_eq!(
        n("-9223372036854775808").negate().to_string(),
        "9223372036854775808"
    );
    assert_eq!(
        n("-9223372036854775808").abs().to_string(),
        "9223372036854775808"
    );
}

#[test]
fn remainders_follow_cty() {
    // #332: `x % 0` is x.
    assert_eq!(show("5", '%', "0"), "5");
    // The sign of the dividend, as the language documentation's `-7 % 3`.
    assert_eq!(show("-7", '%', "3"), "-1");
    assert_eq!(show("7", '%', "-3"), "1");
    assert_eq!(show("5.5", '%', "2"), "1.5");
}

#[test]
fn large_exponents_are_numbers_and_print_in_full() {
    // #346: no float overflow; expressions.md gives the leading digits and the length.
    let product = show("1e300", '*', "1e10");
    assert!(product.starts_with("100000000000000000000000"), "{product}");
    assert_eq!(digits(&product), 311, "{product}");
    // #411: a valid number.
    let big = n("1e400").to_string();
    assert!(big.starts_with("100000000000000000000000"), "{big}");
    assert_eq!(digits(&big), 401, "{big}");
    // #175, #176: plain digits, never exponent form.
    assert_eq!(n("1e20").to_string(), "100000000000000000000");
    assert_eq!(n("0.0000001").to_string(), "0.0000001");
    assert_eq!(n("1e-7").to_string(), "0.0000001");
}

#[test]
fn numbers_past_the_supported_range_are_refused_at_once() {
    // Terraform would compute infinities or a hundred thousand digits; liveplan says so instead.
    assert_eq!(
        "1e100000".parse::<Number>(),
        Err(ValueError::NumberOutOfRange {
            text: "1e100000".to_owned()
        })
    );
    let huge = n("1e19000");
    assert_eq!(huge.checked_mul(&huge), None);
    assert!("1e99999999999999999999999".parse::<Number>().is_err());
    assert_eq!(n("1").checked_div(&n("0")), None);
}

#[test]
fn whole_parts_are_exact() {
    // floor.mdx and ceil.mdx: floor(5.1) is 5, floor(4.9) is 4, ceil(5.1) is 6, ceil(5) is 5.
    assert_eq!(n("5.1").floor(), n("5"));
    assert_eq!(n("4.9").floor(), n("4"));
    assert_eq!(n("5.1").ceil(), n("6"));
    assert_eq!(n("5").ceil(), n("5"));
    assert_eq!(n("-1.5").floor(), n("-2"));
    assert_eq!(n("-1.5").ceil(), n("-1"));
    assert_eq!(
        n("12345678901234567890123.5").floor().to_string(),
        "12345678901234567890123"
    );
}

#[test]
fn decimal_places_round_from_the_exact_value() {
    // Go's `%.2f` of a big float; an exact tie rounds to even.
    assert_eq!(n("3.14159").to_fixed(2), "3.14");
    assert_eq!(n("0.5").to_fixed(0), "0");
    assert_eq!(n("1.5").to_fixed(0), "2");
    assert_eq!(n("1e20").to_fixed(1), "100000000000000000000.0");
    assert_eq!(n("0.0001").to_fixed(2), "0.00");
}

#[test]
fn floats_from_json_keep_their_short_text() {
    // A record or snapshot holds 0.1 as a 64-bit float; it reads back as the number 0.1.
    let v = Value::from_json(serde_json::json!({"a": 0.1, "b": 2.5, "c": 1e21}));
    assert_eq!(
        v.to_string(),
        "{ a = 0.1, b = 2.5, c = 1000000000000000000000 }"
    );
    assert_eq!(n("0.1").as_f64(), 0.1);
    assert_eq!(
        serde_json::to_string(&Value::Number(n("0.1"))).unwrap(),
        "0.1"
    );
    assert_eq!(
        serde_json::to_string(&Value::Number(n("18446744073709551615"))).unwrap(),
        "18446744073709551615"
    );
}
