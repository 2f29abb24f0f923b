//! What each planned change waits for: the instances its arguments read, member by member where the key
//! is known before apply, and whole blocks where it is not.

use expect_test::expect;

use crate::support::Bench;

#[tokio::test]
async fn an_instance_waits_for_the_members_it_reads_and_for_whole_blocks_it_names() {
    let world = Bench::empty();
    let plan = world
        .plan(
            r#"
live {
  estate = "acme"
}

locals {
  first_vpc = aws_vpc.v[0].id
}

resource "aws_vpc" "v" {
  count      = 3
  cidr_block = "10.${count.index}.0.0/16"
}

resource "aws_subnet" "own" {
  count      = 3
  vpc_id     = aws_vpc.v[count.index].id
  cidr_block = "10.${count.index}.1.0/24"
}

resource "aws_subnet" "via_local" {
  vpc_id     = local.first_vpc
  cidr_block = "10.0.2.0/24"
}

resource "aws_s3_bucket" "after" {
  bucket     = "acme-after"
  depends_on = [aws_subnet.own]
}
"#,
        )
        .await;
    let deps: Vec<String> = plan
        .changes
        .iter()
        .map(|c| {
            let on: Vec<String> = c.depends_on.iter().map(ToString::to_string).collect();
            format!("{} <- [{}]", c.address, on.join(", "))
        })
        .collect();
    // A subnet reading its own VPC waits for that VPC alone; a read through a local may read any member,
    // so it waits for the whole block, as does `depends_on`.
    expect![[r#"
        aws_s3_bucket.after <- [aws_subnet.own[0], aws_subnet.own[1], aws_subnet.own[2]]
        aws_subnet.own[0] <- [aws_vpc.v[0]]
        aws_subnet.own[1] <- [aws_vpc.v[1]]
        aws_subnet.own[2] <- [aws_vpc.v[2]]
        aws_subnet.via_local <- [aws_vpc.v[0], aws_vpc.v[1], aws_vpc.v[2]]
        aws_vpc.v[0] <- []
        aws_vpc.v[1] <- []
        aws_vpc.v[2] <- []
    "#]]
    .assert_eq(&(deps.join("\n") + "\n"));
}
