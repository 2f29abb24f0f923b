//! A configuration built in code: what it refuses to write out, and how the engine judges what it wrote.

use std::sync::Arc;

use liveplan::{
    Argument, Configuration, ConfigurationError, Counting, MemoryStore, Resource, SimCloud,
    SimConfig, Store, Type, Value,
};

fn refusal(config: Configuration) -> String {
    config
        .source_files()
        .expect_err("the configuration is refused")
        .to_string()
}

#[test]
fn embed_configuration_refuses_names_and_values_a_configuration_cannot_hold() {
    assert_eq!(
        refusal(Configuration::new("acme").resource(Resource::new("aws_vpc", "1st"))),
        r#"resource name "1st" is not an identifier (letters, digits, `_` and `-`, not starting with a digit)"#
    );
    assert_eq!(
        refusal(
            Configuration::new("acme")
                .resource(Resource::new("aws_vpc", "main").set("cidr block", "10.0.0.0/16"))
        ),
        r#"argument "cidr block" is not an identifier (letters, digits, `_` and `-`, not starting with a digit)"#
    );
    assert_eq!(
        refusal(Configuration::new("acme").resource(
            Resource::new("aws_vpc", "main").set("cidr_block", Value::unknown_of(Type::String))
        )),
        "argument cidr_block of aws_vpc.main holds an unknown value, which a configuration cannot state"
    );
    assert_eq!(
        refusal(Configuration::new("acme").output("secret", Value::from("s3cr3t").sensitive())),
        "argument value of output.secret holds a sensitive value, which a configuration cannot state"
    );
    assert_eq!(
        Configuration::new("acme")
            .resource(Resource::new("aws_vpc", "main"))
            .resource(Resource::new("aws_vpc", "main"))
            .source_files(),
        Err(ConfigurationError::Duplicate("aws_vpc.main".to_owned()))
    );
}

#[tokio::test]
async fn embed_configuration_writes_strings_that_look_like_templates_as_plain_text() {
    let note = "cost ${var.x} \"quoted\"";
    let config = Configuration::new("acme")
        .resource(Resource::new("aws_vpc", "main").set("cidr_block", "10.0.0.0/16"))
        .resource(
            Resource::new("aws_s3_bucket", "logs")
                .set("bucket", "acme-logs")
                .set("tags", Value::map([("Note", note)]))
                .depends_on("aws_vpc", "main"),
        );
    assert_eq!(
        config.source_files().unwrap()[0].text,
        r#"live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
  tags = {
    "Note" = "cost $${var.x} \"quoted\""
  }
  depends_on = [
    aws_vpc.main
  ]
}
"#
    );

    // The engine reads back exactly the string that was set, not an interpolation.
    let cloud = SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default()).unwrap();
    let engine = liveplan::Engine::new(Arc::new(cloud), Arc::new(MemoryStore::new()));
    let plan = config.plan(&engine).await.expect("the plan runs");
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    let bucket = plan
        .changes
        .iter()
        .find(|c| c.address.to_string() == "aws_s3_bucket.logs")
        .expect("the bucket is planned");
    let tags = bucket.after.as_ref().expect("a create")["tags"].clone();
    assert_eq!(tags.get("Note").and_then(Value::as_str), Some(note));
}

#[tokio::test]
async fn embed_configuration_problems_come_back_as_the_plans_diagnostics() {
    let cloud = Arc::new(Counting::new(
        SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default()).unwrap(),
    ));
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let engine = liveplan::Engine::new(Arc::clone(&cloud) as _, store);
    let config = Configuration::new("Not An Estate")
        .resource(Resource::new("aws_vpc", "main").set("cidr_block", "10.0.0.0/16"))
        .resource(
            Resource::new("aws_subnet", "a")
                .set("vpc_id", Argument::reference("aws_vpc", "other", "id"))
                .set("cidr_block", "10.0.1.0/24"),
        );
    let plan = config.plan(&engine).await.expect("the plan runs");
    let codes: Vec<&str> = plan.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["invalid-estate", "unknown-reference"]);
    assert!(!plan.applicable());
    assert_eq!(cloud.total(), 0, "nothing was read");
}
