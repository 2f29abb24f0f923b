//! The cloud under test of the differential suite (`differential.rs`): one engine over either the
//! simulated cloud or the real AWS provider on the local AWS emulator, in an emulator account of its own,
//! with the few things a journey does beside plan and apply (objects made by hand, drift, `adopt`, `mv`),
//! and the normalisation that makes two transcripts comparable: server-minted ids, access key ids and
//! account ids become `<vpc-1>` style names in order of first appearance, and the lines of every report
//! are sorted after that.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use admission::{InstanceAddress, SourceFile, VariableInputs};
use engine::graph::FinalKind;
use engine::render::{self, RenderOptions};
use engine::{
    ApplyConfig, ApplyEvent, ApplyEventKind, Engine, MvOptions, Plan, RetryConfig, Sources,
};
use fixtures::{SimCloud, SimConfig};
use liveplan::aws::{AwsProvider, AwsProviderConfig};
use provider::Provider;
use regex::{Captures, Regex};
use serde_json::{Value as Json, json};
use staterecord::testkit::emulator::S3Emulator;
use staterecord::{MemoryStore, Store};

/// Which live system a cloud under test is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The simulated cloud, in memory.
    Sim,
    /// The AWS provider against the local AWS emulator, in a fresh account.
    Emulator,
}

/// The SDK clients of the emulator account, to make and change objects by hand.
struct Account {
    ec2: aws_sdk_ec2::Client,
    iam: aws_sdk_iam::Client,
    logs: aws_sdk_cloudwatchlogs::Client,
    s3: aws_sdk_s3::Client,
}

enum Backend {
    Sim(Arc<SimCloud>),
    Emulator(Box<Account>),
}

/// One engine over one live system, and what a journey does beside plan and apply.
pub(crate) struct Cloud {
    pub(crate) kind: Kind,
    /// The name the journey gives its estate and its client-named objects (the same on both clouds).
    pub(crate) name: String,
    /// The known differences laid over the simulated cloud's transcript.
    known: &'static [KnownDifference],
    engine: Engine,
    backend: Backend,
}

/// What an apply did: the report a user reads, and the order the operations completed in.
pub(crate) struct Applied {
    /// The diagnostics, one line each, then one line per completed operation (sorted), then the summary.
    pub(crate) report: String,
    /// `create ADDRESS`, `update ADDRESS`, `delete ADDRESS` in completion order.
    pub(crate) order: Vec<String>,
}

/// A name no other test or process uses, shared by the two runs of one journey.
/// The line that starts another file of a journey's configuration: `# file: modules/net/main.tf`.
pub(crate) const FILE_MARK: &str = "# file: ";

/// A journey's configuration as files: the text up to the first [`FILE_MARK`] line is `main.tf`, each
/// such line starts the file it names (a called module's, named by its path).
pub(crate) fn source_files(config: &str) -> Vec<SourceFile> {
    let mut files = vec![SourceFile::new("main.tf", String::new())];
    for line in config.split_inclusive('\n') {
        match line.strip_prefix(FILE_MARK) {
            Some(name) => files.push(SourceFile::new(name.trim(), String::new())),
            None => {
                if let Some(last) = files.last_mut() {
                    last.text.push_str(line);
                }
            }
        }
    }
    files
}

pub(crate) fn unique_name(hint: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    format!("lp-{hint}-{}-{nanos:08x}{n}", std::process::id())
}

impl Cloud {
    /// A cloud under test of `kind` for the journey named `name`, which meets the `known` differences.
    pub(crate) async fn new(kind: Kind, name: &str, known: &'static [KnownDifference]) -> Cloud {
        let (provider, backend): (Arc<dyn Provider>, Backend) = match kind {
            Kind::Sim => {
                let sim = Arc::new(SimCloud::new(SimConfig::default()));
                (sim.clone(), Backend::Sim(sim))
            }
            Kind::Emulator => {
                S3Emulator::from_env()
                    .await
                    .expect("the AWS emulator is required: run the tests through scripts/test");
                let (config, _) = crate::aws_e2e::fresh_account(4, "liveplan-differential").await;
                let provider = AwsProvider::from_sdk_config(&config, &AwsProviderConfig::default())
                    .expect("AWS_REGION is set by scripts/test");
                let account = Account {
                    ec2: aws_sdk_ec2::Client::new(&config),
                    iam: aws_sdk_iam::Client::new(&config),
                    logs: aws_sdk_cloudwatchlogs::Client::new(&config),
                    s3: aws_sdk_s3::Client::from_conf(staterecord::s3::s3_config(&config).build()),
                };
                (Arc::new(provider), Backend::Emulator(Box::new(account)))
            }
        };
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let engine = Engine::new(provider, store).with_retry(RetryConfig::immediate(4));
        Cloud {
            kind,
            name: name.to_owned(),
            known,
            engine,
            backend,
        }
    }

