//! Reading serialized graphs: bad input is a typed error, never a panic (fuzzed with proptest).

use std::sync::Arc;
use std::time::Duration;

use execgraph::{ExecuteConfig, GraphError, Kind, OpCode};
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

/// Whatever unmarshal accepts is a consistent graph: it renders, round-trips, compiles and executes to the
/// end (every operation the double is asked for fails or succeeds; nothing panics, nothing hangs).
fn accept_or_refuse(bytes: &[u8]) -> Result<(), TestCaseError> {
    let Ok(graph) = G::unmarshal(bytes) else {
        return Ok(());
    };
    let text = graph.debug_repr();
    let back = G::unmarshal(&graph.marshal()).expect("a graph read back marshals again");
    prop_assert_eq!(back.debug_repr(), text);
    let _ = graph.to_dot();
    let compiled = graph.compile(Arc::new(Recorder::default()));
    prop_assert!(compiled.is_ok(), "an unmarshalled graph compiles");
    if let Ok(compiled) = compiled {
        let run = async {
            tokio::time::timeout(
                Duration::from_secs(5),
                compiled.execute(ExecuteConfig::default()),
            )
            .await
        };
        prop_assert!(
            RUNTIME.with(|rt| rt.block_on(run)).is_ok(),
            "execution ends"
        );
    }
    Ok(())
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime =
        tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a runtime");
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

/// Logs built the way a builder would, mostly well typed, with an occasional wrong or missing operand: most
/// are accepted, so the checks after unmarshal (compile, execute) see many real graphs.
fn typed_log() -> impl Strategy<Value = Vec<u8>> {
    let op = (0..OpCode::ALL.len(), any::<[u32; 4]>(), 0u8..64);
    let waiter = prop::collection::vec(any::<u32>(), 0..4);
    let sink = (0usize..3, any::<u32>());
    (
        prop::collection::vec(op, 0..14),
        prop::collection::vec(waiter, 0..4),
        prop::collection::vec(sink, 0..3),
        0u8..8,
    )
        .prop_map(|(ops, waiters, sinks, wild)| {
            let constants: Vec<(Kind, String)> = vec![
                (Kind::Value, "v0".into()),
                (Kind::Addr, "a0".into()),
                (Kind::Addr, "a1".into()),
                (Kind::DeposedKey, "k0".into()),
            ];
            let mut by_kind = constants.clone();
            by_kind.extend((0..waiters.len()).map(|j| (Kind::Completion, format!("w{j}"))));
            let mut entries: Vec<Vec<String>> = Vec::new();
            let mut results: Vec<(Kind, String)> = Vec::new();
            for (code, picks, corrupt) in ops {
                let code = OpCode::ALL[code];
                let mut entry = vec![code.name().to_owned()];
                for (slot, pick) in code.operands().iter().zip(picks) {
                    let mut candidates: Vec<String> = by_kind
                        .iter()
                        .filter(|(kind, _)| slot.kind.is_none_or(|k| k == *kind))
                        .map(|(_, r)| r.clone())
                        .collect();
                    if slot.nilable {
                        candidates.push("nil".into());
                    }
                    entry.push(
                        candidates
                            .get(pick as usize % candidates.len().max(1))
                            .cloned()
                            .unwrap_or_default(),
                    );
                }
                if entry.iter().any(String::is_empty) {
                    // No operand of the required kind exists yet: a builder could not make this call.
                    continue;
                }
                match corrupt {
                    0 => entry[1] = format!("r{}", picks[0] % 16),
                    1 => {
                        entry.pop();
                    }
                    2 => entry[1] = "nil".into(),
                    _ => {}
                }
                let reference = format!("r{}", entries.len());
                entries.push(entry);
                by_kind.push((code.result(), reference.clone()));
                results.push((code.result(), reference));
            }
            // A waiter waits only for operations added before its first user (or for anything, now and
            // then), so most graphs are acyclic and some are not.
            let waiters: Vec<Vec<String>> = waiters
                .iter()
                .enumerate()
                .map(|(j, deps)| {
                    let name = format!("w{j}");
                    let first_user = entries
                        .iter()
                        .position(|e| e.contains(&name))
                        .unwrap_or(entries.len());
                    let mut candidates: Vec<String> =
                        constants.iter().map(|(_, r)| r.clone()).collect();
                    if wild == 0 {
                        candidates.extend(by_kind.iter().map(|(_, r)| r.clone()));
                    } else {
                        candidates.extend(results[..first_user].iter().map(|(_, r)| r.clone()));
                    }
                    deps.iter()
                        .map(|pick| candidates[*pick as usize % candidates.len()].clone())
                        .collect()
                })
                .collect();
            let objects: Vec<String> = results
                .iter()
                .filter(|(k, _)| *k == Kind::Object)
                .map(|(_, r)| r.clone())
                .collect();
            let mut sinks: Vec<(String, String)> = sinks
                .iter()
                .map(|(addr, pick)| {
                    let reference = if objects.is_empty() {
                        "nil".to_owned()
                    } else {
                        objects[*pick as usize % objects.len()].clone()
                    };
                    (["a", "b", "c"][*addr].to_owned(), reference)
                })
                .collect();
            if wild != 1 {
                sinks.sort();
                sinks.dedup_by(|x, y| x.0 == y.0);
            }
            let log = serde_json::json!({
                "format": 1,
                "values": [{"Str": "s"}],
                "addrs": ["test.a", "test.b"],
                "keys": ["00000001"],
                "waiters": waiters,
                "ops": entries,
                "sinks": sinks,
            });
            serde_json::to_vec(&log).unwrap()
        })
}

#[test]
fn most_typed_logs_are_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = typed_log();
    let accepted = (0..1000)
        .filter(|_| {
            G::unmarshal(&strategy.new_tree(&mut runner).unwrap().current())
                .is_ok_and(|g| g.operation_count() > 3)
        })
        .count();
    assert!(
        accepted > 300,
        "only {accepted} of 1000 typed logs with operations were accepted"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn unmarshal_never_panics(input in prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::collection::vec(mutation(), 1..6).prop_map(|ms| apply(sample(), &ms)),
        plausible_log(),
        typed_log(),
    ]) {
        accept_or_refuse(&input)?;
    }
}

#[test]
fn the_sample_reads_back_unchanged() {
    let bytes = sample();
    let graph = G::unmarshal(&bytes).unwrap();
    assert_eq!(graph.marshal(), bytes);
}
