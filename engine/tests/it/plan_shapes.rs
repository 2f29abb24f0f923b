//! Golden plan text and JSON for the planner's shapes on the simulated cloud, each with its execution graph.

use expect_test::{Expect, expect};

use crate::support::{World, json, text};

/// Plans `config` against `live` and compares the text, the JSON and the graph's debug text.
async fn check(
    live: &str,
    config: &str,
    expected_text: Expect,
    expected_json: Expect,
    expected_graph: Expect,
) {
    let world = World::new(live);
    let plan = world.plan(config).await;
    expected_text.assert_eq(&text(&plan));
    expected_json.assert_eq(&json(&plan));
    let graph = engine::graph::build(&plan).expect("the graph is acyclic");
    expected_graph.assert_eq(&graph.debug_repr());
    // Rendering is deterministic: a second plan of the same inputs gives the same bytes.
    let again = world.plan(config).await;
    assert_eq!(text(&again), text(&plan));
}

#[tokio::test]
async fn network_converged() {
    check(
        include_str!("../../../fixtures/cases/network-converged/live.json"),
        include_str!("../../../fixtures/cases/network-converged/main.tf"),
        expect![[r#"
            Foreign objects (not managed; never changed):
              aws_vpc vpc-00000009 (Name=legacy-default)

            No changes. The live system matches the configuration.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 10,
                "api_calls_by_operation": {
                  "ec2:DescribeAddresses": 1,
                  "ec2:DescribeInternetGateways": 1,
                  "ec2:DescribeRouteTables": 4,
                  "ec2:DescribeSecurityGroups": 1,
                  "ec2:DescribeSubnets": 1,
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme-net",
              "foreign": [
                {
                  "id": "vpc-00000009",
                  "tags": {
                    "Name": "legacy-default"
                  },
                  "type": "aws_vpc"
                }
              ],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [],
              "summary": {
                "add": 0,
                "change": 0,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[""]],
    )
    .await;
}