    /// A transcript for a journey on this cloud: on the simulated cloud, the known differences are laid
    /// over it, so that it reads as the emulator's should.
    pub(crate) fn transcript(&self) -> Transcript {
        Transcript {
            known: match self.kind {
                Kind::Sim => self.known,
                Kind::Emulator => &[],
            },
            ..Transcript::default()
        }
    }

    /// The plan of `config` (one `main.tf`, and the files of called modules after
    /// [`FILE_MARK`] lines, see [`source_files`]).
    pub(crate) async fn plan(&self, config: &str) -> Plan {
        let files = source_files(config);
        let inputs = VariableInputs::default();
        self.engine
            .plan(Sources::new(&files, &inputs))
            .await
            .expect("the plan runs")
    }

    /// The plan of `config` and its text, both recorded in `transcript` under `title`.
    pub(crate) async fn plan_text(
        &self,
        transcript: &mut Transcript,
        title: &str,
        config: &str,
    ) -> (Plan, String) {
        let plan = self.plan(config).await;
        let text = render::text(&plan, RenderOptions::default());
        transcript.plan(title, &plan, &text);
        (plan, text)
    }

    /// The text of a plan of `config`, recorded nowhere (for a step whose plans differ on purpose).
    pub(crate) async fn unrecorded_plan_text(&self, config: &str) -> String {
        render::text(&self.plan(config).await, RenderOptions::default())
    }

    /// Applies `plan`, which must be applicable.
    pub(crate) async fn apply(&self, plan: Plan) -> Applied {
        let reviewed = plan.review().expect("the plan is applicable");
        let events: Arc<Mutex<Vec<ApplyEvent>>> = Arc::default();
        let sink = Arc::clone(&events);
        let config = ApplyConfig {
            events: Some(Arc::new(move |e: &ApplyEvent| {
                if e.kind == ApplyEventKind::Completed {
                    sink.lock().unwrap().push(e.clone());
                }
            })),
            ..ApplyConfig::default()
        };
        let outcome = self
            .engine
            .apply(&reviewed, config)
            .await
            .expect("the apply runs");
        let events = events.lock().unwrap().clone();
        applied_report(&outcome.diagnostics, &events)
    }

    /// `liveplan adopt ADDRESS` with `config`: the outcome's id or its diagnostics, as a line.
    pub(crate) async fn adopt(&self, config: &str, address: &str) -> String {
        let files = source_files(config);
        let inputs = VariableInputs::default();
        let address: InstanceAddress = address.parse().expect("an address");
        let outcome = self
            .engine
            .adopt(Sources::new(&files, &inputs), &address, None)
            .await
            .expect("adopt runs");
        ownership_line("adopted", &address, &outcome)
    }

    /// `liveplan mv OLD NEW` with `config`: the outcome as a line.
    pub(crate) async fn mv(&self, config: &str, old: &str, new: &str) -> String {
        let files = source_files(config);
        let inputs = VariableInputs::default();
        let old: InstanceAddress = old.parse().expect("an address");
        let new: InstanceAddress = new.parse().expect("an address");
        let outcome = self
            .engine
            .mv(
                Sources::new(&files, &inputs),
                &old,
                &new,
                MvOptions::default(),
            )
            .await
            .expect("mv runs");
        ownership_line(&format!("moved to {new}"), &old, &outcome)
    }

    /// Makes an object directly in the live system, with no tags (on the simulated cloud through its
    /// API, on the emulator through the SDK), and returns its id.
    pub(crate) async fn make(&self, type_name: &str, attributes: Json) -> String {
        match &self.backend {
            Backend::Sim(sim) => {
                let attributes: BTreeMap<String, Json> =
                    serde_json::from_value(attributes).expect("an object of attributes");
                SimCloud::create(sim, type_name, &attributes, &BTreeMap::new())
                    .await
                    .unwrap_or_else(|e| panic!("the simulated cloud makes {type_name}: {e}"))
                    .object
                    .id
            }
            Backend::Emulator(account) => {
                crate::differential_sdk::make(account_clients(account), type_name, &attributes)
                    .await
            }
        }
    }

