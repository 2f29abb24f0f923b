//! `module` blocks: the call's meta-arguments (`source`, `version`, `count`, `for_each`, `providers`,
//! `depends_on`) and its input variables.

use std::collections::BTreeMap;

use super::Parser;
use super::Refusal;
use super::raw::{RawBlock, RawItem};
use super::value::Mode;
use crate::config::{Attr, ExprKind, Loc, ModuleCall, ProviderRef, Repetition};

impl<'a> Parser<'a> {
    /// A `module "name"` block, or `None` when it cannot be read (each problem reported).
    pub(super) fn module_call(
        &mut self,
        block: &RawBlock<'a>,
        name: String,
        loc: Loc,
    ) -> Option<ModuleCall> {
        if !self.valid_name(&name, &loc, "module") {
            return None;
        }
        let mut call = ModuleCall {
            name,
            source: String::new(),
            version: None,
            repetition: Repetition::Single,
            providers: Vec::new(),
            depends_on: Vec::new(),
            inputs: BTreeMap::new(),
            loc: loc.clone(),
        };
        let (mut count, mut for_each, mut source) = (None, None, None);
        let mut seen = std::collections::BTreeSet::new();
        for item in &block.body.items {
            let a = match item {
                RawItem::Attr(a) => a,
                RawItem::Block(b) => {
                    self.refuse(
                        Refusal::UnsupportedBlock,
                        &b.loc,
                        format!("block `{}` is not expected in `module`", b.ident),
                        "a module call sets its input variables as arguments",
                    );
                    continue;
                }
            };
            let key = a.name.as_str();
            if !seen.insert(key) {
                self.refuse(
                    Refusal::DuplicateArgument,
                    &a.loc,
                    format!("argument `{key}` is set twice"),
                    "set it once",
                );
                continue;
            }
            let mode = match key {
                "source" | "version" => Mode::Literal,
                "depends_on" => Mode::Reference,
                _ => Mode::Expression,
            };
            let Some(attr) = self.attr_as(a, mode) else {
                continue;
            };
            match key {
                "source" => source = self.literal_string(&attr),
                "version" => call.version = self.literal_string(&attr),
                "count" => count = Some(attr),
                "for_each" => for_each = Some(attr),
                "providers" => call.providers = self.module_providers(&attr),
                "depends_on" => call.depends_on = self.depends_on_list(&attr.expr)?,
                _ => {
                    call.inputs.insert(key.to_owned(), attr);
                }
            }
        }
        let Some(source) = source else {
            self.refuse(
                Refusal::MissingArgument,
                &loc,
                format!("module `{}` has no `source`", call.name),
                "set `source` to the module's directory (`./modules/net`) or address",
            );
            return None;
        };
        call.source = source;
        call.repetition = match (count, for_each) {
            (Some(_), Some(fe)) => {
                self.refuse(
                    Refusal::InvalidValue,
                    &fe.loc,
                    format!("module `{}` sets both `count` and `for_each`", call.name),
                    "use one of them",
                );
                return None;
            }
            (Some(c), None) => Repetition::Count(c),
            (None, Some(fe)) => Repetition::ForEach(fe),
            (None, None) => Repetition::Single,
        };
        Some(call)
    }

    /// `providers = { aws = aws.west, aws.east = aws }`: each entry a provider configuration of the called
    /// module and one of the caller's, both bare references.
    fn module_providers(&mut self, attr: &Attr) -> Vec<(ProviderRef, ProviderRef, Loc)> {
        let ExprKind::Object(items) = &attr.expr.kind else {
            self.refuse(
                Refusal::InvalidValue,
                &attr.expr.loc,
                "`providers` must be a map of provider configurations".into(),
                "write `providers = { aws = aws.west }`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in items {
            let child = provider_path(k, true);
            let parent = provider_path(v, false);
            match (child, parent) {
                (Some(child), Some(parent)) => out.push((child, parent, k.loc.clone())),
                _ => self.refuse(
                    Refusal::InvalidValue,
                    &k.loc,
                    "a `providers` entry must map a provider configuration to another".into(),
                    "write `aws = aws.west` or `aws.east = aws`, without quotes",
                ),
            }
        }
        out
    }
}

/// A provider configuration written as `aws` or `aws.west` (as a key, a bare name reads as a string).
fn provider_path(e: &crate::config::Expr, as_key: bool) -> Option<ProviderRef> {
    let path = match &e.kind {
        ExprKind::String(s) if as_key => s.split('.').map(str::to_owned).collect(),
        _ => e.as_static_path()?,
    };
    match path.as_slice() {
        [name] => Some(ProviderRef::default_of(name.clone())),
        [name, alias] => Some(ProviderRef {
            name: name.clone(),
            alias: Some(alias.clone()),
        }),
        _ => None,
    }
}
