//! The `liveplan` process under signals and concurrency: SIGKILL and SIGINT in the middle of an apply, and
//! two applies of one estate at once on one local record store. Throttling injected through the sim file
//! keeps an operation in flight (retrying with backoff) long enough to interrupt it; the test waits for
//! the apply's own `Creating...` line, never for a clock.

use std::io::{BufRead, BufReader, Read};
use std::process::Child;

use serde_json::json;

use crate::reliability_support::{EstateDir, NETWORK, Run, actions, codes, signal};

/// Reads the child's stdout until `line` has been printed; returns what was read.
fn read_until(child: &mut Child, line: &str) -> (BufReader<std::process::ChildStdout>, String) {
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut seen = String::new();
    loop {
        let mut next = String::new();
        let n = stdout.read_line(&mut next).expect("stdout is readable");
        assert!(n > 0, "the apply ended before printing {line:?}:\n{seen}");
        seen.push_str(&next);
        if next.trim_end() == line {
            return (stdout, seen);
        }
    }
}

/// Waits for the child and collects what is left of its output.
fn finish(mut child: Child, mut stdout: BufReader<std::process::ChildStdout>, seen: String) -> Run {
    let mut rest = String::new();
    stdout
        .read_to_string(&mut rest)
        .expect("stdout is readable");
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        err.read_to_string(&mut stderr).expect("stderr is readable");
    }
    let status = child.wait().expect("the child ends");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: seen + &rest,
        stderr,
    }
}

/// Rewrites the `pending` create intents of the local store as if they were written an hour ago, as a
/// later run would find them (the record version is the content hash, so the store stays consistent).
fn age_pending_intents(estate: &EstateDir) -> usize {
    let root = estate.path().join(".liveplan/records");
    let mut aged = 0;
    for (name, text) in estate.record_files() {
        if !name.contains("/intent/") {
            continue;
        }
        let mut doc: serde_json::Value = serde_json::from_str(&text).expect("a JSON record");
        if doc["state"] != json!("pending") {
            continue;
        }
        let Some(at) = doc["time"].as_u64() else {
            continue;
        };
        doc["time"] = json!(at.saturating_sub(3600));
        std::fs::write(root.join(&name), doc.to_string()).expect("the record is rewritten");
        aged += 1;
    }
    aged
}

#[test]
fn reliability_processes_sigkill_during_apply_then_plan_proposes_no_duplicate() {
    let estate = EstateDir::new(&NETWORK);
    // Subnet creates are throttled for a while: the VPC exists when the process dies.
    estate.set_faults(json!([
        { "operation": "ec2:CreateSubnet", "kind": "throttle", "times": 4 },
    ]));
    let mut child = estate.spawn(&["apply", "--auto-approve", "--parallelism", "1"]);
    let (stdout, _) = read_until(&mut child, "aws_subnet.a: Creating...");
    child.kill().expect("SIGKILL is delivered");
    let killed = finish(child, stdout, String::new());
    assert_eq!(killed.code, -1, "{killed:?}");
    estate.set_faults(json!([]));
    assert_eq!(estate.count_of("aws_vpc"), 1);

    // The next plan finds what was created by its markers and proposes no second create of it.
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    let planned = actions(&plan);
    assert!(
        !planned.contains(&"create aws_vpc.main".to_owned()),
        "{planned:?}"
    );
    for object in estate.live_objects() {
        let address = match object.split(' ').next() {
            Some("aws_s3_bucket") => "aws_s3_bucket.logs",
            Some("aws_iam_role") => "aws_iam_role.ops",
            Some("aws_vpc") => "aws_vpc.main",
            _ => continue,
        };
        assert!(
            !planned.contains(&format!("create {address}")),
            "{object} exists and is planned again: {planned:?}"
        );
    }

    // A create cut off by the kill left a pending intent; once it is older than the patience window
    // the instance is created over it, and the estate converges with one of everything.
    age_pending_intents(&estate);
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    estate.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    assert_eq!(estate.count_of("aws_vpc"), 1);
    assert_eq!(estate.count_of("aws_subnet"), 2);
    assert_eq!(estate.count_of("aws_s3_bucket"), 1);
}

#[test]
fn reliability_processes_a_second_sigint_exits_at_once_and_the_next_apply_converges() {
    let estate = EstateDir::new(&NETWORK);
    estate.set_faults(json!([
        { "operation": "ec2:CreateVpc", "kind": "throttle", "times": 4 },
    ]));
    let mut child = estate.spawn(&["apply", "--auto-approve", "--parallelism", "1"]);
    let (mut stdout, mut seen) = read_until(&mut child, "aws_vpc.main: Creating...");
    signal(&child, "INT");
    // The first interrupt is acknowledged while the VPC's create is still retrying; the second one ends
    // the process without waiting for it.
    loop {
        let mut next = String::new();
        let n = stdout.read_line(&mut next).expect("stdout is readable");
        assert!(
            n > 0,
            "the apply ended before acknowledging the interrupt:\n{seen}"
        );
        seen.push_str(&next);
        if next.starts_with("Interrupt received") {
            break;
        }
    }
    signal(&child, "INT");
    let run = finish(child, stdout, seen);
    run.expect_code(1);
    assert!(run.stdout.contains("Two interrupts received"), "{run:?}");
    assert!(
        !run.stdout.contains("aws_vpc.main: Creation complete"),
        "{run:?}"
    );
    assert!(!run.stdout.contains("Apply complete"), "{run:?}");

    // Nothing is lost: once the intents of the creates cut off are older than the patience window, the
    // next apply finishes the estate, with one of everything.
    estate.set_faults(json!([]));
    age_pending_intents(&estate);
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    estate.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    assert_eq!(estate.count_of("aws_vpc"), 1);
    assert_eq!(estate.count_of("aws_subnet"), 2);
}

