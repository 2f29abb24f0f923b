//! The shape of the workspace's source: no library or binary source file over 800 lines, no function over
//! 120 lines (its signature through its closing brace). Small files with one job each keep the code
//! readable; this check keeps them small after the fact.
//!
//! Every crate's `src/` is walked (the root package's and each workspace member's, as the root
//! `Cargo.toml` lists them); `tests/` directories are not checked. Functions are found by a small lexer
//! that skips comments, string, byte string and raw string literals and char literals, so a brace inside
//! any of them never counts.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most lines a source file may have.
const FILE_LIMIT: usize = 800;
/// The most lines a function may have, signature through closing brace.
const FN_LIMIT: usize = 120;
/// Files allowed over [`FILE_LIMIT`] because they hold only data, with the reason for each; paths are
/// relative to the workspace root. Kept empty while every data table fits (the simulated cloud's catalog
/// is split per type family).
const EXEMPT_FILES: &[(&str, &str)] = &[];

/// One function found in a source text.
#[derive(Debug, PartialEq, Eq)]
struct FnSpan {
    name: String,
    /// The 1-based line of the `fn` keyword.
    line: usize,
    /// Lines from the `fn` keyword's line through the closing brace's, both included.
    lines: usize,
}

/// The tokens the brace matcher cares about; everything else is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Open(char),
    Close(char),
    Semi,
    Other,
}

/// The tokens of `src` with their 1-based lines, comments and literals left out.
fn tokens(src: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i, &mut line);
        } else if c == '"' {
            i = skip_quoted(&chars, i, '"', &mut line);
        } else if c == '\'' {
            i = skip_char_or_lifetime(&chars, i, &mut line);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match literal_after_prefix(&word, &chars, i) {
                Some(Literal::Raw) => i = skip_raw_string(&chars, i, &mut line),
                Some(Literal::Quoted(quote)) => i = skip_quoted(&chars, i, quote, &mut line),
                None => out.push((Token::Ident(word), line)),
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Other, line));
        } else {
            let token = match c {
                '{' | '(' | '[' => Token::Open(c),
                '}' | ')' | ']' => Token::Close(c),
                ';' => Token::Semi,
                _ => Token::Other,
            };
            out.push((token, line));
            i += 1;
        }
    }
    out
}

/// What an identifier-like prefix right before a quote or `#` starts.
enum Literal {
    /// `r"…"`, `r#"…"#`, `br"…"`, `cr#"…"#`.
    Raw,
    /// `b"…"`, `c"…"` (quote `"`) or `b'…'` (quote `'`).
    Quoted(char),
}

fn literal_after_prefix(word: &str, chars: &[char], at: usize) -> Option<Literal> {
    let next = chars.get(at).copied();
    match word {
        "r" | "br" | "cr" => {
            let mut j = at;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            // `r#ident` is a raw identifier, not a string.
            (chars.get(j) == Some(&'"')).then_some(Literal::Raw)
        }
        "b" | "c" if next == Some('"') => Some(Literal::Quoted('"')),
        "b" if next == Some('\'') => Some(Literal::Quoted('\'')),
        _ => None,
    }
}

/// Skips a (nested) block comment starting at `i`; returns the index after it.
fn skip_block_comment(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1).copied()) {
            ('/', Some('*')) => {
                depth += 1;
                i += 2;
            }
            ('*', Some('/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            (c, _) => {
                if c == '\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    i
}

/// Skips a literal opened by `quote` at `i` (escapes honoured); returns the index after its closing quote.
fn skip_quoted(chars: &[char], mut i: usize, quote: char, line: &mut usize) -> usize {
    i += 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if chars.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '\n' => {
                *line += 1;
                i += 1;
            }
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Skips a raw string whose `#`s (if any) start at `i`; returns the index after its closing delimiter.
fn skip_raw_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        if chars[i] == '\n' {
            *line += 1;
        }
        i += 1;
    }
    i
}

/// Skips a char literal (`'{'`, `'\''`, `'\u{7b}'`) or a lifetime or label (`'a`, `'static`) at `i`.
fn skip_char_or_lifetime(chars: &[char], i: usize, line: &mut usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => skip_quoted(chars, i, '\'', line),
        (Some(_), Some('\'')) => i + 3,
        _ => i + 1,
    }
}

/// Every function with a body in `src`: from its `fn` keyword to its closing brace.
fn functions(src: &str) -> Vec<FnSpan> {
    let tokens = tokens(src);
    let mut out = Vec::new();
    for (at, (token, line)) in tokens.iter().enumerate() {
        let (Token::Ident(keyword), Some((Token::Ident(name), _))) = (token, tokens.get(at + 1))
        else {
            continue;
        };
        if keyword != "fn" {
            continue;
        }
        if let Some(end) = body_end(&tokens[at + 2..]) {
            out.push(FnSpan {
                name: name.clone(),
                line: *line,
                lines: end - line + 1,
            });
        }
    }
    out
}