    /// Sets a log group's retention out of band (drift).
    pub(crate) async fn set_retention(&self, group: &str, days: i32) {
        match &self.backend {
            Backend::Sim(sim) => {
                let changes: BTreeMap<String, Json> =
                    [("retention_in_days".to_owned(), json!(days))].into();
                SimCloud::update(sim, "aws_cloudwatch_log_group", group, &changes)
                    .await
                    .expect("the simulated cloud changes the group");
            }
            Backend::Emulator(account) => {
                account
                    .logs
                    .put_retention_policy()
                    .log_group_name(group)
                    .retention_in_days(days)
                    .send()
                    .await
                    .expect("the emulator changes the group");
            }
        }
    }
}

/// The SDK clients of an account, for the module that makes objects through them.
fn account_clients(account: &Account) -> crate::differential_sdk::Clients<'_> {
    crate::differential_sdk::Clients {
        ec2: &account.ec2,
        iam: &account.iam,
        logs: &account.logs,
        s3: &account.s3,
    }
}

fn ownership_line(
    done: &str,
    address: &InstanceAddress,
    outcome: &engine::OwnershipOutcome,
) -> String {
    if outcome.succeeded() {
        format!(
            "{address}: {done} ({})",
            outcome.id.as_deref().unwrap_or("no id")
        )
    } else {
        let diagnostics: Vec<String> = outcome.diagnostics.iter().map(|d| d.to_string()).collect();
        format!("{address}: refused: {}", diagnostics.join("; "))
    }
}

/// The report of an apply from its diagnostics and completed operations.
fn applied_report(diagnostics: &[admission::Diagnostic], events: &[ApplyEvent]) -> Applied {
    let mut lines: Vec<String> = diagnostics.iter().map(|d| d.to_string()).collect();
    let (mut added, mut changed, mut destroyed) = (0, 0, 0);
    let mut done = Vec::new();
    let mut order = Vec::new();
    for e in events {
        let (verb, line) = match e.action {
            FinalKind::Create => {
                added += 1;
                ("create", "Creation complete")
            }
            FinalKind::Update => {
                changed += 1;
                ("update", "Modifications complete")
            }
            FinalKind::Delete => {
                destroyed += 1;
                ("delete", "Destruction complete")
            }
        };
        order.push(format!("{verb} {}", e.address));
        done.push(format!("{}: {line}", e.address));
    }
    done.sort();
    lines.extend(done);
    lines.push(format!(
        "Apply complete! Resources: {added} added, {changed} changed, {destroyed} destroyed."
    ));
    Applied {
        report: lines.join("\n") + "\n",
        order,
    }
}

/// The headers of the plan text's reports, whose lines are sorted after normalising.
const REPORT_HEADERS: [&str; 5] = [
    "Foreign objects (not managed; never changed):",
    "Adoption candidates:",
    "Blocked by objects this estate does not own:",
    "Owned but no longer declared:",
    "Possible renames:",
];

/// Ids minted by a live system, replaced by a name per kind in order of first appearance.
fn minted_ids() -> Regex {
    Regex::new(concat!(
        r"\b(?:(vpc|subnet|sg|igw|rtb|rtbassoc|eipalloc|eipassoc|acl|aclassoc|dopt|eni)-[0-9a-f]{8,17}",
        r"|(AKIA|ASIA|AIDA|AROA)[0-9A-Z]{12,20}",
        r"|(\d{12})\b)",
    ))
    .expect("the id pattern compiles")
}

/// The names given to minted ids so far, by order of first appearance.
#[derive(Default)]
struct Names {
    names: BTreeMap<String, String>,
    counts: BTreeMap<String, usize>,
}

impl Names {
    /// `text` with every minted id named (the ids seen before keep their names).
    fn normalise(&mut self, text: &str) -> String {
        let Names { names, counts } = self;
        let named = minted_ids().replace_all(text, |c: &Captures<'_>| {
            let found = c.get(0).map_or("", |m| m.as_str()).to_owned();
            let kind = c
                .get(1)
                .or_else(|| c.get(2))
                .map_or("account", |m| m.as_str())
                .to_owned();
            names
                .entry(found)
                .or_insert_with(|| {
                    let n = counts.entry(kind.clone()).or_insert(0);
                    *n += 1;
                    format!("<{kind}-{n}>")
                })
                .clone()
        });
        named.into_owned()
    }
}

/// The lines under each report header sorted (a report ends at the first line not indented).
fn sort_reports(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut report: Option<Vec<String>> = None;
    for line in text.lines() {
        if let Some(lines) = report.as_mut() {
            if line.starts_with("  ") {
                lines.push(line.to_owned());
                continue;
            }
            lines.sort();
            out.append(lines);
            report = None;
        }
        out.push(line.to_owned());
        if REPORT_HEADERS.contains(&line) {
            report = Some(Vec::new());
        }
    }
    if let Some(mut lines) = report {
        lines.sort();
        out.append(&mut lines);
    }
    out.join("\n") + "\n"
}

