//! The plan model: every resource change, every report and diagnostic of one plan, as plain data that the
//! renderers, the graph builder and apply read.
//!
//! A [`Plan`] is built only by [`crate::plan`]; a [`ReviewedPlan`] is a plan a person (or `--auto-approve`)
//! accepted, and only it can be applied. This module must never do I/O.

use std::collections::BTreeMap;
use std::sync::Arc;

use admission::Config;
use admission::{BlockAddress, Diagnostic, InstanceAddress, Severity, Slot, Value};
use provider::TagChange;
use provider::schema::DestroyMode;
use provider::{AdmissionPath, Catalog, LiveObject};

use crate::summary::Summary;

// The reports of a plan are the projection's own types: discovery writes them, the renderer reads them,
// and nothing converts them on the way.
pub use projection::{
    BindCandidate, Cost, ForeignObject, OwnedUndeclared, RenameHint, RenameTarget,
    UndeclaredAction, UnownedObject, UnownedVerdict,
};

/// What a plan does to one resource instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Create a new object.
    Create,
    /// Update the object in place.
    Update,
    /// Destroy the old object and create a new one.
    Replace,
    /// Destroy the object.
    Delete,
    /// Nothing to do.
    NoOp,
}

impl Action {
    /// The name plan JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Replace => "replace",
            Action::Delete => "delete",
            Action::NoOp => "no-op",
        }
    }
}

/// The order of the two legs of a replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplaceOrder {
    /// Destroy the old object, then create the new one (the default).
    DestroyBeforeCreate,
    /// Create the new object, then destroy the old one (`create_before_destroy = true`).
    CreateBeforeDestroy,
}

impl ReplaceOrder {
    /// The name plan JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplaceOrder::DestroyBeforeCreate => "destroy-before-create",
            ReplaceOrder::CreateBeforeDestroy => "create-before-destroy",
        }
    }
}

/// One resource change (or no-op) of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceChange {
    /// The instance address (decoded from its marker for an undeclared object).
    pub address: InstanceAddress,
    /// The action.
    pub action: Action,
    /// The live object's id (update, delete, replace, no-op); `None` for a create.
    pub id: Option<String>,
    /// The admission path of the type.
    pub admission: AdmissionPath,
    /// The live object's attributes (tags included for taggable types), `None` for a create.
    pub before: Option<BTreeMap<String, Value>>,
    /// The planned value (defaults, markers and unknowns included), `None` for a delete.
    pub after: Option<BTreeMap<String, Value>>,
    /// A short cause.
    pub reason: Option<String>,
    /// For a replace, the order of its legs.
    pub replace_order: Option<ReplaceOrder>,
    /// The attributes that change (sorted), for the text rendering.
    pub changed: Vec<String>,
    /// The attributes that force the replacement (sorted).
    pub forces: Vec<String>,
    /// The tag change of an update (markers included).
    pub tag_change: TagChange,
    /// The count slot of the instance (its own, or minted for a create).
    pub slot: Option<Slot>,
    /// For the delete of a deposed object: the deposed object's id, which is also its key.
    pub deposed: Option<String>,
    /// The declared instances this one depends on (configuration references and `depends_on`).
    pub depends_on: Vec<InstanceAddress>,
    /// The attributes that are nested block types (sorted), which the text shows as blocks
    /// (`versioning_configuration { … }`).
    pub blocks: Vec<String>,
    /// What the delete of a delete or replace does, as the object's applied destroy arguments ask
    /// (`force_destroy`, `skip_destroy`): a delete, a delete of what it holds first, or a release.
    pub destroy: DestroyMode,
    /// The entries of inline sets (a route table's `route` blocks, a security group's `ingress`) that
    /// the object has and the change removes, each with its cause, in attribute then entry order.
    pub set_removals: Vec<SetRemoval>,
}

