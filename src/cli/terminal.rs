//! The terminal: where output goes, whether it is a TTY, and the colors of the human plan.
//!
//! Colors are added here, on top of the engine's plain text, only when stdout is a terminal and
//! `--no-color` was not given, so that piped output, files and goldens are always plain. This module must
//! never decide what a plan says, only how it looks.

use std::io::{IsTerminal, Write};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";
const CYAN: &str = "\x1b[36m";

/// What the process is connected to, and whether to color.
#[derive(Debug, Clone, Copy)]
pub struct Terminal {
    /// stdout is a terminal.
    pub stdout_tty: bool,
    /// stdin is a terminal (a person can answer a prompt).
    pub stdin_tty: bool,
    /// Colors are on.
    pub color: bool,
}

impl Terminal {
    /// Looks at the standard streams.
    pub fn detect(no_color: bool) -> Terminal {
        let stdout_tty = std::io::stdout().is_terminal();
        Terminal {
            stdout_tty,
            stdin_tty: std::io::stdin().is_terminal(),
            color: stdout_tty && !no_color,
        }
    }

    /// Prints text as it is on stdout.
    pub fn out(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    /// Prints a line on stdout.
    pub fn line(&self, text: &str) {
        self.out(&format!("{text}\n"));
    }

    /// Prints the engine's plan text, colored when colors are on.
    pub fn plan_text(&self, text: &str) {
        if self.color {
            self.out(&colorize(text));
        } else {
            self.out(text);
        }
    }

    /// Prints `text` on stderr as it is (diagnostics a script's stdout must not catch).
    pub fn err(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }

    /// Prints an error line on stderr.
    pub fn error(&self, text: &str) {
        let text = if self.color && std::io::stderr().is_terminal() {
            format!("{RED}{BOLD}Error:{RESET} {text}")
        } else {
            format!("Error: {text}")
        };
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
    }

    /// Wraps `text` in bold when colors are on.
    pub fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    /// Wraps `text` in green when colors are on.
    pub fn green(&self, text: &str) -> String {
        self.paint(GREEN, text)
    }

    /// Wraps `text` in red when colors are on.
    pub fn red(&self, text: &str) -> String {
        self.paint(RED, text)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }
}

/// Colors the plan text line by line: change symbols, section headings, warnings and errors.
pub fn colorize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let trimmed = body.trim_start();
        let indent = &body[..body.len() - trimmed.len()];
        let painted = if let Some(rest) = trimmed.strip_prefix("-/+ ") {
            format!("{indent}{RED}-{RESET}/{GREEN}+{RESET} {rest}")
        } else if let Some(rest) = trimmed.strip_prefix("+/- ") {
            format!("{indent}{GREEN}+{RESET}/{RED}-{RESET} {rest}")
        } else if let Some(rest) = trimmed.strip_prefix("+ ") {
            format!("{indent}{GREEN}+{RESET} {rest}")
        } else if let Some(rest) = trimmed.strip_prefix("~ ") {
            format!("{indent}{YELLOW}~{RESET} {rest}")
        } else if let Some(rest) = trimmed.strip_prefix("- ") {
            format!("{indent}{RED}-{RESET} {rest}")
        } else if let Some(rest) = trimmed.strip_prefix("Error:") {
            format!("{indent}{RED}{BOLD}Error:{RESET}{BOLD}{rest}{RESET}")
        } else if let Some(rest) = trimmed.strip_prefix("Warning:") {
            format!("{indent}{YELLOW}{BOLD}Warning:{RESET}{BOLD}{rest}{RESET}")
        } else if trimmed.starts_with('#') {
            format!("{indent}{BOLD}{trimmed}{RESET}")
        } else if indent.is_empty()
            && (trimmed.starts_with("Plan:") || trimmed.starts_with("No changes."))
        {
            format!("{BOLD}{trimmed}{RESET}")
        } else if indent.is_empty() && trimmed.ends_with(':') {
            format!("{CYAN}{BOLD}{trimmed}{RESET}")
        } else {
            body.to_owned()
        };
        out.push_str(&painted);
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}
