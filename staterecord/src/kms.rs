//! `KmsDenied`: an S3 request refused by the bucket's KMS key rather than by anything about S3.
//!
//! With a customer managed key as the bucket's default encryption, every `GetObject` is a `kms:Decrypt`
//! and every `PutObject` a `kms:GenerateDataKey`, made by S3 with the caller's identity. When KMS refuses,
//! S3 answers a plain `403 AccessDenied`, and only the message text says the key is the cause. This module
//! reads that text into a typed error whose [`headline`](KmsDenied::headline) and
//! [`remedy`](KmsDenied::remedy) send the operator to the key policy. It never guesses: fields AWS did not
//! state stay `None`.

use std::fmt;

use crate::error::BoxError;

/// Which policy AWS blamed for a KMS denial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KmsDenialPolicy {
    /// "because no resource-based policy allows ...": the key policy does not allow the caller.
    KeyPolicy,
    /// "because no identity-based policy allows ...": the caller's IAM policies do not allow the action.
    IdentityPolicy,
    /// "with an explicit deny ...": a policy statement denies it.
    ExplicitDeny,
    /// The message did not say.
    Unstated,
}

/// A `403 AccessDenied` from S3 whose message says KMS refused the caller.
#[derive(Debug, thiserror::Error)]
pub struct KmsDenied {
    /// The KMS action refused, such as `kms:Decrypt` or `kms:GenerateDataKey`.
    pub action: String,
    /// The key that refused it, when AWS named it.
    pub key_arn: Option<String>,
    /// Who was refused, as AWS named them.
    pub principal: Option<String>,
    /// Which policy AWS blamed.
    pub where_: KmsDenialPolicy,
    /// The S3 error as it arrived, when there was one.
    #[source]
    pub source: Option<BoxError>,
}

impl KmsDenied {
    /// Reads an AWS access-denied message; `None` unless it says a `kms:` action was not authorized.
    ///
    /// The pattern is `User: <principal> is not authorized to perform: <action> on resource: <key arn>
    /// because no resource-based policy allows the <action> action` (or `... identity-based policy ...`,
    /// or `... with an explicit deny ...`); the principal, the resource and the reason are each optional.
    pub fn parse(message: &str) -> Option<KmsDenied> {
        const PERFORM: &str = "not authorized to perform: ";
        let at = message.find(PERFORM)?;
        let after = &message[at + PERFORM.len()..];
        let action = first_word(after);
        if !action.starts_with("kms:") || action.len() <= "kms:".len() {
            return None;
        }
        let principal = message[..at].find("User: ").and_then(|u| {
            let rest = message[u + "User: ".len()..at].trim_end();
            let p = rest.strip_suffix(" is").unwrap_or(rest).trim();
            (!p.is_empty()).then(|| p.to_owned())
        });
        let key_arn = after
            .find("on resource: ")
            .map(|r| first_word(&after[r + "on resource: ".len()..]).to_owned())
            .filter(|a| !a.is_empty());
        let where_ = if after.contains("explicit deny") {
            KmsDenialPolicy::ExplicitDeny
        } else if after.contains("no resource-based policy allows") {
            KmsDenialPolicy::KeyPolicy
        } else if after.contains("no identity-based policy allows") {
            KmsDenialPolicy::IdentityPolicy
        } else {
            KmsDenialPolicy::Unstated
        };
        Some(KmsDenied {
            action: action.to_owned(),
            key_arn,
            principal,
            where_,
            source: None,
        })
    }

    /// The same denial, keeping `source` as the error it was read from.
    pub fn with_source(mut self, source: BoxError) -> KmsDenied {
        self.source = Some(source);
        self
    }

    /// What failed, in one line.
    pub fn headline(&self) -> String {
        let key = self.key_arn.as_deref().unwrap_or("the bucket's KMS key");
        let who = self.principal.as_deref().unwrap_or("the caller");
        let why = match self.where_ {
            KmsDenialPolicy::KeyPolicy => ": the key policy does not allow it",
            KmsDenialPolicy::IdentityPolicy => ": no IAM policy of the caller allows it",
            KmsDenialPolicy::ExplicitDeny => ": a policy explicitly denies it",
            KmsDenialPolicy::Unstated => "",
        };
        format!(
            "S3 could not use the bucket's KMS key: {} on {key} was denied to {who}{why}",
            self.action
        )
    }

    /// What to do about it.
    pub fn remedy(&self) -> String {
        let key = self.key_arn.as_deref().unwrap_or("the bucket's KMS key");
        let who = self
            .principal
            .as_deref()
            .unwrap_or("the role that runs liveplan");
        let base = format!(
            "allow {} for {who} in the key policy of {key}; a customer managed key is usable only by the \
             principals its key policy allows, and an IAM policy alone is not enough unless the key policy \
             delegates to IAM",
            self.action
        );
        match self.where_ {
            KmsDenialPolicy::IdentityPolicy => format!(
                "{base}; AWS blamed the caller's IAM policies, so if the key policy does delegate to IAM, add \
                 {} on {key} to the role's policy",
                self.action
            ),
            KmsDenialPolicy::ExplicitDeny => format!(
                "{base}; AWS reports an explicit deny, which no allow overrides: find and narrow the deny \
                 statement first"
            ),
            KmsDenialPolicy::KeyPolicy | KmsDenialPolicy::Unstated => base,
        }
    }
}

impl fmt::Display for KmsDenied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())
    }
}

/// The text up to the first whitespace, without trailing punctuation AWS puts after ARNs.
fn first_word(text: &str) -> &str {
    text.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(['.', ',', ';', '"', '\''])
}