/// One entry of an inline set that a change removes.
#[derive(Debug, Clone, PartialEq)]
pub struct SetRemoval {
    /// The block type (`route`).
    pub block: String,
    /// The entry as the object has it.
    pub entry: Value,
    /// Why it is removed.
    pub cause: RemovalCause,
}

/// Why a change removes an entry of an inline set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemovalCause {
    /// The configuration declares the block type, and declared blocks are the whole set: an entry it
    /// does not write is removed (as the AWS provider does with inline routes and rules).
    NotDeclared,
}

impl RemovalCause {
    /// The name plan JSON gives the cause.
    pub fn as_str(self) -> &'static str {
        match self {
            RemovalCause::NotDeclared => "not-declared",
        }
    }

    /// The cause as the plan text says it, for an entry of the block type `block`.
    pub fn explain(self, block: &str) -> String {
        match self {
            RemovalCause::NotDeclared => {
                format!("not declared: the configured `{block}` blocks are the whole set")
            }
        }
    }
}

impl ResourceChange {
    /// The resource type.
    pub fn type_name(&self) -> &str {
        self.address.type_name()
    }

    /// The attribute paths unknown at plan time (dotted, sorted).
    pub fn after_unknown(&self) -> Vec<String> {
        let Some(after) = &self.after else {
            return Vec::new();
        };
        let mut out: Vec<String> = Value::Map(after.clone())
            .unknown_paths()
            .iter()
            .map(ToString::to_string)
            .collect();
        out.sort();
        out
    }

    /// The key used to order changes: address, then deposed objects after the current one.
    pub fn sort_key(&self) -> (InstanceAddress, Option<String>) {
        (self.address.clone(), self.deposed.clone())
    }
}

/// A change the plan holds back, and from when it may be retried: the create of an instance an earlier
/// apply started and did not finish (it may be creating the object right now), and every change that
/// waits on a withheld one. It is a pending change: the plan does not say the live system matches, and
/// an apply that leaves it undone fails with `create-withheld`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithheldChange {
    /// The instance.
    pub address: InstanceAddress,
    /// What would be planned for it (a create, for the interrupted create itself).
    pub action: Action,
    /// Why it is held back.
    pub cause: WithheldCause,
    /// When it may be retried, in seconds since the Unix epoch: the end of the patience of the
    /// interrupted create (the latest of those it waits on).
    pub retry_after: u64,
}

/// Why a change is withheld.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WithheldCause {
    /// An earlier apply wrote the instance's create intent and did not finish (`interrupted-create`).
    InterruptedCreate,
    /// It reads a value of these withheld instances, or depends on them (sorted).
    WaitsOn(Vec<InstanceAddress>),
}

impl WithheldCause {
    /// The name plan JSON uses.
    pub fn as_str(&self) -> &'static str {
        match self {
            WithheldCause::InterruptedCreate => "interrupted-create",
            WithheldCause::WaitsOn(_) => "waits-on-withheld",
        }
    }
}

/// The slot high-water mark of one count block as an apply must leave it before it changes anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SlotMark {
    /// The count block.
    pub block: BlockAddress,
    /// The mark to reach: the highest slot the plan saw live or gives out.
    pub target: Slot,
    /// The highest slot the plan saw recorded or live: a slot above it is minted by this plan.
    pub fresh_above: Option<Slot>,
}

impl SlotMark {
    /// Whether `slot` is one this plan mints (no object or record held it when the plan read them).
    pub fn minted(&self, slot: Slot) -> bool {
        Some(slot) > self.fresh_above
    }
}

