//! Diagnostics: the user-facing problems every crate reports, each with a stable code.
//!
//! A diagnostic is data, not an error to propagate: plans carry many of them, sorted, in their text and JSON.
//! Codes never change once published; the summary names what is wrong in one line and the detail says what
//! to do.

use std::fmt;

/// How bad a diagnostic is. Errors make a plan not applicable; warnings change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The plan cannot be applied.
    Error,
    /// Reported, changes nothing.
    Warning,
}

impl Severity {
    /// The name used in plan JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal, $severity:ident;)*) => {
        /// The stable code of a diagnostic.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case name of the code.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The severity diagnostics with this code always have.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// The code with the given name, if there is one.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $($name => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// HCL does not parse.
    ConfigSyntax = "config-syntax", Error;
    /// Valid Terraform that liveplan does not implement (a construct, argument or block Terraform accepts).
    UnsupportedConstruct = "unsupported-construct", Error;
    /// An expression error of the configuration's own: an operand of the wrong type, a missing attribute or
    /// key, an index out of range, a division by zero, a local that refers to itself, a call to a function
    /// that does not exist (the summary starts with Terraform's words: `Invalid operand`, `Unsupported
    /// attribute`, `Invalid index`, ...).
    InvalidExpression = "invalid-expression", Error;
    /// An argument Terraform refuses where it is written, one with the wrong kind of value, or a required
    /// argument left out (`Unsupported argument`, `Invalid value`, `Missing required argument`).
    InvalidArgument = "invalid-argument", Error;
    /// A block Terraform refuses where it is written, with the wrong number of labels, or without a block
    /// it needs (`Unsupported block type`, `Missing name`, `Missing required block`).
    InvalidBlock = "invalid-block", Error;
    /// A command-line option liveplan accepts from Terraform's spelling but cannot honour
    /// (`-refresh=false`, `-refresh-only`: a stateless plan always reads the live system).
    UnsupportedOption = "unsupported-option", Error;
    /// A reference to something not declared.
    UnknownReference = "unknown-reference", Error;
    /// A module call whose module cannot be read: a remote source not installed, a directory with no
    /// configuration files, calls nested too deep.
    ModuleSource = "module-source", Error;
    /// A built-in function refused its arguments (Terraform's "Invalid function argument").
    InvalidFunctionArgument = "invalid-function-argument", Error;
    /// A block in a resource body of a type its resource type's schema does not have.
    UnsupportedBlockType = "unsupported-block-type", Error;
    /// A nested block type written as an argument (`name = { ... }` instead of `name { ... }`).
    BlockAsArgument = "block-as-argument", Error;
    /// Fewer or more blocks of a nested block type than its schema allows (its min/max items).
    BlockCount = "block-count", Error;
    /// A resource whose inline set (a route table's `route` blocks, a security group's `ingress` or
    /// `egress` blocks) is declared, and a standalone resource of this configuration managing an entry of
    /// the same set (an `aws_route` in that table): each would remove what the other adds.
    InlineAndStandalone = "inline-and-standalone", Error;
    /// A `dynamic` block without `for_each` or `content`, with an unknown argument, or an invalid
    /// `iterator`.
    InvalidDynamicBlock = "invalid-dynamic-block", Error;
    /// A variable value that does not parse or fit its type, a required variable left unset, or a value
    /// that fails a `validation` block (its `error_message` is the summary).
    InvalidVariable = "invalid-variable", Error;
    /// A variable, output or check name that is not an identifier, or a variable name Terraform reserves
    /// (`count`, `source`, `for_each`, ...).
    InvalidName = "invalid-name", Error;
    /// An output whose value is sensitive is not declared `sensitive = true`.
    SensitiveOutput = "sensitive-output", Error;
    /// A resource's `precondition` or `postcondition`, or an output's `precondition`, is false (its
    /// `error_message` is the summary).
    ConditionFailed = "condition-failed", Error;
    /// The live snapshot file does not parse or breaks the format.
    InvalidSnapshot = "invalid-snapshot", Error;
    /// An estate name outside the grammar.
    InvalidEstate = "invalid-estate", Error;
    /// No estate from the `live` block or `--estate`.
    NoEstate = "no-estate", Error;
    /// The `live` block and `--estate` name different estates.
    EstateConflict = "estate-conflict", Error;
    /// A resource type neither the provider nor the engine knows.
    UnsupportedType = "unsupported-type", Error;
    /// A known resource type with no admission path.
    UnadmittedType = "unadmitted-type", Error;
    /// `count.index` in an identity argument in a non-injective way.
    CountIndex = "count-index", Error;
    /// A `for_each` key that is empty or holds a forbidden character.
    ForEachKey = "for-each-key", Error;
    /// An escaped address over 1,024 characters.
    OverlongAddress = "overlong-address", Error;
    /// A resource address given on the command line (`-target`, `-replace`) that does not parse.
    InvalidAddress = "invalid-address", Error;
    /// An identity argument not computable from variables, locals and literals.
    NonStaticIdentity = "non-static-identity", Error;
    /// A `count` not computable from variables, locals and literals.
    NonStaticCount = "non-static-count", Error;
    /// A `for_each` not computable from variables, locals and literals.
    NonStaticForEach = "non-static-for-each", Error;
    /// A data source read failed: the plan needs its attributes and cannot go on without them.
    DataReadFailed = "data-read-failed", Error;
    /// An identity argument unset or null.
    IdentityNotSet = "identity-not-set", Error;
    /// An identity derived from `uuid()` or `timestamp()`.
    ImpureIdentity = "impure-identity", Error;
    /// Two declared instances with the same client-assigned identity.
    DuplicateIdentity = "duplicate-identity", Error;
    /// Resource blocks that read each other in a cycle, or a block that reads itself.
    DependencyCycle = "dependency-cycle", Error;
    /// The directory holds no configuration files (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`), or
    /// cannot be read.
    NoConfiguration = "no-configuration", Error;
    /// A saved plan file (`plan -out FILE`) that cannot be read: missing, not a liveplan plan file, or
    /// written in a format version this liveplan does not read.
    InvalidPlanFile = "invalid-plan-file", Error;
    /// `apply FILE` of a saved plan that something it relies on moved since: an object it changes or
    /// reads, the identity of a create, or a record it read. Nothing is applied; plan again.
    StalePlan = "stale-plan", Error;
    /// One thing declared twice where it may be declared once: a `live` block in `liveplan.hcl` and a
    /// `.tf` file, two `live` blocks, two backends, a provider required twice.
    DuplicateDeclaration = "duplicate-declaration", Error;
    /// An override file's block with nothing to override, or overriding what may not be (`depends_on`,
    /// a `moved` block).
    InvalidOverride = "invalid-override", Error;
    /// A `required_version` the language level liveplan implements does not satisfy, or a version
    /// constraint of the `terraform` block that does not parse.
    RequiredVersion = "required-version", Error;
    /// `required_providers` names a provider source liveplan does not serve.
    UnsupportedProvider = "unsupported-provider", Error;
    /// The configuration writes a `tofu-*` tag itself.
    MarkerInConfig = "marker-in-config", Error;
    /// `ignore_changes` covers `tags`, `all`, or a marker key.
    IgnoreChangesMarkers = "ignore-changes-markers", Error;
    /// The plan would destroy or replace an instance of a block with `prevent_destroy = true`.
    PreventDestroy = "prevent-destroy", Error;
    /// Two live objects claim one address in one estate.
    MarkerCollision = "marker-collision", Error;
    /// An object with this estate's tag and an unreadable, gapped or mistyped address marker.
    MalformedMarker = "malformed-marker", Error;
    /// A client-named object at a declared identity carries this estate's marker for another declared address.
    MarkedForAnotherAddress = "marked-for-another-address", Error;
    /// A slot value outside the slot grammar.
    MalformedSlot = "malformed-slot", Error;
    /// Two members of a count set carry the same slot.
    DuplicateSlot = "duplicate-slot", Error;
    /// Unslotted members carry the same address.
    IndistinguishableInstances = "indistinguishable-instances", Error;
    /// A list-and-match instance matches several live objects that are not a fungible set.
    AmbiguousContentMatch = "ambiguous-content-match", Error;
    /// A list or read failed after retries; the changes that depend on it are withheld.
    DiscoveryIncomplete = "discovery-incomplete", Error;
    /// A command that reaches AWS found no credentials in the SDK's chain (environment, profile, SSO,
    /// `credential_process`, web identity, container, instance metadata), or the ones it found could not
    /// be loaded (an expired SSO session, a failing credential command).
    NoCredentials = "no-credentials", Error;
    /// A store write lost a compare-and-swap.
    VersionConflict = "version-conflict", Error;
    /// The S3 record bucket fails a required setting.
    BucketContract = "bucket-contract", Error;
    /// The S3 record bucket's KMS key refused the caller.
    KmsDenied = "kms-denied", Error;
    /// A rename was refused.
    MvRefused = "mv-refused", Error;
    /// An adoption was refused.
    AdoptRefused = "adopt-refused", Error;
    /// A provider operation failed during apply.
    ApplyFailed = "apply-failed", Error;
    /// A record write after a provider operation failed; the operation itself succeeded.
    RecordWriteFailed = "record-write-failed", Error;
    /// Apply was interrupted; in-flight operations finished, nothing new started.
    Cancelled = "cancelled", Error;
    /// An apply left a withheld change undone: an interrupted create that may not be retried yet, or a
    /// change waiting on one.
    CreateWithheld = "create-withheld", Error;
    /// `state list` or `state show` named an address at which the estate owns no instance (Terraform's
    /// "Unknown resource instance", "No instance found for the given address").
    UnknownInstance = "unknown-instance", Error;
    /// `output NAME` named an output the last apply did not record (Terraform's `Output "NAME" not
    /// found`).
    OutputNotFound = "output-not-found", Error;
    /// `output -raw` of an output that is not a string, a number or a bool (a list, an object, null), or
    /// with no NAME (Terraform's "Unsupported value for raw output").
    UnsupportedRawOutput = "unsupported-raw-output", Error;
    /// A client-named identity exists with no estate marker.
    Unowned = "unowned", Warning;
    /// A client-named identity is held by another estate.
    InTheWay = "in-the-way", Warning;
    /// Several foreign objects match one declared instance; none is offered.
    AmbiguousCandidates = "ambiguous-candidates", Warning;
    /// A record with an unknown format was read as "no record".
    RecordFormat = "record-format", Warning;
    /// A record names another live system than the one this run reads and writes.
    RecordLineage = "record-lineage", Error;
    /// The estate owns objects in a region it wrote to that no provider configuration names any more.
    RegionNotConfigured = "region-not-configured", Error;
    /// A `record_store` block that cannot open its store (a missing or refused setting).
    RecordStoreConfig = "record-store-config", Error;
    /// The apply runs on a record store whose update conflicts are detected, not prevented.
    StoreGuarantee = "store-guarantee", Warning;
    /// A create intent from an earlier apply was found.
    InterruptedCreate = "interrupted-create", Warning;
    /// `-target` restricts the plan to some addresses: it may be incomplete.
    ResourceTargeting = "resource-targeting", Warning;
    /// A `backend` or `cloud` block, accepted and ignored: liveplan keeps no state file.
    BackendIgnored = "backend-ignored", Warning;
    /// Settings of a `provider "aws"` block that only serve to reach AWS (credentials, profile, roles,
    /// endpoints, transport), ignored by the simulated cloud.
    ProviderSettingsIgnored = "provider-settings-ignored", Warning;
    /// The live system's account is not one `allowed_account_ids` lists, or one `forbidden_account_ids`
    /// does.
    AccountNotAllowed = "account-not-allowed", Error;
    /// A `check` block's assertion is false (its `error_message` is the summary).
    CheckFailed = "check-failed", Warning;
    /// A provider configuration's `ignore_tags` names a marker key or a prefix that covers marker keys;
    /// the markers stay managed.
    IgnoreTagsMarkers = "ignore-tags-markers", Warning;
    /// `output` found no output recorded by an apply (Terraform's "No outputs found").
    NoOutputs = "no-outputs", Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in a configuration file, 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourcePos {
    /// The file name as the user gave it (relative to the configuration directory).
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column in characters, from 1.
    pub column: usize,
}

impl fmt::Display for SourcePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One reported problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code; it fixes the severity.
    pub code: Code,
    /// What is wrong, in one line.
    pub summary: String,
    /// What to do about it.
    pub detail: String,
    /// The resource instance address concerned, if any.
    pub address: Option<String>,
    /// The live object ids concerned, sorted ([`Diagnostic::with_ids`] sorts them).
    ids: Vec<String>,
    /// Where in the configuration, if the problem is there.
    pub pos: Option<SourcePos>,
}

