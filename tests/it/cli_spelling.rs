//! Terraform's command-line habits work as they are: one-dash flags and `-flag=value`, the global
//! `-chdir=DIR` before the command, `TF_CLI_ARGS` and `TF_CLI_ARGS_<command>`, `-input=false`,
//! `-refresh`/`-lock` accepted and `-refresh=false`/`-refresh-only` refused, `init` and `version -json`.

use std::process::{Command, Stdio};

use crate::cli::{Dir, Run};
use crate::cli_terminal::under_pty_with_env;

/// Runs `liveplan ARGS` exactly as given (no `-C` added), with `env` set and no terminal.
fn liveplan(args: &[&str], env: &[(&str, &str)]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan"))
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("LIVEPLAN_ESTATE")
        .env_remove("TF_CLI_ARGS")
        .env_remove("TF_CLI_ARGS_plan")
        .env_remove("TF_INPUT")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run::from(out)
}

fn chdir(dir: &Dir) -> String {
    format!("-chdir={}", dir.path().display())
}

#[test]
fn cli_spelling_chdir_and_one_dash_flags_give_terraforms_exit_codes() {
    let dir = Dir::quickstart();
    let chdir = chdir(&dir);
    let changes = liveplan(
        &[
            &chdir,
            "plan",
            "-var",
            "subnet_count=2",
            "-detailed-exitcode",
            "-no-color",
        ],
        &[],
    );
    changes.expect_code(2);
    assert!(changes.stdout.contains("to add"), "{}", changes.stdout);

    liveplan(
        &[
            &chdir,
            "apply",
            "-var=subnet_count=2",
            "-auto-approve",
            "-input=false",
            "-parallelism=4",
        ],
        &[],
    )
    .expect_code(0);
    let none = liveplan(
        &[
            &chdir,
            "plan",
            "-var",
            "subnet_count=2",
            "-detailed-exitcode",
        ],
        &[],
    );
    none.expect_code(0);
    assert!(none.stdout.starts_with("No changes."), "{}", none.stdout);

    let error = liveplan(
        &[&chdir, "plan", "-var", "undeclared=1", "-detailed-exitcode"],
        &[],
    );
    error.expect_code(1);
    assert!(
        error.stdout.contains("[invalid-variable]"),
        "{}",
        error.stdout
    );
}

#[test]
fn cli_spelling_chdir_after_the_command_is_refused_as_terraform_refuses_it() {
    let dir = Dir::quickstart();
    let run = liveplan(&["plan", &chdir(&dir)], &[]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("-chdir must come before the command"),
        "{}",
        run.stderr
    );
}

#[test]
fn cli_spelling_tf_cli_args_go_after_the_command_name() {
    let dir = Dir::quickstart();
    let chdir = chdir(&dir);
    // The command's own variable first, then the one for every command: both reach `plan`.
    let run = liveplan(
        &[&chdir, "plan"],
        &[
            ("TF_CLI_ARGS_plan", "-detailed-exitcode"),
            ("TF_CLI_ARGS", "-var 'name=from env'"),
        ],
    );
    run.expect_code(2);
    assert!(
        run.stdout.contains("from env"),
        "the variable from TF_CLI_ARGS did not arrive:\n{}",
        run.stdout
    );
    let run = liveplan(
        &[&chdir, "plan"],
        &[("TF_CLI_ARGS_plan", "-detailed-exitcode")],
    );
    run.expect_code(2);
    // Another command's variable is not this command's.
    let run = liveplan(&[&chdir, "validate"], &[("TF_CLI_ARGS_plan", "-bogus")]);
    run.expect_code(0);
    let broken = liveplan(&[&chdir, "plan"], &[("TF_CLI_ARGS", "-var 'name=unclosed")]);
    broken.expect_code(1);
    assert!(
        broken
            .stderr
            .contains("TF_CLI_ARGS does not split into arguments"),
        "{}",
        broken.stderr
    );
}

#[test]
fn cli_spelling_tf_cli_args_plan_no_color_turns_colors_off_on_a_terminal() {
    let dir = Dir::quickstart();
    let colored = under_pty_with_env(&dir, "plan", "", &[]);
    colored.expect_code(0);
    assert!(
        colored.stdout.contains('\x1b'),
        "no colors on a terminal at all"
    );
    let plain = under_pty_with_env(&dir, "plan", "", &[("TF_CLI_ARGS_plan", "-no-color")]);
    plain.expect_code(0);
    assert!(plain.stdout.contains("to add"), "{}", plain.stdout);
    assert!(
        !plain.stdout.contains('\x1b'),
        "escape codes despite TF_CLI_ARGS_plan=-no-color:\n{}",
        plain.stdout
    );
}

#[test]
fn cli_spelling_input_false_refuses_to_prompt_for_apply() {
    let dir = Dir::quickstart();
    let run = under_pty_with_env(&dir, "apply -input=false", "yes\n", &[]);
    run.expect_code(1);
    assert!(run.stdout.contains("-input=false"), "{}", run.stdout);
    let run = under_pty_with_env(&dir, "apply", "yes\n", &[("TF_INPUT", "0")]);
    run.expect_code(1);
    assert!(
        !dir.cloud_file().exists() || dir.live_objects().is_empty(),
        "an apply without confirmation changed the cloud"
    );
}

#[test]
fn cli_spelling_refresh_and_lock_flags() {
    let dir = Dir::quickstart();
    for flags in [
        &["-refresh"][..],
        &["-refresh=true"],
        &["-lock=false", "-lock-timeout=10s"],
        &["-lock"],
    ] {
        let mut args = vec!["plan"];
        args.extend_from_slice(flags);
        dir.run(&args).expect_code(0);
    }
    for flag in ["-refresh=false", "-refresh-only"] {
        let run = dir.run(&["plan", flag]);
        run.expect_code(1);
        assert!(
            run.stdout.contains("[unsupported-option]"),
            "{flag}: {}",
            run.stdout
        );
        assert!(run.stdout.contains(flag), "{}", run.stdout);
    }
}

#[test]
fn cli_spelling_init_reads_the_configuration_and_writes_nothing() {
    let dir = Dir::quickstart();
    let before = files_of(&dir);
    for _ in 0..2 {
        let run = dir.run(&[
            "init",
            "-input=false",
            "-backend=false",
            "-upgrade",
            "-reconfigure",
        ]);
        run.expect_code(0);
        assert!(
            run.stdout
                .contains("liveplan has been successfully initialized!"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains(".liveplan/records"), "{}", run.stdout);
    }
    assert_eq!(files_of(&dir), before, "init wrote into the directory");

    dir.write("broken.tf", "resource \"aws_vpc\" \"x\" {\n");
    let run = dir.run(&["init"]);
    run.expect_code(1);
    assert!(run.stdout.contains("[config-syntax]"), "{}", run.stdout);
}

#[test]
fn cli_spelling_version_json_has_terraforms_fields() {
    let run = liveplan(&["version", "-json"], &[]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["terraform_version"], "1.9.8");
    assert_eq!(doc["terraform_outdated"], false);
    assert!(doc["provider_selections"].is_object());
    assert!(doc["platform"].as_str().unwrap().contains('_'), "{doc}");
    let run = liveplan(&["-version"], &[]);
    run.expect_code(0);
    assert!(run.stdout.starts_with("liveplan "), "{}", run.stdout);
}

fn files_of(dir: &Dir) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}
