//! The projection: the live system read through the four admission paths into an ephemeral prior state.
//!
//! This crate does the reads of a plan and reports what it found:
//! - [`record`]: the micro-state records of the estate, loaded in one bulk trip; their keys and payloads are
//!   the record format the engine writes back, so this module is public;
//! - [`Declared`]: the plain model of what the configuration declares, independent of the HCL front end;
//! - [`project()`]: discovery (bulk listings, the tagging sweep, single reads for the exceptions) and
//!   binding, with every ownership verdict, count slots, parent-derived and list-and-match instances;
//! - [`Projection`]: the prior state plus the reports (typed end to end: [`UnownedVerdict`],
//!   [`RenameTarget`], [`UndeclaredAction`]) and the cost;
//! - [`shell_word`]: the one quoting rule of the commands a plan suggests;
//! - [`Retrying`]: the decorator that retries a provider's calls with a bounded, jittered backoff
//!   ([`RetryConfig`], [`Backoff`]), the one retry of discovery, apply, `adopt` and `mv`.
//!
//! The other modules are private; what an embedder needs is re-exported here.
//!
//! ```
//! use fixtures::{SimCloud, SimConfig};
//! use provider::Provider as _;
//! use projection::{Binding, Declared, DeclaredInstance, DeclaredValue, ProjectionConfig};
//! use staterecord::{CacheScope, MemoryStore};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let cloud = SimCloud::from_json(r#"{"resources": [
//!     {"type": "aws_s3_bucket", "id": "acme-data", "attributes": {"bucket": "acme-data"},
//!      "tags": {"tofu-estate": "acme", "tofu-address": "aws_s3_bucket.data"}}]}"#,
//!     SimConfig::default()).unwrap();
//! let mut declared = Declared::new();
//! declared.add(DeclaredInstance::new("aws_s3_bucket.data".parse().unwrap())
//!     .identity("bucket", DeclaredValue::known("acme-data")))?;
//! declared.add(DeclaredInstance::new("aws_vpc.main".parse().unwrap()))?;
//!
//! let estate = admission::Estate::new("acme").unwrap();
//! let records = CacheScope::new().cache(std::sync::Arc::new(MemoryStore::new()), "acme/");
//! let config = ProjectionConfig::at(1_700_000_000);
//! let p = projection::project(&cloud, cloud.schemas(), &records, &estate, &declared, &config).await?;
//!
//! let data = p.instance(&"aws_s3_bucket.data".parse().unwrap()).unwrap();
//! assert_eq!(data.binding.object().map(|o| o.id.as_str()), Some("acme-data"));
//! assert_eq!(p.instance(&"aws_vpc.main".parse().unwrap()).unwrap().binding, Binding::Create);
//! assert_eq!(p.cost.store_trips, 1);
//! # Ok::<(), projection::ProjectionError>(())
//! # }).unwrap();
//! ```
//!
//! An embedder with a front end of its own can skip HCL entirely: build the [`Declared`] model by hand,
//! as above, and [`project()`] answers what the live system holds for it. A projection is a value of one
//! plan: build a new one for the next plan rather than keeping it, since the live system moves on.
//!
//! Tracing: [`project()`] runs in a `project` span carrying `estate`; each stage of discovery in a
//! `discover` span carrying `estate` and `path` (`bulk` for the listings and the tagging sweep,
//! `client-named`, `marker`, `parent-derived`, `list-match`, `record`, and `sweep` for the reads that
//! confirm owned objects before they are planned for deletion); and each attempt of each provider call
//! in a `provider_call` span carrying `estate`, `operation` (`list`, `read`, `read_by_id`,
//! `tagged_resources`), `type_name` and, for reads, `identity`. A provider's own spans (the simulated
//! cloud's `call{operation=ec2:DescribeVpcs}`) nest inside them.
//!
//! It never writes: not to the cloud, not to the store, and nothing it builds is persisted. It never
//! binds a foreign, malformed, colliding or other estate's object as owned, and never prints.

pub mod b64;
mod declared;
mod discover;
mod error;
mod output;
pub mod record;
mod retry;
mod shell;
mod verdict;

pub use declared::{Declared, DeclaredInstance, DeclaredValue, Expansion};
/// Whether a live address marker marks an address (for the property test that holds it to the grammar).
#[doc(hidden)]
pub use discover::marks;
pub use discover::{INTENT_PATIENCE_SECS, ProjectionConfig, project};
pub use error::ProjectionError;
pub use output::{
    BindCandidate, Binding, Cost, DeposedObject, ForeignObject, InstanceState, OwnedUndeclared,
    Projection, Removal, RenameHint, RenameTarget, Repair, UndeclaredAction, UnownedObject,
    Withheld,
};
pub use record::{RecordKeys, RecordSet, load_records, load_records_for};
pub use retry::{Backoff, RetryConfig, Retrying};
pub use shell::shell_word;
pub use verdict::UnownedVerdict;
