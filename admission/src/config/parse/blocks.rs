//! The block model: each top-level block kind (`terraform`, `live`, `provider`, `variable`, `locals`,
//! `resource`, `output`) lowered into the configuration from the merged block structure of every file,
//! and every block outside the subset refused.
//!
//! A name is declared once; a second declaration is reported and left out, never merged (merging is for
//! override files, done before). Expressions are lowered by [`super::value`]; nothing here evaluates one.
//! Resources and variables are lowered in [`super::resource`], the `terraform` block in
//! [`super::terraform`], `provider` blocks in [`super::provider`].

use std::collections::BTreeMap;

use super::raw::{RawAttr, RawBlock, RawBody, RawItem};
use super::{Parser, Refusal};
use crate::config::expr::{ExprKind, Loc};
use crate::config::files::LIVEPLAN_FILE;
use crate::config::{Attr, BlockLabels, Config, LiveBlock, RecordStoreBlock, RecordStoreKind};
use crate::diag::{Code, Diagnostic};

/// What a name is declared as, for the one report of a name declared twice.
#[derive(Clone, Copy)]
pub(super) enum Declaration {
    Variable,
    Local,
    Resource,
    Data,
    Output,
    Check,
    Module,
}

impl Declaration {
    /// The word the report names the declaration with.
    fn noun(self) -> &'static str {
        match self {
            Declaration::Variable => "variable",
            Declaration::Local => "local",
            Declaration::Resource => "resource",
            Declaration::Data => "data",
            Declaration::Output => "output",
            Declaration::Check => "check",
            Declaration::Module => "module",
        }
    }

    /// How the block is written, for a block with the wrong labels.
    pub(super) fn usage(self) -> &'static str {
        match self {
            Declaration::Variable => "write `variable \"name\" { ... }`",
            Declaration::Local => "write `locals { name = value }`",
            Declaration::Resource => "write `resource \"type\" \"name\" { ... }`",
            Declaration::Data => "write `data \"type\" \"name\" { ... }`",
            Declaration::Output => "write `output \"name\" { value = ... }`",
            Declaration::Check => "write `check \"name\" { assert { ... } }`",
            Declaration::Module => "write `module \"name\" { source = \"./modules/NAME\" }`",
        }
    }

    /// What to do about the second declaration.
    fn detail(self) -> &'static str {
        match self {
            Declaration::Variable
            | Declaration::Output
            | Declaration::Check
            | Declaration::Module => "declare it once",
            Declaration::Local => "declare each local once",
            Declaration::Resource => "give each resource block a unique name",
            Declaration::Data => "give each data block a unique name",
        }
    }
}

