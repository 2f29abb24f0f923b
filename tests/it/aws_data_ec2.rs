//! The AWS provider's EC2 data sources against the local AWS emulator, each in an emulator account
//! of its own: `aws_availability_zones` (moto's us-east-1 zones, the same names and zone ids as the
//! simulated cloud's), `aws_ami` over moto's built-in images (Amazon Linux 2023 among them, all made
//! at the emulator's start), and `aws_vpc`, `aws_subnet`, `aws_subnets` and `aws_security_group` over
//! objects made through the SDK; every read is one `Describe*` and a read without exactly one match
//! is an error with the provider's message.

use std::collections::BTreeMap;

use aws_sdk_ec2::types::{ResourceType, Tag, TagSpecification};
use awsprovider::{AwsProvider, AwsProviderConfig};
use provider::{Call, CallCounts, DataSourceRequest, Provider, ProviderErrorKind, Value};
use serde_json::json;

/// A provider in a fresh emulator account, and the SDK's EC2 client in the same account.
async fn fresh() -> (AwsProvider, aws_sdk_ec2::Client) {
    let (config, _) = crate::aws_e2e::fresh_account(5, "liveplan-data").await;
    let provider = AwsProvider::from_sdk_config(&config, &AwsProviderConfig::default())
        .expect("a provider in the fresh account");
    (provider, aws_sdk_ec2::Client::new(&config))
}

fn request(type_name: &str, arguments: serde_json::Value) -> DataSourceRequest {
    let Value::Map(args) = Value::from_json(arguments) else {
        panic!("arguments are an object");
    };
    args.into_iter()
        .fold(DataSourceRequest::new(type_name), |r, (k, v)| {
            r.with_argument(k.as_str(), v)
        })
}

fn strings(v: &Value, name: &str) -> Vec<String> {
    v.get(name)
        .and_then(Value::as_list)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn text<'a>(v: &'a Value, name: &str) -> &'a str {
    v.get(name).and_then(Value::as_str).unwrap_or_default()
}

fn counted(counts: &CallCounts) -> Vec<(String, u64)> {
    counts.snapshot().into_iter().collect()
}

#[tokio::test]
async fn aws_availability_zones_are_the_regions_zones_sorted_with_exclusions() {
    let (aws, _) = fresh().await;
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let zones = aws
        .read_data_source(
            &call,
            request("aws_availability_zones", json!({ "state": "available" })),
        )
        .await
        .expect("the zones read");
    assert_eq!(
        strings(&zones, "names"),
        [
            "us-east-1a",
            "us-east-1b",
            "us-east-1c",
            "us-east-1d",
            "us-east-1e",
            "us-east-1f"
        ]
    );
    assert_eq!(
        strings(&zones, "zone_ids"),
        [
            "use1-az6", "use1-az1", "use1-az2", "use1-az4", "use1-az3", "use1-az5"
        ]
    );
    assert_eq!(text(&zones, "id"), "us-east-1");
    let some = aws
        .read_data_source(
            &call,
            request(
                "aws_availability_zones",
                json!({ "exclude_names": ["us-east-1a"], "exclude_zone_ids": ["use1-az2"] }),
            ),
        )
        .await
        .expect("the zones read");
    assert_eq!(
        strings(&some, "names"),
        ["us-east-1b", "us-east-1d", "us-east-1e", "us-east-1f"]
    );
    assert_eq!(
        counted(&counts),
        [("ec2:DescribeAvailabilityZones".to_owned(), 2)]
    );
}

#[tokio::test]
async fn aws_ami_finds_amazon_linux_2023_and_refuses_several_or_none() {
    let (aws, _) = fresh().await;
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let image = aws
        .read_data_source(
            &call,
            request(
                "aws_ami",
                json!({
                    "most_recent": true,
                    "owners": ["amazon"],
                    "filter": [
                        { "name": "name", "values": ["al2023-ami-2023.*-kernel-6.1-x86_64"] },
                        { "name": "architecture", "values": ["x86_64"] },
                    ],
                }),
            ),
        )
        .await
        .expect("an Amazon Linux 2023 image");
    let name = text(&image, "name");
    assert!(
        name.starts_with("al2023-ami-2023.") && name.ends_with("-kernel-6.1-x86_64"),
        "{name}"
    );
    assert_eq!(text(&image, "owner_id"), "137112412989");
    assert_eq!(text(&image, "architecture"), "x86_64");
    assert_eq!(text(&image, "root_device_type"), "ebs");
    assert_eq!(text(&image, "virtualization_type"), "hvm");
    assert_eq!(text(&image, "id"), text(&image, "image_id"));
    assert_eq!(
        text(&image, "arn"),
        format!("arn:aws:ec2:us-east-1::image/{}", text(&image, "id"))
    );
    let several = aws
        .read_data_source(
            &call,
            request(
                "aws_ami",
                json!({
                    "owners": ["amazon"],
                    "filter": [{ "name": "name", "values": ["al2023-ami-minimal-*"] }],
                }),
            ),
        )
        .await
        .expect_err("several images without most_recent");
    assert!(
        several
            .message
            .contains("Your query returned more than one result"),
        "{several}"
    );
    let none = aws
        .read_data_source(
            &call,
            request(
                "aws_ami",
                json!({ "owners": ["self"], "filter": [{ "name": "name", "values": ["al2023-*"] }] }),
            ),
        )
        .await
        .expect_err("no image of this account");
    assert_eq!(none.kind, ProviderErrorKind::NotFound);
    assert!(
        none.message.contains("Your query returned no results"),
        "{none}"
    );
    assert_eq!(counted(&counts), [("ec2:DescribeImages".to_owned(), 3)]);
}

