//! The registry: every built-in function by name, with its arity, the type of its result and its
//! implementation. This is the one list of what the language offers; the README's list follows it.
//!
//! The registry holds data only: no function is special-cased here (`try` and `can` are listed for their
//! arity, and evaluated lazily by [`super::typeconv`]).

use super::{
    Ctx, collection, datetime, encoding, filesystem, format, hash, ipnet, list_of, numeric, sets,
    string, textregex, typeconv, yaml,
};
use crate::eval::EvalError;
use crate::value::{Type, Value};

/// How the registry hands arguments to a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Wholly known arguments without marks; an unknown argument gives an unknown result, a marked one
    /// a sensitive result.
    Known,
    /// As [`Mode::Known`], and unknown unless the caller gives impure values (apply).
    Impure,
    /// The arguments as evaluated, unknowns and marks included: the function decides.
    Raw,
}

/// The type of a function's result, as an unknown result carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ret {
    /// Anything (`dynamic`).
    Any,
    /// `string`.
    String,
    /// `number`.
    Number,
    /// `bool`.
    Bool,
    /// `list(string)`.
    StringList,
    /// `list(number)`.
    NumberList,
    /// A list or tuple of anything.
    List,
    /// `set(string)`.
    StringSet,
    /// A set of anything.
    Set,
    /// A map or object of anything.
    Map,
}

impl Ret {
    /// The type itself.
    pub(super) fn ty(self) -> Type {
        match self {
            Ret::Any => Type::Any,
            Ret::String => Type::String,
            Ret::Number => Type::Number,
            Ret::Bool => Type::Bool,
            Ret::StringList => list_of(Type::String),
            Ret::NumberList => list_of(Type::Number),
            Ret::List => list_of(Type::Any),
            Ret::StringSet => Type::Set(Box::new(Type::String)),
            Ret::Set => Type::Set(Box::new(Type::Any)),
            Ret::Map => Type::Map(Box::new(Type::Any)),
        }
    }
}

