//! The plan options of Terraform's CLI: `liveplan destroy` and `plan -destroy` (everything this estate
//! owns is planned for deletion and destroyed; another estate's objects in the same cloud are never
//! touched; `prevent_destroy` refuses), `-replace=ADDR` and `-target=ADDR`.

use crate::cli::Dir;

const OTHER_TF: &str = r#"
live {
  estate = "neighbour"
}

resource "aws_s3_bucket" "kept" {
  bucket = "neighbour-kept"
}
"#;

#[test]
fn cli_plan_options_destroy_removes_everything_the_estate_owns_and_nothing_else() {
    let ours = Dir::quickstart();
    let theirs = Dir::with_config(OTHER_TF);
    let cloud = ours.path().join("shared.json");
    let sim = cloud.display().to_string();
    ours.run(&["apply", "-auto-approve", "--sim", &sim])
        .expect_code(0);
    theirs
        .run(&["apply", "-auto-approve", "--sim", &sim])
        .expect_code(0);

    let plan = ours.run(&["plan", "-destroy", "-detailed-exitcode", "--sim", &sim]);
    plan.expect_code(2);
    assert!(
        plan.stdout
            .contains("Plan: 0 to add, 0 to change, 12 to destroy."),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout.contains("(destroying the estate)"),
        "{}",
        plan.stdout
    );
    assert!(!plan.stdout.contains("neighbour-kept"), "{}", plan.stdout);

    let destroy = ours.run(&["destroy", "-auto-approve", "--sim", &sim]);
    destroy.expect_code(0);
    assert!(
        destroy
            .stdout
            .contains("Destroy complete! Resources: 12 destroyed."),
        "{}",
        destroy.stdout
    );
    assert!(!destroy.stdout.contains("Outputs:"), "{}", destroy.stdout);

    // The neighbour's bucket is still there and still converged; ours would all be created again.
    let text = std::fs::read_to_string(&cloud).unwrap();
    assert!(text.contains("neighbour-kept"), "{text}");
    theirs
        .run(&["plan", "-detailed-exitcode", "--sim", &sim])
        .expect_code(0);
    let again = ours.run(&["plan", "-detailed-exitcode", "--sim", &sim]);
    again.expect_code(2);
    assert!(
        again
            .stdout
            .contains("Plan: 12 to add, 0 to change, 0 to destroy."),
        "{}",
        again.stdout
    );
}

#[test]
fn cli_plan_options_destroy_is_refused_for_a_block_with_prevent_destroy() {
    let dir = Dir::with_config(
        r#"
live {
  estate = "guarded"
}

resource "aws_s3_bucket" "vault" {
  bucket = "guarded-vault"
  lifecycle {
    prevent_destroy = true
  }
}
"#,
    );
    dir.run(&["apply", "-auto-approve"]).expect_code(0);
    let plan = dir.run(&["plan", "-destroy"]);
    plan.expect_code(1);
    assert!(plan.stdout.contains("[prevent-destroy]"), "{}", plan.stdout);
    let destroy = dir.run(&["destroy", "-auto-approve"]);
    destroy.expect_code(1);
    assert_eq!(
        dir.live_objects().len(),
        1,
        "a guarded bucket was destroyed"
    );
}

#[test]
fn cli_plan_options_target_plans_the_target_and_what_it_depends_on() {
    let dir = Dir::quickstart();
    let plan = dir.run(&["plan", "-target=aws_subnet.public[1]", "-detailed-exitcode"]);
    plan.expect_code(2);
    let planned: Vec<&str> = plan
        .stdout
        .lines()
        .filter(|l| l.starts_with("  # "))
        .collect();
    assert_eq!(
        planned,
        // A count member stands for its whole block (the members are a fungible set bound by slot).
        [
            "  # aws_subnet.public[0] will be created",
            "  # aws_subnet.public[1] will be created",
            "  # aws_subnet.public[2] will be created",
            "  # aws_vpc.main will be created"
        ],
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout.contains("[resource-targeting]"),
        "{}",
        plan.stdout
    );

    // Applied, only those exist; the next untargeted plan creates the rest and replaces nothing.
    dir.run(&["apply", "-auto-approve", "-target=aws_subnet.public[1]"])
        .expect_code(0);
    let live = dir.live_objects();
    assert_eq!(live.len(), 4, "{live:?}");
    let rest = dir.run(&["plan"]);
    assert!(
        rest.stdout
            .contains("Plan: 8 to add, 0 to change, 0 to destroy."),
        "{}",
        rest.stdout
    );
}

#[test]
fn cli_plan_options_replace_forces_a_replacement_of_a_converged_instance() {
    let dir = Dir::quickstart();
    dir.run(&["apply", "-auto-approve"]).expect_code(0);
    let plan = dir.run(&[
        "plan",
        "-replace=aws_subnet.public[0]",
        "-detailed-exitcode",
    ]);
    plan.expect_code(2);
    assert!(
        plan.stdout.contains(
            "  # aws_subnet.public[0] must be replaced\n  # (replacement requested with -replace)"
        ),
        "{}",
        plan.stdout
    );
    // Nothing else is replaced but what the new subnet's id forces.
    assert!(
        plan.stdout
            .contains("Plan: 2 to add, 0 to change, 2 to destroy."),
        "{}",
        plan.stdout
    );
    for (flag, code) in [
        ("-replace=aws_subnet.nowhere", "[unknown-reference]"),
        ("-target=aws_vpc.nowhere", "[unknown-reference]"),
        ("-target=not-an-address", "[invalid-address]"),
    ] {
        let run = dir.run(&["plan", flag]);
        run.expect_code(1);
        assert!(run.stdout.contains(code), "{flag}: {}", run.stdout);
    }
}
