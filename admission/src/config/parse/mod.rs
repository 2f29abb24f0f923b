//! Parsing: the configuration files into the configuration model, with every problem reported at its
//! file:line:col.
//!
//! Each file is read in its syntax (`hcl-edit` for HCL's native syntax, [`json`] for the JSON one) into
//! its block structure ([`raw`]); override files are merged into the primary files ([`merge`]); then the
//! merged blocks are lowered into the block model ([`blocks`], [`resource`], [`terraform`]) and their
//! expressions into [`Expr`] ([`expr`], [`value`]), refusing anything outside the subset with
//! `unsupported-construct`. It never evaluates an expression and never stops at the first problem: every
//! file and block is looked at.

mod big_numbers;
mod blocks;
mod conditions;
mod expr;
mod heredoc;
mod json;
mod lifecycle;
mod merge;
mod module_call;
mod nested;
mod provider;
mod raw;
mod resource;
mod source_map;
mod terraform;
mod value;
mod variable;

use hcl_edit::Span;
use hcl_edit::structure::Structure;

pub(crate) use source_map::SourceMap;
pub use variable::{RESERVED_VARIABLE_NAMES, is_identifier};

use super::expr::{Expr, Loc};
use super::files::{FileRole, Syntax, file_role, is_shadowed};
use super::{Attr, Config, SourceFile};
use crate::diag::{Code, Diagnostic};
use raw::{RawAttr, RawFile, RawValue};

/// Parses the configuration files (in the order given; [`super::read_dir`] sorts them by name) into one
/// model, with every syntax error and construct outside the subset as a diagnostic, sorted by position.
/// A file's name says how it is read: `*.tf.json` and `*.tofu.json` in the JSON syntax, every other in
/// HCL's native syntax; a `.tf` file that a `.tofu` file of the same base name shadows is skipped; override
/// files (`override.tf`, `*_override.tf` and their other forms) are merged into the others, in file-name
/// order; `liveplan.hcl` holds the `live` block. A file that does not parse contributes nothing; the
/// others are still read.
pub fn parse_config(files: &[SourceFile]) -> (Config, Vec<Diagnostic>) {
    parse_module_dir(files, ".")
}

/// Parses the files of the module directory `dir` (`.` for the root module: the names without a `/`;
/// `modules/net` for the files named `modules/net/NAME`), as [`parse_config`] parses the root's.
pub(crate) fn parse_module_dir(files: &[SourceFile], dir: &str) -> (Config, Vec<Diagnostic>) {
    let in_dir = |name: &str| match name.rsplit_once('/') {
        None => dir == ".",
        Some((parent, _)) => parent == dir,
    };
    let selected: Vec<SourceFile>;
    let files = if files.iter().all(|f| in_dir(&f.name)) {
        files
    } else {
        selected = files.iter().filter(|f| in_dir(&f.name)).cloned().collect();
        &selected
    };
    if files.iter().all(|f| shallow(&f.text)) {
        parse_config_here(files)
    } else {
        with_parser_stack(files, parse_config_here)
    }
}

/// One file's syntax tree, before its blocks are read.
enum Tree {
    Hcl(hcl_edit::structure::Body),
    Json(json::Json),
    Unparsed,
}

/// One file to read: its map, whether it is an override file, and its tree.
struct Loaded {
    map: SourceMap,
    is_override: bool,
    tree: Tree,
}

