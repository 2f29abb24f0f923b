//! The model of a `module` block: which module it calls (`source`, `version`), how it repeats, the
//! provider configurations it passes down, what it waits for and the input variables it sets.
//!
//! Parsing fills it; [`crate::config::expand_modules`] turns each call into the called module's blocks.

use std::collections::BTreeMap;

use super::{Attr, Expr, Loc, ProviderRef, Repetition, Variable};

/// `module "name" { source = "./modules/net", count/for_each, providers = { ... }, depends_on, inputs }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleCall {
    /// The call's name (`net` of `module "net"`).
    pub name: String,
    /// The `source` as written (`./modules/net`, `git::https://...`, a registry address).
    pub source: String,
    /// The `version` constraint, for a registry source.
    pub version: Option<String>,
    /// How the call repeats: once, `count` times or once per `for_each` key.
    pub repetition: Repetition,
    /// `providers = { aws = aws.west }`: the called module's provider configuration (by its local name and
    /// alias) and the caller's configuration it gets, with where each entry is written.
    pub providers: Vec<(ProviderRef, ProviderRef, Loc)>,
    /// `depends_on`: what every object of the module waits for.
    pub depends_on: Vec<(Vec<String>, Loc)>,
    /// The input variables set, by name.
    pub inputs: BTreeMap<String, Attr>,
    /// Where the block starts.
    pub loc: Loc,
}

impl ModuleCall {
    /// Whether the source is a local path (`./` or `../`), read from the configuration's own files.
    pub fn is_local(&self) -> bool {
        self.source.starts_with("./") || self.source.starts_with("../")
    }
}

/// An input variable of one module instance, as expressions of the expanded configuration read it
/// ([`ExprKind::ModuleInput`](super::ExprKind::ModuleInput)).
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleInput {
    /// The module instance, as its address shows it (`module.net`).
    pub module: String,
    /// The variable as the called module declares it, its default in the module instance's scope.
    pub variable: Variable,
    /// The caller's argument, in the caller's scope; `None` when the call does not set it.
    pub value: Option<Expr>,
}
