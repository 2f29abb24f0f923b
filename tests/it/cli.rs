//! The `liveplan` binary as a user runs it: the quickstart, exit codes, confirmation, JSON output,
//! validation, the record listing and a broken snapshot.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as Json;

/// A configuration directory of its own for one test.
pub struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    /// An empty directory.
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    /// A copy of `examples/quickstart` (its `*.tf` files only).
    pub fn quickstart() -> Dir {
        let dir = Dir::new();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart");
        for entry in std::fs::read_dir(src).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "tf") {
                std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
            }
        }
        dir
    }

    /// A directory holding `main.tf`.
    pub fn with_config(main_tf: &str) -> Dir {
        let dir = Dir::new();
        dir.write("main.tf", main_tf);
        dir
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes a file in the directory.
    pub fn write(&self, name: &str, text: &str) {
        let path = self.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Writes the `pending` create intent of `address` (of `type_name`, in `estate`) written `age`
    /// seconds ago, with no object id: the record of an apply creating it (or killed while it did).
    pub fn write_pending_intent(&self, estate: &str, type_name: &str, address: &str, age: u64) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("the clock is after 1970")
            .as_secs();
        let key = projection::b64::encode(address.as_bytes());
        self.write(
            &format!(".liveplan/records/{estate}/intent/{type_name}/{key}.rec"),
            &format!(
                r#"{{"format":"liveplan-record-v1","kind":"intent","state":"pending","client_token":"00000000000000000000000000000000","time":{},"id":null}}"#,
                now - age
            ),
        );
    }

    /// The simulated cloud's file.
    pub fn cloud_file(&self) -> PathBuf {
        self.path().join(".liveplan/cloud.json")
    }

    /// Runs `liveplan ARGS -C DIR` with no terminal.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    /// Runs `liveplan ARGS -C DIR` with no terminal and the variables `env` set (`LIVEPLAN_ESTATE` is
    /// set only when `env` sets it).
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_liveplan"))
            .args(args)
            .arg("-C")
            .arg(self.path())
            .env_remove("RUST_LOG")
            .env_remove("LIVEPLAN_ESTATE")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        Run::from(out)
    }

    /// The live objects in the sim file as `type id` lines, sorted.
    pub fn live_objects(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.cloud_file()).unwrap();
        let doc: Json = serde_json::from_str(&text).unwrap();
        let mut out: Vec<String> = doc["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    r["type"].as_str().unwrap(),
                    r["id"].as_str().unwrap()
                )
            })
            .collect();
        out.sort();
        out
    }
}

/// What one run of the binary gave.
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// stdout.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }
}

impl Run {
    /// The last non-empty line of stdout.
    pub fn last_line(&self) -> &str {
        self.stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
    }

    /// stdout as one JSON document.
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", self.stdout))
    }

    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// `address action` for every resource change of a plan document.
pub fn actions(plan: &Json) -> Vec<String> {
    plan["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["address"].as_str().unwrap(),
                c["action"].as_str().unwrap()
            )
        })
        .collect()
}

/// The diagnostic codes of a JSON document.
pub fn codes(doc: &Json) -> Vec<String> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn cli_version_names_the_product_its_version_and_the_language_level() {
    let expected = format!(
        "liveplan {}\nlanguage: Terraform {} (OpenTofu {} in .tofu files)\n\
         beyond that level: `&&` and `||` short-circuit: a left operand that decides the result skips \
         the right (Terraform 1.12)\nresource arguments: hashicorp/aws v5.70.0",
        env!("CARGO_PKG_VERSION"),
        admission::TERRAFORM_VERSION,
        admission::OPENTOFU_VERSION
    );
    // Every spelling Terraform users type prints the same.
    for args in [&["--version"][..], &["-version"], &["-v"], &["version"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_liveplan"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            expected,
            "{args:?}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan"))
        .args(["version", "--json"])
        .output()
        .unwrap();
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["terraform_version"], "1.9.8");
    assert_eq!(doc["opentofu_version"], "1.8.8");
    assert_eq!(doc["aws_provider_version"], "5.70.0");
    assert!(
        doc["language_additions"][0]
            .as_str()
            .is_some_and(|a| a.contains("short-circuit") && a.ends_with("(Terraform 1.12)")),
        "{doc}"
    );
    assert_eq!(doc["liveplan_version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn cli_help_lists_every_command() {
    let run = Run::from(
        Command::new(env!("CARGO_BIN_EXE_liveplan"))
            .arg("--help")
            .output()
            .unwrap(),
    );
    run.expect_code(0);
    for command in [
        "plan", "apply", "validate", "state", "output", "adopt", "mv", "graph", "records",
    ] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.trim_start().starts_with(command)),
            "{command} missing from --help:\n{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("--chdir"));
    assert!(run.stdout.contains("--auto-approve") || run.stdout.contains("apply"));
}

