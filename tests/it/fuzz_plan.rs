//! Property tests of whole plans on the simulated cloud: random and mutated configurations over random
//! live sets go through parse, lint, discovery and diff without a panic, and a plan never proposes to
//! change or delete what the estate does not own. The suite runs 10,000 cases of each (a whole plan costs a
//! few milliseconds in a debug build); a longer run is `PROPTEST_CASES=100000 cargo test -p liveplan --test it
//! fuzz_plan`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use liveplan::render::{self, RenderOptions};
use liveplan::{
    Action, Engine, MemoryStore, RetryConfig, SimCloud, SimConfig, SourceFile, Sources, Store,
    VariableInputs,
};
use proptest::prelude::*;
use serde_json::{Value as Json, json};

use crate::fuzz_inputs::{config, runtime};

const ESTATE: &str = "acme";

/// Plans `main_tf` over the snapshot `live` with an empty record store; `None` when the snapshot or
/// the engine refused to run (a typed error, which is fine: the property is the absence of a panic).
fn plan(main_tf: &str, live: &Json) -> Option<liveplan::Plan> {
    let cloud = SimCloud::from_json(&live.to_string(), SimConfig::default()).ok()?;
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let files = [SourceFile::new("main.tf", main_tf)];
    let inputs = VariableInputs::default();
    let engine = Engine::new(Arc::new(cloud), store).with_retry(RetryConfig::immediate(2));
    runtime()
        .block_on(engine.plan(Sources::new(&files, &inputs)))
        .ok()
}

/// Blocks a random configuration is made of (`{i}` is replaced by a small number).
const BLOCKS: &[&str] = &[
    "resource \"aws_vpc\" \"v{i}\" {\n  cidr_block = \"10.{i}.0.0/16\"\n}\n",
    "resource \"aws_subnet\" \"s{i}\" {\n  vpc_id     = aws_vpc.v{i}.id\n  cidr_block = \"10.{i}.1.0/24\"\n}\n",
    "resource \"aws_s3_bucket\" \"b{i}\" {\n  bucket = \"bkt-{i}\"\n  tags   = { Team = \"t{i}\" }\n}\n",
    "resource \"aws_s3_bucket\" \"c\" {\n  count  = {i}\n  bucket = \"cnt-${count.index}\"\n}\n",
    "resource \"aws_iam_role\" \"r{i}\" {\n  name               = \"role-{i}\"\n  assume_role_policy = jsonencode({ V = {i} })\n}\n",
    "resource \"aws_eip\" \"e\" {\n  count = {i}\n}\n",
    "resource \"random_id\" \"x{i}\" {\n  byte_length = {i}\n}\n",
    "resource \"aws_s3_bucket\" \"f\" {\n  for_each = toset([\"a\", \"b{i}\"])\n  bucket   = \"fe-${each.key}\"\n}\n",
    "variable \"n{i}\" {\n  type    = number\n  default = {i}\n}\n",
    "locals {\n  l{i} = var.n{i} * 2\n}\n",
    "output \"o{i}\" {\n  value = aws_vpc.v{i}.id\n}\n",
    "resource \"aws_route_table\" \"t{i}\" {\n  vpc_id = aws_vpc.v{i}.id\n}\n",
    "resource \"aws_route\" \"r{i}\" {\n  route_table_id         = aws_route_table.t{i}.id\n  destination_cidr_block = \"0.0.0.0/0\"\n}\n",
    "resource \"aws_eip_association\" \"a{i}\" {\n}\n",
    "module \"m{i}\" {\n  source = \"./m\"\n}\n",
];

