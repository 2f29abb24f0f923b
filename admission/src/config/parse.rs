//! Parsing: HCL text into the configuration model, with every problem reported at its file:line:col.
//!
//! `hcl-edit` does the HCL grammar and keeps byte spans; this module lowers its tree into [`Expr`] and the
//! block model, and refuses anything outside the subset with `unsupported-construct`. It never evaluates an
//! expression and never stops at the first problem: every file and block is looked at.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use hcl_edit::Span;
use hcl_edit::expr as hx;
use hcl_edit::structure::{Block, BlockLabel, Body, Structure};
use hcl_edit::template as ht;

use super::expr::{BinaryOp, Expr, ExprKind, ForExpr, Loc, Step, TemplatePart, UnaryOp};
use super::{
    Attr, Config, IgnoreChanges, Lifecycle, LiveBlock, Output, ProviderBlock, ProviderKind,
    RecordStoreBlock, RecordStoreKind, Resource, SourceFile, Variable,
};
use crate::diag::{Code, Diagnostic};
use crate::value::Type;

/// Maps byte offsets of one file to lines and character columns.
pub(crate) struct SourceMap {
    file: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceMap {
    pub(crate) fn new(file: &str, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceMap {
            file: Arc::from(file),
            text: Arc::from(text),
            line_starts,
        }
    }

    pub(crate) fn loc(&self, offset: usize) -> Loc {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        Loc {
            file: self.file.clone(),
            line,
            column,
        }
    }

    fn loc_of(&self, span: Option<Range<usize>>, fallback: &Loc) -> Loc {
        span.map_or_else(|| fallback.clone(), |r| self.loc(r.start))
    }
}

/// Parses the `*.tf` files of a configuration (in the order given; [`super::read_dir`] sorts them by name)
/// into one model, with every syntax error and construct outside the subset as a diagnostic. A file that
/// does not parse contributes nothing; the others are still read.
pub fn parse_config(files: &[SourceFile]) -> (Config, Vec<Diagnostic>) {
    if files.iter().all(|f| shallow(&f.text)) {
        parse_config_here(files)
    } else {
        with_parser_stack(files, parse_config_here)
    }
}

fn parse_config_here(files: &[SourceFile]) -> (Config, Vec<Diagnostic>) {
    let mut config = Config::default();
    let mut diags = Vec::new();
    for file in files {
        config.files.push(file.name.clone());
        let map = SourceMap::new(&file.name, &file.text);
        match hcl_edit::parser::parse_body(&file.text) {
            Ok(body) => {
                let mut p = Parser {
                    map: &map,
                    diags: &mut diags,
                    depth: 0,
                };
                p.top_level(&body, &mut config);
            }
            Err(err) => diags.push(syntax_error(&map, &err)),
        }
    }
    (config, diags)
}

/// The stack the HCL parser runs on. `hcl-edit` refuses nesting beyond 64 levels, but in a debug build
/// reaching that limit takes more stack than a default thread has; parsing on a thread of its own with room
/// to spare keeps hostile input a syntax error instead of a stack overflow. The memory is reserved, and only
/// used as deep as the input goes.
const PARSER_STACK: usize = 64 << 20;

/// Whether `text` nests brackets so little that the parser is sure to fit in an ordinary thread's stack.
/// Brackets are counted everywhere, strings and comments included: counting too many only costs a thread.
fn shallow(text: &str) -> bool {
    let mut depth: usize = 0;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > SHALLOW_BRACKETS {
                    return false;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// Bracket nesting up to which parsing runs on the caller's thread (the parser needs far more stack per
/// bracket than per operator; every other construct stays within its own nesting limit).
const SHALLOW_BRACKETS: usize = 32;

/// Runs `work(arg)` on a scoped thread with [`PARSER_STACK`] of stack and waits for it; the thread never
/// outlives the call. If no thread can be started, the work runs here.
fn with_parser_stack<A: Sync + ?Sized, T: Send>(arg: &A, work: fn(&A) -> T) -> T {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("hcl-parser".into())
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || work(arg));
        match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => work(arg),
        }
    })
}

/// Parses one expression on its own (a `--var` value of a complex type, a test input). `name` labels
/// diagnostics.
pub fn parse_expression(name: &str, text: &str) -> Result<Expr, Box<Diagnostic>> {
    with_parser_stack(&(name, text), |(name, text)| {
        parse_expression_here(name, text)
    })
}