#[test]
fn cli_a_usage_error_exits_one_never_the_changes_code_two() {
    let dir = Dir::quickstart();
    // A misspelt flag with --detailed-exitcode: a CI job must not read it as "changes present".
    let typo = dir.run(&["plan", "--detailed-exitcode", "--paralelism", "3"]);
    typo.expect_code(1);
    assert!(typo.stderr.contains("--paralelism"), "{}", typo.stderr);
    dir.run(&["plan", "--parallelism", "0"]).expect_code(1);
    dir.run(&["mv", "aws_vpc.main"]).expect_code(1);
}

#[test]
fn cli_quickstart_applies_then_plans_no_changes() {
    let dir = Dir::quickstart();
    let apply = dir.run(&["apply", "--auto-approve"]);
    apply.expect_code(0);
    assert!(apply.stdout.contains("aws_vpc.main: Creating..."));
    assert!(
        apply
            .stdout
            .contains("aws_vpc.main: Creation complete after 0s [id=vpc-00000001]")
    );
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 12 added, 0 changed, 0 destroyed.")
    );
    assert!(apply.stdout.contains("vpc_id = \"vpc-00000001\""));
    assert!(
        !apply.stdout.contains('\x1b'),
        "no colors without a terminal"
    );

    let plan = dir.run(&["plan", "--detailed-exitcode"]);
    plan.expect_code(0);
    assert_eq!(
        plan.stdout,
        "No changes. The live system matches the configuration.\n"
    );

    // Applying again changes nothing, asks nothing (no terminal, no --auto-approve) and shows the outputs,
    // as Terraform does after every apply.
    let again = dir.run(&["apply"]);
    again.expect_code(0);
    let text = again.stdout;
    assert!(
        text.starts_with(
            "No changes. The live system matches the configuration.\n\n\
             Apply complete! Resources: 0 added, 0 changed, 0 destroyed.\n\nOutputs:\n\n"
        ),
        "{text}"
    );
    assert!(text.contains("vpc_id = \"vpc-00000001\"\n"), "{text}");
    assert!(!text.contains("Creating..."), "{text}");
}

#[test]
fn cli_quickstart_count_up_adds_one_and_count_down_destroys_the_highest_slot() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);

    let up = dir.run(&["plan", "--detailed-exitcode", "--var", "subnet_count=4"]);
    up.expect_code(2);
    assert_eq!(up.last_line(), "Plan: 1 to add, 0 to change, 0 to destroy.");
    let up_json = dir.run(&["plan", "--json", "--var", "subnet_count=4"]);
    assert_eq!(actions(&up_json.json()), ["aws_subnet.public[3] create"]);

    let down = dir.run(&["plan", "--json", "--var", "subnet_count=2"]);
    down.expect_code(0);
    let plan = down.json();
    assert_eq!(actions(&plan), ["aws_subnet.public[2] delete"]);
    assert_eq!(plan["resource_changes"][0]["id"], "subnet-00000003");
    assert_eq!(
        plan["resource_changes"][0]["reason"],
        "count surplus (slot 2)"
    );

    dir.run(&["apply", "--auto-approve", "--var", "subnet_count=2"])
        .expect_code(0);
    let subnets: Vec<String> = dir
        .live_objects()
        .into_iter()
        .filter(|o| o.starts_with("aws_subnet "))
        .collect();
    assert_eq!(
        subnets,
        ["aws_subnet subnet-00000001", "aws_subnet subnet-00000002"]
    );
    dir.run(&["plan", "--detailed-exitcode", "--var", "subnet_count=2"])
        .expect_code(0);
}