impl Diagnostic {
    /// A diagnostic with a code, a summary and a detail, about no address or object in particular.
    pub fn new(code: Code, summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Diagnostic {
            code,
            summary: summary.into(),
            detail: detail.into(),
            address: None,
            ids: Vec::new(),
            pos: None,
        }
    }

    /// The same diagnostic about the resource instance `address`.
    pub fn with_address(mut self, address: impl Into<String>) -> Self {
        self.address = Some(address.into());
        self
    }

    /// The same diagnostic naming the live objects `ids` (kept sorted).
    pub fn with_ids<I: IntoIterator<Item = S>, S: Into<String>>(mut self, ids: I) -> Self {
        self.ids = ids.into_iter().map(Into::into).collect();
        self.ids.sort();
        self
    }

    /// The same diagnostic at a place in the configuration.
    pub fn at(mut self, pos: SourcePos) -> Self {
        self.pos = Some(pos);
        self
    }

    /// The live object ids concerned, sorted.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The severity, fixed by the code.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// The order plans list diagnostics in: severity, code, address, ids.
    pub fn sort_key(&self) -> (Severity, &'static str, Option<&str>, &[String]) {
        (
            self.severity(),
            self.code.as_str(),
            self.address.as_deref(),
            &self.ids,
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}]: {}",
            self.severity().as_str(),
            self.code,
            self.summary
        )?;
        if let Some(pos) = &self.pos {
            write!(f, " ({pos})")?;
        }
        Ok(())
    }
}