/// A configuration: the live block, some blocks, then byte edits (which may break the HCL).
fn configuration() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((prop::sample::select(BLOCKS), 0u8..4), 0..6),
        prop::collection::vec((any::<prop::sample::Index>(), any::<char>(), 0u8..4), 0..3),
    )
        .prop_map(|(blocks, edits)| {
            let mut text = format!("live {{\n  estate = \"{ESTATE}\"\n}}\n");
            for (block, i) in blocks {
                text.push_str(&block.replace("{i}", &i.to_string()));
            }
            let mut chars: Vec<char> = text.chars().collect();
            for (at, c, op) in edits {
                let i = at.index(chars.len());
                match op {
                    0 => chars[i] = c,
                    1 => chars.insert(i, c),
                    2 => {
                        chars.remove(i);
                    }
                    // Usually no edit: most cases stay valid HCL and reach discovery and the diff.
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

/// Who a generated live object belongs to, by its tags.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Owner {
    /// This estate, with the address of instance `i` of the block.
    Ours(u8),
    /// No tags of ours (hand-made).
    Foreign,
    /// Another estate, with an address of the block.
    OtherEstate(u8),
    /// Our estate tag with a broken continuation chain.
    Gapped(u8),
    /// Our estate tag with an address of another type.
    OtherType(u8),
    /// Our estate tag and no address at all.
    EstateOnly,
}

fn owner() -> impl Strategy<Value = Owner> {
    prop_oneof![
        3 => (0u8..4).prop_map(Owner::Ours),
        1 => Just(Owner::Foreign),
        1 => (0u8..4).prop_map(Owner::OtherEstate),
        1 => (0u8..4).prop_map(Owner::Gapped),
        1 => (0u8..4).prop_map(Owner::OtherType),
        1 => Just(Owner::EstateOnly),
    ]
}

fn tags(owner: Owner, block: &str) -> Json {
    match owner {
        Owner::Ours(i) => json!({ "tofu-estate": ESTATE, "tofu-address": format!("{block}{i}") }),
        Owner::Foreign => json!({ "Name": "hand-made" }),
        Owner::OtherEstate(i) => {
            json!({ "tofu-estate": "billing", "tofu-address": format!("{block}{i}") })
        }
        Owner::Gapped(i) => json!({
            "tofu-estate": ESTATE, "tofu-address": format!("{block}{i}"), "tofu-address-3": "tail"
        }),
        Owner::OtherType(i) => {
            json!({ "tofu-estate": ESTATE, "tofu-address": format!("aws_subnet.s{i}") })
        }
        Owner::EstateOnly => json!({ "tofu-estate": ESTATE }),
    }
}

fn is_ours(owner: Owner) -> bool {
    matches!(owner, Owner::Ours(_))
}

proptest! {
    #![proptest_config(config(10_000))]

    /// Random and broken configurations over a small random live set: parse, lint, discovery and the
    /// diff end in a plan (or a typed error), whose text and JSON render; never a panic.
    #[test]
    fn fuzz_plan_random_configurations_never_panic(
        text in configuration(),
        vpcs in prop::collection::vec(owner(), 0..3),
        buckets in prop::collection::vec(owner(), 0..3),
    ) {
        let mut resources = Vec::new();
        for (n, o) in vpcs.iter().enumerate() {
            resources.push(json!({ "type": "aws_vpc", "id": format!("vpc-{:08x}", n + 1),
                "attributes": { "cidr_block": format!("10.{n}.0.0/16") }, "tags": tags(*o, "aws_vpc.v") }));
        }
        for (n, o) in buckets.iter().enumerate() {
            resources.push(json!({ "type": "aws_s3_bucket", "id": format!("bkt-{n}"),
                "attributes": { "bucket": format!("bkt-{n}") }, "tags": tags(*o, "aws_s3_bucket.b") }));
        }
        if let Some(plan) = plan(&text, &json!({ "resources": resources })) {
            let shown = render::text(&plan, RenderOptions::default());
            prop_assert!(!shown.is_empty());
            let doc: Json = serde_json::from_str(&render::json(&plan, RenderOptions::default()))
                .expect("the plan JSON is JSON");
            prop_assert_eq!(doc["applicable"].as_bool(), Some(plan.applicable()));
        }
    }

    /// Over random live sets and configurations, a foreign, malformed or other-estate object is never
    /// planned for update, replace or delete; and an owned object that is no longer declared is deleted
    /// only when no rename hint holds for it (a declared instance of its type still waiting for an
    /// object is a plausible rename).
    #[test]
    fn fuzz_plan_never_changes_what_the_estate_does_not_own(
        vpcs in prop::collection::vec(owner(), 0..6),
        buckets in prop::collection::vec(owner(), 0..4),
        declared_vpcs in prop::collection::btree_set(0u8..4, 0..4),
        declared_buckets in prop::collection::btree_set(0u8..4, 0..4),
    ) {
        let mut resources = Vec::new();
        let mut protected = BTreeSet::new();
        let mut ours: BTreeMap<String, Owner> = BTreeMap::new();
        for (n, o) in vpcs.iter().enumerate() {
            let id = format!("vpc-{:08x}", n + 1);
            resources.push(json!({ "type": "aws_vpc", "id": id,
                "attributes": { "cidr_block": "10.0.0.0/16" }, "tags": tags(*o, "aws_vpc.v") }));
            if is_ours(*o) {
                ours.insert(id, *o);
            } else {
                protected.insert(id);
            }
        }
        for (n, o) in buckets.iter().enumerate() {
            let id = format!("bkt-{n}");
            resources.push(json!({ "type": "aws_s3_bucket", "id": id,
                "attributes": { "bucket": id }, "tags": tags(*o, "aws_s3_bucket.b") }));
            // At a declared identity, our estate tag alone binds the bucket (its address is repaired).
            let bound_by_identity = *o == Owner::EstateOnly && declared_buckets.contains(&(n as u8));
            if !is_ours(*o) && !bound_by_identity {
                protected.insert(id);
            }
        }
        let mut text = format!("live {{\n  estate = \"{ESTATE}\"\n}}\n");
        for i in &declared_vpcs {
            text.push_str(&format!("resource \"aws_vpc\" \"v{i}\" {{\n  cidr_block = \"10.0.0.0/16\"\n}}\n"));
        }
        for i in &declared_buckets {
            text.push_str(&format!("resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"bkt-{i}\"\n}}\n"));
        }
        let plan = plan(&text, &json!({ "resources": resources })).expect("the plan runs");

        let touched: Vec<&liveplan::ResourceChange> = plan
            .changes
            .iter()
            .filter(|c| matches!(c.action, Action::Update | Action::Delete | Action::Replace))
            .collect();
        for change in &touched {
            let id = change.id.as_deref().unwrap_or("");
            prop_assert!(!protected.contains(id), "{} {} would touch {}", change.action.as_str(), change.address, id);
        }
        for o in &plan.owned_undeclared {
            prop_assert!(!protected.contains(&o.id), "{} is offered for deletion", o.id);
        }
        let hinted: BTreeSet<&str> = plan.rename_hints.iter().map(|h| h.id.as_str()).collect();
        let deleted: BTreeSet<&str> = touched
            .iter()
            .filter(|c| c.action == Action::Delete)
            .filter_map(|c| c.id.as_deref())
            .collect();
        prop_assert!(hinted.is_disjoint(&deleted), "hinted {hinted:?} deleted {deleted:?}");

        // A declared VPC no live object of ours claims is waiting for an object: every owned VPC left
        // without a declared address is then a plausible rename, withheld rather than deleted.
        let claimed: BTreeSet<u8> = vpcs
            .iter()
            .filter_map(|o| match o {
                Owner::Ours(i) | Owner::Gapped(i) => Some(*i),
                _ => None,
            })
            .collect();
        let waiting = declared_vpcs.iter().any(|d| !claimed.contains(d));
        for id in &deleted {
            if let Some(Owner::Ours(i)) = ours.get(*id) {
                prop_assert!(!declared_vpcs.contains(i), "{id} is declared yet deleted");
                prop_assert!(!waiting, "{id} is deleted while a declared VPC waits for an object: {:?}", plan.rename_hints);
            }
        }
    }
}