#[test]
fn cli_plan_writes_nothing() {
    let dir = Dir::quickstart();
    let plan = dir.run(&["plan"]);
    plan.expect_code(0);
    assert_eq!(
        plan.last_line(),
        "Plan: 12 to add, 0 to change, 0 to destroy."
    );
    assert!(!dir.cloud_file().exists(), "plan created the sim file");
    assert!(
        !dir.path().join(".liveplan/records").exists(),
        "plan created the record store"
    );
    let detailed = dir.run(&["plan", "--detailed-exitcode"]);
    detailed.expect_code(2);
}

#[test]
fn cli_apply_without_a_terminal_needs_auto_approve() {
    let dir = Dir::quickstart();
    let run = dir.run(&["apply"]);
    run.expect_code(1);
    assert!(run.stderr.contains("pass --auto-approve"), "{}", run.stderr);
    assert!(!dir.cloud_file().exists(), "nothing was applied");
}

#[test]
fn cli_apply_json_prints_one_event_per_line() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "events"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "random_id" "suffix" {
  byte_length = 2
}
"#,
    );
    let run = dir.run(&["apply", "--json", "--auto-approve"]);
    run.expect_code(0);
    let events: Vec<Json> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["address"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(kinds.contains(&("apply_start", "aws_vpc.main")));
    assert!(kinds.contains(&("apply_complete", "aws_vpc.main")));
    assert!(kinds.contains(&("apply_complete", "random_id.suffix")));
    let last = events.last().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["add"], 2);
    assert_eq!(last["applied"], true);
}

#[test]
fn cli_plan_with_errors_exits_one_and_apply_refuses_it() {
    let dir = Dir::with_config(
        r#"
resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#,
    );
    let plan = dir.run(&["plan", "--json"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert_eq!(doc["applicable"], false);
    assert_eq!(codes(&doc), ["no-estate"]);
    let apply = dir.run(&["apply", "--auto-approve"]);
    apply.expect_code(1);
    assert!(apply.stdout.contains("[no-estate]"));
    assert!(!dir.cloud_file().exists());
    // The same configuration with --estate plans.
    dir.run(&["plan", "--estate", "named"]).expect_code(0);
}

#[test]
fn cli_a_reference_past_a_count_is_unknown_reference_and_plan_json_still_prints_the_plan() {
    // Two public subnets routed, but only one subnet: the second association reads `aws_subnet.public[1]`.
    let dir = Dir::quickstart();
    let plan = dir.run(&["plan", "--json", "--var", "subnet_count=1"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert_eq!(doc["applicable"], false);
    assert_eq!(codes(&doc), ["unknown-reference"]);
    assert_eq!(
        doc["diagnostics"][0]["summary"],
        "aws_subnet.public[1] is not declared, but the identity of aws_route_table_association.public[1] reads it"
    );
    let apply = dir.run(&["apply", "--auto-approve", "--var", "subnet_count=1"]);
    apply.expect_code(1);
    assert!(
        apply.stdout.contains("[unknown-reference]"),
        "{}",
        apply.stdout
    );
    assert!(!dir.cloud_file().exists());
}

#[test]
fn cli_a_missing_var_file_is_invalid_variable_and_plan_json_still_prints_the_plan() {
    let dir = Dir::quickstart();
    let plan = dir.run(&["plan", "--json", "--var-file", "nope.tfvars"]);
    plan.expect_code(1);
    let doc = plan.json();
    assert_eq!(doc["applicable"], false);
    assert_eq!(codes(&doc), ["invalid-variable"]);
    let summary = doc["diagnostics"][0]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("the variable file nope.tfvars cannot be read"),
        "{summary}"
    );
}

#[test]
fn cli_warnings_never_change_the_exit_code() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "warned"
}

resource "aws_s3_bucket" "data" {
  bucket = "taken-name"
}
"#,
    );
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [ { "type": "aws_s3_bucket", "id": "taken-name" } ] }"#,
    );
    let run = dir.run(&["plan", "--detailed-exitcode", "--json"]);
    run.expect_code(0);
    assert_eq!(codes(&run.json()), ["unowned"]);
}

