//! The dependency-cycle rule over generated configurations: references that only point back to earlier
//! blocks never make a cycle, and one reference pointing forward makes exactly the cycle a reachability
//! search predicts, naming every block on it and no other.

use std::collections::BTreeSet;

use admission::Code;
use admission::VariableInputs;
use proptest::prelude::*;

/// `n` VPC blocks `b0..`, block `i` reading the ids of the blocks in `reads[i]` through its tags.
fn config(reads: &[BTreeSet<usize>]) -> String {
    let mut out = String::from("live {\n  estate = \"acme\"\n}\n");
    for (i, targets) in reads.iter().enumerate() {
        let tags: Vec<String> = targets
            .iter()
            .map(|t| format!("R{t} = aws_vpc.b{t}.id"))
            .collect();
        out.push_str(&format!(
            "resource \"aws_vpc\" \"b{i}\" {{\n  cidr_block = \"10.{i}.0.0/16\"\n  tags = {{ {} }}\n}}\n",
            tags.join(", ")
        ));
    }
    out
}

/// The summaries of the dependency-cycle diagnostics of `main`.
fn cycles(main: &str) -> Vec<String> {
    crate::lint_main(main, &VariableInputs::default())
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::DependencyCycle)
        .map(|d| d.summary.clone())
        .collect()
}

/// The blocks reachable from `from` along `reads` (itself included).
fn reachable(reads: &[BTreeSet<usize>], from: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::from([from]);
    let mut todo = vec![from];
    while let Some(b) = todo.pop() {
        for &t in &reads[b] {
            if seen.insert(t) {
                todo.push(t);
            }
        }
    }
    seen
}

/// Blocks `0..n`, each reading some earlier blocks.
fn backward_reads() -> impl Strategy<Value = Vec<BTreeSet<usize>>> {
    (2usize..9).prop_flat_map(|n| {
        (0..n)
            .map(|i| proptest::collection::btree_set(0..i.max(1), 0..=i.min(3)))
            .collect::<Vec<_>>()
            .prop_map(|mut reads| {
                // Block 0 may have drawn itself from `0..1`: earlier blocks only.
                reads[0].clear();
                reads
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lint_cycles_reads_of_earlier_blocks_never_make_a_cycle(reads in backward_reads()) {
        prop_assert_eq!(cycles(&config(&reads)), Vec::<String>::new());
    }

    #[test]
    fn lint_cycles_one_forward_read_makes_exactly_the_predicted_cycle(
        reads in backward_reads(),
        pick in any::<(prop::sample::Index, prop::sample::Index)>(),
    ) {
        let n = reads.len();
        let (from, to) = (pick.0.index(n), pick.1.index(n));
        prop_assume!(from <= to);
        let mut with_loop = reads.clone();
        with_loop[from].insert(to);
        let found = cycles(&config(&with_loop));
        // The cycle is every block `to` reaches that also reaches `from` (with `from` reading `to`).
        let members: BTreeSet<usize> = reachable(&reads, to)
            .into_iter()
            .filter(|&b| reachable(&reads, b).contains(&from))
            .collect();
        if from == to {
            prop_assert_eq!(found, vec![format!("`aws_vpc.b{from}` refers to itself")]);
        } else if members.is_empty() {
            prop_assert_eq!(found, Vec::<String>::new());
        } else {
            prop_assert_eq!(found.len(), 1, "{:?}", found);
            let named: BTreeSet<usize> = found[0]
                .split('`')
                .filter_map(|part| part.strip_prefix("aws_vpc.b"))
                .map(|i| i.parse().unwrap())
                .collect();
            prop_assert_eq!(named, members);
        }
    }
}
