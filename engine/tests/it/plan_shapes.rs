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
    // A marshalled graph unmarshals to the same graph (unknown planned values included).
    let back = engine::graph::EngineGraph::unmarshal(&graph.marshal()).expect("it unmarshals");
    assert_eq!(back.debug_repr(), graph.debug_repr());
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
                "api_calls": 7,
                "api_calls_by_operation": {
                  "ec2:DescribeAddresses": 1,
                  "ec2:DescribeInternetGateways": 1,
                  "ec2:DescribeRouteTables": 1,
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

const VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;

#[tokio::test]
async fn create_with_markers() {
    check(r#"{"resources": []}"#, VPC, expect![[r#"
        liveplan will perform the following actions:

          # aws_vpc.main will be created
          + resource "aws_vpc" "main" {
              + arn                  = (known after apply)
              + cidr_block           = "10.0.0.0/16"
              + enable_dns_hostnames = false
              + enable_dns_support   = true
              + id                   = (known after apply)
              + tags                 = { tofu-address = "aws_vpc.main", tofu-estate = "acme" }
            }

        Plan: 1 to add, 0 to change, 0 to destroy.
    "#]], expect![[r#"
        {
          "applicable": true,
          "bind_candidates": [],
          "cost": {
            "api_calls": 2,
            "api_calls_by_operation": {
              "ec2:DescribeVpcs": 1,
              "tagging:GetResources": 1
            },
            "store_trips": 1
          },
          "diagnostics": [],
          "estate": "acme",
          "foreign": [],
          "format_version": "1",
          "owned_undeclared": [],
          "rename_hints": [],
          "resource_changes": [
            {
              "action": "create",
              "address": "aws_vpc.main",
              "admission": "marker",
              "after": {
                "cidr_block": "10.0.0.0/16",
                "enable_dns_hostnames": false,
                "enable_dns_support": true,
                "tags": {
                  "tofu-address": "aws_vpc.main",
                  "tofu-estate": "acme"
                }
              },
              "after_unknown": [
                "arn",
                "id"
              ],
              "before": null,
              "id": null,
              "reason": null,
              "type": "aws_vpc"
            }
          ],
          "summary": {
            "add": 1,
            "change": 0,
            "destroy": 0
          },
          "unowned": []
        }
    "#]], expect![[r#"
        v[0] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

        r[0] = ResourceInstanceCurrentMeta(aws_vpc.main, nil);
        r[1] = ResourceInstanceDesired(r[0]);
        r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
        r[3] = ManagedApply(r[2], nil, await());

        aws_vpc.main = r[3];
    "#]]).await;
}

#[tokio::test]
async fn drift_is_one_update_in_place() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16", "enable_dns_support": false },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "Owner": "ops" } }
        ]}"#,
        VPC,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_vpc.main will be updated in place
              ~ resource "aws_vpc" "main" {
                  ~ enable_dns_support   = false -> true
                    id                   = "vpc-00000001"
                    # (4 unchanged attributes hidden)
                }

            Plan: 0 to add, 1 to change, 0 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 2,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "update",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "Owner": "ops",
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": false,
                    "id": "vpc-00000001",
                    "tags": {
                      "Owner": "ops",
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "vpc-00000001",
                  "reason": null,
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 0,
                "change": 1,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001", cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = "vpc-00000001", tags = { Owner = "ops", tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstancePrior(aws_vpc.main);
            r[1] = ResourceInstanceCurrentMeta(aws_vpc.main, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], r[0], v[0]);
            r[4] = ManagedApply(r[3], nil, await());

            aws_vpc.main = r[4];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn force_new_change_replaces_destroy_first() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.9.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } }
        ]}"#,
        VPC,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_vpc.main must be replaced
              # (cidr_block forces replacement)
            -/+ resource "aws_vpc" "main" {
                  ~ arn                  = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001" -> (known after apply)
                  ~ cidr_block           = "10.9.0.0/16" -> "10.0.0.0/16" # forces replacement
                  ~ id                   = "vpc-00000001" -> (known after apply)
                    # (3 unchanged attributes hidden)
                }

            Plan: 1 to add, 0 to change, 1 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 2,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "replace",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.9.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "vpc-00000001",
                  "reason": "cidr_block forces replacement",
                  "replace_order": "destroy-before-create",
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 1,
                "change": 0,
                "destroy": 1
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstancePrior(aws_vpc.main);
            r[1] = ResourceInstanceCurrentMeta(aws_vpc.main, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], nil, v[0]);
            r[4] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[5] = ManagedApply(r[4], nil, await(r[3]));
            r[6] = ManagedApply(r[3], nil, await(r[5]));

            aws_vpc.main = r[6];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn create_before_destroy_replace() {
    check(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-old",
            "attributes": { "bucket": "acme-old" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_s3_bucket.data" } },
          { "type": "aws_iam_user", "id": "deploy",
            "attributes": { "name": "deploy", "path": "/" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_iam_user.deploy" } },
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.9.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } }
        ]}"#,
        r#"
live {
  estate = "acme"
}

resource "aws_iam_user" "deploy" {
  name = "deploy"
  path = "/ci/"
}

resource "random_id" "suffix" {
  byte_length = 2
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-new"
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    create_before_destroy = true
  }
}
"#,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_iam_user.deploy will be updated in place
              ~ resource "aws_iam_user" "deploy" {
                    id   = "deploy"
                  ~ path = "/" -> "/ci/"
                    # (3 unchanged attributes hidden)
                }

              # aws_s3_bucket.data must be replaced
              # (bucket forces replacement)
            +/- resource "aws_s3_bucket" "data" {
                  ~ arn           = "arn:aws:s3:::acme-old" -> (known after apply)
                  ~ bucket        = "acme-old" -> "acme-new" # forces replacement
                  ~ id            = "acme-old" -> (known after apply)
                    # (2 unchanged attributes hidden)
                }

              # aws_vpc.main must be replaced
              # (cidr_block forces replacement)
            +/- resource "aws_vpc" "main" {
                  ~ arn                  = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001" -> (known after apply)
                  ~ cidr_block           = "10.9.0.0/16" -> "10.0.0.0/16" # forces replacement
                  ~ id                   = "vpc-00000001" -> (known after apply)
                    # (3 unchanged attributes hidden)
                }

              # random_id.suffix will be created
              + resource "random_id" "suffix" {
                  + b64_url     = (known after apply)
                  + byte_length = 2
                  + dec         = (known after apply)
                  + hex         = (known after apply)
                  + id          = (known after apply)
                  + keepers     = {}
                }

            Plan: 3 to add, 1 to change, 2 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 7,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "iam:GetUser": 1,
                  "s3:GetBucketTagging": 1,
                  "s3:HeadBucket": 2,
                  "s3:ListBuckets": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "update",
                  "address": "aws_iam_user.deploy",
                  "admission": "client-named",
                  "after": {
                    "arn": "arn:aws:iam::123456789012:user/deploy",
                    "id": "deploy",
                    "name": "deploy",
                    "path": "/ci/",
                    "tags": {
                      "tofu-address": "aws_iam_user.deploy",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:iam::123456789012:user/deploy",
                    "id": "deploy",
                    "name": "deploy",
                    "path": "/",
                    "tags": {
                      "tofu-address": "aws_iam_user.deploy",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "deploy",
                  "reason": null,
                  "type": "aws_iam_user"
                },
                {
                  "action": "replace",
                  "address": "aws_s3_bucket.data",
                  "admission": "client-named",
                  "after": {
                    "bucket": "acme-new",
                    "force_destroy": false,
                    "tags": {
                      "tofu-address": "aws_s3_bucket.data",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": {
                    "arn": "arn:aws:s3:::acme-old",
                    "bucket": "acme-old",
                    "force_destroy": false,
                    "id": "acme-old",
                    "tags": {
                      "tofu-address": "aws_s3_bucket.data",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "acme-old",
                  "reason": "bucket forces replacement",
                  "replace_order": "create-before-destroy",
                  "type": "aws_s3_bucket"
                },
                {
                  "action": "replace",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.9.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "vpc-00000001",
                  "reason": "cidr_block forces replacement",
                  "replace_order": "create-before-destroy",
                  "type": "aws_vpc"
                },
                {
                  "action": "create",
                  "address": "random_id.suffix",
                  "admission": "record",
                  "after": {
                    "byte_length": 2,
                    "keepers": {}
                  },
                  "after_unknown": [
                    "b64_url",
                    "dec",
                    "hex",
                    "id"
                  ],
                  "before": null,
                  "id": null,
                  "reason": null,
                  "type": "random_id"
                }
              ],
              "summary": {
                "add": 3,
                "change": 1,
                "destroy": 2
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = "arn:aws:iam::123456789012:user/deploy", id = "deploy", name = "deploy", path = "/ci/", tags = { tofu-address = "aws_iam_user.deploy", tofu-estate = "acme" } };
            v[1] = { arn = (known after apply), bucket = "acme-new", force_destroy = false, id = (known after apply), tags = { tofu-address = "aws_s3_bucket.data", tofu-estate = "acme" } };
            v[2] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };
            v[3] = { b64_url = (known after apply), byte_length = 2, dec = (known after apply), hex = (known after apply), id = (known after apply), keepers = {} };

            r[0] = ResourceInstancePrior(aws_iam_user.deploy);
            r[1] = ResourceInstanceCurrentMeta(aws_iam_user.deploy, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], r[0], v[0]);
            r[4] = ManagedApply(r[3], nil, await());
            r[5] = ResourceInstancePrior(aws_s3_bucket.data);
            r[6] = ResourceInstanceCurrentMeta(aws_s3_bucket.data, r[5]);
            r[7] = ResourceInstanceDesired(r[6]);
            r[8] = ManagedFinalPlan(r[6], r[7], nil, v[1]);
            r[9] = ManagedFinalPlan(r[6], nil, r[5], nil);
            r[10] = ManagedPrepareDepose(r[9], "acme-old");
            r[11] = ManagedPerformDepose(r[5], r[10], await(r[8]));
            r[12] = ManagedApply(r[8], r[11], await());
            r[13] = ManagedApply(r[10], nil, await(r[12]));
            r[14] = ResourceInstancePrior(aws_vpc.main);
            r[15] = ResourceInstanceCurrentMeta(aws_vpc.main, r[14]);
            r[16] = ResourceInstanceDesired(r[15]);
            r[17] = ManagedFinalPlan(r[15], r[16], nil, v[2]);
            r[18] = ManagedFinalPlan(r[15], nil, r[14], nil);
            r[19] = ManagedPrepareDepose(r[18], "vpc-00000001");
            r[20] = ManagedPerformDepose(r[14], r[19], await(r[17]));
            r[21] = ManagedApply(r[17], r[20], await());
            r[22] = ManagedApply(r[19], nil, await(r[21]));
            r[23] = ResourceInstanceCurrentMeta(random_id.suffix, nil);
            r[24] = ResourceInstanceDesired(r[23]);
            r[25] = ManagedFinalPlan(r[23], r[24], nil, v[3]);
            r[26] = ManagedApply(r[25], nil, await());

            aws_iam_user.deploy = r[4];
            aws_s3_bucket.data = r[12];
            aws_vpc.main = r[21];
            random_id.suffix = r[26];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn undeclared_and_dependents_are_deleted_in_order() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
          { "type": "aws_vpc", "id": "vpc-00000002",
            "attributes": { "cidr_block": "10.1.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.old" } },
          { "type": "aws_subnet", "id": "subnet-00000001",
            "attributes": { "vpc_id": "vpc-00000002", "cidr_block": "10.1.0.0/24" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.old" } },
          { "type": "aws_vpc", "id": "vpc-00000003",
            "attributes": { "cidr_block": "10.2.0.0/16" },
            "tags": { "tofu-estate": "other", "tofu-address": "aws_vpc.old" } }
        ]}"#,
        VPC,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_subnet.old will be destroyed
              # (no longer declared)
              - resource "aws_subnet" "old" {
                  - arn                     = "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-00000001"
                  - availability_zone       = "us-east-1a"
                  - cidr_block              = "10.1.0.0/24"
                  - id                      = "subnet-00000001"
                  - map_public_ip_on_launch = false
                  - tags                    = { tofu-address = "aws_subnet.old", tofu-estate = "acme" }
                  - vpc_id                  = "vpc-00000002"
                }

              # aws_vpc.old will be destroyed
              # (no longer declared)
              - resource "aws_vpc" "old" {
                  - arn                  = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000002"
                  - cidr_block           = "10.1.0.0/16"
                  - enable_dns_hostnames = false
                  - enable_dns_support   = true
                  - id                   = "vpc-00000002"
                  - tags                 = { tofu-address = "aws_vpc.old", tofu-estate = "acme" }
                }

            Owned but no longer declared:
              aws_subnet.old: subnet-00000001 will be destroyed
              aws_vpc.old: vpc-00000002 will be destroyed

            Plan: 0 to add, 0 to change, 2 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 3,
                "api_calls_by_operation": {
                  "ec2:DescribeSubnets": 1,
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [
                {
                  "action": "delete",
                  "address": "aws_subnet.old",
                  "id": "subnet-00000001",
                  "type": "aws_subnet"
                },
                {
                  "action": "delete",
                  "address": "aws_vpc.old",
                  "id": "vpc-00000002",
                  "type": "aws_vpc"
                }
              ],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "delete",
                  "address": "aws_subnet.old",
                  "admission": "marker",
                  "after": null,
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-00000001",
                    "availability_zone": "us-east-1a",
                    "cidr_block": "10.1.0.0/24",
                    "id": "subnet-00000001",
                    "map_public_ip_on_launch": false,
                    "tags": {
                      "tofu-address": "aws_subnet.old",
                      "tofu-estate": "acme"
                    },
                    "vpc_id": "vpc-00000002"
                  },
                  "id": "subnet-00000001",
                  "reason": "no longer declared",
                  "type": "aws_subnet"
                },
                {
                  "action": "delete",
                  "address": "aws_vpc.old",
                  "admission": "marker",
                  "after": null,
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000002",
                    "cidr_block": "10.1.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000002",
                    "tags": {
                      "tofu-address": "aws_vpc.old",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "vpc-00000002",
                  "reason": "no longer declared",
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 0,
                "change": 0,
                "destroy": 2
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            r[0] = ResourceInstancePrior(aws_subnet.old);
            r[1] = ResourceInstanceCurrentMeta(aws_subnet.old, r[0]);
            r[2] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[3] = ManagedApply(r[2], nil, await());
            r[4] = ResourceInstancePrior(aws_vpc.old);
            r[5] = ResourceInstanceCurrentMeta(aws_vpc.old, r[4]);
            r[6] = ManagedFinalPlan(r[5], nil, r[4], nil);
            r[7] = ManagedApply(r[6], nil, await(r[3]));

            aws_subnet.old = r[3];
            aws_vpc.old = r[7];
        "#]],
    )
    .await;
}

const SUBNETS: &str = r#"
live {
  estate = "acme"
}

variable "n" {
  type = number
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_subnet" "s" {
  count      = var.n
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}
"#;

const THREE_SUBNETS: &str = r#"{"resources": [
  { "type": "aws_vpc", "id": "vpc-00000001",
    "attributes": { "cidr_block": "10.0.0.0/16" },
    "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
  { "type": "aws_subnet", "id": "subnet-00000001",
    "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.0.0/24" },
    "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.s:0", "tofu-slot": "0" } },
  { "type": "aws_subnet", "id": "subnet-00000002",
    "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.1.0/24" },
    "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.s:1", "tofu-slot": "1" } },
  { "type": "aws_subnet", "id": "subnet-00000003",
    "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.2.0/24" },
    "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.s:2", "tofu-slot": "2" } }
]}"#;

