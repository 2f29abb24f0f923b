//! The block model: each top-level block kind (`live`, `provider`, `variable`, `locals`, `resource`,
//! `output`) lowered into the configuration, and every block outside the subset refused.
//!
//! A name is declared once; a second declaration is reported and left out, never merged. Expressions are
//! lowered by [`super::expr`]; nothing here evaluates one.

use std::collections::BTreeMap;

use hcl_edit::Span;
use hcl_edit::structure::{Block, BlockLabel, Body, Structure};

use super::Parser;
use crate::config::expr::{Expr, ExprKind, Loc};
use crate::config::{
    Attr, BlockLabels, Config, IgnoreChanges, Lifecycle, LiveBlock, Output, ProviderBlock,
    ProviderKind, RecordStoreBlock, RecordStoreKind, Repetition, Resource, Variable,
};
use crate::value::Type;

/// The meta-arguments and nested blocks Terraform accepts on a resource that this subset does not.
const UNSUPPORTED_RESOURCE_META: &[&str] = &["provider", "connection", "provisioner", "dynamic"];

/// What a name is declared as, for the one report of a name declared twice.
#[derive(Clone, Copy)]
enum Declaration {
    Variable,
    Local,
    Resource,
    Output,
}

impl Declaration {
    /// The word the report names the declaration with.
    fn noun(self) -> &'static str {
        match self {
            Declaration::Variable => "variable",
            Declaration::Local => "local",
            Declaration::Resource => "resource",
            Declaration::Output => "output",
        }
    }

    /// How the block is written, for a block with the wrong labels.
    fn usage(self) -> &'static str {
        match self {
            Declaration::Variable => "write `variable \"name\" { ... }`",
            Declaration::Local => "write `locals { name = value }`",
            Declaration::Resource => "write `resource \"type\" \"name\" { ... }`",
            Declaration::Output => "write `output \"name\" { value = ... }`",
        }
    }

    /// What to do about the second declaration.
    fn detail(self) -> &'static str {
        match self {
            Declaration::Variable | Declaration::Output => "declare it once",
            Declaration::Local => "declare each local once",
            Declaration::Resource => "give each resource block a unique name",
        }
    }
}

