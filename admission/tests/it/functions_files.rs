//! Filesystem, template, date and time functions, the module context (`path.*`,
//! `terraform.workspace`, `plantimestamp()`) and the impure functions at apply: the examples of
//! Terraform 1.9's function pages, with Terraform's results.

use std::path::Path;

use admission::ModuleContext;

use super::functions_table::{Row, check, check_in};

/// A module directory holding the files the rows read.
fn module_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("hello.txt", "Hello World");
    write("files/hello.txt", "hello");
    write("files/world.txt", "world");
    write("files/sub/deep.txt", "deep");
    write("files/other.tf", "");
    write(
        "backends.tftpl",
        "%{ for addr in ip_addrs ~}\nbackend ${addr}:${port}\n%{ endfor ~}\n",
    );
    write("recurse.tftpl", "${templatefile(\"backends.tftpl\", {})}");
    std::fs::write(dir.path().join("binary.bin"), [0xff, 0xfe]).unwrap();
    dir
}

fn module_at(dir: &Path) -> ModuleContext {
    ModuleContext {
        dir: dir.to_path_buf(),
        cwd: "/work/project".to_owned(),
        workspace: "staging".to_owned(),
        plan_timestamp: Some("2026-12-02T10:00:00Z".to_owned()),
        home: Some("/home/steve".into()),
    }
}

