//! The IAM data sources as schema data: `aws_iam_role` (by `name`) and `aws_iam_policy` (by `arn`, or
//! by `name` and `path_prefix`, customer-managed and AWS-managed alike), with the attributes the AWS
//! provider v5 documents, and the shape of what a read gives from the facts a cloud answers with.
//!
//! Which calls answer a read is the provider's; here are only names, schemas and shaping.

use std::collections::BTreeMap;

use provider::schema::{AttributeSchema, DataSourceSchema};
use provider::{Type, Value};

/// `aws_iam_role`: a role by name (one `iam:GetRole`).
pub const ROLE: &str = "aws_iam_role";
/// `aws_iam_policy`: a managed policy by ARN (`iam:GetPolicy`, `iam:GetPolicyVersion`) or by name and
/// path prefix (`iam:ListPolicies` first, a call a page).
pub const POLICY: &str = "aws_iam_policy";

/// The schemas of `aws_iam_role` and `aws_iam_policy`.
pub(crate) fn schemas() -> Vec<DataSourceSchema> {
    let computed = |name: &str, t: Type| AttributeSchema::computed(name, t);
    let s = || Type::String;
    let tags = || Type::Map(Box::new(Type::String));
    let last_used = Type::List(Box::new(Type::Object(
        [
            ("last_used_date".to_owned(), s()),
            ("region".to_owned(), s()),
        ]
        .into(),
    )));
    vec![
        DataSourceSchema::new(POLICY)
            .with_attribute(AttributeSchema::optional_computed("arn", s()))
            .with_attribute(AttributeSchema::optional_computed("name", s()))
            .with_attribute(AttributeSchema::optional("path_prefix", s(), Value::Null))
            .with_attribute(AttributeSchema::optional_computed("id", s()))
            .with_attribute(computed("attachment_count", Type::Number))
            .with_attribute(computed("description", s()))
            .with_attribute(computed("path", s()))
            .with_attribute(computed("policy", s()))
            .with_attribute(computed("policy_id", s()))
            .with_attribute(computed("tags", tags())),
        DataSourceSchema::new(ROLE)
            .with_attribute(AttributeSchema::required("name", s()))
            .with_attribute(AttributeSchema::optional_computed("id", s()))
            .with_attribute(computed("arn", s()))
            .with_attribute(computed("assume_role_policy", s()))
            .with_attribute(computed("create_date", s()))
            .with_attribute(computed("description", s()))
            .with_attribute(computed("max_session_duration", Type::Number))
            .with_attribute(computed("path", s()))
            .with_attribute(computed("permissions_boundary", s()))
            .with_attribute(computed("role_last_used", last_used))
            .with_attribute(computed("tags", tags()))
            .with_attribute(computed("unique_id", s())),
    ]
}

/// A role as a cloud answers for it (`GetRole`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleFacts {
    /// Its name.
    pub name: String,
    /// Its ARN.
    pub arn: String,
    /// Its id (`AROA...`).
    pub unique_id: String,
    /// Its path (`/`).
    pub path: String,
    /// Its trust policy, decoded.
    pub assume_role_policy: String,
    /// Its description (empty when none).
    pub description: String,
    /// Its maximum session duration, in seconds.
    pub max_session_duration: i64,
    /// Its permissions boundary's ARN (empty when none).
    pub permissions_boundary: String,
    /// When it was created (RFC 3339), if the cloud says.
    pub create_date: Option<String>,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// What `aws_iam_role` gives for `role`.
pub fn role_value(role: &RoleFacts) -> Value {
    let mut out: BTreeMap<String, Value> = [
        ("id", role.name.as_str()),
        ("name", role.name.as_str()),
        ("arn", role.arn.as_str()),
        ("unique_id", role.unique_id.as_str()),
        ("path", role.path.as_str()),
        ("assume_role_policy", role.assume_role_policy.as_str()),
        ("description", role.description.as_str()),
        ("permissions_boundary", role.permissions_boundary.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), Value::from(v)))
    .collect();
    out.insert(
        "max_session_duration".into(),
        Value::from(role.max_session_duration),
    );
    out.insert(
        "create_date".into(),
        role.create_date.clone().map_or(Value::Null, Value::from),
    );
    out.insert("role_last_used".into(), Value::List(Vec::new()));
    out.insert("tags".into(), Value::from(role.tags.clone()));
    Value::Map(out)
}

/// A managed policy as a cloud answers for it (`GetPolicy` and its default version's document).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyFacts {
    /// Its ARN (`arn:aws:iam::aws:policy/ReadOnlyAccess`).
    pub arn: String,
    /// Its name.
    pub name: String,
    /// Its path (`/`, `/service-role/`).
    pub path: String,
    /// Its id (`ANPA...`).
    pub policy_id: String,
    /// Its description (empty when none).
    pub description: String,
    /// How many identities it is attached to.
    pub attachment_count: i64,
    /// Its default version's document, decoded.
    pub document: String,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// What `aws_iam_policy` gives for `policy`, read with the arguments `arguments`.
pub fn policy_value(policy: &PolicyFacts, arguments: &BTreeMap<String, Value>) -> Value {
    let mut out: BTreeMap<String, Value> = [
        ("id", policy.arn.as_str()),
        ("arn", policy.arn.as_str()),
        ("name", policy.name.as_str()),
        ("path", policy.path.as_str()),
        ("policy_id", policy.policy_id.as_str()),
        ("description", policy.description.as_str()),
        ("policy", policy.document.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), Value::from(v)))
    .collect();
    out.insert(
        "attachment_count".into(),
        Value::from(policy.attachment_count),
    );
    out.insert(
        "path_prefix".into(),
        arguments.get("path_prefix").cloned().unwrap_or(Value::Null),
    );
    out.insert("tags".into(), Value::from(policy.tags.clone()));
    Value::Map(out)
}

/// How an `aws_iam_policy` read finds its policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyQuery {
    /// By ARN: `GetPolicy` directly.
    Arn(String),
    /// By name (and path prefix): `ListPolicies` (every scope) until exactly one matches.
    Name {
        /// The policy's name.
        name: String,
        /// The path prefix the listing is narrowed to (`/` when none).
        path_prefix: Option<String>,
    },
}

/// The query `arguments` make, or why they make none: `arn` conflicts with `name` and `path_prefix`,
/// and one of `arn` and `name` is needed.
pub fn policy_query(arguments: &BTreeMap<String, Value>) -> Result<PolicyQuery, String> {
    let get = |k: &str| {
        arguments
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match (get("arn"), get("name"), get("path_prefix")) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(
            "`arn` conflicts with `name` and `path_prefix`: set one way to find the policy".into(),
        ),
        (Some(arn), None, None) => Ok(PolicyQuery::Arn(arn.to_owned())),
        (None, Some(name), prefix) => Ok(PolicyQuery::Name {
            name: name.to_owned(),
            path_prefix: prefix.map(str::to_owned),
        }),
        (None, None, _) => Err("set `arn`, or `name` (and `path_prefix`)".into()),
    }
}

/// `text` decoded as Go's `url.QueryUnescape` decodes it (`%XX` escapes, `+` as a space): how the AWS
/// provider decodes the URL-encoded documents IAM answers with. `Err` names a broken escape.
pub fn query_unescape(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("invalid URL escape at byte {i}"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded document is not UTF-8".to_owned())
}
