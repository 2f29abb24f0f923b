//! The CLI on a terminal and through Graphviz: the progress bar and colors under a pseudo-terminal
//! (util-linux `script`), plain lines without one, the confirmation prompt, and `graph` output that
//! `dot -Tsvg` renders.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::cli::{Dir, Run};

/// Runs `liveplan ARGS -C DIR` under a pseudo-terminal, feeding `input` to it.
fn under_pty(dir: &Dir, args: &str, input: &str) -> Run {
    under_pty_with_env(dir, args, input, &[])
}

/// [`under_pty`] with the variables `env` set.
pub fn under_pty_with_env(dir: &Dir, args: &str, input: &str, env: &[(&str, &str)]) -> Run {
    let command = format!(
        "{} {args} -C {}",
        env!("CARGO_BIN_EXE_liveplan"),
        dir.path().display()
    );
    let mut child = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .env_remove("RUST_LOG")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs the CLI under a pseudo-terminal (scripts/test needs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    Run::from(child.wait_with_output().unwrap())
}

#[test]
fn cli_terminal_apply_shows_a_progress_bar_and_colors() {
    let dir = Dir::quickstart();
    let run = under_pty(&dir, "apply --auto-approve", "");
    run.expect_code(0);
    assert!(
        run.stdout.contains("/12 operations done"),
        "no progress bar on a terminal:\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("aws_vpc.main: Creating..."));
    assert!(
        run.stdout.contains("\x1b[32m+\x1b[0m"),
        "no colored symbols"
    );
}

#[test]
fn cli_terminal_no_color_turns_colors_off_but_keeps_the_bar() {
    let dir = Dir::quickstart();
    let run = under_pty(&dir, "apply --auto-approve --no-color", "");
    run.expect_code(0);
    assert!(
        !run.stdout.contains("\x1b[32m"),
        "colors despite --no-color"
    );
    assert!(run.stdout.contains("/12 operations done"));
}

#[test]
fn cli_terminal_plain_lines_without_a_terminal() {
    let dir = Dir::quickstart();
    let run = dir.run(&["apply", "--auto-approve"]);
    run.expect_code(0);
    assert!(
        !run.stdout.contains("operations done"),
        "a bar without a terminal"
    );
    assert!(
        !run.stdout.contains('\x1b'),
        "escape codes without a terminal"
    );
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("aws_vpc.main: "))
        .collect();
    assert_eq!(
        lines,
        [
            "aws_vpc.main: Creating...",
            "aws_vpc.main: Creation complete after 0s [id=vpc-00000001]"
        ]
    );
}

#[test]
fn cli_terminal_prompt_applies_only_on_yes() {
    let dir = Dir::quickstart();
    let no = under_pty(&dir, "apply", "no\n");
    no.expect_code(1);
    assert!(
        no.stdout
            .contains("Only 'yes' will be accepted to approve.")
    );
    assert!(no.stdout.contains("Apply cancelled."));
    assert!(
        !dir.cloud_file().exists(),
        "a refused apply changed the cloud"
    );

    let yes = under_pty(&dir, "apply", "yes\n");
    yes.expect_code(0);
    assert!(yes.stdout.contains("Apply complete! Resources: 12 added"));
}

#[test]
fn cli_graph_renders_with_graphviz() {
    let dir = Dir::quickstart();
    let graph = dir.run(&["graph"]);
    graph.expect_code(0);
    assert!(graph.stdout.starts_with("digraph {"), "{}", graph.stdout);
    assert!(graph.stdout.contains("aws_vpc.main"));
    let mut dot = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Graphviz `dot` renders the graph (scripts/test installs it)");
    dot.stdin
        .take()
        .unwrap()
        .write_all(graph.stdout.as_bytes())
        .unwrap();
    let out = dot.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "dot refused the graph: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.contains("<svg"));
    assert!(svg.contains("aws_vpc.main"));

    let debug = dir.run(&["graph", "--debug"]);
    debug.expect_code(0);
    assert!(
        debug.stdout.contains("ResourceInstanceDesired"),
        "{}",
        debug.stdout
    );
}

#[test]
fn cli_graph_of_a_plan_with_errors_is_refused() {
    let dir =
        Dir::with_config("resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n");
    let run = dir.run(&["graph"]);
    run.expect_code(1);
    assert!(run.stdout.contains("[no-estate]"));
}
