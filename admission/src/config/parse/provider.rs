//! `provider` blocks lowered into the model: `aws` (or the local name `required_providers` gives
//! `hashicorp/aws`), `random` and liveplan's own `sim`; any number of each, told apart by `alias`.
//!
//! Every argument of an `aws` block is checked against the AWS provider's argument table
//! ([`crate::config::AWS_PROVIDER_ARGS`]): one it does not have, or one liveplan refuses, is reported with
//! its name and the block is kept without it. Nothing here evaluates an expression.

use std::collections::BTreeMap;

use super::raw::{RawBlock, RawBody, RawItem};
use super::{Parser, Refusal};
use crate::config::expr::Loc;
use crate::config::{
    Attr, Config, ProviderArgUse, ProviderBlock, ProviderKind, ProviderNested, RequiredSource,
    aws_nested_args, aws_provider_arg,
};
use crate::diag::{Code, Diagnostic};

impl<'a> Parser<'a> {
    /// Which provider the local name `label` is: `sim`, or what `required_providers` maps it to, else
    /// `aws` and `random` by their own names.
    fn provider_kind(config: &Config, label: &str) -> Option<ProviderKind> {
        match (label, config.terraform.required_providers.get(label)) {
            ("sim", _) => Some(ProviderKind::Sim),
            (_, Some(req)) => Some(match req.source {
                RequiredSource::Aws => ProviderKind::Aws,
                RequiredSource::Random => ProviderKind::Random,
            }),
            ("aws", None) => Some(ProviderKind::Aws),
            ("random", None) => Some(ProviderKind::Random),
            _ => None,
        }
    }

    /// A `provider` block: each configuration (a local name and an alias) declared once; `sim` and `aws`
    /// never both.
    pub(super) fn declare_provider(&mut self, block: &RawBlock<'a>, loc: Loc, config: &mut Config) {
        if !self.expect_labels(
            block,
            &loc,
            1,
            "write `provider \"aws\" { region = \"...\" }`",
        ) {
            return;
        }
        let name = block.labels[0].clone();
        let Some(kind) = Self::provider_kind(config, &name) else {
            self.diags.push(
                Diagnostic::new(
                    Code::UnsupportedProvider,
                    format!("provider `{name}` is not supported"),
                    "liveplan serves the `aws` and `random` providers (and `sim`, its simulated cloud); \
                     name another provider in `required_providers` only if no block uses it",
                )
                .at(loc.to_pos()),
            );
            return;
        };
        let Some(provider) = self.provider_body(block, kind, name, loc) else {
            return;
        };
        if let Some(first) = config
            .providers
            .iter()
            .find(|p| p.reference() == provider.reference())
        {
            let which = match &provider.alias {
                Some(alias) => format!("with alias `{alias}`"),
                None => "without an alias".to_owned(),
            };
            self.diags.push(
                Diagnostic::new(
                    Code::DuplicateDeclaration,
                    format!(
                        "a second `provider \"{}\"` block {which} (the first is at {})",
                        provider.name, first.loc
                    ),
                    "give each further configuration of a provider its own `alias`, and pick it in a \
                     resource with `provider = NAME.ALIAS`",
                )
                .at(provider.loc.to_pos()),
            );
            return;
        }
        let clash = |k: ProviderKind| config.providers.iter().any(|p| p.kind == k);
        if (kind == ProviderKind::Sim && clash(ProviderKind::Aws))
            || (kind == ProviderKind::Aws && clash(ProviderKind::Sim))
        {
            self.unsupported(
                &provider.loc,
                "both `provider \"aws\"` and `provider \"sim\"` are declared".into(),
                "declare `aws` blocks (run them on the simulated cloud with `--sim FILE`), or `sim`",
            );
            return;
        }
        config.providers.push(provider);
    }

