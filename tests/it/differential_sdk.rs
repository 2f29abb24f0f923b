//! Objects made by hand on the emulator through the AWS SDK, for the differential suite: the same
//! attribute names as the simulated cloud's API takes (the provider's argument names), no tags, and the
//! id the AWS provider names the object by.

use serde_json::Value as Json;

/// The SDK clients of one emulator account.
pub(crate) struct Clients<'a> {
    pub(crate) ec2: &'a aws_sdk_ec2::Client,
    pub(crate) iam: &'a aws_sdk_iam::Client,
    pub(crate) logs: &'a aws_sdk_cloudwatchlogs::Client,
    pub(crate) s3: &'a aws_sdk_s3::Client,
}

fn arg<'a>(attributes: &'a Json, name: &str) -> &'a str {
    attributes[name]
        .as_str()
        .unwrap_or_else(|| panic!("the attribute {name} is given"))
}

/// Makes an untagged object of `type_name` from `attributes` and returns its id.
pub(crate) async fn make(clients: Clients<'_>, type_name: &str, attributes: &Json) -> String {
    match type_name {
        "aws_s3_bucket"
        | "aws_iam_role"
        | "aws_iam_user"
        | "aws_iam_access_key"
        | "aws_cloudwatch_log_group" => make_named(&clients, type_name, attributes).await,
        _ => make_network(clients.ec2, type_name, attributes).await,
    }
}

/// The client-named and list-and-match types: buckets, IAM and log groups.
async fn make_named(clients: &Clients<'_>, type_name: &str, a: &Json) -> String {
    match type_name {
        "aws_s3_bucket" => {
            let bucket = arg(a, "bucket");
            clients
                .s3
                .create_bucket()
                .bucket(bucket)
                .send()
                .await
                .expect("CreateBucket");
            bucket.to_owned()
        }
        "aws_iam_role" => {
            let name = arg(a, "name");
            clients
                .iam
                .create_role()
                .role_name(name)
                .assume_role_policy_document(arg(a, "assume_role_policy"))
                .send()
                .await
                .expect("CreateRole");
            name.to_owned()
        }
        "aws_iam_user" => {
            let name = arg(a, "name");
            clients
                .iam
                .create_user()
                .user_name(name)
                .send()
                .await
                .expect("CreateUser");
            name.to_owned()
        }
        "aws_iam_access_key" => {
            let out = clients
                .iam
                .create_access_key()
                .user_name(arg(a, "user"))
                .send()
                .await
                .expect("CreateAccessKey");
            out.access_key()
                .map(|k| k.access_key_id().to_owned())
                .expect("a key id")
        }
        "aws_cloudwatch_log_group" => {
            let name = arg(a, "name");
            clients
                .logs
                .create_log_group()
                .log_group_name(name)
                .send()
                .await
                .expect("CreateLogGroup");
            name.to_owned()
        }
        other => panic!("no hand-made {other} on the emulator"),
    }
}

/// The EC2 network types.
async fn make_network(ec2: &aws_sdk_ec2::Client, type_name: &str, a: &Json) -> String {
    let id = match type_name {
        "aws_vpc" => ec2
            .create_vpc()
            .cidr_block(arg(a, "cidr_block"))
            .send()
            .await
            .expect("CreateVpc")
            .vpc()
            .and_then(|v| v.vpc_id().map(str::to_owned)),
        "aws_subnet" => ec2
            .create_subnet()
            .vpc_id(arg(a, "vpc_id"))
            .cidr_block(arg(a, "cidr_block"))
            .set_availability_zone(a["availability_zone"].as_str().map(str::to_owned))
            .send()
            .await
            .expect("CreateSubnet")
            .subnet()
            .and_then(|s| s.subnet_id().map(str::to_owned)),
        "aws_security_group" => ec2
            .create_security_group()
            .group_name(arg(a, "name"))
            .description(a["description"].as_str().unwrap_or("Managed by Terraform"))
            .vpc_id(arg(a, "vpc_id"))
            .send()
            .await
            .expect("CreateSecurityGroup")
            .group_id()
            .map(str::to_owned),
        "aws_internet_gateway" => {
            let id = ec2
                .create_internet_gateway()
                .send()
                .await
                .expect("CreateInternetGateway")
                .internet_gateway()
                .and_then(|g| g.internet_gateway_id().map(str::to_owned))
                .expect("a gateway id");
            if let Some(vpc) = a["vpc_id"].as_str() {
                ec2.attach_internet_gateway()
                    .internet_gateway_id(&id)
                    .vpc_id(vpc)
                    .send()
                    .await
                    .expect("AttachInternetGateway");
            }
            Some(id)
        }
        "aws_route_table" => ec2
            .create_route_table()
            .vpc_id(arg(a, "vpc_id"))
            .send()
            .await
            .expect("CreateRouteTable")
            .route_table()
            .and_then(|t| t.route_table_id().map(str::to_owned)),
        "aws_route" => {
            let (table, destination) = (arg(a, "route_table_id"), arg(a, "destination_cidr_block"));
            ec2.create_route()
                .route_table_id(table)
                .destination_cidr_block(destination)
                .gateway_id(arg(a, "gateway_id"))
                .send()
                .await
                .expect("CreateRoute");
            Some(format!("{table}_{destination}"))
        }
        "aws_route_table_association" => ec2
            .associate_route_table()
            .route_table_id(arg(a, "route_table_id"))
            .subnet_id(arg(a, "subnet_id"))
            .send()
            .await
            .expect("AssociateRouteTable")
            .association_id()
            .map(str::to_owned),
        "aws_eip" => ec2
            .allocate_address()
            .domain(aws_sdk_ec2::types::DomainType::Vpc)
            .send()
            .await
            .expect("AllocateAddress")
            .allocation_id()
            .map(str::to_owned),
        other => panic!("no hand-made {other} on the emulator"),
    };
    id.unwrap_or_else(|| panic!("the emulator names the new {type_name}"))
}
