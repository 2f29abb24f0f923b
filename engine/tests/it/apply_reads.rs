//! What an instance's arguments read from the instances applied before it: one member of a `for_each`
//! block by key, one member through an expression that is not a plain reference, and a whole block.

use std::collections::BTreeMap;

use crate::support::{Bench, diagnostics};

const ZONES: &str = r#"
live {
  estate = "acme-zones"
}

resource "aws_vpc" "main" {
  cidr_block = "10.7.0.0/16"
}

resource "aws_subnet" "zone" {
  for_each   = { a = 1, b = 2 }
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.7.0.0/16", 8, each.value)
}

resource "aws_route_table" "rt" {
  count  = 2
  vpc_id = aws_vpc.main.id
}

resource "aws_route_table_association" "zone" {
  for_each       = { a = 1, b = 0 }
  subnet_id      = aws_subnet.zone[each.key].id
  route_table_id = "${aws_route_table.rt[each.value].id}"
}

resource "aws_security_group" "sg" {
  name        = format("zones-%d", length(aws_subnet.zone))
  vpc_id      = aws_vpc.main.id
  description = join(",", [for s in aws_subnet.zone : s.id])
}
"#;

/// Each applied instance's id and string attributes, by address.
fn applied(outcome: &engine::ApplyOutcome) -> BTreeMap<String, (String, BTreeMap<String, String>)> {
    outcome
        .objects
        .iter()
        .filter_map(|(address, object)| {
            let object = object.as_ref()?;
            let attributes = object
                .attributes
                .keys()
                .filter_map(|k| Some((k.clone(), object.attribute_str(k)?.to_owned())))
                .collect();
            Some((address.to_string(), (object.id.clone(), attributes)))
        })
        .collect()
}

#[tokio::test]
async fn instances_read_the_members_they_name_and_whole_blocks_at_apply() {
    let world = Bench::empty();
    let plan = world.plan(ZONES).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 8 to add, 0 to change, 0 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    let objects = applied(&outcome);
    let id = |address: &str| objects[address].0.clone();
    let attribute = |address: &str, name: &str| objects[address].1[name].clone();
    // A member of a for_each block, named by key.
    assert_eq!(
        attribute(r#"aws_route_table_association.zone["a"]"#, "subnet_id"),
        id(r#"aws_subnet.zone["a"]"#)
    );
    assert_eq!(
        attribute(r#"aws_route_table_association.zone["b"]"#, "subnet_id"),
        id(r#"aws_subnet.zone["b"]"#)
    );
    // A member of a count block, read inside a template.
    assert_eq!(
        attribute(r#"aws_route_table_association.zone["a"]"#, "route_table_id"),
        id("aws_route_table.rt[1]")
    );
    assert_eq!(
        attribute(r#"aws_route_table_association.zone["b"]"#, "route_table_id"),
        id("aws_route_table.rt[0]")
    );
    // A whole block: its size, and every member's id in key order.
    assert_eq!(attribute("aws_security_group.sg", "name"), "zones-2");
    assert_eq!(
        attribute("aws_security_group.sg", "description"),
        format!(
            "{},{}",
            id(r#"aws_subnet.zone["a"]"#),
            id(r#"aws_subnet.zone["b"]"#)
        )
    );
    assert_eq!(
        attribute(r#"aws_subnet.zone["b"]"#, "vpc_id"),
        id("aws_vpc.main")
    );
    assert!(world.plan(ZONES).await.summary().is_empty());
}