fn parse_expression_here(name: &str, text: &str) -> Result<Expr, Box<Diagnostic>> {
    let map = SourceMap::new(name, text);
    let expr =
        hcl_edit::parser::parse_expr(text).map_err(|err| Box::new(syntax_error(&map, &err)))?;
    let mut diags = Vec::new();
    let mut p = Parser {
        map: &map,
        diags: &mut diags,
        depth: 0,
    };
    let start = map.loc(0);
    p.expr(&expr, &start)
        .ok_or_else(|| Box::new(diags.swap_remove(0)))
}

/// Parses a variable file (`NAME = value` lines) into its attributes.
pub(crate) fn parse_var_file(file: &SourceFile) -> (Vec<Attr>, Vec<Diagnostic>) {
    if shallow(&file.text) {
        parse_var_file_here(file)
    } else {
        with_parser_stack(file, parse_var_file_here)
    }
}

fn parse_var_file_here(file: &SourceFile) -> (Vec<Attr>, Vec<Diagnostic>) {
    let map = SourceMap::new(&file.name, &file.text);
    let mut diags = Vec::new();
    let mut attrs = Vec::new();
    match hcl_edit::parser::parse_body(&file.text) {
        Ok(body) => {
            let mut p = Parser {
                map: &map,
                diags: &mut diags,
                depth: 0,
            };
            let top = map.loc(0);
            for structure in body.iter() {
                match structure {
                    Structure::Attribute(a) => {
                        if let Some(attr) = p.attr(a, &top) {
                            attrs.push(attr);
                        }
                    }
                    Structure::Block(b) => {
                        let loc = p.map.loc_of(b.span(), &top);
                        p.diags.push(
                            Diagnostic::new(
                                Code::InvalidVariable,
                                format!("a variable file holds a block `{}`", b.ident.as_str()),
                                "a variable file holds only `NAME = value` lines",
                            )
                            .at(loc.to_pos()),
                        );
                    }
                }
            }
        }
        Err(err) => {
            let mut d = syntax_error(&map, &err);
            d.code = Code::InvalidVariable;
            diags.push(d);
        }
    }
    (attrs, diags)
}

fn syntax_error(map: &SourceMap, err: &hcl_edit::parser::Error) -> Diagnostic {
    let loc = err.location();
    let pos = crate::diag::SourcePos {
        file: map.file.to_string(),
        line: loc.line(),
        column: loc.column(),
    };
    Diagnostic::new(
        Code::ConfigSyntax,
        format!("invalid HCL: {}", err.message()),
        "fix the syntax at the position shown",
    )
    .at(pos)
}

struct Parser<'a> {
    map: &'a SourceMap,
    diags: &'a mut Vec<Diagnostic>,
    /// How deep the expression being lowered is; bounded so that every later walk of the tree is too.
    depth: usize,
}

/// The deepest expression tree accepted. The HCL parser bounds nesting per scope, but scopes multiply; this
/// keeps lowering, evaluation and lint far from the stack's end.
const MAX_EXPR_DEPTH: usize = 200;

/// The meta-arguments and nested blocks Terraform accepts on a resource that this subset does not.
const UNSUPPORTED_RESOURCE_META: &[&str] = &["provider", "connection", "provisioner", "dynamic"];