fn parse_config_here(files: &[SourceFile]) -> (Config, Vec<Diagnostic>) {
    let mut config = Config::default();
    let mut diags = Vec::new();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let mut loaded: Vec<Loaded> = Vec::new();
    for file in files.iter().filter(|f| !is_shadowed(&f.name, &names)) {
        // A name with no role (an embedder's own) is read as a primary file in HCL's native syntax.
        let (syntax, is_override) = match file_role(&file.name) {
            Some(FileRole::Module {
                syntax,
                is_override,
            }) => (syntax, is_override),
            Some(FileRole::Liveplan) | None => (Syntax::Native, false),
        };
        config.files.push(file.name.clone());
        let map = SourceMap::new(&file.name, &file.text);
        let tree = match syntax {
            Syntax::Native => {
                match hcl_edit::parser::parse_body(&big_numbers::shield(&file.text)) {
                    Ok(body) => Tree::Hcl(body),
                    Err(err) => {
                        diags.push(syntax_error(&map, &err));
                        Tree::Unparsed
                    }
                }
            }
            Syntax::Json => match json::parse(&file.text) {
                Ok(root) => Tree::Json(root),
                Err(err) => {
                    diags.push(
                        Diagnostic::new(
                            Code::ConfigSyntax,
                            format!("invalid JSON: {}", err.message),
                            "fix the syntax at the position shown",
                        )
                        .at(map.loc(err.offset).to_pos()),
                    );
                    Tree::Unparsed
                }
            },
        };
        loaded.push(Loaded {
            map,
            is_override,
            tree,
        });
    }
    // Override files apply after every primary file, in file-name order.
    loaded.sort_by(|a, b| {
        a.is_override
            .cmp(&b.is_override)
            .then_with(|| match a.is_override {
                true => a.map.file.cmp(&b.map.file),
                false => std::cmp::Ordering::Equal,
            })
    });
    let (mut primary, mut overrides, mut attrs) = (Vec::new(), Vec::new(), Vec::new());
    for file in &loaded {
        let raw = match &file.tree {
            Tree::Hcl(body) => raw::from_hcl(body, &file.map),
            Tree::Json(root) => raw::from_json(root, &file.map, &mut diags),
            Tree::Unparsed => RawFile::default(),
        };
        attrs.extend(raw.attrs);
        if file.is_override {
            overrides.extend(raw.blocks);
        } else {
            primary.extend(raw.blocks);
        }
    }
    merge::merge_overrides(&mut primary, overrides, &mut diags);
    let nowhere = SourceMap::new("", "");
    let mut p = Parser::new(&nowhere, &mut diags);
    p.top_level_attrs(&attrs);
    p.blocks(&primary, &mut config);
    diags.extend(terraform::backend_ignored(&config));
    // Files are lowered block by block across files, so the reports are put back in file order.
    diags.sort_by(|a, b| match (&a.pos, &b.pos) {
        (Some(x), Some(y)) => (&x.file, x.line, x.column).cmp(&(&y.file, y.line, y.column)),
        (x, y) => y.is_some().cmp(&x.is_some()),
    });
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
    let expr = hcl_edit::parser::parse_expr(&big_numbers::shield(text))
        .map_err(|err| Box::new(syntax_error(&map, &err)))?;
    let mut diags = Vec::new();
    let mut p = Parser::new(&map, &mut diags);
    let start = map.loc(0);
    p.expr(&expr, &start)
        .ok_or_else(|| Box::new(diags.swap_remove(0)))
}

/// Parses a bare template (the text of a `templatefile` file or of `templatestring`'s argument, no quotes
/// around it) into one template expression. `name` labels diagnostics.
pub(crate) fn parse_template(name: &str, text: &str) -> Result<Expr, Box<Diagnostic>> {
    with_parser_stack(&(name, text), |(name, text)| {
        parse_template_here(name, text)
    })
}

