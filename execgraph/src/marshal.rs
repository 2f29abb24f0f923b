//! The serialized form of a graph: a compact JSON replay log of builder calls, and its validating reader.
//!
//! The log lists, in order, the constants, the waiters (created empty), the operations, the dependencies
//! added to each waiter, and the final states, so every call refers only to nodes created before it.
//! Reading must never panic and never trust the input: every reference, opcode, operand kind and count is
//! checked before a graph is returned.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::graph::{GraphData, OpNode};
use crate::refs::{MAX_TABLE_LEN, RawRef, Target};
use crate::{Family, Graph, GraphError, OpCode};

/// The format number written by [`Graph::marshal`].
pub(crate) const FORMAT: u64 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Log<V, A, K> {
    format: u64,
    values: Vec<V>,
    addrs: Vec<A>,
    keys: Vec<K>,
    /// One entry per waiter: the dependencies added to it once every operation exists.
    waiters: Vec<Vec<String>>,
    /// One entry per operation: the opcode name followed by the operands.
    ops: Vec<Vec<String>>,
    /// Final states: address and reference.
    sinks: Vec<(A, String)>,
}

fn encode_ref(raw: RawRef) -> String {
    match raw.target() {
        Target::Nil => "nil".to_owned(),
        Target::Value(i) => format!("v{i}"),
        Target::Addr(i) => format!("a{i}"),
        Target::Key(i) => format!("k{i}"),
        Target::Op(i) => format!("r{i}"),
        Target::Waiter(i) => format!("w{i}"),
    }
}

fn decode_ref(text: &str) -> Result<RawRef, GraphError> {
    let malformed = || GraphError::MalformedReference {
        reference: text.chars().take(64).collect(),
    };
    if text == "nil" {
        return Ok(RawRef::NIL);
    }
    let mut chars = text.chars();
    let tag = chars.next().ok_or_else(malformed)?;
    let digits = chars.as_str();
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return Err(malformed());
    }
    let index: u32 = digits.parse().map_err(|_| malformed())?;
    if index as usize >= MAX_TABLE_LEN {
        return Err(malformed());
    }
    let target = match tag {
        'v' => Target::Value(index),
        'a' => Target::Addr(index),
        'k' => Target::Key(index),
        'r' => Target::Op(index),
        'w' => Target::Waiter(index),
        _ => return Err(malformed()),
    };
    Ok(RawRef::new(target))
}

impl<F: Family> Graph<F> {
    /// The graph as compact bytes (a JSON replay log of builder calls) that [`Graph::unmarshal`] reads back
    /// into a graph with the same debug text.
    pub fn marshal(&self) -> Vec<u8> {
        let data = &*self.data;
        let log = Log {
            format: FORMAT,
            values: data.values.iter().map(|v| &**v).collect(),
            addrs: data.addrs.iter().map(|a| &**a).collect(),
            keys: data.keys.iter().map(|k| &**k).collect(),
            waiters: data
                .waiters
                .iter()
                .map(|deps| deps.iter().map(|d| encode_ref(*d)).collect())
                .collect(),
            ops: (0..data.ops.len())
                .map(|i| {
                    let mut entry = Vec::with_capacity(5);
                    entry.push(data.ops[i].code.name().to_owned());
                    entry.extend(data.op_operands(i).iter().map(|raw| encode_ref(*raw)));
                    entry
                })
                .collect(),
            sinks: data
                .sinks
                .iter()
                .map(|(addr, raw)| (&**addr, encode_ref(*raw)))
                .collect(),
        };
        // Serializing plain vectors and strings only fails if a constant's own Serialize impl does, which
        // would be a bug in the type family; an empty log then fails to unmarshal instead of panicking here.
        serde_json::to_vec(&log).unwrap_or_default()
    }

    /// Reads bytes written by [`Graph::marshal`]. Everything is checked: the encoding, the format number,
    /// opcodes, operand counts, that every reference names an existing node and never a later operation,
    /// that every operand fits its opcode's signature, that final states are unique and refer to objects,
    /// and that there is no cycle. Bad input is an error, never a panic.
    pub fn unmarshal(bytes: &[u8]) -> Result<Graph<F>, GraphError> {
        #[derive(Deserialize)]
        struct Header {
            format: u64,
        }
        let header: Header =
            serde_json::from_slice(bytes).map_err(|e| GraphError::MalformedEncoding {
                reason: e.to_string(),
            })?;
        if header.format != FORMAT {
            return Err(GraphError::UnsupportedFormat {
                format: header.format,
            });
        }
        let log: Log<F::Value, F::Addr, F::DeposedKey> =
            serde_json::from_slice(bytes).map_err(|e| GraphError::MalformedEncoding {
                reason: e.to_string(),
            })?;
        for (table, len) in [
            ("values", log.values.len()),
            ("addresses", log.addrs.len()),
            ("deposed keys", log.keys.len()),
            ("waiters", log.waiters.len()),
            ("operations", log.ops.len()),
        ] {
            if len >= MAX_TABLE_LEN {
                return Err(GraphError::TooLarge { table });
            }
        }
        let mut ops = Vec::with_capacity(log.ops.len());
        let mut operands = Vec::new();
        for (i, entry) in log.ops.iter().enumerate() {
            let Some((name, args)) = entry.split_first() else {
                return Err(GraphError::UnknownOpcode {
                    name: String::new(),
                });
            };
            let code = OpCode::from_name(name).ok_or_else(|| GraphError::UnknownOpcode {
                name: name.chars().take(64).collect(),
            })?;
            let arity = code.operands().len();
            if args.len() != arity {
                return Err(GraphError::OperandCount {
                    user: format!("r[{i}] {code}"),
                    expected: arity,
                    found: args.len(),
                });
            }
            if operands.len() >= MAX_TABLE_LEN {
                return Err(GraphError::TooLarge { table: "operands" });
            }
            ops.push(OpNode {
                code,
                start: operands.len() as u32,
            });
            for arg in args {
                operands.push(decode_ref(arg)?);
            }
        }
        let waiters = log
            .waiters
            .iter()
            .map(|deps| {
                deps.iter()
                    .map(|d| decode_ref(d))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut sinks = Vec::with_capacity(log.sinks.len());
        for (addr, reference) in log.sinks {
            let raw = decode_ref(&reference)?;
            sinks.push((Arc::new(addr), raw));
        }
        sinks.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(pair) = sinks.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(GraphError::DuplicateFinalState {
                address: pair[0].0.to_string(),
            });
        }
        let mut data = GraphData::new(
            log.values.into_iter().map(Arc::new).collect(),
            log.addrs.into_iter().map(Arc::new).collect(),
            log.keys.into_iter().map(Arc::new).collect(),
            ops,
            operands,
            waiters,
            sinks,
        );
        data.check_references()?;
        if let Some(problem) = data.check_signatures().into_iter().next() {
            return Err(problem);
        }
        data.check_acyclic()?;
        Ok(Graph::from_data(data))
    }
}
