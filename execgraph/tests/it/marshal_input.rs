//! Reading serialized graphs: bad input is a typed error, never a panic (fuzzed with proptest).

use std::sync::Arc;

use execgraph::GraphError;
use proptest::prelude::*;

use crate::shapes;
use crate::support::{B, G, Recorder};

fn sample() -> Vec<u8> {
    let mut b = B::new();
    let (after_b, handle) = b.mutable_waiter();
    shapes::create(&mut b, "test.a", after_b);
    let none = b.waiter([]);
    let created_b = shapes::create_before_destroy(&mut b, "test.b", "00000001");
    b.add_waiter_dependency(handle, created_b);
    shapes::deposed_orphan(&mut b, "test.c", "00000002");
    shapes::update_moved(&mut b, "test.d", &["test.e"]);
    let _ = none;
    b.finish().unwrap().marshal()
}

fn unmarshal(text: &str) -> Result<G, GraphError> {
    G::unmarshal(text.as_bytes())
}

fn error(text: &str) -> String {
    unmarshal(text)
        .expect_err("the input is refused")
        .to_string()
}

const EMPTY: &str =
    r#"{"format":1,"values":[],"addrs":[],"keys":[],"waiters":[],"ops":[],"sinks":[]}"#;

#[test]
fn an_empty_graph_reads_back() {
    assert_eq!(unmarshal(EMPTY).unwrap().debug_repr(), "");
}

#[test]
fn each_kind_of_bad_input_gets_its_error() {
    let cases = [
        (
            "",
            "the serialized graph does not parse: EOF while parsing a value at line 1 column 0",
        ),
        (
            r#"{"format":2}"#,
            "the serialized graph has format 2, and only format 1 is supported",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["Explode","a0"]],"sinks":[]}"#,
            "unknown operation \"Explode\"",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior"]],"sinks":[]}"#,
            "r[0] ResourceInstancePrior takes 1 operands, found 0",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","a1"]],"sinks":[]}"#,
            "r[0] ResourceInstancePrior refers to a[1], which is not in the graph",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstanceCurrentMeta","a0","r0"]],"sinks":[]}"#,
            "r[0] ResourceInstanceCurrentMeta refers to r[0], which is added after it",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","a01"]],"sinks":[]}"#,
            "\"a01\" is not a node reference",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","nil"]],"sinks":[]}"#,
            "operand 0 (addr) of r[0] ResourceInstancePrior must be a resource instance address, found nil",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","a0"],["ResourceInstanceDesired","r0"]],"sinks":[]}"#,
            "operand 0 (meta) of r[1] ResourceInstanceDesired (a) must be object metadata, found a resource instance object (r[0])",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","a0"]],"sinks":[["a","r0"],["a","r0"]]}"#,
            "resource instance a has two final states",
        ),
        (
            r#"{"format":1,"values":[],"addrs":["a"],"keys":[],"waiters":[],"ops":[["ResourceInstancePrior","a0"]],"sinks":[["a","a0"]]}"#,
            "the final state of a refers to a[0], which is not a resource instance object",
        ),
        (
            r#"{"format":1,"values":[],"addrs":[],"keys":[],"waiters":[["w1"],["w0"]],"ops":[],"sinks":[]}"#,
            "the graph has a dependency cycle: w[0] waiter, w[1] waiter",
        ),
        (
            r#"{"format":1,"values":[],"addrs":[],"keys":[],"waiters":[["r9"]],"ops":[],"sinks":[]}"#,
            "w[0] waiter refers to r[9], which is not in the graph",
        ),
        (
            r#"{"format":1,"values":[],"addrs":[],"keys":[],"waiters":[],"ops":[[]],"sinks":[]}"#,
            "unknown operation \"\"",
        ),
        (
            r#"{"format":1,"values":[],"addrs":[],"keys":[],"waiters":[],"ops":[],"sinks":[],"extra":1}"#,
            "the serialized graph does not parse: unknown field `extra`, expected one of `format`, `values`, `addrs`, `keys`, `waiters`, `ops`, `sinks` at line 1 column 85",
        ),
    ];
    let got: Vec<(&str, String)> = cases
        .iter()
        .map(|(input, _)| (*input, error(input)))
        .collect();
    let want: Vec<(&str, String)> = cases
        .iter()
        .map(|(input, e)| (*input, (*e).to_owned()))
        .collect();
    assert_eq!(got, want);
}

