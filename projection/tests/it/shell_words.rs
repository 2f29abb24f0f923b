//! The quoting rule of suggested commands: bare when every character is in `[A-Za-z0-9_.-]`, else
//! one single-quoted POSIX shell word.

use projection::shell_word;

#[test]
fn safe_words_stay_bare() {
    assert_eq!(shell_word("aws_vpc.main"), "aws_vpc.main");
    assert_eq!(shell_word("vpc-00000007"), "vpc-00000007");
    assert_eq!(
        shell_word("module.net.aws_subnet.this"),
        "module.net.aws_subnet.this"
    );
}

#[test]
fn any_other_character_quotes_the_word() {
    assert_eq!(
        shell_word(r#"aws_subnet.this["b"]"#),
        r#"'aws_subnet.this["b"]'"#
    );
    assert_eq!(shell_word("aws_eip.this[0]"), "'aws_eip.this[0]'");
    assert_eq!(
        shell_word("arn:aws:iam::123456789012:role/app"),
        "'arn:aws:iam::123456789012:role/app'"
    );
    assert_eq!(shell_word("a b"), "'a b'");
    assert_eq!(shell_word("$HOME"), "'$HOME'");
    assert_eq!(shell_word(""), "''");
}

#[test]
fn a_single_quote_is_closed_escaped_and_reopened() {
    assert_eq!(shell_word(r#"x["it's"]"#), r#"'x["it'\''s"]'"#);
}