    /// The arguments and nested blocks of one `provider` block, each checked against its provider.
    fn provider_body(
        &mut self,
        block: &RawBlock<'a>,
        kind: ProviderKind,
        name: String,
        loc: Loc,
    ) -> Option<ProviderBlock> {
        let mut provider = ProviderBlock {
            kind,
            name,
            alias: None,
            region: None,
            args: BTreeMap::new(),
            blocks: Vec::new(),
            loc,
        };
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => {
                    let Some(attr) = self.attr(a) else {
                        continue;
                    };
                    if provider.args.contains_key(&attr.name)
                        || (attr.name == "alias" && provider.alias.is_some())
                        || (attr.name == "region" && provider.region.is_some())
                    {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &attr.loc,
                            format!("argument `{}` is set twice", attr.name),
                            "set it once",
                        );
                        continue;
                    }
                    match attr.name.as_str() {
                        "alias" => provider.alias = Some(self.alias(&attr)?),
                        "region" if kind != ProviderKind::Random => provider.region = Some(attr),
                        "version" => self.provider_version(&attr),
                        _ if self.provider_arg_allowed(&provider, &attr.name, false, &attr.loc) => {
                            provider.args.insert(attr.name.clone(), attr);
                        }
                        _ => {}
                    }
                }
                RawItem::Block(b) => {
                    if !self.provider_arg_allowed(&provider, &b.ident, true, &b.loc) {
                        continue;
                    }
                    let repeats = b.ident == "assume_role";
                    if !repeats && provider.nested(&b.ident).is_some() {
                        self.refuse(
                            Refusal::DuplicateBlock,
                            &b.loc,
                            format!("a second `{}` block", b.ident),
                            "write the block once",
                        );
                        continue;
                    }
                    let nested = self.provider_nested(&b.ident, &b.body, b.loc.clone());
                    provider.blocks.push((b.ident.clone(), nested));
                }
            }
        }
        Some(provider)
    }

    /// An `alias`: a literal identifier, as Terraform requires.
    fn alias(&mut self, attr: &Attr) -> Option<String> {
        let text = self.literal_string(attr)?;
        let valid = text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            self.refuse(Refusal::InvalidName,
                &attr.loc,
                format!("alias {text:?} is not a valid name"),
                "an alias starts with a letter or underscore and holds letters, digits, `_` and `-`",
            );
            return None;
        }
        Some(text)
    }

    /// The `version` argument of a provider block, which Terraform 0.13 replaced with
    /// `required_providers` and Terraform 1.x still accepts with a warning: liveplan refuses it, as the
    /// constraint would otherwise go unchecked.
    fn provider_version(&mut self, attr: &Attr) {
        self.unsupported(
            &attr.loc,
            "`version` in a provider block is not supported".into(),
            "state the constraint in `terraform { required_providers { NAME = { version = \"...\" } } }`",
        );
    }

    /// Whether the argument (or nested block) `arg` may be set in `provider`'s block; reports it when not.
    fn provider_arg_allowed(
        &mut self,
        provider: &ProviderBlock,
        arg: &str,
        is_block: bool,
        loc: &Loc,
    ) -> bool {
        let what = if is_block { "block" } else { "argument" };
        if provider.kind != ProviderKind::Aws {
            let detail = match provider.kind {
                ProviderKind::Random => "the random provider takes no arguments but `alias`",
                _ => "`provider \"sim\"` takes `region` and `alias`",
            };
            self.refuse(
                Refusal::UnsupportedArgument,
                loc,
                format!("`provider \"{}\"` has no {what} `{arg}`", provider.name),
                detail,
            );
            return false;
        }
        match aws_provider_arg(arg) {
            Some(known) if known.block != is_block => {
                let how = if known.block {
                    format!("write it as a block: `{arg} {{ ... }}`")
                } else {
                    format!("write it as an argument: `{arg} = ...`")
                };
                let (is, not) = if known.block {
                    ("a block", "an argument")
                } else {
                    ("an argument", "a block")
                };
                self.refuse(
                    Refusal::UnsupportedArgument,
                    loc,
                    format!("`{arg}` in a provider block is {is}, not {not}"),
                    &how,
                );
                false
            }
            Some(known) => match known.use_ {
                ProviderArgUse::Refused(why) => {
                    self.unsupported(
                        loc,
                        format!("provider {what} `{arg}` is not supported"),
                        why,
                    );
                    false
                }
                _ => true,
            },
            None => {
                let fault = if is_block {
                    Refusal::UnsupportedBlock
                } else {
                    Refusal::UnsupportedArgument
                };
                self.refuse(
                    fault,
                    loc,
                    format!("the aws provider has no {what} `{arg}`"),
                    "see the arguments of the AWS provider v5; a typo here would otherwise go unnoticed",
                );
                false
            }
        }
    }

    /// A nested block of an `aws` provider block: its arguments, checked where liveplan reads them.
    fn provider_nested(&mut self, ident: &str, body: &RawBody<'a>, loc: Loc) -> ProviderNested {
        let mut nested = ProviderNested {
            args: BTreeMap::new(),
            loc,
        };
        let allowed = aws_nested_args(ident);
        for item in &body.items {
            match item {
                RawItem::Attr(a) => {
                    let Some(attr) = self.attr(a) else {
                        continue;
                    };
                    // `endpoints` takes one argument per AWS service; every other block has a fixed list.
                    if ident != "endpoints" && !allowed.contains(&attr.name.as_str()) {
                        self.refuse(
                            Refusal::UnsupportedArgument,
                            &attr.loc,
                            format!("`{ident}` has no argument `{}`", attr.name),
                            &format!("its arguments are: {}", allowed.join(", ")),
                        );
                        continue;
                    }
                    if nested.args.contains_key(&attr.name) {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &attr.loc,
                            format!("argument `{}` is set twice", attr.name),
                            "set it once",
                        );
                        continue;
                    }
                    nested.args.insert(attr.name.clone(), attr);
                }
                RawItem::Block(b) => self.refuse(
                    Refusal::UnsupportedBlock,
                    &b.loc,
                    format!("`{ident}` has no block `{}`", b.ident),
                    "write its settings as arguments",
                ),
            }
        }
        nested
    }
}