impl<'a> Parser<'a> {
    /// Attributes written outside any block, refused.
    pub(super) fn top_level_attrs(&mut self, attrs: &[RawAttr<'a>]) {
        for a in attrs {
            self.refuse(
                Refusal::UnsupportedArgument,
                &a.loc,
                format!(
                    "an argument named `{}` is not expected at the top level",
                    a.name
                ),
                "declare values in a `locals` or `variable` block",
            );
        }
    }

    /// Every top-level block of the configuration, merged: the `terraform` blocks first, since the
    /// provider names they declare decide what a `provider` block configures.
    pub(super) fn blocks(&mut self, blocks: &[RawBlock<'a>], config: &mut Config) {
        let mut rest = Vec::new();
        for block in blocks {
            if &*block.loc.file == LIVEPLAN_FILE && block.ident != "live" {
                self.refuse(Refusal::UnsupportedBlock,
                    &block.loc,
                    format!("`{}` block in {LIVEPLAN_FILE}", block.ident),
                    "liveplan.hcl holds only the `live` block; declare everything else in `.tf` files",
                );
            } else if block.ident == "terraform" {
                self.terraform_block(block, config);
            } else {
                rest.push(block);
            }
        }
        for block in rest {
            self.top_block(block, config);
        }
    }

    /// Checks the block has exactly `n` labels; reports and returns false otherwise.
    pub(super) fn expect_labels(
        &mut self,
        block: &RawBlock<'a>,
        loc: &Loc,
        n: usize,
        what: &str,
    ) -> bool {
        if block.labels.len() == n {
            return true;
        }
        self.refuse(
            Refusal::WrongLabels,
            loc,
            format!(
                "`{}` block needs {n} label(s), found {}",
                block.ident,
                block.labels.len()
            ),
            what,
        );
        false
    }

    /// One top-level block other than `terraform`, by its kind.
    fn top_block(&mut self, block: &RawBlock<'a>, config: &mut Config) {
        let loc = block.loc.clone();
        match block.ident.as_str() {
            "live" => self.declare_live(block, loc, config),
            "provider" => self.declare_provider(block, loc, config),
            "variable" => self.declare_named(
                block,
                loc,
                |c| &mut c.variables,
                Declaration::Variable,
                Self::variable,
                config,
            ),
            "locals" => self.declare_locals(block, &loc, config),
            "resource" => self.declare_resource(block, loc, config),
            "data" => self.declare_data(block, loc, config),
            "output" => self.declare_named(
                block,
                loc,
                |c| &mut c.outputs,
                Declaration::Output,
                Self::output,
                config,
            ),
            "check" => self.declare_named(
                block,
                loc,
                |c| &mut c.checks,
                Declaration::Check,
                Self::check,
                config,
            ),
            "module" => self.declare_named(
                block,
                loc,
                |c| &mut c.module_calls,
                Declaration::Module,
                Self::module_call,
                config,
            ),
            kind @ ("moved" | "import" | "removed") => {
                let (what, instead) = match kind {
                    "moved" => ("`moved` blocks", "rename with `liveplan mv FROM TO`"),
                    "import" => (
                        "`import` blocks",
                        "adopt the object with `liveplan adopt ADDRESS ID`",
                    ),
                    _ => (
                        "`removed` blocks",
                        "remove the block from the configuration",
                    ),
                };
                self.unsupported(
                    &loc,
                    format!("`{kind}` block is not supported"),
                    &format!("liveplan does not implement {what} yet: {instead}"),
                );
            }
            "ephemeral" => self.unsupported(
                &loc,
                "`ephemeral` block is not supported".into(),
                "liveplan does not implement ephemeral resources",
            ),
            other => {
                let detail = match other {
                    "required_providers" | "backend" | "cloud" | "required_version" => format!(
                        "`{other}` belongs inside the `terraform` block: `terraform {{ {other} ... }}`"
                    ),
                    _ => "the top-level blocks are terraform, provider, variable, locals, resource, \
                          data, module, output, check, moved, import, removed (and liveplan's `live`)"
                        .to_owned(),
                };
                self.refuse(
                    Refusal::UnsupportedBlock,
                    &loc,
                    format!("blocks of type `{other}` are not expected here"),
                    &detail,
                );
            }
        }
    }

    /// An argument `name` that a `what` block does not take: an argument of newer Terraform or OpenTofu
    /// releases that liveplan does not implement (`unsupported-construct`), else Terraform's own
    /// "Unsupported argument".
    pub(super) fn unexpected_argument(&mut self, loc: &Loc, name: &str, what: &str, detail: &str) {
        if NEWER_ARGUMENTS.contains(&name) {
            self.unsupported(
                loc,
                format!("argument `{name}` of `{what}` is not implemented by liveplan"),
                &format!(
                    "`{name}` belongs to a Terraform or OpenTofu release newer than the language level \
                     liveplan implements: remove it"
                ),
            );
        } else {
            self.refuse(
                Refusal::UnsupportedArgument,
                loc,
                format!("`{what}` has no argument `{name}`"),
                detail,
            );
        }
    }

    /// Whether `name` may be declared as a new `what`: a name already `taken` is reported at `loc`.
    pub(super) fn declare_once(
        &mut self,
        taken: bool,
        name: &str,
        loc: &Loc,
        what: Declaration,
    ) -> bool {
        if taken {
            let noun = what.noun();
            self.diags.push(
                Diagnostic::new(
                    Code::DuplicateDeclaration,
                    format!("Duplicate {noun} declaration: {noun} `{name}` is declared twice"),
                    format!(
                        "{}; to change a declaration of another file, write the block in an \
                         override file (`override.tf`, `*_override.tf`)",
                        what.detail()
                    ),
                )
                .at(loc.to_pos()),
            );
        }
        !taken
    }

    /// The `live` block: one, without labels, in `liveplan.hcl` or a `.tf` file but never both.
    fn declare_live(&mut self, block: &RawBlock<'a>, loc: Loc, config: &mut Config) {
        if !self.expect_labels(block, &loc, 0, "write `live { estate = \"name\" }`") {
            return;
        }
        if let Some(first) = &config.live {
            let detail = if &*first.loc.file == LIVEPLAN_FILE || &*loc.file == LIVEPLAN_FILE {
                "keep the one in liveplan.hcl, which leaves the `.tf` files usable by Terraform and \
                 OpenTofu, and remove the other"
            } else {
                "declare one `live` block"
            };
            self.diags.push(
                Diagnostic::new(
                    Code::DuplicateDeclaration,
                    format!("a second `live` block (the first is at {})", first.loc),
                    detail,
                )
                .at(loc.to_pos()),
            );
            return;
        }
        config.live = Some(self.live_block(block, &loc));
    }

    /// A `locals` block: `name = value` lines, each local declared once across every block.
    fn declare_locals(&mut self, block: &RawBlock<'a>, loc: &Loc, config: &mut Config) {
        if !self.expect_labels(block, loc, 0, Declaration::Local.usage()) {
            return;
        }
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => {
                    let Some(attr) = self.attr(a) else {
                        continue;
                    };
                    let taken = config.locals.contains_key(&attr.name);
                    if self.declare_once(taken, &attr.name, &attr.loc, Declaration::Local) {
                        config.locals.insert(attr.name.clone(), attr);
                    }
                }
                RawItem::Block(b) => {
                    self.refuse(
                        Refusal::UnsupportedBlock,
                        &b.loc,
                        format!("block `{}` inside `locals`", b.ident),
                        "locals hold only `name = value` lines",
                    );
                }
            }
        }
    }

