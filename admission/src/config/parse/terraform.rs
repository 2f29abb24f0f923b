//! The `terraform` block lowered into [`TerraformSettings`]: `required_version` checked against the
//! language level liveplan implements (Terraform's, or OpenTofu's in a `.tofu` file), `required_providers`
//! mapping local names to the providers liveplan serves, and a `backend` or `cloud` block accepted with
//! the `backend-ignored` warning. Everything else Terraform knows in the block is refused by name.
//!
//! All settings are literal, as Terraform requires; nothing here evaluates an expression.

use super::raw::{RawAttr, RawBlock, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::expr::{Expr, ExprKind, Loc};
use crate::config::files::Dialect;
use crate::config::version::{VersionConstraint, implemented_version};
use crate::config::{
    BackendBlock, BackendKind, Config, RecordStoreKind, RequiredProvider, RequiredSource,
};
use crate::diag::{Code, Diagnostic};

/// What the `terraform` block takes, for the report of anything else.
const TERRAFORM_SETTINGS: &str =
    "the `terraform` block takes required_version, required_providers, backend and cloud";

impl<'a> Parser<'a> {
    /// One `terraform` block.
    pub(super) fn terraform_block(&mut self, block: &RawBlock<'a>, config: &mut Config) {
        if !self.expect_labels(block, &block.loc, 0, "write `terraform { ... }`") {
            return;
        }
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => match a.name.as_str() {
                    "required_version" => self.required_version(a, config),
                    "experiments" => self.unsupported(
                        &a.loc,
                        "`experiments` is not supported".into(),
                        "liveplan implements none of Terraform's language experiments: remove it",
                    ),
                    other => self.refuse(
                        Refusal::UnsupportedArgument,
                        &a.loc,
                        format!("argument `{other}` is not supported in `terraform`"),
                        TERRAFORM_SETTINGS,
                    ),
                },
                RawItem::Block(b) => match b.ident.as_str() {
                    "required_providers" => self.required_providers(b, config),
                    "backend" | "cloud" => self.backend(b, config),
                    "provider_meta" => self.unsupported(
                        &b.loc,
                        "`provider_meta` blocks are not supported".into(),
                        "liveplan's providers read no module metadata: remove the block",
                    ),
                    "encryption" => self.unsupported(
                        &b.loc,
                        "`encryption` blocks are not supported".into(),
                        "they encrypt OpenTofu's state and plan files, and liveplan keeps neither: \
                         remove it (an S3 record store is protected by its bucket's encryption)",
                    ),
                    other => self.refuse(
                        Refusal::UnsupportedBlock,
                        &b.loc,
                        format!("block `{other}` is not supported in `terraform`"),
                        TERRAFORM_SETTINGS,
                    ),
                },
            }
        }
    }

    /// A constraint written as a literal string, parsed; `None` (reported) when it is not one.
    fn constraint(&mut self, attr: &crate::config::Attr, what: &str) -> Option<VersionConstraint> {
        let text = self.literal_string(attr)?;
        match text.parse::<VersionConstraint>() {
            Ok(c) => Some(c),
            Err(e) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::RequiredVersion,
                        format!("the {what} {e}"),
                        "write constraints as Terraform does, e.g. `>= 1.5, < 2.0` or `~> 1.9`",
                    )
                    .at(attr.expr.loc.to_pos()),
                );
                None
            }
        }
    }

    /// `required_version`: refused when the release liveplan implements does not satisfy it.
    fn required_version(&mut self, a: &RawAttr<'a>, config: &mut Config) {
        let Some(attr) = self.attr_as(a, Mode::Literal) else {
            return;
        };
        let Some(constraint) = self.constraint(&attr, "required_version") else {
            return;
        };
        let dialect = Dialect::of_file(&a.loc.file);
        let level = implemented_version(dialect);
        if !constraint.matches(&level) {
            let product = dialect.product();
            self.diags.push(
                Diagnostic::new(
                    Code::RequiredVersion,
                    format!(
                        "this configuration requires {product} {:?}, and liveplan implements the \
                         language of {product} {level}",
                        constraint.as_str()
                    ),
                    "liveplan plans configurations written for Terraform 1.9 (OpenTofu 1.8 in `.tofu` \
                     files); use such a configuration, or relax `required_version` if this one uses \
                     nothing newer",
                )
                .at(attr.expr.loc.to_pos()),
            );
        }
        config
            .terraform
            .required_versions
            .push((constraint, attr.expr.loc));
    }

    /// `required_providers { name = { source, version, configuration_aliases } }`.
    fn required_providers(&mut self, block: &RawBlock<'a>, config: &mut Config) {
        for a in self.flat_any(block, "required_providers") {
            let Some(attr) = self.attr_as(a, Mode::Literal) else {
                continue;
            };
            if let Some(first) = config.terraform.required_providers.get(&attr.name) {
                self.diags.push(
                    Diagnostic::new(
                        Code::DuplicateDeclaration,
                        format!(
                            "provider `{}` is required twice (first at {})",
                            attr.name, first.loc
                        ),
                        "declare each provider once in `required_providers`",
                    )
                    .at(attr.loc.to_pos()),
                );
                continue;
            }
            if let Some(req) = self.required_provider(&attr) {
                config.terraform.required_providers.insert(attr.name, req);
            }
        }
    }

    /// The attributes of `block`, whatever their names; nested blocks are refused.
    fn flat_any<'r>(&mut self, block: &'r RawBlock<'a>, what: &str) -> Vec<&'r RawAttr<'a>> {
        let mut out = Vec::new();
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => out.push(a),
                RawItem::Block(b) => self.refuse(
                    Refusal::UnsupportedBlock,
                    &b.loc,
                    format!("`{what}` has no block type `{}`", b.ident),
                    "write `aws = { source = \"hashicorp/aws\", version = \"~> 5.0\" }`",
                ),
            }
        }
        out
    }

    /// One `required_providers` entry: a version constraint alone (the old form), or an object.
    fn required_provider(&mut self, attr: &crate::config::Attr) -> Option<RequiredProvider> {
        let name = attr.name.as_str();
        let mut source_text = None;
        let mut version = None;
        let mut aliases = Vec::new();
        match &attr.expr.kind {
            ExprKind::String(_) | ExprKind::Template(_) => {
                version = self.constraint(attr, &format!("version of provider `{name}`"));
            }
            ExprKind::Object(items) => {
                for (key, value) in items {
                    let key_text = key.as_literal_str().unwrap_or_default();
                    let setting = crate::config::Attr {
                        name: key_text.clone(),
                        expr: value.clone(),
                        loc: key.loc.clone(),
                    };
                    match key_text.as_str() {
                        "source" => source_text = Some((self.literal_string(&setting)?, value)),
                        "version" => {
                            version =
                                self.constraint(&setting, &format!("version of provider `{name}`"))
                        }
                        "configuration_aliases" => aliases = self.aliases(value)?,
                        other => self.refuse(
                            Refusal::UnsupportedArgument,
                            &key.loc,
                            format!("`{other}` is not a setting of a required provider"),
                            "a required provider takes source, version and configuration_aliases",
                        ),
                    }
                }
            }
            _ => {
                self.refuse(
                    Refusal::InvalidValue,
                    &attr.expr.loc,
                    format!("required provider `{name}` is not an object"),
                    "write `aws = { source = \"hashicorp/aws\", version = \"~> 5.0\" }`",
                );
                return None;
            }
        }
        let (text, at) = match source_text {
            Some((text, expr)) => (text, expr.loc.clone()),
            // Without a source, the local name is a type of the hashicorp namespace.
            None => (format!("hashicorp/{name}"), attr.loc.clone()),
        };
        let Some(source) = known_source(&text) else {
            self.diags.push(
                Diagnostic::new(
                    Code::UnsupportedProvider,
                    format!("provider `{name}` is {text:?}, which liveplan does not serve"),
                    "liveplan serves hashicorp/aws (and the simulated cloud of `provider \"sim\"`) and \
                     hashicorp/random; remove this requirement and the resources of that provider",
                )
                .at(at.to_pos()),
            );
            return None;
        };
        Some(RequiredProvider {
            source,
            version,
            configuration_aliases: aliases,
            loc: attr.loc.clone(),
        })
    }

    /// `configuration_aliases = [aws.west]` (in JSON, strings such as `"aws.west"`).
    fn aliases(&mut self, value: &Expr) -> Option<Vec<String>> {
        let bad = |p: &mut Self, loc: &Loc| {
            p.refuse(
                Refusal::InvalidValue,
                loc,
                "`configuration_aliases` must list provider references".into(),
                "write `configuration_aliases = [aws.west]`",
            );
        };
        let ExprKind::List(items) = &value.kind else {
            bad(self, &value.loc);
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match (item.as_static_path(), item.as_literal_str()) {
                (Some(path), _) if path.len() == 2 => out.push(path.join(".")),
                (_, Some(text)) if text.split('.').count() == 2 => out.push(text),
                _ => {
                    bad(self, &item.loc);
                    return None;
                }
            }
        }
        Some(out)
    }

    /// A `backend "TYPE"` or `cloud` block: kept (one per configuration), its settings never read.
    fn backend(&mut self, block: &RawBlock<'a>, config: &mut Config) {
        let (labels, usage) = if block.ident == "cloud" {
            (0, "write `cloud { ... }`")
        } else {
            (1, "write `backend \"s3\" { ... }`")
        };
        if !self.expect_labels(block, &block.loc, labels, usage) {
            return;
        }
        if let Some(first) = &config.terraform.backend {
            self.diags.push(
                Diagnostic::new(
                    Code::DuplicateDeclaration,
                    format!("a second backend (the first is at {})", first.loc),
                    "declare one `backend` or `cloud` block",
                )
                .at(block.loc.to_pos()),
            );
            return;
        }
        let kind = match block.labels.first() {
            Some(label) => BackendKind::Backend(label.clone()),
            None => BackendKind::Cloud,
        };
        config.terraform.backend = Some(BackendBlock {
            kind,
            loc: block.loc.clone(),
        });
    }
}

