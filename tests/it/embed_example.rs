//! `examples/embed.rs`, run in full: a provider of its own, a configuration built in code, records in a
//! temporary directory; it must plan creates, apply them, and end converged.

use std::sync::{Arc, Mutex};

#[path = "../../examples/embed.rs"]
// The program's `main` only hands `run` the standard output; the test hands it a buffer instead.
#[allow(dead_code)]
mod embed;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embed_example_plans_creates_applies_and_ends_with_no_changes() {
    let out = Arc::new(Mutex::new(Vec::<u8>::new()));
    embed::run(Arc::clone(&out))
        .await
        .expect("the example runs");
    let text = String::from_utf8(out.lock().unwrap().clone()).expect("UTF-8 output");

    let (plan, rest) = text
        .split_once("Plan: 3 to add, 0 to change, 0 to destroy.\n")
        .expect("a plan of three creates");
    for create in [
        "  + resource \"kv_namespace\" \"orders\" {",
        "  + resource \"kv_entry\" \"greeting\" {",
        "  + resource \"kv_entry\" \"limit\" {",
    ] {
        assert!(plan.contains(create), "{create:?} missing from:\n{plan}");
    }
    // The markers travel with the create of the server-named entry.
    assert!(
        plan.contains(r#"+ tags_all  = { tofu-address = "kv_entry.limit", tofu-estate = "shop" }"#),
        "{plan}"
    );

    // Then the apply: every operation starts and completes, the namespace before its entries.
    let lines: Vec<&str> = rest.lines().collect();
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(line))
            .unwrap_or_else(|| panic!("{line:?} missing from:\n{rest}"))
    };
    assert!(
        at("kv_namespace.orders: Creation complete after") < at("kv_entry.greeting: Creating...")
    );
    assert!(at("kv_namespace.orders: Creation complete after") < at("kv_entry.limit: Creating..."));
    at("kv_entry.greeting: Creation complete after");
    at("kv_entry.limit: Creation complete after");
    at("Apply complete! Resources: 3 added, 0 changed, 0 destroyed.");
    // Ids are minted in the order the two concurrent creates reach the cloud.
    let output = lines[at("greeting_id = ")];
    assert!(
        output == r#"greeting_id = "entry-00000001""#
            || output == r#"greeting_id = "entry-00000002""#,
        "{output}"
    );
    at("4 micro-state record(s) kept in ");

    assert_eq!(
        lines.last(),
        Some(&"No changes. The live system matches the configuration."),
        "{text}"
    );
}