    /// A `resource` block, one per type and name.
    fn declare_resource(&mut self, block: &RawBlock<'a>, loc: Loc, config: &mut Config) {
        if !self.expect_labels(block, &loc, 2, Declaration::Resource.usage()) {
            return;
        }
        let (type_name, name) = (&block.labels[0], &block.labels[1]);
        let taken = config.resource(type_name, name).is_some();
        let address = BlockLabels::new(type_name, name).to_string();
        if !self.declare_once(taken, &address, &loc, Declaration::Resource) {
            return;
        }
        if let Some(r) = self.resource(block, type_name.clone(), name.clone(), loc) {
            config.add_resource(r);
        }
    }

    /// A `data` block, one per type and name: a resource body (meta-arguments and arguments) without a
    /// `lifecycle` block, which this subset does not implement for data sources.
    fn declare_data(&mut self, block: &RawBlock<'a>, loc: Loc, config: &mut Config) {
        if !self.expect_labels(block, &loc, 2, Declaration::Data.usage()) {
            return;
        }
        let (type_name, name) = (&block.labels[0], &block.labels[1]);
        let taken = config.data_source(type_name, name).is_some();
        let address = format!("data.{}", BlockLabels::new(type_name, name));
        if !self.declare_once(taken, &address, &loc, Declaration::Data) {
            return;
        }
        let Some(data) = self.resource(block, type_name.clone(), name.clone(), loc) else {
            return;
        };
        if data.lifecycle != crate::config::Lifecycle::default() {
            self.unsupported(
                &data.loc,
                format!("`lifecycle` block of `{address}` is not supported"),
                "liveplan does not implement conditions on data sources: remove the block",
            );
            return;
        }
        config.add_data_source(data);
    }