fn parse_template_here(name: &str, text: &str) -> Result<Expr, Box<Diagnostic>> {
    let map = SourceMap::new(name, text);
    let template =
        hcl_edit::parser::parse_template(text).map_err(|err| Box::new(syntax_error(&map, &err)))?;
    let mut diags = Vec::new();
    let mut p = Parser::new(&map, &mut diags);
    let start = map.loc(0);
    match p.template(&template, &start) {
        Some(kind) => Ok(Expr { kind, loc: start }),
        None => Err(Box::new(diags.swap_remove(0))),
    }
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
    match hcl_edit::parser::parse_body(&big_numbers::shield(&file.text)) {
        Ok(body) => {
            let mut p = Parser::new(&map, &mut diags);
            let top = map.loc(0);
            for structure in body.iter() {
                match structure {
                    Structure::Attribute(a) => {
                        let raw = RawAttr {
                            name: a.key.as_str().to_owned(),
                            value: RawValue::Hcl(&a.value),
                            loc: map.loc_of(a.span(), &top),
                            map: &map,
                        };
                        if let Some(attr) = p.attr(&raw) {
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

/// Lowers blocks and expressions, collecting every problem instead of stopping at the first.
struct Parser<'a> {
    /// The map of the file whose expression is being lowered (switched for each attribute).
    map: SourceMap,
    diags: &'a mut Vec<Diagnostic>,
    /// How deep the expression being lowered is; bounded so that every later walk of the tree is too.
    depth: usize,
}

/// The deepest expression tree accepted. The HCL parser bounds nesting per scope, but scopes multiply; this
/// keeps lowering, evaluation and lint far from the stack's end.
const MAX_EXPR_DEPTH: usize = 200;

impl<'a> Parser<'a> {
    /// A parser reporting positions through `map` (until an attribute of another file is lowered) and
    /// problems into `diags`.
    fn new(map: &SourceMap, diags: &'a mut Vec<Diagnostic>) -> Self {
        Parser {
            map: map.clone(),
            diags,
            depth: 0,
        }
    }

    /// Reports valid Terraform that liveplan does not implement (`unsupported-construct`) at `loc`.
    fn unsupported(&mut self, loc: &Loc, summary: String, detail: &str) {
        self.diags
            .push(Diagnostic::new(Code::UnsupportedConstruct, summary, detail).at(loc.to_pos()));
    }

    /// Reports a number literal beyond the numbers' range (`invalid-expression`) at `loc`.
    fn number_out_of_range(&mut self, loc: &Loc) {
        self.diags.push(
            Diagnostic::new(
                Code::InvalidExpression,
                "Invalid number literal: number out of range",
                "write a smaller number",
            )
            .at(loc.to_pos()),
        );
    }

    /// Reports a fault Terraform refuses too, at `loc`: its code, and a summary that starts with
    /// Terraform's words for it.
    fn refuse(&mut self, fault: Refusal, loc: &Loc, summary: String, detail: &str) {
        let (code, title) = fault.code_and_title();
        self.diags
            .push(Diagnostic::new(code, format!("{title}: {summary}"), detail).at(loc.to_pos()));
    }
}

/// A fault of the configuration that Terraform refuses as well, named as Terraform names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// An argument not expected where it is written.
    UnsupportedArgument,
    /// A block type not expected where it is written.
    UnsupportedBlock,
    /// An argument written twice in one body.
    DuplicateArgument,
    /// A block that may appear once, written again.
    DuplicateBlock,
    /// A required argument left out.
    MissingArgument,
    /// A required block left out.
    MissingBlock,
    /// An argument whose value is not of the kind it takes.
    InvalidValue,
    /// A block with the wrong number of labels.
    WrongLabels,
    /// A type constraint that is not one.
    InvalidType,
    /// A name that is not an identifier.
    InvalidName,
}

impl Refusal {
    /// The diagnostic code and Terraform's summary words.
    fn code_and_title(self) -> (Code, &'static str) {
        match self {
            Refusal::UnsupportedArgument => (Code::InvalidArgument, "Unsupported argument"),
            Refusal::UnsupportedBlock => (Code::InvalidBlock, "Unsupported block type"),
            Refusal::DuplicateArgument => (Code::DuplicateDeclaration, "Duplicate argument"),
            Refusal::DuplicateBlock => (Code::DuplicateDeclaration, "Duplicate block"),
            Refusal::MissingArgument => (Code::InvalidArgument, "Missing required argument"),
            Refusal::MissingBlock => (Code::InvalidBlock, "Missing required block"),
            Refusal::InvalidValue => (Code::InvalidArgument, "Invalid value"),
            Refusal::WrongLabels => (Code::InvalidBlock, "Wrong block labels"),
            Refusal::InvalidType => (Code::InvalidArgument, "Invalid type specification"),
            Refusal::InvalidName => (Code::InvalidName, "Invalid name"),
        }
    }
}