const FILES: &[Row] = &[
    (
        "file.mdx",
        r#"file("${path.module}/hello.txt")"#,
        r#""Hello World""#,
    ),
    ("file.mdx", r#"file("nope.txt")"#, "error: no file exists"),
    (
        "file.mdx",
        r#"file("binary.bin")"#,
        "error: are not valid UTF-8",
    ),
    (
        "fileexists.mdx",
        r#"fileexists("${path.module}/hello.txt")"#,
        "true",
    ),
    ("fileexists.mdx", r#"fileexists("nope.txt")"#, "false"),
    (
        "fileexists.mdx",
        r#"fileexists("files")"#,
        "error: is not a regular file",
    ),
    (
        "filebase64.mdx",
        r#"filebase64("${path.module}/hello.txt")"#,
        r#""SGVsbG8gV29ybGQ=""#,
    ),
    (
        "filemd5.mdx",
        r#"filemd5("hello.txt")"#,
        r#""b10a8db164e0754105b7a99be72e3fe5""#,
    ),
    (
        "filesha256.mdx",
        r#"filesha256("hello.txt")"#,
        r#""a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e""#,
    ),
    (
        "fileset.mdx",
        r#"fileset(path.module, "files/*.txt")"#,
        r#"set["files/hello.txt", "files/world.txt"]"#,
    ),
    (
        "fileset.mdx",
        r#"fileset(path.module, "files/{hello,world}.txt")"#,
        r#"set["files/hello.txt", "files/world.txt"]"#,
    ),
    (
        "fileset.mdx",
        r#"fileset("${path.module}/files", "*")"#,
        r#"set["hello.txt", "other.tf", "world.txt"]"#,
    ),
    (
        "fileset.mdx",
        r#"fileset("${path.module}/files", "**")"#,
        r#"set["hello.txt", "other.tf", "sub/deep.txt", "world.txt"]"#,
    ),
    (
        "basename.mdx",
        r#"basename("foo/bar/baz.txt")"#,
        r#""baz.txt""#,
    ),
    (
        "dirname.mdx",
        r#"dirname("foo/bar/baz.txt")"#,
        r#""foo/bar""#,
    ),
    ("dirname.mdx", r#"dirname("baz.txt")"#, r#"".""#),
    (
        "pathexpand.mdx",
        r#"pathexpand("~/.ssh/id_rsa")"#,
        r#""/home/steve/.ssh/id_rsa""#,
    ),
    (
        "pathexpand.mdx",
        r#"pathexpand("/etc/resolv.conf")"#,
        r#""/etc/resolv.conf""#,
    ),
    ("abspath.mdx", "abspath(path.root)", r#""/work/project""#),
    (
        "abspath.mdx",
        r#"abspath("a/../b")"#,
        r#""/work/project/b""#,
    ),
    (
        "templatefile.mdx",
        r#"templatefile("${path.module}/backends.tftpl", { port = 8080, ip_addrs = ["10.0.0.1", "10.0.0.2"] })"#,
        r#""backend 10.0.0.1:8080\nbackend 10.0.0.2:8080\n""#,
    ),
    (
        "templatefile.mdx",
        r#"templatefile("backends.tftpl", { "1bad" = 1 })"#,
        "error: invalid template variable name",
    ),
    (
        "templatefile.mdx",
        r#"templatefile("recurse.tftpl", {})"#,
        "error: cannot recursively call templatefile",
    ),
    ("expressions.md: path", "path.module", r#"".""#),
    ("expressions.md: path", "path.root", r#"".""#),
    ("expressions.md: path", "path.cwd", r#""/work/project""#),
    (
        "expressions.md: path",
        "terraform.workspace",
        r#""staging""#,
    ),
    (
        "plantimestamp.mdx",
        "plantimestamp()",
        r#""2026-12-02T10:00:00Z""#,
    ),
];

const DATETIME: &[Row] = &[
    (
        "formatdate.mdx",
        r#"formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")"#,
        r#""02 Jan 2018 23:12 UTC""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("EEEE, DD-MMM-YY hh:mm:ss ZZZ", "2018-01-02T23:12:01Z")"#,
        r#""Tuesday, 02-Jan-18 23:12:01 UTC""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("EEE, DD MMM YYYY hh:mm:ss ZZZ", "2018-01-02T23:12:01-08:00")"#,
        r#""Tue, 02 Jan 2018 23:12:01 -0800""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("MMM DD, YYYY", "2018-01-02T23:12:01Z")"#,
        r#""Jan 02, 2018""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("HH:mmaa", "2018-01-02T23:12:01Z")"#,
        r#""11:12pm""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("h'h'mm", "2018-01-02T23:12:01-08:00")"#,
        r#""23h12""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("H 'o''clock'", "2018-01-02T23:12:01-08:00")"#,
        r#""11 o'clock""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("YYYY-MM-DD'T'hh:mm:ssZ", "2018-01-02T23:12:01Z")"#,
        r#""2018-01-02T23:12:01Z""#,
    ),
    (
        "formatdate.mdx",
        r#"formatdate("YYYY", "not a timestamp")"#,
        "error: not a valid RFC3339 timestamp",
    ),
    (
        "formatdate.mdx",
        r#"formatdate("Q", "2018-01-02T23:12:01Z")"#,
        "error: invalid date format verb",
    ),
    (
        "timeadd.mdx",
        r#"timeadd("2017-11-22T00:00:00Z", "10m")"#,
        r#""2017-11-22T00:10:00Z""#,
    ),
    (
        "timeadd.mdx",
        r#"timeadd("2017-11-22T00:00:00Z", "-1h30m")"#,
        r#""2017-11-21T22:30:00Z""#,
    ),
    (
        "timeadd.mdx",
        r#"timeadd("2017-11-22T00:00:00+01:00", "1.5h")"#,
        r#""2017-11-22T01:30:00+01:00""#,
    ),
    (
        "timeadd.mdx",
        r#"timeadd("2017-11-22T00:00:00Z", "10y")"#,
        "error: unknown unit",
    ),
    (
        "timecmp.mdx",
        r#"timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z")"#,
        "0",
    ),
    (
        "timecmp.mdx",
        r#"timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z")"#,
        "-1",
    ),
    (
        "timecmp.mdx",
        r#"timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00Z")"#,
        "1",
    ),
    (
        "timecmp.mdx",
        r#"timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00-01:00")"#,
        "0",
    ),
];

/// At apply, the impure functions take the caller's values: checked by shape.
const APPLY: &[Row] = &[
    (
        "uuid.mdx",
        "uuid()",
        r#"like: ^"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"$"#,
    ),
    (
        "timestamp.mdx",
        "timestamp()",
        r#"like: ^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$"#,
    ),
    (
        "bcrypt.mdx",
        r#"bcrypt("hello world")"#,
        r#"like: ^"\$2a\$10\$[./A-Za-z0-9]{53}"$"#,
    ),
    (
        "bcrypt.mdx",
        r#"bcrypt("hello world", 4)"#,
        r#"like: ^"\$2a\$04\$[./A-Za-z0-9]{53}"$"#,
    ),
    (
        "bcrypt.mdx",
        r#"bcrypt("hello world", 3)"#,
        "error: outside allowed range",
    ),
];

#[test]
fn functions_filesystem_examples_read_below_the_module_directory() {
    let dir = module_dir();
    check_in(FILES, &module_at(dir.path()), false);
}

#[test]
fn functions_datetime_examples_give_terraforms_results() {
    check(DATETIME);
}

#[test]
fn functions_impure_values_are_unknown_at_plan_and_well_formed_at_apply() {
    check_in(APPLY, &ModuleContext::default(), true);
    check(&[
        ("plantimestamp.mdx", "plantimestamp()", "unknown(string)"),
        (
            "expressions.md: path",
            "terraform.workspace",
            r#""default""#,
        ),
    ]);
}