impl Parser<'_> {
    /// Every top-level structure of one file: blocks only.
    pub(super) fn top_level(&mut self, body: &Body, config: &mut Config) {
        let top = self.map.loc(0);
        for structure in body.iter() {
            match structure {
                Structure::Attribute(a) => {
                    let loc = self.map.loc_of(a.span(), &top);
                    self.unsupported(
                        &loc,
                        format!("top-level attribute `{}` is not supported", a.key.as_str()),
                        "declare values in a `locals` or `variable` block",
                    );
                }
                Structure::Block(block) => self.top_block(block, config),
            }
        }
    }

    /// The labels of `block`, as written.
    fn labels(&self, block: &Block) -> Vec<String> {
        block
            .labels
            .iter()
            .map(|l| match l {
                BlockLabel::Ident(i) => i.as_str().to_string(),
                BlockLabel::String(s) => s.as_str().to_string(),
            })
            .collect()
    }

    /// Checks the block has exactly `n` labels; reports and returns false otherwise.
    fn expect_labels(&mut self, block: &Block, loc: &Loc, n: usize, what: &str) -> bool {
        if block.labels.len() == n {
            return true;
        }
        self.unsupported(
            loc,
            format!(
                "`{}` block needs {n} label(s), found {}",
                block.ident.as_str(),
                block.labels.len()
            ),
            what,
        );
        false
    }

    /// One top-level block, by its kind.
    fn top_block(&mut self, block: &Block, config: &mut Config) {
        let top = self.map.loc(0);
        let loc = self.map.loc_of(block.span(), &top);
        match block.ident.as_str() {
            "live" => self.declare_live(block, loc, config),
            "provider" => self.declare_provider(block, loc, config),
            "variable" => self.declare_named(
                block,
                loc,
                &mut config.variables,
                Declaration::Variable,
                Self::variable,
            ),
            "locals" => self.declare_locals(block, &loc, config),
            "resource" => self.declare_resource(block, loc, config),
            "output" => self.declare_named(
                block,
                loc,
                &mut config.outputs,
                Declaration::Output,
                Self::output,
            ),
            kind @ ("module" | "data" | "moved" | "import" | "removed" | "check" | "terraform") => {
                let what = match kind {
                    "module" => "modules are",
                    "data" => "data sources are",
                    "moved" => "`moved` blocks are (use `liveplan mv`)",
                    "import" => "`import` blocks are (use `liveplan adopt`)",
                    "removed" => "`removed` blocks are",
                    "check" => "`check` blocks are",
                    _ => "`terraform` blocks are (the estate and record store are set in `live`)",
                };
                self.unsupported(
                    &loc,
                    format!("`{kind}` block is not supported"),
                    &format!("{what} outside the supported configuration subset"),
                );
            }
            other => self.unsupported(
                &loc,
                format!("unknown block type `{other}`"),
                "the supported blocks are live, provider, variable, locals, resource and output",
            ),
        }
    }

    /// Whether `name` may be declared as a new `what`: a name already `taken` is reported at `loc`.
    fn declare_once(&mut self, taken: bool, name: &str, loc: &Loc, what: Declaration) -> bool {
        if taken {
            self.unsupported(
                loc,
                format!("{} `{name}` is declared twice", what.noun()),
                what.detail(),
            );
        }
        !taken
    }

    /// The `live` block: one, without labels.
    fn declare_live(&mut self, block: &Block, loc: Loc, config: &mut Config) {
        if !self.expect_labels(block, &loc, 0, "write `live { estate = \"name\" }`") {
            return;
        }
        if config.live.is_some() {
            self.unsupported(
                &loc,
                "a second `live` block".into(),
                "declare one `live` block",
            );
            return;
        }
        config.live = Some(self.live_block(block, &loc));
    }

    /// A `provider` block: `aws` or `sim`, declared once, and never both.
    fn declare_provider(&mut self, block: &Block, loc: Loc, config: &mut Config) {
        if !self.expect_labels(
            block,
            &loc,
            1,
            "write `provider \"sim\" { region = \"...\" }`",
        ) {
            return;
        }
        let label = &self.labels(block)[0];
        let kind = match label.as_str() {
            "aws" => ProviderKind::Aws,
            "sim" => ProviderKind::Sim,
            other => {
                self.unsupported(
                    &loc,
                    format!("provider `{other}` is not supported"),
                    "use `provider \"aws\"` or `provider \"sim\"`",
                );
                return;
            }
        };
        if config.providers.iter().any(|p| p.kind == kind) {
            self.unsupported(
                &loc,
                format!("a second `provider \"{label}\"` block"),
                "provider aliases are not supported: declare each provider once",
            );
            return;
        }
        if !config.providers.is_empty() {
            self.unsupported(
                &loc,
                "both `provider \"aws\"` and `provider \"sim\"` are declared".into(),
                "declare one provider: `aws` for the real cloud, `sim` for the simulated one",
            );
            return;
        }
        let attrs = self.flat_body(&block.body, &loc, &["region"], "provider");
        let region = attrs.into_iter().find(|a| a.name == "region");
        config.providers.push(ProviderBlock { kind, region, loc });
    }

    /// A `locals` block: `name = value` lines, each local declared once across every block.
    fn declare_locals(&mut self, block: &Block, loc: &Loc, config: &mut Config) {
        if !self.expect_labels(block, loc, 0, Declaration::Local.usage()) {
            return;
        }
        for structure in block.body.iter() {
            match structure {
                Structure::Attribute(a) => {
                    let Some(attr) = self.attr(a, loc) else {
                        continue;
                    };
                    let taken = config.locals.contains_key(&attr.name);
                    if self.declare_once(taken, &attr.name, &attr.loc, Declaration::Local) {
                        config.locals.insert(attr.name.clone(), attr);
                    }
                }
                Structure::Block(b) => {
                    let bloc = self.map.loc_of(b.span(), loc);
                    self.unsupported(
                        &bloc,
                        format!("block `{}` inside `locals`", b.ident.as_str()),
                        "locals hold only `name = value` lines",
                    );
                }
            }
        }
    }

    /// A `resource` block, one per type and name.
    fn declare_resource(&mut self, block: &Block, loc: Loc, config: &mut Config) {
        if !self.expect_labels(block, &loc, 2, Declaration::Resource.usage()) {
            return;
        }
        let labels = self.labels(block);
        let taken = config.resource(&labels[0], &labels[1]).is_some();
        let address = BlockLabels::new(&labels[0], &labels[1]).to_string();
        if !self.declare_once(taken, &address, &loc, Declaration::Resource) {
            return;
        }
        if let Some(r) = self.resource(block, labels[0].clone(), labels[1].clone(), loc) {
            config.add_resource(r);
        }
    }

    /// A block with one label, its name (a `variable` or an `output`), read by `read` into `declared`
    /// unless the name is declared already.
    fn declare_named<T>(
        &mut self,
        block: &Block,
        loc: Loc,
        declared: &mut BTreeMap<String, T>,
        what: Declaration,
        read: fn(&mut Self, &Block, String, Loc) -> Option<T>,
    ) {
        if !self.expect_labels(block, &loc, 1, what.usage()) {
            return;
        }
        let name = self.labels(block).remove(0);
        if !self.declare_once(declared.contains_key(&name), &name, &loc, what) {
            return;
        }
        if let Some(v) = read(self, block, name.clone(), loc) {
            declared.insert(name, v);
        }
    }

    /// Reads a body of attributes only, allowing the names in `allowed`; reports blocks, unknown and
    /// repeated attributes.
    fn flat_body(&mut self, body: &Body, loc: &Loc, allowed: &[&str], what: &str) -> Vec<Attr> {
        let mut out: Vec<Attr> = Vec::new();
        for structure in body.iter() {
            match structure {
                Structure::Attribute(a) => {
                    let aloc = self.map.loc_of(a.span(), loc);
                    let name = a.key.as_str();
                    if !allowed.contains(&name) {
                        self.unsupported(
                            &aloc,
                            format!("argument `{name}` is not supported in `{what}`"),
                            &format!("the supported arguments are: {}", allowed.join(", ")),
                        );
                        continue;
                    }
                    if out.iter().any(|x| x.name == name) {
                        self.unsupported(
                            &aloc,
                            format!("argument `{name}` is set twice"),
                            "set it once",
                        );
                        continue;
                    }
                    if let Some(attr) = self.attr(a, loc) {
                        out.push(attr);
                    }
                }
                Structure::Block(b) => {
                    let bloc = self.map.loc_of(b.span(), loc);
                    self.unsupported(
                        &bloc,
                        format!("block `{}` is not supported in `{what}`", b.ident.as_str()),
                        &format!("the supported arguments are: {}", allowed.join(", ")),
                    );
                }
            }
        }
        out
    }

    /// The body of the `live` block: `estate` and one `record_store` block.
    fn live_block(&mut self, block: &Block, loc: &Loc) -> LiveBlock {
        let mut live = LiveBlock {
            estate: None,
            record_store: None,
            loc: loc.clone(),
        };
        for structure in block.body.iter() {
            match structure {
                Structure::Attribute(a) => {
                    let aloc = self.map.loc_of(a.span(), loc);
                    if a.key.as_str() != "estate" {
                        self.unsupported(
                            &aloc,
                            format!("argument `{}` is not supported in `live`", a.key.as_str()),
                            "`live` takes `estate` and a `record_store` block",
                        );
                    } else if live.estate.is_some() {
                        self.unsupported(
                            &aloc,
                            "argument `estate` is set twice".into(),
                            "set it once",
                        );
                    } else {
                        live.estate = self.attr(a, loc);
                    }
                }
                Structure::Block(b) => {
                    let bloc = self.map.loc_of(b.span(), loc);
                    if b.ident.as_str() != "record_store" {
                        self.unsupported(
                            &bloc,
                            format!("block `{}` is not supported in `live`", b.ident.as_str()),
                            "`live` takes `estate` and a `record_store` block",
                        );
                        continue;
                    }
                    if live.record_store.is_some() {
                        self.unsupported(
                            &bloc,
                            "a second `record_store` block".into(),
                            "declare one",
                        );
                        continue;
                    }
                    if !self.expect_labels(
                        b,
                        &bloc,
                        1,
                        "write `record_store \"local\"`, `record_store \"s3\"` or `record_store \"ssm\"`",
                    ) {
                        continue;
                    }
                    let (kind, allowed): (RecordStoreKind, &[&str]) = match self.labels(b)[0]
                        .as_str()
                    {
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
                            self.unsupported(
                                    &bloc,
                                    format!("record store `{other}` is not supported"),
                                    "use `record_store \"local\"`, `record_store \"s3\"` or `record_store \"ssm\"`",
                                );
                            continue;
                        }
                    };
                    let settings = self
                        .flat_body(&b.body, &bloc, allowed, "record_store")
                        .into_iter()
                        .map(|a| (a.name.clone(), a))
                        .collect();
                    live.record_store = Some(RecordStoreBlock {
                        kind,
                        settings,
                        loc: bloc,
                    });
                }
            }
        }
        live
    }

    /// The body of a `variable` block; `None` when its type, description or sensitivity is refused.
    fn variable(&mut self, block: &Block, name: String, loc: Loc) -> Option<Variable> {
        let attrs = self.flat_body(
            &block.body,
            &loc,
            &["type", "default", "description", "sensitive"],
            "variable",
        );
        let mut var = Variable {
            name,
            var_type: Type::Any,
            default: None,
            description: None,
            sensitive: false,
            loc,
        };
        for attr in attrs {
            match attr.name.as_str() {
                "type" => var.var_type = self.type_constraint(&attr.expr)?,
                "default" => var.default = Some(attr.expr),
                "description" => var.description = Some(self.literal_string(&attr)?),
                _ => var.sensitive = self.literal_bool(&attr)?,
            }
        }
        Some(var)
    }

    /// A variable's `type`, written as Terraform writes type constraints.
    fn type_constraint(&mut self, expr: &Expr) -> Option<Type> {
        let bad = |p: &mut Self, what: String| {
            p.unsupported(
                &expr.loc,
                what,
                "use string, number, bool, any, list(T), set(T), map(T), object({...}) or tuple([...])",
            );
            None
        };
        match &expr.kind {
            ExprKind::Variable(name) => match name.as_str() {
                "string" => Some(Type::String),
                "number" => Some(Type::Number),
                "bool" => Some(Type::Bool),
                "any" => Some(Type::Any),
                "list" => Some(Type::List(Box::new(Type::Any))),
                "set" => Some(Type::Set(Box::new(Type::Any))),
                "map" => Some(Type::Map(Box::new(Type::Any))),
                other => bad(self, format!("unknown type `{other}`")),
            },
            ExprKind::Call {
                name,
                args,
                expand: false,
            } if args.len() == 1 => {
                let arg = &args[0];
                match name.as_str() {
                    "list" => Some(Type::List(Box::new(self.type_constraint(arg)?))),
                    "set" => Some(Type::Set(Box::new(self.type_constraint(arg)?))),
                    "map" => Some(Type::Map(Box::new(self.type_constraint(arg)?))),
                    "object" => {
                        let ExprKind::Object(items) = &arg.kind else {
                            return bad(self, "object() takes an object of attribute types".into());
                        };
                        let mut fields = std::collections::BTreeMap::new();
                        for (k, v) in items {
                            let key = match &k.kind {
                                ExprKind::String(s) => s.clone(),
                                ExprKind::Variable(s) => s.clone(),
                                _ => {
                                    return bad(
                                        self,
                                        "object() attribute names must be literal".into(),
                                    );
                                }
                            };
                            fields.insert(key, self.type_constraint(v)?);
                        }
                        Some(Type::Object(fields))
                    }
                    "tuple" => {
                        let ExprKind::List(items) = &arg.kind else {
                            return bad(self, "tuple() takes a list of element types".into());
                        };
                        let mut types = Vec::new();
                        for item in items {
                            types.push(self.type_constraint(item)?);
                        }
                        Some(Type::Tuple(types))
                    }
                    other => bad(self, format!("unknown type constructor `{other}`")),
                }
            }
            _ => bad(self, "invalid type constraint".into()),
        }
    }

    /// An argument that must be a literal string.
    fn literal_string(&mut self, attr: &Attr) -> Option<String> {
        let s = attr.expr.as_literal_str();
        if s.is_none() {
            self.unsupported(
                &attr.expr.loc,
                format!("`{}` must be a literal string", attr.name),
                "write a quoted string with no interpolation",
            );
        }
        s
    }

    /// An argument that must be `true` or `false`.
    fn literal_bool(&mut self, attr: &Attr) -> Option<bool> {
        match attr.expr.kind {
            ExprKind::Bool(b) => Some(b),
            _ => {
                self.unsupported(
                    &attr.expr.loc,
                    format!("`{}` must be `true` or `false`", attr.name),
                    "write a literal boolean",
                );
                None
            }
        }
    }

    /// The body of a `resource` block: meta-arguments, arguments and one `lifecycle` block.
    fn resource(
        &mut self,
        block: &Block,
        type_name: String,
        name: String,
        loc: Loc,
    ) -> Option<Resource> {
        let mut res = Resource {
            type_name,
            name,
            repetition: Repetition::Single,
            depends_on: Vec::new(),
            lifecycle: Lifecycle::default(),
            attrs: BTreeMap::new(),
            loc,
        };
        let loc = res.loc.clone();
        let (mut count, mut for_each) = (None, None);
        let mut seen_lifecycle = false;
        for structure in block.body.iter() {
            match structure {
                Structure::Attribute(a) => {
                    let aloc = self.map.loc_of(a.span(), &loc);
                    let key = a.key.as_str();
                    if UNSUPPORTED_RESOURCE_META.contains(&key) {
                        self.unsupported(
                            &aloc,
                            format!("meta-argument `{key}` is not supported"),
                            "remove it: this subset has one provider of each kind and no provisioners",
                        );
                        continue;
                    }
                    if res.attrs.contains_key(key)
                        || (key == "count" && count.is_some())
                        || (key == "for_each" && for_each.is_some())
                    {
                        self.unsupported(
                            &aloc,
                            format!("argument `{key}` is set twice"),
                            "set it once",
                        );
                        continue;
                    }
                    let Some(attr) = self.attr(a, &loc) else {
                        continue;
                    };
                    match key {
                        "count" => count = Some(attr),
                        "for_each" => for_each = Some(attr),
                        "depends_on" => {
                            let ExprKind::List(items) = &attr.expr.kind else {
                                self.unsupported(
                                    &attr.expr.loc,
                                    "`depends_on` must be a list of resource references".into(),
                                    "write `depends_on = [aws_vpc.main]`",
                                );
                                continue;
                            };
                            for item in items {
                                match item.as_static_path() {
                                    Some(path) if path.len() == 2 => {
                                        res.depends_on.push((path, item.loc.clone()))
                                    }
                                    _ => self.unsupported(
                                        &item.loc,
                                        "`depends_on` entries must name a resource block".into(),
                                        "write `depends_on = [aws_vpc.main]`",
                                    ),
                                }
                            }
                        }
                        _ => {
                            res.attrs.insert(key.to_string(), attr);
                        }
                    }
                }
                Structure::Block(b) => {
                    let bloc = self.map.loc_of(b.span(), &loc);
                    let ident = b.ident.as_str();
                    if ident == "lifecycle" && !seen_lifecycle && b.labels.is_empty() {
                        seen_lifecycle = true;
                        res.lifecycle = self.lifecycle(b, &bloc);
                    } else if ident == "lifecycle" {
                        self.unsupported(
                            &bloc,
                            "a second `lifecycle` block".into(),
                            "declare one `lifecycle` block",
                        );
                    } else if UNSUPPORTED_RESOURCE_META.contains(&ident) {
                        self.unsupported(
                            &bloc,
                            format!("`{ident}` blocks are not supported"),
                            "this subset has no provisioners, connections or dynamic blocks",
                        );
                    } else {
                        self.unsupported(
                            &bloc,
                            format!("nested block `{ident}` is not supported in a resource"),
                            "the supported resource types take arguments only, besides `lifecycle`",
                        );
                    }
                }
            }
        }
        res.repetition = self.repetition(count, for_each, &res)?;
        Some(res)
    }

    /// How a resource block repeats; a block that sets both `count` and `for_each` is refused.
    fn repetition(
        &mut self,
        count: Option<Attr>,
        for_each: Option<Attr>,
        res: &Resource,
    ) -> Option<Repetition> {
        Some(match (count, for_each) {
            (Some(_), Some(fe)) => {
                self.unsupported(
                    &fe.loc,
                    format!(
                        "resource `{}` sets both `count` and `for_each`",
                        res.address()
                    ),
                    "use one of them",
                );
                return None;
            }
            (Some(c), None) => Repetition::Count(c),
            (None, Some(fe)) => Repetition::ForEach(fe),
            (None, None) => Repetition::Single,
        })
    }

    /// The body of a `lifecycle` block.
    fn lifecycle(&mut self, block: &Block, loc: &Loc) -> Lifecycle {
        let attrs = self.flat_body(
            &block.body,
            loc,
            &["create_before_destroy", "prevent_destroy", "ignore_changes"],
            "lifecycle",
        );
        let mut lc = Lifecycle::default();
        for attr in attrs {
            match attr.name.as_str() {
                "create_before_destroy" => {
                    lc.create_before_destroy = self.literal_bool(&attr).unwrap_or(false)
                }
                "prevent_destroy" => lc.prevent_destroy = self.literal_bool(&attr).unwrap_or(false),
                _ => {
                    lc.ignore_changes = match &attr.expr.kind {
                        ExprKind::Variable(v) if v == "all" => {
                            IgnoreChanges::All(attr.expr.loc.clone())
                        }
                        ExprKind::List(items) => {
                            let mut paths = Vec::new();
                            for item in items {
                                match item.as_static_path() {
                                    Some(p) => paths.push((p, item.loc.clone())),
                                    None => self.unsupported(
                                        &item.loc,
                                        "`ignore_changes` entries must be attribute paths".into(),
                                        "write `ignore_changes = [tags[\"Name\"]]`",
                                    ),
                                }
                            }
                            IgnoreChanges::Paths(paths)
                        }
                        _ => {
                            self.unsupported(
                                &attr.expr.loc,
                                "`ignore_changes` must be `all` or a list of attribute paths"
                                    .into(),
                                "write `ignore_changes = [tags[\"Name\"]]`",
                            );
                            IgnoreChanges::None
                        }
                    }
                }
            }
        }
        lc
    }

    /// The body of an `output` block; `None` when it has no `value`.
    fn output(&mut self, block: &Block, name: String, loc: Loc) -> Option<Output> {
        let attrs = self.flat_body(
            &block.body,
            &loc,
            &["value", "sensitive", "description"],
            "output",
        );
        let mut value = None;
        let mut sensitive = false;
        let mut description = None;
        for attr in attrs {
            match attr.name.as_str() {
                "value" => value = Some(attr.expr),
                "sensitive" => sensitive = self.literal_bool(&attr)?,
                _ => description = Some(self.literal_string(&attr)?),
            }
        }
        let Some(value) = value else {
            self.unsupported(
                &loc,
                format!("output `{name}` has no `value`"),
                "set `value = ...`",
            );
            return None;
        };
        Some(Output {
            name,
            value,
            sensitive,
            description,
            loc,
        })
    }

    /// One `name = expression` line.
    pub(super) fn attr(
        &mut self,
        a: &hcl_edit::structure::Attribute,
        parent: &Loc,
    ) -> Option<Attr> {
        let loc = self.map.loc_of(a.span(), parent);
        let expr = self.expr(&a.value, &loc)?;
        Some(Attr {
            name: a.key.as_str().to_string(),
            expr,
            loc,
        })
    }
}
