//! The `liveplan` binary as a user runs it.

use std::process::Command;

#[test]
fn cli_version_names_the_product_and_its_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_liveplan"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("liveplan {}", env!("CARGO_PKG_VERSION"))
    );
}