fn tagged(kind: ResourceType, pairs: &[(&str, &str)]) -> TagSpecification {
    TagSpecification::builder()
        .resource_type(kind)
        .set_tags(Some(
            pairs
                .iter()
                .map(|(k, v)| Tag::builder().key(*k).value(*v).build())
                .collect(),
        ))
        .build()
}

#[tokio::test]
async fn network_data_sources_read_what_the_account_holds() {
    let (aws, ec2) = fresh().await;
    let vpc = ec2
        .create_vpc()
        .cidr_block("10.61.0.0/16")
        .tag_specifications(tagged(ResourceType::Vpc, &[("Name", "data-main")]))
        .send()
        .await
        .unwrap();
    let vpc_id = vpc.vpc().and_then(|v| v.vpc_id()).unwrap().to_owned();
    let mut subnet_ids = Vec::new();
    for (cidr, zone, tier) in [
        ("10.61.1.0/24", "us-east-1a", "private"),
        ("10.61.2.0/24", "us-east-1b", "public"),
    ] {
        let s = ec2
            .create_subnet()
            .vpc_id(&vpc_id)
            .cidr_block(cidr)
            .availability_zone(zone)
            .tag_specifications(tagged(ResourceType::Subnet, &[("Tier", tier)]))
            .send()
            .await
            .unwrap();
        subnet_ids.push(s.subnet().and_then(|s| s.subnet_id()).unwrap().to_owned());
    }
    let group = ec2
        .create_security_group()
        .vpc_id(&vpc_id)
        .group_name("web")
        .description("web tier")
        .send()
        .await
        .unwrap();
    let group_id = group.group_id().unwrap().to_owned();
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let read = |t: &'static str, args: serde_json::Value| {
        let (aws, call) = (&aws, &call);
        async move { aws.read_data_source(call, request(t, args)).await }
    };
    let main = read("aws_vpc", json!({ "tags": { "Name": "data-main" } }))
        .await
        .unwrap();
    assert_eq!(text(&main, "id"), vpc_id);
    assert_eq!(text(&main, "cidr_block"), "10.61.0.0/16");
    assert_eq!(main.get("default"), Some(&Value::Bool(false)));
    let default = read("aws_vpc", json!({ "default": true })).await.unwrap();
    assert_eq!(text(&default, "cidr_block"), "172.31.0.0/16");
    let subnets = read(
        "aws_subnets",
        json!({ "filter": [{ "name": "vpc-id", "values": [vpc_id] }] }),
    )
    .await
    .unwrap();
    subnet_ids.sort();
    assert_eq!(strings(&subnets, "ids"), subnet_ids);
    let none = read("aws_subnets", json!({ "tags": { "Tier": "nowhere" } }))
        .await
        .unwrap();
    assert_eq!(strings(&none, "ids"), Vec::<String>::new());
    let private = read(
        "aws_subnet",
        json!({ "vpc_id": vpc_id, "tags": { "Tier": "private" } }),
    )
    .await
    .unwrap();
    assert_eq!(text(&private, "cidr_block"), "10.61.1.0/24");
    assert_eq!(text(&private, "availability_zone"), "us-east-1a");
    assert_eq!(text(&private, "availability_zone_id"), "use1-az6");
    let web = read(
        "aws_security_group",
        json!({ "name": "web", "vpc_id": vpc_id }),
    )
    .await
    .unwrap();
    assert_eq!(text(&web, "id"), group_id);
    assert_eq!(text(&web, "description"), "web tier");
    let missing = read("aws_subnet", json!({ "id": "subnet-0123456789abcdef0" }))
        .await
        .expect_err("no such subnet");
    assert_eq!(missing.message, "no matching EC2 Subnet found");
    let several = read("aws_subnet", json!({ "vpc_id": vpc_id }))
        .await
        .expect_err("two subnets");
    assert_eq!(
        several.message,
        "multiple EC2 Subnets matched; use additional constraints to reduce matches to a single \
         EC2 Subnet"
    );
    let want: BTreeMap<String, u64> = [
        ("ec2:DescribeSecurityGroups".to_owned(), 1),
        ("ec2:DescribeSubnets".to_owned(), 5),
        ("ec2:DescribeVpcs".to_owned(), 2),
    ]
    .into();
    assert_eq!(counts.snapshot(), want);
}
