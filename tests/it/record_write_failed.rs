//! A record write that fails after the cloud call, at the binary: the objects made are reported as made
//! (`Creation complete`, counted as added), and the record's failure is a `record-write-failed` error of
//! its own that keeps the operating system's reason. The fault is a file where the records need a
//! directory, which fails for root too (unlike a read-only directory or `chattr`).

use crate::cli::Dir;

#[test]
fn record_write_failed_after_creates_counts_them_added_and_names_the_record_and_the_os_reason() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    // The association's `located` records need a directory where a file now is.
    let located = dir
        .path()
        .join(".liveplan/records/quickstart/located/aws_route_table_association");
    std::fs::remove_dir_all(&located).unwrap();
    std::fs::write(&located, "in the way").unwrap();

    let apply = dir.run(&[
        "apply",
        "--auto-approve",
        "--no-color",
        "--var",
        "public_subnet_count=3",
    ]);
    apply.expect_code(1);
    let address = "aws_route_table_association.public[2]";
    assert!(
        apply
            .stdout
            .lines()
            .any(|l| l.starts_with(&format!("{address}: Creation complete after "))),
        "{}",
        apply.stdout
    );
    let key = projection::b64::encode(address.as_bytes());
    let error = format!(
        "Error: {address} was created, but its record \
         quickstart/located/aws_route_table_association/{key} could not be updated: local store could \
         not create directory {}: File exists (os error 17) [record-write-failed]",
        located.display()
    );
    assert!(apply.stdout.contains(&error), "{}", apply.stdout);
    assert!(!apply.stdout.contains("failed after"), "{}", apply.stdout);
    assert!(
        apply
            .stdout
            .contains("Apply failed! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        apply.stdout
    );
    assert_eq!(
        dir.live_objects()
            .iter()
            .filter(|o| o.starts_with("aws_route_table_association "))
            .count(),
        3
    );
    // The objects made are found by their markers: nothing is created twice.
    let plan = dir.run(&["plan", "--no-color", "--var", "public_subnet_count=3"]);
    plan.expect_code(0);
    assert_eq!(
        plan.last_line(),
        "No changes. The live system matches the configuration."
    );
}