/// Whatever unmarshal accepts is a consistent graph: it renders, round-trips and compiles.
fn accept_or_refuse(bytes: &[u8]) {
    if let Ok(graph) = G::unmarshal(bytes) {
        let text = graph.debug_repr();
        let back = G::unmarshal(&graph.marshal()).expect("a graph read back marshals again");
        assert_eq!(back.debug_repr(), text);
        let _ = graph.to_dot();
        assert!(graph.compile(Arc::new(Recorder::default())).is_ok());
    }
}

/// A mutation of the sample: overwrite, insert or delete bytes, or truncate.
#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    Replace(usize, &'static str),
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Set(at, b) => {
                if let Some(slot) = bytes.get_mut(at % len) {
                    *slot = *b;
                }
            }
            Mutation::Insert(at, b) => bytes.insert(at % (bytes.len() + 1), *b),
            Mutation::Delete(at) => {
                if !bytes.is_empty() {
                    bytes.remove(at % len);
                }
            }
            Mutation::Truncate(at) => bytes.truncate(at % len),
            Mutation::Replace(at, token) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, token.bytes());
            }
        }
    }
    bytes
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tokens = prop::sample::select(vec![
        "\"r0\"",
        "\"r99\"",
        "\"w0\"",
        "\"v0\"",
        "\"k0\"",
        "\"a0\"",
        "\"nil\"",
        ",",
        "]",
        "[",
        "{",
        "}",
        "\"ManagedApply\"",
        "\"ManagedPrepareDepose\"",
        "0",
        "4294967295",
        "\"r536870911\"",
        "null",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Insert(at, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), tokens).prop_map(|(at, t)| Mutation::Replace(at, t)),
    ]
}

/// Structurally plausible logs: known and unknown opcodes, references in and out of range.
fn plausible_log() -> impl Strategy<Value = Vec<u8>> {
    let reference = prop_oneof![
        Just("nil".to_owned()),
        (
            prop::sample::select(vec!['v', 'a', 'k', 'r', 'w', 'x']),
            0u32..6
        )
            .prop_map(|(t, i)| format!("{t}{i}")),
    ];
    let name = prop_oneof![
        prop::sample::select(execgraph::OpCode::ALL.to_vec()).prop_map(|op| op.name().to_owned()),
        Just("Nope".to_owned()),
    ];
    let op = (name, prop::collection::vec(reference.clone(), 0..5))
        .prop_map(|(name, args)| std::iter::once(name).chain(args).collect::<Vec<_>>());
    let ops = prop::collection::vec(op, 0..8);
    let waiters = prop::collection::vec(prop::collection::vec(reference.clone(), 0..3), 0..3);
    let sinks = prop::collection::vec((prop::sample::select(vec!["a", "b"]), reference), 0..3);
    (0usize..3, 0usize..3, 0usize..3, waiters, ops, sinks).prop_map(|(values, addrs, keys, waiters, ops, sinks)| {
        let log = serde_json::json!({
            "format": 1,
            "values": (0..values).map(|i| serde_json::json!({"Str": format!("s{i}")})).collect::<Vec<_>>(),
            "addrs": (0..addrs).map(|i| ["a", "b", "c"][i]).collect::<Vec<_>>(),
            "keys": (0..keys).map(|i| format!("0000000{i}")).collect::<Vec<_>>(),
            "waiters": waiters,
            "ops": ops,
            "sinks": sinks,
        });
        serde_json::to_vec(&log).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn unmarshal_never_panics(input in prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::collection::vec(mutation(), 1..6).prop_map(|ms| apply(sample(), &ms)),
        plausible_log(),
    ]) {
        accept_or_refuse(&input);
    }
}

#[test]
fn the_sample_reads_back_unchanged() {
    let bytes = sample();
    let graph = G::unmarshal(&bytes).unwrap();
    assert_eq!(graph.marshal(), bytes);
}