/// The provider a source address names, when liveplan serves it: `hashicorp/aws` or `hashicorp/random`,
/// written with or without a registry host (Terraform's or OpenTofu's), in any case.
fn known_source(text: &str) -> Option<RequiredSource> {
    let lower = text.trim().to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let (namespace, kind) = match parts.as_slice() {
        [kind] => ("hashicorp", *kind),
        [namespace, kind] => (*namespace, *kind),
        [
            "registry.terraform.io" | "registry.opentofu.org",
            namespace,
            kind,
        ] => (*namespace, *kind),
        _ => return None,
    };
    match (namespace, kind) {
        ("hashicorp", "aws") => Some(RequiredSource::Aws),
        ("hashicorp", "random") => Some(RequiredSource::Random),
        _ => None,
    }
}

/// The `backend-ignored` warning for the configuration's `backend` or `cloud` block, saying where this
/// estate's records go instead.
pub(super) fn backend_ignored(config: &Config) -> Option<Diagnostic> {
    let backend = config.terraform.backend.as_ref()?;
    let block = match &backend.kind {
        BackendKind::Backend(kind) => format!("the `backend {kind:?}` block"),
        BackendKind::Cloud => "the `cloud` block".to_owned(),
    };
    let store = config.live.as_ref().and_then(|l| l.record_store.as_ref());
    let records = match store.map(|s| s.kind) {
        None => {
            "the local directory .liveplan/records/ beside the configuration (a `live { record_store \
             ... }` block in liveplan.hcl chooses another place)"
        }
        Some(RecordStoreKind::Local) => {
            "the directory of the `live` block's `record_store \"local\"`"
        }
        Some(RecordStoreKind::S3) => "the S3 bucket of the `live` block's `record_store \"s3\"`",
        Some(RecordStoreKind::Ssm) => {
            "the SSM parameters under the `live` block's `record_store \"ssm\"` key_prefix"
        }
    };
    Some(
        Diagnostic::new(
            Code::BackendIgnored,
            format!("{block} is ignored: liveplan keeps no state file"),
            format!(
                "liveplan reads the live system on every plan and keeps only small records of what \
                 it cannot read back, in {records}; Terraform and OpenTofu still use the block"
            ),
        )
        .at(backend.loc.to_pos()),
    )
}
