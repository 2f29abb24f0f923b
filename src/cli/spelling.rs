//! Terraform's command-line habits, rewritten into liveplan's own spellings before clap parses them.
//!
//! Terraform's flags take one dash (`-var`, `-no-color`, `-detailed-exitcode`, `-parallelism=10`), its
//! global `-chdir=DIR` comes before the command, `-v`/`-version` print the version, and `TF_CLI_ARGS`
//! and `TF_CLI_ARGS_<command>` add arguments from the environment. A pipeline written for Terraform
//! calls liveplan the same way, so this module turns each of those into what clap reads: a one-dash
//! spelling of any long flag liveplan has becomes its two-dash spelling, `-chdir=DIR` becomes
//! `--chdir=DIR`, the version flags become the `version` command, and the environment's arguments go
//! right after the command name (`TF_CLI_ARGS_<command>`'s first, then `TF_CLI_ARGS`'s, then the command
//! line's own, as Terraform inserts them). Everything else passes through unchanged, so clap still
//! reports an unknown flag by the name the user typed. This module reads no environment itself: the
//! caller hands it a lookup.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// The spellings of the version flag Terraform users type, each run as `liveplan version`.
const VERSION_FLAGS: &[&str] = &["-version", "--version", "-v", "-V"];

/// The environment variable whose arguments every command gets.
const CLI_ARGS: &str = "TF_CLI_ARGS";

/// Why a command line could not be rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpellingError {
    /// An environment variable's arguments do not split as a shell would (an unclosed quote).
    #[error("{name} does not split into arguments (an unclosed quote?): {value}")]
    UnsplittableEnv {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
    },
    /// `-chdir` after the command name, where Terraform refuses it too.
    #[error(
        "-chdir must come before the command, as in Terraform: `liveplan -chdir=DIR {command} ...` \
         (or use -C DIR anywhere)"
    )]
    ChdirAfterCommand {
        /// The command it followed.
        command: String,
    },
}

/// The long flags liveplan knows, each with whether it takes a value in the next argument.
pub type LongFlags = BTreeMap<String, bool>;

/// Every long flag of `command` and its subcommands, with whether it takes a value.
pub fn long_flags(command: &clap::Command) -> LongFlags {
    let mut out = LongFlags::new();
    collect(command, &mut out);
    out
}

fn collect(command: &clap::Command, out: &mut LongFlags) {
    for arg in command.get_arguments() {
        // A flag whose value is optional (`-refresh`, `-lock=false`) takes none in the next argument.
        let takes = arg.get_action().takes_values()
            && arg.get_num_args().is_none_or(|n| n.min_values() > 0);
        for long in arg.get_long_and_visible_aliases().into_iter().flatten() {
            out.insert(long.to_owned(), takes);
        }
        if let Some(short) = arg.get_short() {
            out.entry(short.to_string()).or_insert(takes);
        }
    }
    for sub in command.get_subcommands() {
        collect(sub, out);
    }
}

/// `argv` (the program name first) in liveplan's spellings; `env` looks up an environment variable.
pub fn respell(
    argv: Vec<OsString>,
    flags: &LongFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<OsString>, SpellingError> {
    let mut args = argv.into_iter();
    let mut out: Vec<OsString> = args.next().into_iter().collect();
    let rest: Vec<OsString> = args.collect();
    let mut rest = rest.into_iter().peekable();
    if let Some(first) = rest.peek().and_then(|a| a.to_str())
        && VERSION_FLAGS.contains(&first)
    {
        rest.next();
        out.push("version".into());
    }
    // The global options before the command, then the command name.
    let mut command: Option<String> = None;
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str().map(str::to_owned) else {
            out.push(arg);
            continue;
        };
        if text == "--" || !text.starts_with('-') {
            out.push(arg);
            if text != "--" {
                command = Some(text);
            }
            break;
        }
        let (spelled, takes_next) = spell_flag(&text, flags);
        out.push(spelled.into());
        if takes_next && let Some(value) = rest.next() {
            out.push(value);
        }
    }
    let Some(command) = command else {
        return Ok(out);
    };
    let mut after: Vec<OsString> = Vec::new();
    for name in [
        format!("{CLI_ARGS}_{}", command.replace('-', "_")),
        CLI_ARGS.to_owned(),
    ] {
        if let Some(value) = env(&name).filter(|v| !v.trim().is_empty()) {
            let words = shlex::split(&value).ok_or_else(|| SpellingError::UnsplittableEnv {
                name: name.clone(),
                value: value.clone(),
            })?;
            after.extend(words.into_iter().map(OsString::from));
        }
    }
    after.extend(rest);
    let mut after = after.into_iter();
    while let Some(arg) = after.next() {
        let Some(text) = arg.to_str().map(str::to_owned) else {
            out.push(arg);
            continue;
        };
        if text == "--" {
            out.push(arg);
            out.extend(after);
            break;
        }
        if text == "-chdir" || text.starts_with("-chdir=") {
            return Err(SpellingError::ChdirAfterCommand { command });
        }
        let (spelled, takes_next) = spell_flag(&text, flags);
        out.push(spelled.into());
        if takes_next && let Some(value) = after.next() {
            out.push(value);
        }
    }
    Ok(out)
}

/// One argument in liveplan's spelling, and whether the next argument is its value.
fn spell_flag(text: &str, flags: &LongFlags) -> (String, bool) {
    let (body, dashes) = match text.strip_prefix("--") {
        Some(body) => (body, 2),
        None => match text.strip_prefix('-') {
            Some(body) => (body, 1),
            None => return (text.to_owned(), false),
        },
    };
    let (name, inline_value) = match body.split_once('=') {
        Some((name, _)) => (name, true),
        None => (body, false),
    };
    match flags.get(name) {
        // A one-letter flag keeps its one dash (`-C DIR`); a long one gets two.
        Some(&takes) if name.chars().count() > 1 && dashes == 1 => {
            (format!("-{text}"), takes && !inline_value)
        }
        Some(&takes) => (text.to_owned(), takes && !inline_value),
        None => (text.to_owned(), false),
    }
}