    /// A block with one label, its name (a `variable` or an `output`), read by `read` into the map
    /// `declared` picks unless the name is declared already.
    fn declare_named<T>(
        &mut self,
        block: &RawBlock<'a>,
        loc: Loc,
        declared: fn(&mut Config) -> &mut BTreeMap<String, T>,
        what: Declaration,
        read: fn(&mut Self, &RawBlock<'a>, String, Loc) -> Option<T>,
        config: &mut Config,
    ) {
        if !self.expect_labels(block, &loc, 1, what.usage()) {
            return;
        }
        let name = block.labels[0].clone();
        let taken = declared(config).contains_key(&name);
        if !self.declare_once(taken, &name, &loc, what) {
            return;
        }
        if let Some(v) = read(self, block, name.clone(), loc) {
            declared(config).insert(name, v);
        }
    }

    /// The attributes of a body of attributes only, allowing the names in `allowed`; reports blocks,
    /// unknown and repeated attributes.
    pub(super) fn flat_body<'r>(
        &mut self,
        body: &'r RawBody<'a>,
        allowed: &[&str],
        what: &str,
    ) -> Vec<&'r RawAttr<'a>> {
        let mut out: Vec<&RawAttr<'a>> = Vec::new();
        for item in &body.items {
            match item {
                RawItem::Attr(a) => {
                    let name = a.name.as_str();
                    if !allowed.contains(&name) {
                        self.unexpected_argument(
                            &a.loc,
                            name,
                            what,
                            &format!("the arguments of `{what}` are: {}", allowed.join(", ")),
                        );
                        continue;
                    }
                    if out.iter().any(|x| x.name == name) {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &a.loc,
                            format!("argument `{name}` is set twice"),
                            "set it once",
                        );
                        continue;
                    }
                    out.push(a);
                }
                RawItem::Block(b) => {
                    self.refuse(
                        Refusal::UnsupportedBlock,
                        &b.loc,
                        format!("`{what}` has no block type `{}`", b.ident),
                        &format!("the supported arguments are: {}", allowed.join(", ")),
                    );
                }
            }
        }
        out
    }

    /// The body of the `live` block: `estate` and one `record_store` block.
    fn live_block(&mut self, block: &RawBlock<'a>, loc: &Loc) -> LiveBlock {
        let mut live = LiveBlock {
            estate: None,
            record_store: None,
            loc: loc.clone(),
        };
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => {
                    if a.name != "estate" {
                        self.refuse(
                            Refusal::UnsupportedArgument,
                            &a.loc,
                            format!("`live` has no argument `{}`", a.name),
                            "`live` takes `estate` and a `record_store` block",
                        );
                    } else if live.estate.is_some() {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &a.loc,
                            "argument `estate` is set twice".into(),
                            "set it once",
                        );
                    } else {
                        live.estate = self.attr(a);
                    }
                }
                RawItem::Block(b) => {
                    if b.ident != "record_store" {
                        self.refuse(
                            Refusal::UnsupportedBlock,
                            &b.loc,
                            format!("`live` has no block type `{}`", b.ident),
                            "`live` takes `estate` and a `record_store` block",
                        );
                    } else if live.record_store.is_some() {
                        self.refuse(
                            Refusal::DuplicateBlock,
                            &b.loc,
                            "a second `record_store` block".into(),
                            "declare one",
                        );
                    } else {
                        live.record_store = self.record_store(b);
                    }
                }
            }
        }
        live
    }

    /// `record_store "local" { path }`, `record_store "s3" { ... }` or `record_store "ssm" { ... }`.
    fn record_store(&mut self, b: &RawBlock<'a>) -> Option<RecordStoreBlock> {
        let bloc = b.loc.clone();
        if !self.expect_labels(
            b,
            &bloc,
            1,
            "write `record_store \"local\"`, `record_store \"s3\"` or `record_store \"ssm\"`",
        ) {
            return None;
        }
        let (kind, allowed): (RecordStoreKind, &[&str]) = match b.labels[0].as_str() {
            "local" => (RecordStoreKind::Local, &["path"]),
            "s3" => (
                RecordStoreKind::S3,
                &["bucket", "key_prefix", "region", "allow_insecure"],
            ),
            "ssm" => (
                RecordStoreKind::Ssm,
                &["key_prefix", "region", "tier", "kms_key_id"],
            ),
            other => {
                self.refuse(
                    Refusal::InvalidValue,
                    &bloc,
                    format!("there is no record store `{other}`"),
                    "use `record_store \"local\"`, `record_store \"s3\"` or `record_store \"ssm\"`",
                );
                return None;
            }
        };
        let settings = self
            .flat_body(&b.body, allowed, "record_store")
            .into_iter()
            .filter_map(|a| self.attr(a))
            .map(|a| (a.name.clone(), a))
            .collect();
        Some(RecordStoreBlock {
            kind,
            settings,
            loc: bloc,
        })
    }

    /// An argument that must be a literal string.
    pub(super) fn literal_string(&mut self, attr: &Attr) -> Option<String> {
        let s = attr.expr.as_literal_str();
        if s.is_none() {
            self.refuse(
                Refusal::InvalidValue,
                &attr.expr.loc,
                format!("`{}` must be a literal string", attr.name),
                "write a quoted string with no interpolation",
            );
        }
        s
    }

    /// An argument that must be `true` or `false`.
    pub(super) fn literal_bool(&mut self, attr: &Attr) -> Option<bool> {
        match attr.expr.kind {
            ExprKind::Bool(b) => Some(b),
            _ => {
                self.refuse(
                    Refusal::InvalidValue,
                    &attr.expr.loc,
                    format!("`{}` must be `true` or `false`", attr.name),
                    "write a literal boolean",
                );
                None
            }
        }
    }
}

/// Arguments of Terraform or OpenTofu releases newer than the language level liveplan implements (or of
/// their experiments), which liveplan refuses as not implemented rather than as unknown.
const NEWER_ARGUMENTS: &[&str] = &["ephemeral", "const", "deprecated", "enabled", "type"];
