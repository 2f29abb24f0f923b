//! F6: a record file that does not parse (truncated, empty, binary, another format version, the wrong
//! kind, bad fields, oversize, a symlink in its place, a garbage output) is a `record-format` warning that
//! names the file, and the next apply overwrites it instead of failing with a false `version-conflict`
//! forever.

use crate::cli::{Dir, codes};

/// The quickstart's `random_id.suffix` record file, relative to the configuration directory.
const SUFFIX_RECORD: &str =
    ".liveplan/records/quickstart/records/random_id/cmFuZG9tX2lkLnN1ZmZpeA.rec";
/// The quickstart's `bucket_arn` output record file.
const OUTPUT_RECORD: &str = ".liveplan/records/quickstart/outputs/YnVja2V0X2Fybg.rec";

/// Damages the record file `file` of an applied quickstart with `damage`, then checks that the plan warns
/// naming the file, that one apply succeeds, and that the estate converges with the record readable.
fn damaged_record_is_rewritten_by_the_next_apply(
    what: &str,
    file: &str,
    damage: impl FnOnce(&std::path::Path),
) {
    let dir = Dir::quickstart();
    dir.run(&["apply", "--auto-approve"]).expect_code(0);
    let path = dir.path().join(file);
    damage(&path);

    let plan = dir.run(&["plan", "--no-color"]);
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains(&format!("({file}) was read as no record")),
        "{what}: the warning does not name {file}:\n{}",
        plan.stdout
    );
    let apply = dir.run(&["apply", "--auto-approve", "--no-color"]);
    apply.expect_code(0);
    assert!(
        !apply.stdout.contains("version-conflict") && !apply.stderr.contains("version-conflict"),
        "{what}: {}{}",
        apply.stdout,
        apply.stderr
    );
    let doc = dir.run(&["plan", "--json", "--detailed-exitcode"]);
    doc.expect_code(0);
    assert_eq!(codes(&doc.json()), Vec::<String>::new(), "{what}");
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert!(
        meta.file_type().is_file(),
        "{what}: the record is a plain file again"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with(r#"{"format":"liveplan-record-v1""#),
        "{what}: {text}"
    );
}

fn rewrite(path: &std::path::Path, f: impl FnOnce(Vec<u8>) -> Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, f(bytes)).unwrap();
}

#[test]
fn damaged_records_reproduction_truncated_random_id_record_no_longer_wedges_apply() {
    damaged_record_is_rewritten_by_the_next_apply("truncated", SUFFIX_RECORD, |p| {
        rewrite(p, |b| b[..40].to_vec())
    });
}

#[test]
fn damaged_records_every_variant_of_the_finding_is_rewritten_by_the_next_apply() {
    let swap = |from: &'static str, to: &'static str| {
        move |p: &std::path::Path| {
            rewrite(p, |b| {
                String::from_utf8(b).unwrap().replace(from, to).into_bytes()
            })
        }
    };
    damaged_record_is_rewritten_by_the_next_apply("empty", SUFFIX_RECORD, |p| {
        rewrite(p, |_| Vec::new())
    });
    damaged_record_is_rewritten_by_the_next_apply("binary", SUFFIX_RECORD, |p| {
        rewrite(p, |_| (0..=255u8).cycle().take(300).collect())
    });
    damaged_record_is_rewritten_by_the_next_apply(
        "another format version",
        SUFFIX_RECORD,
        swap("liveplan-record-v1", "liveplan-record-v2"),
    );
    damaged_record_is_rewritten_by_the_next_apply(
        "wrong kind",
        SUFFIX_RECORD,
        swap(r#""kind":"object""#, r#""kind":"intent""#),
    );
    damaged_record_is_rewritten_by_the_next_apply("bad fields", SUFFIX_RECORD, |p| {
        rewrite(p, |_| {
            br#"{"format":"liveplan-record-v1","kind":"object","id":5}"#.to_vec()
        })
    });
    damaged_record_is_rewritten_by_the_next_apply("oversize", SUFFIX_RECORD, |p| {
        rewrite(p, |mut b| {
            b.extend(std::iter::repeat_n(b'x', 20 << 20));
            b
        })
    });
    damaged_record_is_rewritten_by_the_next_apply("garbage output", OUTPUT_RECORD, |p| {
        rewrite(p, |_| b"garbage\n".to_vec())
    });
}

#[test]
fn damaged_records_a_symlink_in_a_records_place_is_warned_about_and_replaced_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere.rec");
    damaged_record_is_rewritten_by_the_next_apply("symlink", SUFFIX_RECORD, |p| {
        std::fs::rename(p, &target).unwrap();
        std::os::unix::fs::symlink(&target, p).unwrap();
    });
    // The file the link pointed to is left as it was.
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.contains(r#""kind":"object""#), "{text}");
}