/// The report arrays of the plan JSON, sorted after normalising.
const JSON_REPORTS: [&str; 5] = [
    "foreign",
    "bind_candidates",
    "unowned",
    "owned_undeclared",
    "rename_hints",
];

/// A journey's record of what a user saw, step by step, normalised as it is written: minted ids named
/// by order of first appearance, each report's lines (and the plan JSON's report arrays) sorted, and the
/// known differences laid over it (see [`Cloud::transcript`]).
#[derive(Default)]
pub(crate) struct Transcript {
    names: Names,
    text: String,
    known: &'static [KnownDifference],
    /// The known differences that showed.
    shown: BTreeSet<&'static str>,
}

impl Transcript {
    /// Adds a titled step.
    pub(crate) fn step(&mut self, title: &str, body: &str) {
        let mut body = sort_reports(&self.names.normalise(body));
        for k in self.known {
            if let Some(rewritten) = k.rewrite_text(&body) {
                body = rewritten;
                self.shown.insert(k.what);
            }
        }
        self.text.push_str(&format!("== {title}\n{body}"));
    }

    /// Adds a plan: its text, then its JSON without the cost (which counts each cloud's own calls).
    pub(crate) fn plan(&mut self, title: &str, plan: &Plan, text: &str) {
        self.step(title, text);
        let mut doc: Json = serde_json::from_str(&render::json(plan, RenderOptions::default()))
            .expect("the plan JSON parses");
        if let Some(map) = doc.as_object_mut() {
            map.remove("cost");
        }
        for k in self.known {
            if k.rewrite_json(&mut doc) {
                self.shown.insert(k.what);
            }
        }
        let named = self.names.normalise(&doc.to_string());
        let mut doc: Json = serde_json::from_str(&named).expect("the named JSON parses");
        for key in JSON_REPORTS {
            if let Some(Json::Array(entries)) = doc.get_mut(key) {
                entries.sort_by_key(Json::to_string);
            }
        }
        let pretty = serde_json::to_string_pretty(&doc).unwrap_or_default();
        self.text
            .push_str(&format!("== {title} (JSON)\n{pretty}\n"));
    }

    /// The whole transcript, checked: every known difference laid over it showed somewhere.
    pub(crate) fn finished(self) -> String {
        for k in self.known {
            assert!(
                self.shown.contains(k.what),
                "the known difference \"{}\" no longer shows: take it out of README and the journey",
                k.what
            );
        }
        self.text
    }
}

/// The last line of a plan's text.
pub(crate) fn summary_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

/// A difference between the two clouds that README lists ("Running against a local AWS emulator"), as
/// it shows in a plan: a pattern of the simulated cloud's text and what the emulator's holds in its place,
/// and the attributes of one type's prior value that the emulator's JSON leaves out. A journey names the
/// ones it meets; each must still show, so that the list cannot go stale.
pub(crate) struct KnownDifference {
    /// What differs, as README says it.
    pub(crate) what: &'static str,
    /// A pattern of the simulated cloud's text, and its replacement (`$1` for the first group).
    text: (&'static str, &'static str),
    /// The resource type, and the attributes of its `before` value absent from the emulator's JSON.
    absent: (&'static str, &'static [&'static str]),
}

impl KnownDifference {
    /// `text` as the emulator shows it, or `None` when the difference does not show in it.
    fn rewrite_text(&self, text: &str) -> Option<String> {
        let pattern = Regex::new(self.text.0).expect("the pattern compiles");
        pattern
            .is_match(text)
            .then(|| pattern.replace_all(text, self.text.1).into_owned())
    }

    /// Takes the absent attributes out of the prior values of the plan JSON `doc`; whether any was there.
    fn rewrite_json(&self, doc: &mut Json) -> bool {
        let (type_name, attributes) = self.absent;
        let mut removed = false;
        let changes = doc.get_mut("resource_changes").and_then(Json::as_array_mut);
        for change in changes.into_iter().flatten() {
            if change["type"] != type_name {
                continue;
            }
            if let Some(before) = change.get_mut("before").and_then(Json::as_object_mut) {
                for a in attributes {
                    removed |= before.remove(*a).is_some();
                }
            }
        }
        removed
    }
}

/// What a converged plan prints last.
pub(crate) const NO_CHANGES: &str = "No changes. The live system matches the configuration.";