#[test]
fn reliability_processes_sigint_finishes_in_flight_writes_records_and_converges() {
    let estate = EstateDir::new(&NETWORK);
    estate.set_faults(json!([
        { "operation": "ec2:CreateVpc", "kind": "throttle", "times": 4 },
    ]));
    let mut child = estate.spawn(&["apply", "--auto-approve", "--parallelism", "1"]);
    let (stdout, seen) = read_until(&mut child, "aws_vpc.main: Creating...");
    signal(&child, "INT");
    let run = finish(child, stdout, seen);
    run.expect_code(1);
    assert!(run.stdout.contains("cancelled"), "{run:?}");
    // The create in flight finished; nothing started after the interrupt.
    assert!(
        run.stdout.contains("aws_vpc.main: Creation complete after"),
        "{run:?}"
    );
    let after = run.stdout.split("Interrupt received").nth(1).unwrap_or("");
    assert!(!after.contains("Creating..."), "{run:?}");
    estate.set_faults(json!([]));
    assert_eq!(estate.count_of("aws_vpc"), 1);
    assert_eq!(estate.count_of("aws_subnet"), 0);

    // The finished create wrote its intent as done with the VPC's id.
    let intents: Vec<String> = estate
        .record_files()
        .into_iter()
        .filter(|(name, _)| name.contains("/intent/aws_vpc/"))
        .map(|(_, text)| text)
        .collect();
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert!(intents[0].contains("\"done\""), "{intents:?}");
    assert!(intents[0].contains("vpc-00000001"), "{intents:?}");

    // The next plan shows what is left, and its apply converges without a second VPC.
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert!(
        !actions(&plan).contains(&"create aws_vpc.main".to_owned()),
        "{plan:#}"
    );
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    estate.run(&["plan", "--detailed-exitcode"]).expect_code(0);
    assert_eq!(estate.count_of("aws_vpc"), 1);
}

#[test]
fn reliability_processes_two_applies_at_once_serialize_through_compare_and_swap() {
    let estate = EstateDir::new(&NETWORK);
    // Slow listings keep both plans in discovery together, so both plan every create from one view.
    estate.set_faults(json!([
        { "operation": "ec2:CreateVpc", "kind": "throttle", "times": 3 },
    ]));
    let first = estate.spawn(&["apply", "--auto-approve", "--json"]);
    let second = estate.spawn(&["apply", "--auto-approve", "--json"]);
    let runs: Vec<Run> = [first, second]
        .into_iter()
        .map(|mut child| {
            let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
            finish(child, stdout, String::new())
        })
        .collect();
    estate.set_faults(json!([]));

    // Each run either succeeded or lost a compare-and-swap, and said so; never anything else.
    for run in &runs {
        match run.code {
            0 => {}
            1 => assert!(
                run.stdout.contains("version-conflict")
                    || run.stdout.contains("interrupted-create"),
                "{run:?}"
            ),
            _ => panic!("{run:?}"),
        }
    }
    // Never a duplicate: one VPC, two subnets, one route table, one bucket.
    assert_eq!(estate.count_of("aws_vpc"), 1, "{runs:?}");
    assert_eq!(estate.count_of("aws_subnet"), 2, "{runs:?}");
    assert_eq!(estate.count_of("aws_route_table"), 1, "{runs:?}");
    assert_eq!(estate.count_of("aws_s3_bucket"), 1, "{runs:?}");

    // Nothing lost: an intent for every created instance, and the estate converges.
    age_pending_intents(&estate);
    let again = estate.run(&["apply", "--auto-approve"]);
    again.expect_code(0);
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert_eq!(actions(&plan), Vec::<String>::new(), "{plan:#}");
    assert!(codes(&plan).is_empty(), "{plan:#}");
    let intents = estate
        .record_files()
        .into_iter()
        .filter(|(name, text)| name.contains("/intent/") && text.contains("\"done\""))
        .count();
    assert_eq!(intents, 7);
}

#[test]
fn reliability_processes_an_apply_with_nothing_to_change_settles_the_intent_of_a_create_found_live()
{
    let estate = EstateDir::new(&NETWORK);
    estate.run(&["apply", "--auto-approve"]).expect_code(0);
    // As an apply killed after the VPC's create and before its intent was marked done leaves it.
    let (name, text) = estate
        .record_files()
        .into_iter()
        .find(|(name, _)| name.contains("/intent/aws_vpc/"))
        .expect("the VPC's create intent");
    let mut doc: serde_json::Value = serde_json::from_str(&text).expect("a JSON record");
    assert_eq!(doc["state"], json!("done"));
    doc["state"] = json!("pending");
    std::fs::write(
        estate.path().join(".liveplan/records").join(&name),
        doc.to_string(),
    )
    .expect("the record is rewritten");
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert_eq!(actions(&plan), Vec::<String>::new(), "{plan:#}");
    assert_eq!(codes(&plan), ["interrupted-create"], "{plan:#}");

    let applied = estate.run(&["apply", "--auto-approve"]);
    applied.expect_code(0);
    assert!(
        applied.stdout.contains("0 added, 0 changed, 0 destroyed"),
        "{applied:?}"
    );
    let plan = estate.run(&["plan", "--json"]).expect_code(0).json();
    assert!(codes(&plan).is_empty(), "{plan:#}");
    let settled = estate
        .record_files()
        .into_iter()
        .find(|(found, _)| *found == name)
        .expect("the intent is kept");
    let doc: serde_json::Value = serde_json::from_str(&settled.1).expect("a JSON record");
    assert_eq!(doc["state"], json!("done"));
}
