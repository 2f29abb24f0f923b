//! Where a configuration's expressions run when the CLI plans it: `file()` and the other filesystem
//! functions read relative to the configuration directory (as after Terraform's `-chdir`), not the
//! directory the command was started in, which `path.cwd` names; `terraform.workspace` is `TF_WORKSPACE`;
//! `plantimestamp()` is known during the plan.

use crate::cli::Dir;

const MAIN_TF: &str = r#"
live {
  estate = "ctx"
}

locals {
  greeting = trimspace(file("greeting.txt"))
  copied   = trimspace(file("${path.module}/greeting.txt"))
}

resource "aws_s3_bucket" "site" {
  bucket = "ctx-${local.greeting}-${terraform.workspace}"
  tags = {
    same    = local.copied == local.greeting ? "yes" : "no"
    planned = plantimestamp()
    started = path.cwd
  }
}
"#;

fn estate() -> Dir {
    let dir = Dir::with_config(MAIN_TF);
    dir.write("greeting.txt", "hello\n");
    dir
}

#[test]
fn cli_module_context_file_reads_beside_the_configuration_and_workspace_is_tf_workspace() {
    let dir = estate();
    // The binary runs with the test's own working directory, which holds no greeting.txt.
    let plan = dir.run_with_env(&["plan"], &[("TF_WORKSPACE", "staging")]);
    plan.expect_code(0);
    assert!(
        plan.stdout.contains(r#"= "ctx-hello-staging""#),
        "{}",
        plan.stdout
    );
    assert!(plan.stdout.contains(r#"same = "yes""#), "{}", plan.stdout);
    // `path.cwd` is where the command was started, not the configuration directory (Terraform's rule
    // with `-chdir`).
    let started = std::env::current_dir().unwrap();
    assert!(
        plan.stdout
            .contains(&format!(r#"started = "{}""#, started.display())),
        "{}",
        plan.stdout
    );

    let default = dir.run(&["plan"]);
    default.expect_code(0);
    assert!(
        default.stdout.contains(r#"= "ctx-hello-default""#),
        "{}",
        default.stdout
    );
}

#[test]
fn cli_module_context_plantimestamp_is_known_during_the_plan() {
    let dir = estate();
    let plan = dir.run(&["plan"]);
    plan.expect_code(0);
    let at = plan
        .stdout
        .find(r#"planned = ""#)
        .unwrap_or_else(|| panic!("no known plantimestamp() in:\n{}", plan.stdout));
    let stamp: String = plan.stdout[at + 11..].chars().take(20).collect();
    // RFC 3339 in UTC to the second, as Terraform gives it: 2026-12-02T20:15:00Z.
    let shape: String = stamp
        .chars()
        .map(|c| if c.is_ascii_digit() { 'd' } else { c })
        .collect();
    assert_eq!(shape, "dddd-dd-ddTdd:dd:ddZ", "{stamp}");
}