/// A function's implementation.
pub(super) type Run = fn(&Ctx<'_>, &[Value]) -> Result<Value, EvalError>;

/// One built-in function.
pub(super) struct Function {
    /// Its name.
    pub name: &'static str,
    /// The fewest arguments it takes.
    pub min: usize,
    /// The most (`usize::MAX`: no bound).
    pub max: usize,
    /// The type of its result.
    pub ret: Ret,
    /// How it receives its arguments.
    pub mode: Mode,
    /// What it does.
    pub run: Run,
}

/// No upper bound on the arguments.
const MANY: usize = usize::MAX;

const fn f(name: &'static str, min: usize, max: usize, ret: Ret, mode: Mode, run: Run) -> Function {
    Function {
        name,
        min,
        max,
        ret,
        mode,
        run,
    }
}

use Mode::{Impure, Known, Raw};

/// The functions whose value differs at every call or needs randomness: unknown at plan time, and
/// refused in identities.
pub(crate) const IMPURE: &[&str] = &["uuid", "timestamp", "bcrypt"];

/// Every built-in function of Terraform 1.9 that liveplan offers, by family.
pub(super) static FUNCTIONS: &[Function] = &[
    // Numeric.
    f("abs", 1, 1, Ret::Number, Known, numeric::abs),
    f("ceil", 1, 1, Ret::Number, Known, numeric::ceil),
    f("floor", 1, 1, Ret::Number, Known, numeric::floor),
    f("log", 2, 2, Ret::Number, Known, numeric::log),
    f("max", 1, MANY, Ret::Number, Known, numeric::max),
    f("min", 1, MANY, Ret::Number, Known, numeric::min),
    f("parseint", 2, 2, Ret::Number, Known, numeric::parseint),
    f("pow", 2, 2, Ret::Number, Known, numeric::pow),
    f("signum", 1, 1, Ret::Number, Known, numeric::signum),
    // String.
    f("chomp", 1, 1, Ret::String, Known, string::chomp),
    f("endswith", 2, 2, Ret::Bool, Known, string::endswith),
    f("format", 1, MANY, Ret::String, Known, format::format),
    f(
        "formatlist",
        1,
        MANY,
        Ret::StringList,
        Known,
        format::formatlist,
    ),
    f("indent", 2, 2, Ret::String, Known, string::indent),
    f("join", 2, MANY, Ret::String, Known, string::join),
    f("lower", 1, 1, Ret::String, Known, string::lower),
    f("regex", 2, 2, Ret::Any, Known, textregex::regex),
    f("regexall", 2, 2, Ret::List, Known, textregex::regexall),
    f("replace", 3, 3, Ret::String, Known, textregex::replace),
    f("split", 2, 2, Ret::StringList, Known, string::split),
    f("startswith", 2, 2, Ret::Bool, Known, string::startswith),
    f("strcontains", 2, 2, Ret::Bool, Known, string::strcontains),
    f("strrev", 1, 1, Ret::String, Known, string::strrev),
    f("substr", 3, 3, Ret::String, Known, string::substr),
    f(
        "templatestring",
        2,
        2,
        Ret::Any,
        Known,
        filesystem::templatestring,
    ),
    f("title", 1, 1, Ret::String, Known, string::title),
    f("trim", 2, 2, Ret::String, Known, string::trim),
    f("trimprefix", 2, 2, Ret::String, Known, string::trimprefix),
    f("trimspace", 1, 1, Ret::String, Known, string::trimspace),
    f("trimsuffix", 2, 2, Ret::String, Known, string::trimsuffix),
    f("upper", 1, 1, Ret::String, Known, string::upper),
    // Collection.
    f("alltrue", 1, 1, Ret::Bool, Known, collection::alltrue),
    f("anytrue", 1, 1, Ret::Bool, Known, collection::anytrue),
    f("chunklist", 2, 2, Ret::List, Known, collection::chunklist),
    f("coalesce", 1, MANY, Ret::Any, Raw, collection::coalesce),
    f(
        "coalescelist",
        1,
        MANY,
        Ret::List,
        Known,
        collection::coalescelist,
    ),
    f("compact", 1, 1, Ret::StringList, Known, collection::compact),
    f("concat", 0, MANY, Ret::List, Raw, collection::concat),
    f("contains", 2, 2, Ret::Bool, Raw, collection::contains),
    f("distinct", 1, 1, Ret::List, Known, collection::distinct),
    f("element", 2, 2, Ret::Any, Raw, collection::element),
    f("flatten", 1, 1, Ret::List, Known, collection::flatten),
    f("index", 2, 2, Ret::Number, Known, collection::index),
    f("keys", 1, 1, Ret::StringList, Raw, collection::keys),
    f("length", 1, 1, Ret::Number, Raw, collection::length),
    f("lookup", 2, 3, Ret::Any, Raw, collection::lookup),
    f("matchkeys", 3, 3, Ret::List, Known, collection::matchkeys),
    f("merge", 0, MANY, Ret::Map, Raw, collection::merge),
    f("one", 1, 1, Ret::Any, Known, collection::one),
    f("range", 1, 3, Ret::NumberList, Known, collection::range),
    f("reverse", 1, 1, Ret::List, Known, collection::reverse),
    f(
        "setintersection",
        1,
        MANY,
        Ret::Set,
        Known,
        sets::setintersection,
    ),
    f("setproduct", 1, MANY, Ret::List, Known, sets::setproduct),
    f("setsubtract", 2, 2, Ret::Set, Known, sets::setsubtract),
    f("setunion", 1, MANY, Ret::Set, Known, sets::setunion),
    f("slice", 3, 3, Ret::List, Known, collection::slice),
    f("sort", 1, 1, Ret::StringList, Known, collection::sort),
    f("sum", 1, 1, Ret::Number, Known, collection::sum),
    f("transpose", 1, 1, Ret::Map, Known, sets::transpose),
    f("values", 1, 1, Ret::List, Raw, collection::values),
    f("zipmap", 2, 2, Ret::Map, Known, collection::zipmap),
    // Encoding.
    f(
        "base64decode",
        1,
        1,
        Ret::String,
        Known,
        encoding::base64decode,
    ),
    f(
        "base64encode",
        1,
        1,
        Ret::String,
        Known,
        encoding::base64encode,
    ),
    f("base64gzip", 1, 1, Ret::String, Known, encoding::base64gzip),
    f("csvdecode", 1, 1, Ret::List, Known, encoding::csvdecode),
    f("jsondecode", 1, 1, Ret::Any, Known, encoding::jsondecode),
    f("jsonencode", 1, 1, Ret::String, Known, encoding::jsonencode),
    f(
        "textdecodebase64",
        2,
        2,
        Ret::String,
        Known,
        encoding::textdecodebase64,
    ),
    f(
        "textencodebase64",
        2,
        2,
        Ret::String,
        Known,
        encoding::textencodebase64,
    ),
    f("urlencode", 1, 1, Ret::String, Known, encoding::urlencode),
    f("yamldecode", 1, 1, Ret::Any, Known, yaml::yamldecode),
    f("yamlencode", 1, 1, Ret::String, Known, yaml::yamlencode),
    // Filesystem.
    f("abspath", 1, 1, Ret::String, Known, filesystem::abspath),
    f("basename", 1, 1, Ret::String, Known, filesystem::basename),
    f("dirname", 1, 1, Ret::String, Known, filesystem::dirname),
    f("file", 1, 1, Ret::String, Known, filesystem::file),
    f(
        "filebase64",
        1,
        1,
        Ret::String,
        Known,
        filesystem::filebase64,
    ),
    f("fileexists", 1, 1, Ret::Bool, Known, filesystem::fileexists),
    f("fileset", 2, 2, Ret::StringSet, Known, filesystem::fileset),
    f(
        "pathexpand",
        1,
        1,
        Ret::String,
        Known,
        filesystem::pathexpand,
    ),
    f(
        "templatefile",
        2,
        2,
        Ret::Any,
        Known,
        filesystem::templatefile,
    ),
    // Date and time.
    f("formatdate", 2, 2, Ret::String, Known, datetime::formatdate),
    f(
        "plantimestamp",
        0,
        0,
        Ret::String,
        Raw,
        datetime::plantimestamp,
    ),
    f("timeadd", 2, 2, Ret::String, Known, datetime::timeadd),
    f("timecmp", 2, 2, Ret::Number, Known, datetime::timecmp),
    f("timestamp", 0, 0, Ret::String, Impure, datetime::timestamp),
    // Hash and crypto.
    f("base64sha256", 1, 1, Ret::String, Known, hash::base64sha256),
    f("base64sha512", 1, 1, Ret::String, Known, hash::base64sha512),
    f("bcrypt", 1, 2, Ret::String, Impure, hash::bcrypt),
    f(
        "filebase64sha256",
        1,
        1,
        Ret::String,
        Known,
        hash::filebase64sha256,
    ),
    f(
        "filebase64sha512",
        1,
        1,
        Ret::String,
        Known,
        hash::filebase64sha512,
    ),
    f("filemd5", 1, 1, Ret::String, Known, hash::filemd5),
    f("filesha1", 1, 1, Ret::String, Known, hash::filesha1),
    f("filesha256", 1, 1, Ret::String, Known, hash::filesha256),
    f("filesha512", 1, 1, Ret::String, Known, hash::filesha512),
    f("md5", 1, 1, Ret::String, Known, hash::md5),
    f("sha1", 1, 1, Ret::String, Known, hash::sha1),
    f("sha256", 1, 1, Ret::String, Known, hash::sha256),
    f("sha512", 1, 1, Ret::String, Known, hash::sha512),
    f("uuid", 0, 0, Ret::String, Impure, hash::uuid),
    f("uuidv5", 2, 2, Ret::String, Known, hash::uuidv5),
    // IP network.
    f("cidrhost", 2, 2, Ret::String, Known, ipnet::cidrhost),
    f("cidrnetmask", 1, 1, Ret::String, Known, ipnet::cidrnetmask),
    f("cidrsubnet", 3, 3, Ret::String, Known, ipnet::cidrsubnet),
    f(
        "cidrsubnets",
        1,
        MANY,
        Ret::StringList,
        Known,
        ipnet::cidrsubnets,
    ),
    // Type conversion.
    f("can", 1, 1, Ret::Bool, Raw, typeconv::lazy_only),
    f("issensitive", 1, 1, Ret::Bool, Raw, typeconv::issensitive),
    f("nonsensitive", 1, 1, Ret::Any, Raw, typeconv::nonsensitive),
    f("sensitive", 1, 1, Ret::Any, Raw, typeconv::sensitive),
    f("tobool", 1, 1, Ret::Bool, Known, typeconv::tobool),
    f("tolist", 1, 1, Ret::List, Raw, typeconv::tolist),
    f("tomap", 1, 1, Ret::Map, Raw, typeconv::tomap),
    f("tonumber", 1, 1, Ret::Number, Known, typeconv::tonumber),
    f("toset", 1, 1, Ret::Set, Raw, typeconv::toset),
    f("tostring", 1, 1, Ret::String, Known, typeconv::tostring),
    f("try", 1, MANY, Ret::Any, Raw, typeconv::lazy_only),
];

/// The function called `name`, if there is one.
pub(super) fn lookup_function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}
