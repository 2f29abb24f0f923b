//! The one quoting rule of the commands a plan suggests (`liveplan adopt …`, `liveplan mv …`): the
//! engine's renderer builds every suggested command of the reports with it, and the `unowned`
//! diagnostic names its command with it, so that a command reads the same wherever it is shown.
//!
//! Quoting only: this module must never decide which command to suggest.

/// `word` as one POSIX shell word: bare when it holds only `[A-Za-z0-9_.-]`, else single-quoted (a
/// quote inside written `'\''`).
pub fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