fn with_n(n: u32) -> String {
    SUBNETS.replace("type = number", &format!("type = number\n  default = {n}"))
}

#[tokio::test]
async fn count_surplus_destroys_the_highest_slot() {
    check(THREE_SUBNETS, &with_n(2), expect![[r#"
        liveplan will perform the following actions:

          # aws_subnet.s[2] will be destroyed
          # (count surplus (slot 2))
          - resource "aws_subnet" "s" {
              - arn                     = "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-00000003"
              - availability_zone       = "us-east-1a"
              - cidr_block              = "10.0.2.0/24"
              - id                      = "subnet-00000003"
              - map_public_ip_on_launch = false
              - tags                    = { tofu-address = "aws_subnet.s:2", tofu-estate = "acme", tofu-slot = "2" }
              - vpc_id                  = "vpc-00000001"
            }

        Plan: 0 to add, 0 to change, 1 to destroy.
    "#]], expect![[r#"
        {
          "applicable": true,
          "bind_candidates": [],
          "cost": {
            "api_calls": 3,
            "api_calls_by_operation": {
              "ec2:DescribeSubnets": 1,
              "ec2:DescribeVpcs": 1,
              "tagging:GetResources": 1
            },
            "store_trips": 1
          },
          "diagnostics": [],
          "estate": "acme",
          "foreign": [],
          "format_version": "1",
          "owned_undeclared": [],
          "rename_hints": [],
          "resource_changes": [
            {
              "action": "delete",
              "address": "aws_subnet.s[2]",
              "admission": "marker",
              "after": null,
              "after_unknown": [],
              "before": {
                "arn": "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-00000003",
                "availability_zone": "us-east-1a",
                "cidr_block": "10.0.2.0/24",
                "id": "subnet-00000003",
                "map_public_ip_on_launch": false,
                "tags": {
                  "tofu-address": "aws_subnet.s:2",
                  "tofu-estate": "acme",
                  "tofu-slot": "2"
                },
                "vpc_id": "vpc-00000001"
              },
              "id": "subnet-00000003",
              "reason": "count surplus (slot 2)",
              "type": "aws_subnet"
            }
          ],
          "summary": {
            "add": 0,
            "change": 0,
            "destroy": 1
          },
          "unowned": []
        }
    "#]], expect![[r#"
        r[0] = ResourceInstancePrior(aws_subnet.s[2]);
        r[1] = ResourceInstanceCurrentMeta(aws_subnet.s[2], r[0]);
        r[2] = ManagedFinalPlan(r[1], nil, r[0], nil);
        r[3] = ManagedApply(r[2], nil, await());

        aws_subnet.s[2] = r[3];
    "#]]).await;
}

#[tokio::test]
async fn count_growth_mints_slots_above_the_high_water_mark() {
    check(THREE_SUBNETS, &with_n(5), expect![[r#"
        liveplan will perform the following actions:

          # aws_subnet.s[3] will be created
          + resource "aws_subnet" "s" {
              + arn                     = (known after apply)
              + availability_zone       = "us-east-1a"
              + cidr_block              = "10.0.3.0/24"
              + id                      = (known after apply)
              + map_public_ip_on_launch = false
              + tags                    = { tofu-address = "aws_subnet.s:3", tofu-estate = "acme", tofu-slot = "3" }
              + vpc_id                  = "vpc-00000001"
            }

          # aws_subnet.s[4] will be created
          + resource "aws_subnet" "s" {
              + arn                     = (known after apply)
              + availability_zone       = "us-east-1a"
              + cidr_block              = "10.0.4.0/24"
              + id                      = (known after apply)
              + map_public_ip_on_launch = false
              + tags                    = { tofu-address = "aws_subnet.s:4", tofu-estate = "acme", tofu-slot = "4" }
              + vpc_id                  = "vpc-00000001"
            }

        Plan: 2 to add, 0 to change, 0 to destroy.
    "#]], expect![[r#"
        {
          "applicable": true,
          "bind_candidates": [],
          "cost": {
            "api_calls": 3,
            "api_calls_by_operation": {
              "ec2:DescribeSubnets": 1,
              "ec2:DescribeVpcs": 1,
              "tagging:GetResources": 1
            },
            "store_trips": 1
          },
          "diagnostics": [],
          "estate": "acme",
          "foreign": [],
          "format_version": "1",
          "owned_undeclared": [],
          "rename_hints": [],
          "resource_changes": [
            {
              "action": "create",
              "address": "aws_subnet.s[3]",
              "admission": "marker",
              "after": {
                "availability_zone": "us-east-1a",
                "cidr_block": "10.0.3.0/24",
                "map_public_ip_on_launch": false,
                "tags": {
                  "tofu-address": "aws_subnet.s:3",
                  "tofu-estate": "acme",
                  "tofu-slot": "3"
                },
                "vpc_id": "vpc-00000001"
              },
              "after_unknown": [
                "arn",
                "id"
              ],
              "before": null,
              "id": null,
              "reason": null,
              "type": "aws_subnet"
            },
            {
              "action": "create",
              "address": "aws_subnet.s[4]",
              "admission": "marker",
              "after": {
                "availability_zone": "us-east-1a",
                "cidr_block": "10.0.4.0/24",
                "map_public_ip_on_launch": false,
                "tags": {
                  "tofu-address": "aws_subnet.s:4",
                  "tofu-estate": "acme",
                  "tofu-slot": "4"
                },
                "vpc_id": "vpc-00000001"
              },
              "after_unknown": [
                "arn",
                "id"
              ],
              "before": null,
              "id": null,
              "reason": null,
              "type": "aws_subnet"
            }
          ],
          "summary": {
            "add": 2,
            "change": 0,
            "destroy": 0
          },
          "unowned": []
        }
    "#]], expect![[r#"
        v[0] = { arn = (known after apply), availability_zone = "us-east-1a", cidr_block = "10.0.3.0/24", id = (known after apply), map_public_ip_on_launch = false, tags = { tofu-address = "aws_subnet.s:3", tofu-estate = "acme", tofu-slot = "3" }, vpc_id = "vpc-00000001" };
        v[1] = { arn = (known after apply), availability_zone = "us-east-1a", cidr_block = "10.0.4.0/24", id = (known after apply), map_public_ip_on_launch = false, tags = { tofu-address = "aws_subnet.s:4", tofu-estate = "acme", tofu-slot = "4" }, vpc_id = "vpc-00000001" };

        r[0] = ResourceInstanceCurrentMeta(aws_subnet.s[3], nil);
        r[1] = ResourceInstanceDesired(r[0]);
        r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
        r[3] = ManagedApply(r[2], nil, await());
        r[4] = ResourceInstanceCurrentMeta(aws_subnet.s[4], nil);
        r[5] = ResourceInstanceDesired(r[4]);
        r[6] = ManagedFinalPlan(r[4], r[5], nil, v[1]);
        r[7] = ManagedApply(r[6], nil, await());

        aws_subnet.s[3] = r[3];
        aws_subnet.s[4] = r[7];
    "#]]).await;
}

#[tokio::test]
async fn unowned_bucket_blocks_its_instance() {
    check(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" } },
          { "type": "aws_s3_bucket", "id": "acme-web", "attributes": { "bucket": "acme-web" },
            "tags": { "tofu-estate": "other", "tofu-address": "aws_s3_bucket.web" } }
        ]}"#,
        r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-data"
}

resource "aws_s3_bucket" "web" {
  bucket = "acme-web"
}
"#,
        expect![[r#"
            Blocked by objects this estate does not own:
              aws_s3_bucket.data: acme-data has no estate marker; to adopt it: liveplan adopt aws_s3_bucket.data
              aws_s3_bucket.web: acme-web belongs to the estate other

            Warning: aws_s3_bucket acme-web belongs to estate other [in-the-way]
              on aws_s3_bucket.web
              objects: acme-web
              No change is planned for aws_s3_bucket.web. Choose another identity, or remove the object from estate other first.

            Warning: aws_s3_bucket acme-data exists but carries no estate marker [unowned]
              on aws_s3_bucket.data
              objects: acme-data
              No change is planned for aws_s3_bucket.data. To manage the object, run `liveplan adopt aws_s3_bucket.data`.

            No changes. The live system matches the configuration.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 6,
                "api_calls_by_operation": {
                  "s3:GetBucketTagging": 2,
                  "s3:HeadBucket": 2,
                  "s3:ListBuckets": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [
                {
                  "address": "aws_s3_bucket.web",
                  "code": "in-the-way",
                  "detail": "No change is planned for aws_s3_bucket.web. Choose another identity, or remove the object from estate other first.",
                  "ids": [
                    "acme-web"
                  ],
                  "severity": "warning",
                  "summary": "aws_s3_bucket acme-web belongs to estate other"
                },
                {
                  "address": "aws_s3_bucket.data",
                  "code": "unowned",
                  "detail": "No change is planned for aws_s3_bucket.data. To manage the object, run `liveplan adopt aws_s3_bucket.data`.",
                  "ids": [
                    "acme-data"
                  ],
                  "severity": "warning",
                  "summary": "aws_s3_bucket acme-data exists but carries no estate marker"
                }
              ],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [],
              "summary": {
                "add": 0,
                "change": 0,
                "destroy": 0
              },
              "unowned": [
                {
                  "address": "aws_s3_bucket.data",
                  "command": "liveplan adopt aws_s3_bucket.data",
                  "estate": null,
                  "id": "acme-data",
                  "type": "aws_s3_bucket",
                  "verdict": "adoptable"
                },
                {
                  "address": "aws_s3_bucket.web",
                  "command": null,
                  "estate": "other",
                  "id": "acme-web",
                  "type": "aws_s3_bucket",
                  "verdict": "in-the-way"
                }
              ]
            }
        "#]],
        expect![[""]],
    )
    .await;
}

#[tokio::test]
async fn marker_repairs_are_tags_only_updates() {
    check(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-logs", "attributes": { "bucket": "acme-logs" },
            "tags": { "tofu-estate": "acme", "Team": "web" } },
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main", "tofu-slot": "0" } }
        ]}"#,
        r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
}
"#,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_s3_bucket.logs will be updated in place
              # (marker repair)
              ~ resource "aws_s3_bucket" "logs" {
                    id            = "acme-logs"
                  ~ tags          = { Team = "web", tofu-estate = "acme" } -> { Team = "web", tofu-address = "aws_s3_bucket.logs", tofu-estate = "acme" }
                    # (3 unchanged attributes hidden)
                }

              # aws_vpc.main will be updated in place
              # (marker repair)
              ~ resource "aws_vpc" "main" {
                    id                   = "vpc-00000001"
                  ~ tags                 = { tofu-address = "aws_vpc.main", tofu-estate = "acme", tofu-slot = "0" } -> { tofu-address = "aws_vpc.main", tofu-estate = "acme" }
                    # (4 unchanged attributes hidden)
                }

            Plan: 0 to add, 2 to change, 0 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 3,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "s3:ListBuckets": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "update",
                  "address": "aws_s3_bucket.logs",
                  "admission": "client-named",
                  "after": {
                    "arn": "arn:aws:s3:::acme-logs",
                    "bucket": "acme-logs",
                    "force_destroy": false,
                    "id": "acme-logs",
                    "tags": {
                      "Team": "web",
                      "tofu-address": "aws_s3_bucket.logs",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:s3:::acme-logs",
                    "bucket": "acme-logs",
                    "force_destroy": false,
                    "id": "acme-logs",
                    "tags": {
                      "Team": "web",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "acme-logs",
                  "reason": "marker repair",
                  "type": "aws_s3_bucket"
                },
                {
                  "action": "update",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme",
                      "tofu-slot": "0"
                    }
                  },
                  "id": "vpc-00000001",
                  "reason": "marker repair",
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 0,
                "change": 2,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = "arn:aws:s3:::acme-logs", bucket = "acme-logs", force_destroy = false, id = "acme-logs", tags = { Team = "web", tofu-address = "aws_s3_bucket.logs", tofu-estate = "acme" } };
            v[1] = { arn = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001", cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = "vpc-00000001", tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstancePrior(aws_s3_bucket.logs);
            r[1] = ResourceInstanceCurrentMeta(aws_s3_bucket.logs, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], r[0], v[0]);
            r[4] = ManagedApply(r[3], nil, await());
            r[5] = ResourceInstancePrior(aws_vpc.main);
            r[6] = ResourceInstanceCurrentMeta(aws_vpc.main, r[5]);
            r[7] = ResourceInstanceDesired(r[6]);
            r[8] = ManagedFinalPlan(r[6], r[7], r[5], v[1]);
            r[9] = ManagedApply(r[8], nil, await());

            aws_s3_bucket.logs = r[4];
            aws_vpc.main = r[9];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn bind_candidate_is_offered_and_create_still_planned() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000007", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "Name": "hand-made" } }
        ]}"#,
        VPC,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_vpc.main will be created
              + resource "aws_vpc" "main" {
                  + arn                  = (known after apply)
                  + cidr_block           = "10.0.0.0/16"
                  + enable_dns_hostnames = false
                  + enable_dns_support   = true
                  + id                   = (known after apply)
                  + tags                 = { tofu-address = "aws_vpc.main", tofu-estate = "acme" }
                }

            Foreign objects (not managed; never changed):
              aws_vpc vpc-00000007 (Name=hand-made)

            Adoption candidates:
              aws_vpc.main: vpc-00000007 matches cidr_block = "10.0.0.0/16"; to adopt it: liveplan adopt aws_vpc.main --id vpc-00000007

            Plan: 1 to add, 0 to change, 0 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [
                {
                  "address": "aws_vpc.main",
                  "command": "liveplan adopt aws_vpc.main --id vpc-00000007",
                  "id": "vpc-00000007",
                  "matched": {
                    "cidr_block": "10.0.0.0/16"
                  },
                  "type": "aws_vpc"
                }
              ],
              "cost": {
                "api_calls": 2,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [
                {
                  "id": "vpc-00000007",
                  "tags": {
                    "Name": "hand-made"
                  },
                  "type": "aws_vpc"
                }
              ],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "create",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": null,
                  "id": null,
                  "reason": null,
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 1,
                "change": 0,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstanceCurrentMeta(aws_vpc.main, nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await());

            aws_vpc.main = r[3];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn prevent_destroy_makes_the_plan_not_applicable() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.9.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } }
        ]}"#,
        r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    prevent_destroy = true
  }
}
"#,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_vpc.main must be replaced
              # (cidr_block forces replacement)
            -/+ resource "aws_vpc" "main" {
                  ~ arn                  = "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001" -> (known after apply)
                  ~ cidr_block           = "10.9.0.0/16" -> "10.0.0.0/16" # forces replacement
                  ~ id                   = "vpc-00000001" -> (known after apply)
                    # (3 unchanged attributes hidden)
                }

            Error: the plan would destroy aws_vpc.main (prevent_destroy is set) [prevent-destroy]
              on aws_vpc.main
              change the configuration so that the object is kept, or remove prevent_destroy from its lifecycle block

            Plan: 1 to add, 0 to change, 1 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": false,
              "bind_candidates": [],
              "cost": {
                "api_calls": 2,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [
                {
                  "address": "aws_vpc.main",
                  "code": "prevent-destroy",
                  "detail": "change the configuration so that the object is kept, or remove prevent_destroy from its lifecycle block",
                  "ids": [],
                  "severity": "error",
                  "summary": "the plan would destroy aws_vpc.main (prevent_destroy is set)"
                }
              ],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "replace",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": {
                    "arn": "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-00000001",
                    "cidr_block": "10.9.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "id": "vpc-00000001",
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "id": "vpc-00000001",
                  "reason": "cidr_block forces replacement",
                  "replace_order": "destroy-before-create",
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 1,
                "change": 0,
                "destroy": 1
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstancePrior(aws_vpc.main);
            r[1] = ResourceInstanceCurrentMeta(aws_vpc.main, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], nil, v[0]);
            r[4] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[5] = ManagedApply(r[4], nil, await(r[3]));
            r[6] = ManagedApply(r[3], nil, await(r[5]));

            aws_vpc.main = r[6];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn renamed_block_is_a_rename_hint_not_a_delete() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.old" } }
        ]}"#,
        VPC,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_vpc.main will be created
              + resource "aws_vpc" "main" {
                  + arn                  = (known after apply)
                  + cidr_block           = "10.0.0.0/16"
                  + enable_dns_hostnames = false
                  + enable_dns_support   = true
                  + id                   = (known after apply)
                  + tags                 = { tofu-address = "aws_vpc.main", tofu-estate = "acme" }
                }

            Owned but no longer declared:
              aws_vpc.old: vpc-00000001 withheld (possible rename)

            Possible renames:
              aws_vpc.old -> aws_vpc.main (vpc-00000001); to rename: liveplan mv aws_vpc.old aws_vpc.main

            Plan: 1 to add, 0 to change, 0 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 2,
                "api_calls_by_operation": {
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [
                {
                  "action": "withheld",
                  "address": "aws_vpc.old",
                  "id": "vpc-00000001",
                  "type": "aws_vpc"
                }
              ],
              "rename_hints": [
                {
                  "command": "liveplan mv aws_vpc.old aws_vpc.main",
                  "from": "aws_vpc.old",
                  "id": "vpc-00000001",
                  "to": "aws_vpc.main"
                }
              ],
              "resource_changes": [
                {
                  "action": "create",
                  "address": "aws_vpc.main",
                  "admission": "marker",
                  "after": {
                    "cidr_block": "10.0.0.0/16",
                    "enable_dns_hostnames": false,
                    "enable_dns_support": true,
                    "tags": {
                      "tofu-address": "aws_vpc.main",
                      "tofu-estate": "acme"
                    }
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": null,
                  "id": null,
                  "reason": null,
                  "type": "aws_vpc"
                }
              ],
              "summary": {
                "add": 1,
                "change": 0,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = (known after apply), cidr_block = "10.0.0.0/16", enable_dns_hostnames = false, enable_dns_support = true, id = (known after apply), tags = { tofu-address = "aws_vpc.main", tofu-estate = "acme" } };

            r[0] = ResourceInstanceCurrentMeta(aws_vpc.main, nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await());

            aws_vpc.main = r[3];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn for_each_keys_and_ignore_changes() {
    check(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16", "enable_dns_support": false },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } },
          { "type": "aws_subnet", "id": "subnet-00000001",
            "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.1.0/24" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_subnet.s:alice@dsmith" } }
        ]}"#,
        r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    ignore_changes = [enable_dns_support]
  }
}

resource "aws_subnet" "s" {
  for_each   = { "alice.smith" = 1, "bob" = 2 }
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, each.value)
}
"#,
        expect![[r#"
            liveplan will perform the following actions:

              # aws_subnet.s["bob"] will be created
              + resource "aws_subnet" "s" {
                  + arn                     = (known after apply)
                  + availability_zone       = "us-east-1a"
                  + cidr_block              = "10.0.2.0/24"
                  + id                      = (known after apply)
                  + map_public_ip_on_launch = false
                  + tags                    = { tofu-address = "aws_subnet.s:bob", tofu-estate = "acme" }
                  + vpc_id                  = "vpc-00000001"
                }

            Plan: 1 to add, 0 to change, 0 to destroy.
        "#]],
        expect![[r#"
            {
              "applicable": true,
              "bind_candidates": [],
              "cost": {
                "api_calls": 3,
                "api_calls_by_operation": {
                  "ec2:DescribeSubnets": 1,
                  "ec2:DescribeVpcs": 1,
                  "tagging:GetResources": 1
                },
                "store_trips": 1
              },
              "diagnostics": [],
              "estate": "acme",
              "foreign": [],
              "format_version": "1",
              "owned_undeclared": [],
              "rename_hints": [],
              "resource_changes": [
                {
                  "action": "create",
                  "address": "aws_subnet.s[\"bob\"]",
                  "admission": "marker",
                  "after": {
                    "availability_zone": "us-east-1a",
                    "cidr_block": "10.0.2.0/24",
                    "map_public_ip_on_launch": false,
                    "tags": {
                      "tofu-address": "aws_subnet.s:bob",
                      "tofu-estate": "acme"
                    },
                    "vpc_id": "vpc-00000001"
                  },
                  "after_unknown": [
                    "arn",
                    "id"
                  ],
                  "before": null,
                  "id": null,
                  "reason": null,
                  "type": "aws_subnet"
                }
              ],
              "summary": {
                "add": 1,
                "change": 0,
                "destroy": 0
              },
              "unowned": []
            }
        "#]],
        expect![[r#"
            v[0] = { arn = (known after apply), availability_zone = "us-east-1a", cidr_block = "10.0.2.0/24", id = (known after apply), map_public_ip_on_launch = false, tags = { tofu-address = "aws_subnet.s:bob", tofu-estate = "acme" }, vpc_id = "vpc-00000001" };

            r[0] = ResourceInstanceCurrentMeta(aws_subnet.s["bob"], nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await());

            aws_subnet.s["bob"] = r[3];
        "#]],
    )
    .await;
}

#[tokio::test]
async fn verbose_lists_no_ops() {
    let world = World::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001",
            "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.main" } }
        ]}"#,
    );
    let plan = world.plan(VPC).await;
    let options = engine::render::RenderOptions { verbose: true };
    expect![[r#"
          # aws_vpc.main is up to date
            resource "aws_vpc" "main" {
                # (6 unchanged attributes hidden)
            }

        No changes. The live system matches the configuration.
    "#]]
    .assert_eq(&engine::render::text(&plan, options));
    let doc: serde_json::Value =
        serde_json::from_str(&engine::render::json(&plan, options)).expect("JSON");
    assert_eq!(doc["resource_changes"][0]["action"], "no-op");
    assert_eq!(doc["resource_changes"][0]["id"], "vpc-00000001");
}

#[tokio::test]
async fn count_instances_are_listed_in_index_order_as_in_terraform() {
    let world = World::empty();
    let plan = world
        .plan(
            r#"
live {
  estate = "acme"
}

resource "aws_vpc" "s" {
  count      = 12
  cidr_block = "10.${count.index}.0.0/16"
}
"#,
        )
        .await;
    let headings: Vec<String> = text(&plan)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("# "))
        .map(|l| l.trim_end_matches(" will be created").to_owned())
        .collect();
    let expected: Vec<String> = (0..12).map(|i| format!("aws_vpc.s[{i}]")).collect();
    assert_eq!(headings, expected);
    let json: serde_json::Value = serde_json::from_str(&json(&plan)).unwrap();
    let addresses: Vec<&str> = json["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["address"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, expected);
}
