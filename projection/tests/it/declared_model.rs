//! The declared model's own rules.

use projection::{Declared, Expansion};

use crate::support::*;

#[test]
fn count_blocks_grow_with_the_indices_added_unless_their_count_was_declared() {
    let mut d = Declared::new();
    d.add(bare("aws_eip.pool[0]")).unwrap();
    d.add(bare("aws_eip.pool[2]")).unwrap();
    assert_eq!(
        d.expansion(&"aws_eip.pool".parse().unwrap()),
        Some(Expansion::Count(3))
    );
    assert!(d.is_declared(&a("aws_eip.pool[1]")));

    let mut fixed = Declared::new();
    fixed
        .count_block("aws_eip.pool".parse().unwrap(), 2)
        .unwrap();
    assert!(fixed.add(bare("aws_eip.pool[2]")).is_err());
    assert!(
        fixed.add(bare("aws_eip.pool")).is_err(),
        "a count block has no unkeyed instance"
    );
    assert!(d.add(bare("aws_eip.pool[0]")).is_err(), "declared twice");
}

#[test]
fn every_declared_address_is_listed_once_in_address_order() {
    let mut d = Declared::new();
    d.count_block("aws_subnet.b".parse().unwrap(), 11).unwrap();
    d.add(bare(r#"aws_vpc.main["z"]"#)).unwrap();
    d.add(bare("aws_subnet.b[10]")).unwrap();
    d.add(bare(r#"aws_vpc.main["a"]"#)).unwrap();
    d.add(bare("aws_eip.one")).unwrap();
    d.add(bare("aws_subnet.b[2]")).unwrap();
    d.count_block("aws_eip.none".parse().unwrap(), 0).unwrap();
    d.add(bare("aws_subnet.a")).unwrap();
    let shown: Vec<String> = d.addresses().iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "aws_eip.one",
            "aws_subnet.a",
            "aws_subnet.b[0]",
            "aws_subnet.b[1]",
            "aws_subnet.b[2]",
            "aws_subnet.b[3]",
            "aws_subnet.b[4]",
            "aws_subnet.b[5]",
            "aws_subnet.b[6]",
            "aws_subnet.b[7]",
            "aws_subnet.b[8]",
            "aws_subnet.b[9]",
            "aws_subnet.b[10]",
            r#"aws_vpc.main["a"]"#,
            r#"aws_vpc.main["z"]"#,
        ]
    );
}
