//! `provider` blocks as Terraform writes them: any number, told apart by `alias`; the AWS provider's
//! arguments checked by name against its own list; the `provider` meta-argument of a resource; and the
//! configuration the live system is opened with.

use admission::{ProviderRef, SourceFile, parse_config};
use expect_test::expect;

use crate::config_parse::check_diags;

#[test]
fn config_providers_aliases_and_every_documented_argument_are_accepted() {
    let text = r#"
provider "aws" {
  region                   = "eu-west-1"
  profile                  = "ops"
  shared_config_files      = ["~/.aws/config"]
  shared_credentials_files = ["~/.aws/credentials"]
  allowed_account_ids      = ["123456789012"]
  s3_use_path_style        = true
  max_retries              = 5
  skip_metadata_api_check  = true
  assume_role {
    role_arn     = "arn:aws:iam::123456789012:role/deploy"
    session_name = "ci"
    external_id  = "x-1"
  }
  default_tags {
    tags = { team = "net" }
  }
  ignore_tags {
    keys         = ["LastScanned"]
    key_prefixes = ["kubernetes.io/"]
  }
  endpoints {
    s3  = "http://127.0.0.1:5000"
    sts = "http://127.0.0.1:5000"
  }
}
provider "aws" {
  alias  = "replica"
  region = "eu-west-1"
}
provider "random" {}
resource "aws_s3_bucket" "b" {
  provider = aws.replica
  bucket   = "acme-replica"
}
"#;
    check_diags(&[("main.tf", text)], expect![""]);
    let (config, _) = parse_config(&[SourceFile::new("main.tf", text)]);
    assert_eq!(config.providers.len(), 3);
    // The live system is opened with the default configuration (the home region); the alias's region
    // is reached from it.
    let live = config.live_provider().expect("a provider block");
    assert_eq!(live.alias, None);
    let bucket = &config.resources()[0];
    assert_eq!(
        bucket.provider_ref(),
        ProviderRef {
            name: "aws".into(),
            alias: Some("replica".into())
        }
    );
    assert_eq!(
        config.providers[0].connection_settings(),
        [
            "assume_role",
            "endpoints",
            "profile",
            "s3_use_path_style",
            "shared_config_files",
            "shared_credentials_files",
            "skip_metadata_api_check"
        ]
    );
}

#[test]
fn config_providers_a_typo_a_second_default_and_a_misplaced_block_are_named() {
    let text = r#"
provider "aws" {
  regoin = "eu-west-1"
  version = "~> 2.0"
  default_tags = { team = "net" }
  ignore_tags {
    key_prefix = ["k8s"]
  }
}
provider "aws" {
  region = "us-east-1"
}
provider "aws" {
  alias = "west"
}
provider "aws" {
  alias = "west"
}
provider "aws" {
  alias = "1st"
}
provider "random" {
  seed = 1
}
resource "aws_vpc" "v" {
  provider   = "aws.west"
  cidr_block = "10.0.0.0/16"
}
"#;
    check_diags(
        &[("main.tf", text)],
        expect![[r#"
            invalid-argument main.tf:3:3 Unsupported argument: the aws provider has no argument `regoin`
            unsupported-construct main.tf:4:3 `version` in a provider block is not supported
            invalid-argument main.tf:5:3 Unsupported argument: `default_tags` in a provider block is a block, not an argument
            invalid-argument main.tf:7:5 Unsupported argument: `ignore_tags` has no argument `key_prefix`
            duplicate-declaration main.tf:10:1 a second `provider "aws"` block without an alias (the first is at main.tf:2:1)
            duplicate-declaration main.tf:16:1 a second `provider "aws"` block with alias `west` (the first is at main.tf:13:1)
            invalid-name main.tf:20:3 Invalid name: alias "1st" is not a valid name
            invalid-argument main.tf:23:3 Unsupported argument: `provider "random"` has no argument `seed`
            invalid-argument main.tf:26:16 Invalid value: `provider` must name a provider configuration"#]],
    );
}