/// Everything apply needs beyond the changes: the configuration and what the plan saw.
///
/// Its `Debug` names the variables but never shows their values, and counts the live objects instead of
/// listing their tags: resolved variables and live tags carry no sensitivity marks.
#[derive(Clone, Default)]
pub(crate) struct PlanContext {
    /// The parsed configuration.
    pub config: Config,
    /// The variables' values.
    pub variables: BTreeMap<String, Value>,
    /// The provider configurations' default and ignored tags.
    pub provider_settings: admission::ProviderSettings,
    /// Every resource type known (provider and engine).
    pub catalog: Catalog,
    /// The region.
    pub region: String,
    /// The bound live objects by address.
    pub priors: BTreeMap<InstanceAddress, LiveObject>,
    /// The deposed objects (by id) of each instance.
    pub deposed: BTreeMap<InstanceAddress, Vec<LiveObject>>,
    /// Each declared instance's repetition (for `count.index` and `each.*`).
    pub declared: BTreeMap<InstanceAddress, admission::Instance>,
    /// Deposed records naming objects that no longer exist: apply drops them from the record.
    pub stale_deposed: Vec<(InstanceAddress, String)>,
    /// Pending create intents (left by an interrupted apply) of instances bound to an object and not
    /// changed by this plan, with the object's id: apply marks them done.
    pub settled_intents: Vec<(InstanceAddress, String)>,
    /// The declared instances of each resource block, in address order.
    pub blocks: BTreeMap<BlockAddress, Vec<InstanceAddress>>,
    /// The count blocks whose slot high-water mark an apply raises before it changes anything: below a
    /// slot the plan saw live, or below a slot the plan gives out.
    pub slot_marks: Vec<SlotMark>,
    /// The records as the plan saw them, with the versions every compare-and-swap names.
    pub records: projection::RecordSet,
    /// The record key prefix (empty, or ending with `/`).
    pub key_prefix: String,
    /// Whether the plan destroys everything the estate owns (`-destroy`).
    pub destroy: bool,
    /// Whether `-target` restricted the plan, so that it may leave changes out.
    pub targeted: bool,
}

impl PlanContext {
    /// The outputs whose last applied values are recorded but which the configuration no longer declares:
    /// apply deletes their records.
    pub fn removed_outputs(&self) -> impl Iterator<Item = &str> {
        self.records
            .outputs
            .keys()
            .filter(|name| !self.config.outputs().contains_key(*name))
            .map(String::as_str)
    }

    /// Whether an apply has record work even when no instance changes: outputs to show and record,
    /// deposed records naming objects already gone, intents of creates found live, records of removed
    /// outputs.
    pub fn has_record_work(&self) -> bool {
        !self.config.outputs().is_empty()
            || !self.stale_deposed.is_empty()
            || !self.settled_intents.is_empty()
            || !self.slot_marks.is_empty()
            || self.removed_outputs().next().is_some()
    }
}

impl std::fmt::Debug for PlanContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanContext")
            .field("variables", &self.variables.keys().collect::<Vec<_>>())
            .field("region", &self.region)
            .field("priors", &self.priors.len())
            .field("deposed", &self.deposed.len())
            .field("declared", &self.declared.len())
            .field(
                "blocks",
                &self
                    .blocks
                    .keys()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
            )
            .field("key_prefix", &self.key_prefix)
            .finish_non_exhaustive()
    }
}

/// The result of planning.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The estate (empty when none could be determined).
    pub estate: String,
    /// Every change, no-ops included, sorted by address.
    pub changes: Vec<ResourceChange>,
    /// Foreign objects.
    pub foreign: Vec<ForeignObject>,
    /// Bind candidates.
    pub bind_candidates: Vec<BindCandidate>,
    /// Unowned objects blocking declared instances.
    pub unowned: Vec<UnownedObject>,
    /// Owned objects no longer declared (count surpluses are changes, not reports).
    pub owned_undeclared: Vec<OwnedUndeclared>,
    /// Plausible renames.
    pub rename_hints: Vec<RenameHint>,
    /// The changes held back until an interrupted create may be retried, by address.
    pub withheld: Vec<WithheldChange>,
    /// Every diagnostic, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// What the plan cost.
    pub cost: Cost,
    /// What apply needs.
    pub(crate) context: Arc<PlanContext>,
}