/// The line of the brace closing the body that follows a signature, or `None` when the signature ends
/// with `;` (a declaration without a body).
fn body_end(tokens: &[(Token, usize)]) -> Option<usize> {
    let mut parens = 0usize;
    let mut braces = 0usize;
    for (token, line) in tokens {
        match token {
            Token::Open('{') => braces += 1,
            Token::Close('}') => {
                braces = braces.checked_sub(1)?;
                if braces == 0 {
                    return Some(*line);
                }
            }
            Token::Open(_) if braces == 0 => parens += 1,
            Token::Close(_) if braces == 0 => parens = parens.checked_sub(1)?,
            Token::Semi if braces == 0 && parens == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The `src/` directories of the root package and of every workspace member.
fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("the root Cargo.toml");
    let members = manifest
        .split_once("members")
        .and_then(|(_, rest)| rest.split_once('['))
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("the root Cargo.toml lists the workspace members");
    let mut dirs = vec![root.join("src")];
    dirs.extend(
        members
            .split('"')
            .skip(1)
            .step_by(2)
            .map(|member| root.join(member).join("src")),
    );
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every offence in the workspace's sources, one line each, sorted by path.
fn offences(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in source_dirs(root) {
        assert!(dir.is_dir(), "{} is not a directory", dir.display());
        rust_files(&dir, &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let src = std::fs::read_to_string(&path).expect("a readable source file");
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        let lines = src.lines().count();
        if lines > FILE_LIMIT && !EXEMPT_FILES.iter().any(|(p, _)| *p == rel) {
            out.push(format!("{rel}: {lines} lines (limit {FILE_LIMIT})"));
        }
        for f in functions(&src) {
            if f.lines > FN_LIMIT {
                out.push(format!(
                    "{rel}:{} fn {}: {} lines (limit {FN_LIMIT})",
                    f.line, f.name, f.lines
                ));
            }
        }
    }
    out
}

#[test]
fn source_shape_files_and_functions_stay_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, reason) in EXEMPT_FILES {
        assert!(
            root.join(path).is_file(),
            "exempt file {path} ({reason}) does not exist"
        );
    }
    let found = offences(root);
    if !found.is_empty() {
        let mut report = format!(
            "{} source shape offence(s): files over {FILE_LIMIT} lines or functions over {FN_LIMIT} \
             lines (signature through closing brace); cut them into smaller modules and functions:\n",
            found.len()
        );
        for offence in &found {
            let _ = writeln!(report, "  {offence}");
        }
        panic!("{report}");
    }
}

#[test]
fn source_shape_matcher_skips_literals_and_comments() {
    let src = r####"
fn braces_in_strings() {
    let s = "}}} \" }";
    let b = b"}";
    let c = c"{";
}
fn chars_and_lifetimes<'a>(x: &'a str) -> &'a str {
    let open = '{';
    let close = '}';
    let quote = '\'';
    let escaped = '\u{7d}';
    let byte = b'}';
    'outer: loop { break 'outer; }
    x
}
fn raw_strings() {
    let a = r"}";
    let b = r#"a "} "#;
    let c = r##"a "# }"##;
    let d = br#"}"#;
    let r#type = 1;
}
// fn in_a_comment() {
/* fn in_a_block() { /* nested } */ } */
/// fn in_a_doc() {
trait Declared {
    fn declared(&self);
    fn pointer(&self) -> fn(u32) -> u32;
}
fn after_declarations<T: Fn() -> u32>(f: T) -> [u8; 2]
where
    T: Clone,
{
    [0; 2]
}
"####;
    let found: Vec<(String, usize, usize)> = functions(src)
        .into_iter()
        .map(|f| (f.name, f.line, f.lines))
        .collect();
    let expected = [
        ("braces_in_strings", 2, 5),
        ("chars_and_lifetimes", 7, 9),
        ("raw_strings", 16, 7),
        ("after_declarations", 30, 6),
    ];
    let expected: Vec<(String, usize, usize)> = expected
        .into_iter()
        .map(|(n, l, s)| (n.to_owned(), l, s))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn source_shape_counts_signature_through_closing_brace() {
    let body = "    let x = 1;\n".repeat(FN_LIMIT - 2);
    let at_limit = format!("fn at_limit() {{\n{body}}}\n");
    assert_eq!(functions(&at_limit)[0].lines, FN_LIMIT);
    let signature = "fn over(\n    a: u32,\n) {\n";
    let over = format!("{signature}{body}}}\n");
    assert_eq!(functions(&over)[0].lines, FN_LIMIT + 2);
}