#[test]
fn cli_broken_snapshot_is_invalid_snapshot() {
    let dir = Dir::quickstart();
    dir.write("broken.json", "{ \"resources\": [ { \"type\": ");
    let run = dir.run(&["plan", "--json", "--sim"]);
    // `--sim` needs a value: a usage error, which exits 1 like every error.
    run.expect_code(1);
    // A relative path is read from the `-C` directory, as after Terraform's `-chdir`.
    let run = dir.run(&["plan", "--json", "--sim", "broken.json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["invalid-snapshot"]);
    assert_eq!(doc["resource_changes"], serde_json::json!([]));
}

#[test]
fn cli_validate_reads_no_live_system() {
    let dir = Dir::quickstart();
    dir.write(".liveplan/cloud.json", "not json at all");
    let ok = dir.run(&["validate"]);
    ok.expect_code(0);
    assert_eq!(ok.last_line(), "Success! The configuration is valid.");

    let bad = Dir::with_config(
        "live {\n  estate = \"v\"\n}\n\nresource \"aws_vpc\" \"main\" {\n  cidr_block           = \"10.0.0.0/16\"\n  enable_dns_hostnames = var.missing\n}\n",
    );
    let run = bad.run(&["validate", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["valid"], false);
    assert_eq!(codes(&doc), ["unknown-reference"]);
}

#[cfg(feature = "aws")]
#[test]
fn cli_validate_checks_types_against_the_provider_the_configuration_selects() {
    let vpc = "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n";
    // The simulated cloud serves VPCs.
    let sim = Dir::with_config(&format!("live {{\n  estate = \"v\"\n}}\n\n{vpc}"));
    sim.run(&["validate"]).expect_code(0);
    // The AWS provider serves VPCs too, and refuses a type it does not serve without calling AWS.
    let aws_live = "live {\n  estate = \"v\"\n}\n\nprovider \"aws\" {}\n\n";
    let aws = Dir::with_config(&format!("{aws_live}{vpc}"));
    aws.run(&["validate"]).expect_code(0);
    let instance = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-1\"\n}\n";
    let aws = Dir::with_config(&format!("{aws_live}{instance}"));
    let run = aws.run(&["validate", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["unsupported-type"]);
}

#[test]
fn cli_var_flags_files_and_environment_follow_terraform_precedence() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "vars"
}

variable "cidr" {
  type = string
}

resource "aws_vpc" "main" {
  cidr_block = var.cidr
}
"#,
    );
    let cidr_of = |run: &Run| {
        run.json()["resource_changes"][0]["after"]["cidr_block"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    dir.write("terraform.tfvars", "cidr = \"10.1.0.0/16\"\n");
    assert_eq!(cidr_of(&dir.run(&["plan", "--json"])), "10.1.0.0/16");
    dir.write("z.auto.tfvars", "cidr = \"10.2.0.0/16\"\n");
    assert_eq!(cidr_of(&dir.run(&["plan", "--json"])), "10.2.0.0/16");
    dir.write("extra.tfvars", "cidr = \"10.3.0.0/16\"\n");
    let file = dir.path().join("extra.tfvars");
    let file = file.to_str().unwrap();
    assert_eq!(
        cidr_of(&dir.run(&["plan", "--json", "--var-file", file])),
        "10.3.0.0/16"
    );
    // A relative path is read from the `-C` directory, as after Terraform's `-chdir`.
    assert_eq!(
        cidr_of(&dir.run(&["plan", "--json", "--var-file", "extra.tfvars"])),
        "10.3.0.0/16"
    );
    // Later command-line inputs win, in the order given.
    assert_eq!(
        cidr_of(&dir.run(&[
            "plan",
            "--json",
            "--var-file",
            file,
            "--var",
            "cidr=10.4.0.0/16"
        ])),
        "10.4.0.0/16"
    );
    assert_eq!(
        cidr_of(&dir.run(&[
            "plan",
            "--json",
            "--var",
            "cidr=10.4.0.0/16",
            "--var-file",
            file
        ])),
        "10.3.0.0/16"
    );
}

#[test]
fn cli_records_lists_the_estate_records() {
    let dir = Dir::quickstart();
    let empty = dir.run(&["records"]);
    empty.expect_code(0);
    assert_eq!(empty.stdout, "No records for estate quickstart.\n");
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let run = dir.run(&["records", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["estate"], "quickstart");
    let records = doc["records"].as_array().unwrap();
    let kinds: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    for kind in ["intent", "located", "records", "slots", "outputs"] {
        assert!(kinds.contains(kind), "no {kind} record in {kinds:?}");
    }
    for r in records {
        assert!(r["key"].as_str().unwrap().starts_with("quickstart/"));
        assert!(r["version"].as_str().unwrap().starts_with("sha256:"));
        assert!(r["size"].as_u64().unwrap() > 0);
    }
    let text = dir.run(&["records"]);
    assert!(text.stdout.starts_with("KEY "));
    assert_eq!(text.stdout.lines().count(), records.len() + 1);
}

#[test]
fn cli_apply_interrupted_finishes_in_flight_and_starts_nothing_new() {
    use std::io::{BufRead, BufReader, Read};
    let dir = Dir::quickstart();
    // Four throttles keep the VPC's create in flight (retrying with backoff) long enough to interrupt it.
    dir.write(
        ".liveplan/cloud.json",
        r#"{ "resources": [],
             "faults": [ { "operation": "ec2:CreateVpc", "kind": "throttle", "times": 4 } ] }"#,
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_liveplan"))
        .args(["apply", "--auto-approve", "-C"])
        .arg(dir.path())
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "apply ended before the VPC create started:\n{seen}"
        );
        seen.push_str(&line);
        if line == "aws_vpc.main: Creating...\n" {
            break;
        }
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    stdout.read_to_string(&mut seen).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(1), "stdout:\n{seen}\nstderr:\n{stderr}");
    assert!(seen.contains("[cancelled]"), "{seen}");
    assert!(
        seen.contains("aws_vpc.main: Creation complete after"),
        "the operation in flight finished:\n{seen}"
    );
    let after_interrupt = seen.split("Interrupt received").nth(1).unwrap_or("");
    assert!(
        !after_interrupt.contains("Creating..."),
        "an operation started after the interrupt:\n{seen}"
    );
    assert!(
        !seen.contains("aws_subnet.public[0]: Creating..."),
        "{seen}"
    );

    // The next apply finishes the job without a second VPC, and the plan after it is empty.
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    dir.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    let vpcs: Vec<String> = dir
        .live_objects()
        .into_iter()
        .filter(|o| o.starts_with("aws_vpc "))
        .collect();
    assert_eq!(vpcs, ["aws_vpc vpc-00000001"]);
}

#[test]
fn cli_a_directory_without_configuration_is_refused_instead_of_destroying_the_estate() {
    // Run in the wrong directory with --estate, a stateless plan of nothing would destroy every object the
    // estate owns. Like Terraform, liveplan refuses to plan without a configuration file.
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let empty = Dir::new();
    empty.write(
        ".liveplan/cloud.json",
        &std::fs::read_to_string(dir.cloud_file()).unwrap(),
    );
    for command in [&["plan"][..], &["apply", "--auto-approve"], &["validate"]] {
        let mut args = vec!["--estate", "quickstart"];
        args.extend_from_slice(command);
        let run = empty.run(&args);
        run.expect_code(1);
        assert!(
            run.stderr
                .contains("no configuration files (*.tf, *.tf.json, *.tofu, *.tofu.json) in"),
            "{command:?}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("destroy"), "{}", run.stdout);
    }
    // With --json the refusal is the plan's one diagnostic, on stdout like every plan.
    let run = empty.run(&["--estate", "quickstart", "plan", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(codes(&doc), ["no-configuration"]);
    assert_eq!(doc["resource_changes"], serde_json::json!([]));
    let cloud = std::fs::read_to_string(empty.cloud_file()).unwrap();
    assert!(cloud.contains("vpc-00000001"), "nothing was destroyed");
    // `liveplan.hcl` names the estate but declares nothing: alone, it is no configuration either.
    empty.write("liveplan.hcl", "live {\n  estate = \"quickstart\"\n}\n");
    let run = empty.run(&["plan"]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("no configuration files ("),
        "{}",
        run.stderr
    );
}