impl Parser<'_> {
    fn unsupported(&mut self, loc: &Loc, summary: String, detail: &str) {
        self.diags
            .push(Diagnostic::new(Code::UnsupportedConstruct, summary, detail).at(loc.to_pos()));
    }

    fn top_level(&mut self, body: &Body, config: &mut Config) {
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

    fn top_block(&mut self, block: &Block, config: &mut Config) {
        let top = self.map.loc(0);
        let loc = self.map.loc_of(block.span(), &top);
        let kind = block.ident.as_str();
        match kind {
            "live" => {
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
            "provider" => {
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
            "variable" => {
                if !self.expect_labels(block, &loc, 1, "write `variable \"name\" { ... }`") {
                    return;
                }
                let name = self.labels(block).remove(0);
                if config.variables.contains_key(&name) {
                    self.unsupported(
                        &loc,
                        format!("variable `{name}` is declared twice"),
                        "declare it once",
                    );
                    return;
                }
                if let Some(v) = self.variable(block, name.clone(), loc) {
                    config.variables.insert(name, v);
                }
            }
            "locals" => {
                if !self.expect_labels(block, &loc, 0, "write `locals { name = value }`") {
                    return;
                }
                for structure in block.body.iter() {
                    match structure {
                        Structure::Attribute(a) => {
                            let Some(attr) = self.attr(a, &loc) else {
                                continue;
                            };
                            if config.locals.contains_key(&attr.name) {
                                self.unsupported(
                                    &attr.loc,
                                    format!("local `{}` is declared twice", attr.name),
                                    "declare each local once",
                                );
                                continue;
                            }
                            config.locals.insert(attr.name.clone(), attr);
                        }
                        Structure::Block(b) => {
                            let bloc = self.map.loc_of(b.span(), &loc);
                            self.unsupported(
                                &bloc,
                                format!("block `{}` inside `locals`", b.ident.as_str()),
                                "locals hold only `name = value` lines",
                            );
                        }
                    }
                }
            }
            "resource" => {
                if !self.expect_labels(block, &loc, 2, "write `resource \"type\" \"name\" { ... }`")
                {
                    return;
                }
                let labels = self.labels(block);
                if config.resource(&labels[0], &labels[1]).is_some() {
                    self.unsupported(
                        &loc,
                        format!("resource `{}.{}` is declared twice", labels[0], labels[1]),
                        "give each resource block a unique name",
                    );
                    return;
                }
                if let Some(r) = self.resource(block, labels[0].clone(), labels[1].clone(), loc) {
                    config.add_resource(r);
                }
            }
            "output" => {
                if !self.expect_labels(block, &loc, 1, "write `output \"name\" { value = ... }`") {
                    return;
                }
                let name = self.labels(block).remove(0);
                if config.outputs.contains_key(&name) {
                    self.unsupported(
                        &loc,
                        format!("output `{name}` is declared twice"),
                        "declare it once",
                    );
                    return;
                }
                if let Some(o) = self.output(block, name.clone(), loc) {
                    config.outputs.insert(name, o);
                }
            }
            "module" | "data" | "moved" | "import" | "removed" | "check" | "terraform" => {
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
                        "write `record_store \"local\"` or `record_store \"s3\"`",
                    ) {
                        continue;
                    }
                    let (kind, allowed): (RecordStoreKind, &[&str]) =
                        match self.labels(b)[0].as_str() {
                            "local" => (RecordStoreKind::Local, &["path"]),
                            "s3" => (
                                RecordStoreKind::S3,
                                &["bucket", "key_prefix", "region", "allow_insecure"],
                            ),
                            other => {
                                self.unsupported(
                                    &bloc,
                                    format!("record store `{other}` is not supported"),
                                    "use `record_store \"local\"` or `record_store \"s3\"`",
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
            count: None,
            for_each: None,
            depends_on: Vec::new(),
            lifecycle: Lifecycle::default(),
            attrs: BTreeMap::new(),
            loc,
        };
        let loc = res.loc.clone();
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
                        || (key == "count" && res.count.is_some())
                        || (key == "for_each" && res.for_each.is_some())
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
                        "count" => res.count = Some(attr),
                        "for_each" => res.for_each = Some(attr),
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
        if let (Some(_), Some(fe)) = (&res.count, &res.for_each) {
            let floc = fe.loc.clone();
            self.unsupported(
                &floc,
                format!(
                    "resource `{}` sets both `count` and `for_each`",
                    res.address()
                ),
                "use one of them",
            );
            return None;
        }
        Some(res)
    }

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

    fn attr(&mut self, a: &hcl_edit::structure::Attribute, parent: &Loc) -> Option<Attr> {
        let loc = self.map.loc_of(a.span(), parent);
        let expr = self.expr(&a.value, &loc)?;
        Some(Attr {
            name: a.key.as_str().to_string(),
            expr,
            loc,
        })
    }

    /// Lowers one expression; reports and returns `None` for anything outside the subset.
    pub(crate) fn expr(&mut self, e: &hx::Expression, parent: &Loc) -> Option<Expr> {
        if self.depth >= MAX_EXPR_DEPTH {
            let loc = self.map.loc_of(e.span(), parent);
            self.unsupported(
                &loc,
                "expression nested too deeply".into(),
                "split it into locals",
            );
            return None;
        }
        self.depth += 1;
        let out = self.expr_inner(e, parent);
        self.depth -= 1;
        out
    }

    fn expr_inner(&mut self, e: &hx::Expression, parent: &Loc) -> Option<Expr> {
        let loc = self.map.loc_of(e.span(), parent);
        let kind = match e {
            hx::Expression::Null(_) => ExprKind::Null,
            hx::Expression::Bool(b) => ExprKind::Bool(*b.value()),
            hx::Expression::Number(n) => match n.value().as_f64() {
                Some(f) if f.is_finite() => ExprKind::Number(f),
                _ => {
                    self.unsupported(&loc, "number out of range".into(), "write a smaller number");
                    return None;
                }
            },
            hx::Expression::String(s) => ExprKind::String(s.value().clone()),
            hx::Expression::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    out.push(self.expr(item, &loc)?);
                }
                ExprKind::List(out)
            }
            hx::Expression::Object(obj) => {
                let mut out = Vec::new();
                for (k, v) in obj.iter() {
                    let key = match k {
                        hx::ObjectKey::Ident(i) => Expr {
                            kind: ExprKind::String(i.as_str().to_string()),
                            loc: self.map.loc_of(i.span(), &loc),
                        },
                        hx::ObjectKey::Expression(ke) => {
                            // A bare name as key is the name itself, as in Terraform.
                            let lowered = self.expr(ke, &loc)?;
                            match lowered.kind {
                                ExprKind::Variable(name) => Expr {
                                    kind: ExprKind::String(name),
                                    loc: lowered.loc,
                                },
                                _ => lowered,
                            }
                        }
                    };
                    let value = self.expr(v.expr(), &loc)?;
                    out.push((key, value));
                }
                ExprKind::Object(out)
            }
            hx::Expression::StringTemplate(t) => self.template(t, &loc)?,
            hx::Expression::HeredocTemplate(h) => self.template(&h.template, &loc)?,
            hx::Expression::Parenthesis(p) => return self.expr(p.inner(), &loc),
            hx::Expression::Variable(v) => ExprKind::Variable(v.as_str().to_string()),
            hx::Expression::Conditional(c) => ExprKind::Conditional(
                Box::new(self.expr(&c.cond_expr, &loc)?),
                Box::new(self.expr(&c.true_expr, &loc)?),
                Box::new(self.expr(&c.false_expr, &loc)?),
            ),
            hx::Expression::FuncCall(call) => {
                if call.name.is_namespaced() {
                    self.unsupported(
                        &loc,
                        "provider-defined functions are not supported".into(),
                        "use the built-in functions",
                    );
                    return None;
                }
                let mut args = Vec::new();
                for arg in call.args.iter() {
                    args.push(self.expr(arg, &loc)?);
                }
                ExprKind::Call {
                    name: call.name.name.as_str().to_string(),
                    args,
                    expand: call.args.expand_final(),
                }
            }
            hx::Expression::Traversal(t) => {
                let base = self.expr(&t.expr, &loc)?;
                let mut steps = Vec::new();
                for op in &t.operators {
                    steps.push(match op.value() {
                        hx::TraversalOperator::AttrSplat(_)
                        | hx::TraversalOperator::FullSplat(_) => Step::Splat,
                        hx::TraversalOperator::GetAttr(i) => Step::Attr(i.as_str().to_string()),
                        hx::TraversalOperator::Index(ie) => Step::Index(self.expr(ie, &loc)?),
                        hx::TraversalOperator::LegacyIndex(n) => Step::Index(Expr {
                            kind: ExprKind::Number(*n.value() as f64),
                            loc: self.map.loc_of(op.span(), &loc),
                        }),
                    });
                }
                ExprKind::Traversal(Box::new(base), steps)
            }
            hx::Expression::UnaryOp(u) => {
                let op = match u.operator.value() {
                    hx::UnaryOperator::Neg => UnaryOp::Neg,
                    hx::UnaryOperator::Not => UnaryOp::Not,
                };
                ExprKind::Unary(op, Box::new(self.expr(&u.expr, &loc)?))
            }
            hx::Expression::BinaryOp(b) => {
                use hx::BinaryOperator as B;
                let op = match b.operator.value() {
                    B::Eq => BinaryOp::Eq,
                    B::NotEq => BinaryOp::NotEq,
                    B::LessEq => BinaryOp::LessEq,
                    B::GreaterEq => BinaryOp::GreaterEq,
                    B::Less => BinaryOp::Less,
                    B::Greater => BinaryOp::Greater,
                    B::Plus => BinaryOp::Add,
                    B::Minus => BinaryOp::Sub,
                    B::Mul => BinaryOp::Mul,
                    B::Div => BinaryOp::Div,
                    B::Mod => BinaryOp::Mod,
                    B::And => BinaryOp::And,
                    B::Or => BinaryOp::Or,
                };
                ExprKind::Binary(
                    op,
                    Box::new(self.expr(&b.lhs_expr, &loc)?),
                    Box::new(self.expr(&b.rhs_expr, &loc)?),
                )
            }
            hx::Expression::ForExpr(f) => {
                let collection = self.expr(&f.intro.collection_expr, &loc)?;
                let key = match &f.key_expr {
                    Some(k) => Some(self.expr(k, &loc)?),
                    None => None,
                };
                let value = self.expr(&f.value_expr, &loc)?;
                let cond = match &f.cond {
                    Some(c) => Some(self.expr(&c.expr, &loc)?),
                    None => None,
                };
                ExprKind::For(Box::new(ForExpr {
                    key_var: f.intro.key_var.as_ref().map(|k| k.as_str().to_string()),
                    value_var: f.intro.value_var.as_str().to_string(),
                    collection,
                    key,
                    value,
                    grouping: f.grouping,
                    cond,
                }))
            }
        };
        Some(Expr { kind, loc })
    }

    fn template(&mut self, t: &ht::Template, loc: &Loc) -> Option<ExprKind> {
        let mut strip_next = false;
        let parts = self.template_parts(t, loc, &mut strip_next)?;
        // A template with no interpolation or directive is a plain string.
        if parts.iter().all(|p| matches!(p, TemplatePart::Literal(_))) {
            let text: String = parts
                .into_iter()
                .map(|p| match p {
                    TemplatePart::Literal(s) => s,
                    _ => String::new(),
                })
                .collect();
            return Some(ExprKind::String(text));
        }
        Some(ExprKind::Template(parts))
    }

    /// Lowers the elements of a template. `strip_next` carries a `~}` over to the next literal, which may
    /// be the first one of the enclosing sequence after a directive ends.
    fn template_parts(
        &mut self,
        t: &ht::Template,
        loc: &Loc,
        strip_next: &mut bool,
    ) -> Option<Vec<TemplatePart>> {
        fn trim_last(parts: &mut [TemplatePart]) {
            if let Some(TemplatePart::Literal(prev)) = parts.last_mut() {
                *prev = prev.trim_end().to_string();
            }
        }
        let mut parts: Vec<TemplatePart> = Vec::new();
        for element in t.iter() {
            match element {
                ht::Element::Literal(s) => {
                    let mut text = s.value().as_str();
                    if std::mem::take(strip_next) {
                        text = text.trim_start();
                    }
                    parts.push(TemplatePart::Literal(text.to_string()));
                }
                ht::Element::Interpolation(i) => {
                    *strip_next = false;
                    if i.strip.strip_start() {
                        trim_last(&mut parts);
                    }
                    parts.push(TemplatePart::Interpolation(self.expr(&i.expr, loc)?));
                    *strip_next = i.strip.strip_end();
                }
                ht::Element::Directive(d) => {
                    *strip_next = false;
                    match &**d {
                        ht::Directive::If(dir) => {
                            if dir.if_expr.strip.strip_start() {
                                trim_last(&mut parts);
                            }
                            let cond = self.expr(&dir.if_expr.cond_expr, loc)?;
                            let mut inner = dir.if_expr.strip.strip_end();
                            let mut then =
                                self.template_parts(&dir.if_expr.template, loc, &mut inner)?;
                            let mut otherwise = Vec::new();
                            if let Some(else_expr) = &dir.else_expr {
                                if else_expr.strip.strip_start() {
                                    trim_last(&mut then);
                                }
                                inner = else_expr.strip.strip_end();
                                otherwise =
                                    self.template_parts(&else_expr.template, loc, &mut inner)?;
                            }
                            if dir.endif_expr.strip.strip_start() {
                                trim_last(if dir.else_expr.is_some() {
                                    &mut otherwise
                                } else {
                                    &mut then
                                });
                            }
                            parts.push(TemplatePart::If {
                                cond,
                                then,
                                otherwise,
                            });
                            *strip_next = dir.endif_expr.strip.strip_end();
                        }
                        ht::Directive::For(dir) => {
                            let f = &dir.for_expr;
                            if f.strip.strip_start() {
                                trim_last(&mut parts);
                            }
                            let collection = self.expr(&f.collection_expr, loc)?;
                            let mut inner = f.strip.strip_end();
                            let mut body = self.template_parts(&f.template, loc, &mut inner)?;
                            if dir.endfor_expr.strip.strip_start() {
                                trim_last(&mut body);
                            }
                            parts.push(TemplatePart::For {
                                key_var: f.key_var.as_ref().map(|k| k.as_str().to_string()),
                                value_var: f.value_var.as_str().to_string(),
                                collection,
                                body,
                            });
                            *strip_next = dir.endfor_expr.strip.strip_end();
                        }
                    }
                }
            }
        }
        Some(parts)
    }
}
