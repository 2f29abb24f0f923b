//! The dependency-cycle rule: resource blocks that wait on themselves.
//!
//! A block waits for every block its arguments read (directly or through locals) and every block its
//! `depends_on` names, so blocks that read each other in a ring, or a block that reads itself, can never
//! be created: none of them can go first. As in Terraform, that is an error of the configuration, found
//! here before anything is read, rather than an apply that stops on an unknown value. `count` and
//! `for_each` are left out: reading a resource there is already refused as not static.
//!
//! The rule works on blocks, not instances (Terraform's graph is per resource too): `aws_subnet.s[1]`
//! reading `aws_subnet.s[0]` is a block that reads itself. It must never report a block that is merely
//! read by a block of a cycle without being part of it.

use std::collections::{BTreeSet, HashMap};

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::config::{BlockLabels, Config, Loc, Resource};
use crate::diag::{Code, Diagnostic};

/// One diagnostic per cycle: a block that reads itself, or each group of blocks that read each other.
pub fn cycles(config: &Config) -> Vec<Diagnostic> {
    // Node weights are indices into `config.resources`; edge weights are where the reference is written.
    let mut graph: DiGraph<usize, Loc> = DiGraph::new();
    let mut node_of: HashMap<BlockLabels<'_>, NodeIndex> = HashMap::new();
    for (i, res) in config.resources().iter().enumerate() {
        let node = graph.add_node(i);
        node_of.entry(res.address()).or_insert(node);
    }
    for node in graph.node_indices() {
        let res = &config.resources()[graph[node]];
        for (target, loc) in waits_for(config, res) {
            if let Some(&to) = node_of.get(&target)
                && graph.find_edge(node, to).is_none()
            {
                graph.add_edge(node, to, loc);
            }
        }
    }
    let mut diags = Vec::new();
    for mut group in kosaraju_scc(&graph) {
        group.sort_by_key(|&n| graph[n]);
        let first = group[0];
        let res = &config.resources()[graph[first]];
        if let [only] = group[..] {
            if let Some(edge) = graph.find_edge(only, only) {
                diags.push(
                    Diagnostic::new(
                        Code::DependencyCycle,
                        format!("`{}` refers to itself", res.address()),
                        "a resource cannot wait for itself or read its own attributes (not even of \
                         another of its instances): use a literal, a variable or a local that does not \
                         read it",
                    )
                    .with_address(res.address().to_string())
                    .at(graph[edge].to_pos()),
                );
            }
            continue;
        }
        let names: Vec<String> = group
            .iter()
            .map(|&n| format!("`{}`", config.resources()[graph[n]].address()))
            .collect();
        let listed = match names.split_last() {
            Some((last, [one])) => format!("{one} and {last}"),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        // Where the first block (in file order) reads the next member of the cycle.
        let members: BTreeSet<NodeIndex> = group.iter().copied().collect();
        let pos = graph
            .edges(first)
            .filter(|e| members.contains(&petgraph::visit::EdgeRef::target(e)))
            .min_by_key(|e| graph[petgraph::visit::EdgeRef::target(e)])
            .map(|e| e.weight().to_pos())
            .unwrap_or_else(|| res.loc.to_pos());
        diags.push(
            Diagnostic::new(
                Code::DependencyCycle,
                format!("dependency cycle between {listed}"),
                "each of these resources reads another of them (through its arguments, locals or \
                 `depends_on`), so none can be created first: remove one of the references that close \
                 the cycle",
            )
            .with_address(res.address().to_string())
            .at(pos),
        );
    }
    diags
}

/// The blocks `res` waits for, each with where the first reference to it is written: its arguments'
/// references (a reference through a local counts where the block names the local) and `depends_on`.
fn waits_for<'c>(config: &'c Config, res: &'c Resource) -> Vec<(BlockLabels<'c>, Loc)> {
    let mut out = Vec::new();
    for attr in res.attrs.values() {
        for (path, loc) in attr.expr.references() {
            let mut seen = BTreeSet::new();
            config.reference_blocks(&path, &mut seen, &mut |block| {
                out.push((block.address(), loc.clone()));
            });
        }
    }
    for (path, loc) in &res.depends_on {
        if let (Some(t), Some(n)) = (path.first(), path.get(1)) {
            out.push((BlockLabels::new(t, n), loc.clone()));
        }
    }
    out
}
