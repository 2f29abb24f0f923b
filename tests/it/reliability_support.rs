//! What the reliability, secrets and fuzz tests share: a configuration directory with a file-backed
//! simulated cloud, runs of the `liveplan` binary, and readers for the sim file and the record store.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::LazyLock;

use fixtures::testkit::Network;
use serde_json::Value as Json;

/// A small network with a bucket and a role in the estate `rel`: enough operations to interrupt, few enough
/// to stay fast.
pub static NETWORK: LazyLock<String> =
    LazyLock::new(|| Network::new("rel", 9).subnets(2).with_role().hcl());

/// A configuration directory of its own, with its sim file and record store under `.liveplan/`.
pub struct EstateDir {
    tmp: tempfile::TempDir,
}

impl EstateDir {
    /// A directory holding `main.tf`.
    pub fn new(main_tf: &str) -> EstateDir {
        let dir = EstateDir {
            tmp: tempfile::tempdir().expect("a temporary directory"),
        };
        dir.write("main.tf", main_tf);
        dir
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes a file in the directory, creating its parents.
    pub fn write(&self, name: &str, text: &str) {
        let path = self.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the parent is created");
        std::fs::write(path, text).expect("the file is written");
    }

    /// The simulated cloud's file.
    pub fn cloud_file(&self) -> PathBuf {
        self.path().join(".liveplan/cloud.json")
    }

    /// Replaces the sim file's `faults` section (the objects stay); `[]` turns every fault off.
    pub fn set_faults(&self, faults: Json) {
        let path = self.cloud_file();
        let mut doc: Json = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).expect("the sim file is JSON"),
            Err(_) => serde_json::json!({ "resources": [] }),
        };
        doc["faults"] = faults;
        self.write(".liveplan/cloud.json", &doc.to_string());
    }

    /// The command `liveplan ARGS -C DIR`, with no terminal and no log filter from the environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_liveplan"));
        cmd.args(args)
            .arg("-C")
            .arg(self.path())
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `liveplan ARGS -C DIR` to the end.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().expect("the binary runs"))
    }

    /// Starts `liveplan ARGS -C DIR` with stdout and stderr piped.
    pub fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts")
    }

    /// The live objects of the sim file as `type id` lines, sorted (none when it does not exist).
    pub fn live_objects(&self) -> Vec<String> {
        let Ok(text) = std::fs::read_to_string(self.cloud_file()) else {
            return Vec::new();
        };
        let doc: Json = serde_json::from_str(&text).expect("the sim file is JSON");
        let mut out: Vec<String> = doc["resources"]
            .as_array()
            .expect("a resource list")
            .iter()
            .map(|r| format!("{} {}", str_of(&r["type"]), str_of(&r["id"])))
            .collect();
        out.sort();
        out
    }

    /// How many live objects of `type_name` the sim file holds.
    pub fn count_of(&self, type_name: &str) -> usize {
        let prefix = format!("{type_name} ");
        self.live_objects()
            .iter()
            .filter(|o| o.starts_with(&prefix))
            .count()
    }

    /// Every record file of the local store (`.rec`): its path under the store and its content.
    pub fn record_files(&self) -> Vec<(String, String)> {
        let root = self.path().join(".liveplan/records");
        let mut out = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rec") {
                    // Only records: a process killed mid-write leaves its `.lock` and `.tmp` files, which
                    // the store never reads as records either.
                    let name = path
                        .strip_prefix(&root)
                        .expect("under the store")
                        .to_string_lossy()
                        .into_owned();
                    let text = String::from_utf8_lossy(&std::fs::read(&path).expect("readable"))
                        .into_owned();
                    out.push((name, text));
                }
            }
        }
        out.sort();
        out
    }
}

fn str_of(v: &Json) -> &str {
    v.as_str().unwrap_or("?")
}

/// What one run of the binary gave.
#[derive(Debug)]
pub struct Run {
    /// The exit code (-1 when a signal ended it).
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
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// stdout as JSON.
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// The `action address` lines of a JSON plan, in its order.
pub fn actions(plan: &Json) -> Vec<String> {
    plan["resource_changes"]
        .as_array()
        .expect("a change list")
        .iter()
        .map(|c| format!("{} {}", str_of(&c["action"]), str_of(&c["address"])))
        .collect()
}

/// The diagnostic codes of a JSON plan, in its order.
pub fn codes(plan: &Json) -> Vec<String> {
    plan["diagnostics"]
        .as_array()
        .expect("a diagnostic list")
        .iter()
        .map(|d| str_of(&d["code"]).to_owned())
        .collect()
}

/// Sends `signal` (`INT`, `TERM`, `KILL`) to a child with the system's `kill` command.
pub fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} failed");
}