impl Plan {
    /// A plan of no changes holding only `diagnostics` (sorted here): what is shown when no plan could be
    /// made.
    pub(crate) fn of_diagnostics(estate: String, mut diagnostics: Vec<Diagnostic>) -> Plan {
        diagnostics.sort_by(|a, b| {
            a.sort_key()
                .cmp(&b.sort_key())
                .then_with(|| a.summary.cmp(&b.summary))
        });
        Plan {
            estate,
            changes: Vec::new(),
            foreign: Vec::new(),
            bind_candidates: Vec::new(),
            unowned: Vec::new(),
            owned_undeclared: Vec::new(),
            rename_hints: Vec::new(),
            withheld: Vec::new(),
            diagnostics,
            cost: Cost::default(),
            context: Arc::new(PlanContext::default()),
        }
    }

    /// This plan with `more` diagnostics (warnings of the caller's own, such as provider settings a live
    /// system ignores), kept in the plan's sorted order.
    pub fn with_diagnostics(mut self, more: Vec<Diagnostic>) -> Plan {
        if more.is_empty() {
            return self;
        }
        self.diagnostics.extend(more);
        self.diagnostics.sort_by(|a, b| {
            a.sort_key()
                .cmp(&b.sort_key())
                .then_with(|| a.summary.cmp(&b.summary))
        });
        self
    }

    /// Whether applying has record work even when no instance changes: outputs to show and record,
    /// deposed records naming objects already gone, intents of creates found live, records of removed
    /// outputs.
    pub fn has_record_work(&self) -> bool {
        self.context.has_record_work()
    }

    /// The live object the plan bound to `address`, as it was read.
    pub fn prior(&self, address: &InstanceAddress) -> Option<&LiveObject> {
        self.context.priors.get(address)
    }

    /// Every bound live object, by instance, in address order.
    pub fn priors(&self) -> impl Iterator<Item = (&InstanceAddress, &LiveObject)> {
        self.context.priors.iter()
    }

    /// The root module's outputs as the last apply recorded them, by name: each value as JSON (in the
    /// clear, sensitive or not) and whether it is sensitive. An output the configuration no longer
    /// declares is here until the next apply drops its record, as Terraform's state keeps it.
    pub fn recorded_outputs(
        &self,
    ) -> impl Iterator<Item = (&str, &projection::record::OutputRecord)> {
        self.context
            .records
            .outputs
            .iter()
            .map(|(name, stored)| (name.as_str(), &stored.body))
    }

    /// Whether the configuration declares output `name` sensitive.
    pub fn output_is_sensitive(&self, name: &str) -> bool {
        self.context
            .config
            .outputs()
            .get(name)
            .is_some_and(|o| o.sensitive)
    }

    /// Whether this is a destroy plan (`-destroy`, `liveplan destroy`).
    pub fn destroys_estate(&self) -> bool {
        self.context.destroy
    }

    /// Whether the plan can be applied: no error diagnostic.
    pub fn applicable(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }

    /// The counts of the summary line.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for c in &self.changes {
            match c.action {
                Action::Create => s.add += 1,
                Action::Update => s.change += 1,
                Action::Delete => s.destroy += 1,
                Action::Replace => {
                    s.add += 1;
                    s.destroy += 1;
                }
                Action::NoOp => {}
            }
        }
        s.withheld = self.withheld.len();
        s
    }

    /// The changes that do something (no-ops left out).
    pub fn effective_changes(&self) -> impl Iterator<Item = &ResourceChange> {
        self.changes.iter().filter(|c| c.action != Action::NoOp)
    }

    /// Marks the plan as reviewed. Refuses a plan with error diagnostics.
    pub fn review(self) -> Result<ReviewedPlan, crate::Error> {
        let errors = self
            .diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .count();
        if errors > 0 {
            return Err(crate::Error::NotApplicable { errors });
        }
        Ok(ReviewedPlan { plan: self })
    }
}

/// A plan accepted for apply: applicable, and seen by whoever approved it.
#[derive(Debug, Clone)]
pub struct ReviewedPlan {
    plan: Plan,
}

impl ReviewedPlan {
    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}
