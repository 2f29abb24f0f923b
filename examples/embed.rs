//! Embedding liveplan: a provider of your own, a configuration built in code, records in a directory.
//!
//! The live system here is "kv", a tiny in-memory key/value cloud (the `kvcloud` crate beside this file,
//! which depends on liveplan's `provider` seam alone) with two resource types: `kv_namespace`, named by the
//! client, and `kv_entry`, whose ids the server mints.
//!
//! The program plans a namespace with two entries, prints the plan, saves it (the bytes `plan -out FILE`
//! writes), reads the saved plan back and applies exactly it while printing each operation (a saved plan
//! that something moved under would be refused with `stale-plan`), then plans again and prints `No
//! changes`. Run it with `cargo run --example embed`.

use std::error::Error;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use kvcloud::KvCloud;
use liveplan::render::{self, RenderOptions};
use liveplan::{
    ApplyConfig, ApplyEvent, Argument, Configuration, Engine, LocalStore, PlanOptions, Resource,
    SavedPlan, SavedReview, Sources, Store, VariableInputs,
};

/// The configuration, built in code: one namespace and two entries in it.
fn configuration() -> Configuration {
    let namespace_id = Argument::reference("kv_namespace", "orders", "id");
    Configuration::new("shop")
        .resource(
            Resource::new("kv_namespace", "orders")
                .set("name", "orders")
                .set("description", "Orders of the shop"),
        )
        .resource(
            Resource::new("kv_entry", "greeting")
                .set("namespace", namespace_id.clone())
                .set("key", "greeting")
                .set("value", "hello"),
        )
        .resource(
            Resource::new("kv_entry", "limit")
                .set("namespace", namespace_id)
                .set("key", "limit")
                .set("value", "100"),
        )
        .output(
            "greeting_id",
            Argument::reference("kv_entry", "greeting", "id"),
        )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    run(Arc::new(Mutex::new(std::io::stdout()))).await
}

/// The whole program, writing what it shows to `out` (standard output when run as a program).
pub(crate) async fn run<W: Write + Send + 'static>(
    out: Arc<Mutex<W>>,
) -> Result<(), Box<dyn Error>> {
    let cloud = Arc::new(KvCloud::default());
    let records = tempfile::tempdir()?;
    let store: Arc<dyn Store> = Arc::new(LocalStore::open(records.path())?);
    let engine = Engine::new(cloud, Arc::clone(&store));
    let config = configuration();
    let say = |text: &str| -> std::io::Result<()> {
        let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
        writeln!(out, "{text}")
    };

    let files = config.source_files()?;
    let inputs = VariableInputs::default();
    let plan = engine.plan(Sources::new(&files, &inputs)).await?;
    say(&render::text(&plan, RenderOptions::default()))?;

    // Save the plan for review (a pull request shows it), then apply exactly that plan later: the
    // engine checks that nothing it relies on moved, and makes no other change.
    let bytes = engine
        .save(
            &plan,
            Sources::new(&files, &inputs),
            &PlanOptions::default(),
        )
        .await?
        .to_bytes();
    let saved = SavedPlan::from_slice(&bytes)?;
    let reviewed = match engine.review_saved(&saved, None).await? {
        SavedReview::Current(reviewed) => reviewed,
        SavedReview::Refused(problems) => {
            for problem in &problems {
                say(&problem.to_string())?;
            }
            return Err("the saved plan cannot be applied".into());
        }
    };

    let events = Arc::clone(&out);
    let apply_config = ApplyConfig {
        events: Some(Arc::new(move |event: &ApplyEvent| {
            let mut out = events.lock().unwrap_or_else(PoisonError::into_inner);
            // An event callback cannot fail the apply; a line that cannot be written is lost.
            let _ = writeln!(out, "{}", event.line());
        })),
        ..ApplyConfig::default()
    };
    let outcome = engine.apply(&reviewed, apply_config).await?;
    for diagnostic in &outcome.diagnostics {
        say(&diagnostic.to_string())?;
    }
    if !outcome.succeeded() {
        return Err("the apply failed".into());
    }
    let summary = reviewed.plan().summary();
    say(&format!(
        "\nApply complete! Resources: {} added, {} changed, {} destroyed.",
        summary.add, summary.change, summary.destroy
    ))?;
    for (name, value) in &outcome.outputs {
        say(&format!("{name} = {value}"))?;
    }
    let keys = store.list("").await?;
    say(&format!(
        "{} micro-state record(s) kept in {}\n",
        keys.len(),
        records.path().display()
    ))?;

    let again = config.plan(&engine).await?;
    let text = render::text(&again, RenderOptions::default());
    say(text.trim_end())?;
    Ok(())
}
