//! The S3 bucket contract: the settings a bucket must have before records are trusted to it.
//!
//! Records are small, but losing one costs a duplicate resource or a regenerated secret, so the bucket
//! must keep old versions (`versioning`), expire them under the record namespaces (`lifecycle`), and be
//! closed to the public (`public_access_block`). A setting that could not be read is `unreadable` and
//! refuses exactly like a wrong one: a bucket nobody could check is not a bucket that passed. This module
//! only reads settings; it never changes a bucket.

use std::fmt;
use std::str::FromStr;

use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::types::{BucketVersioningStatus, ExpirationStatus, LifecycleRule, Tag};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;

use super::S3Store;
use crate::error::StoreError;

/// One asserted bucket setting. The names are what an operator writes in `allow_insecure`, so they are
/// part of the configuration language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BucketSetting {
    /// Versioning must be `Enabled`.
    Versioning,
    /// A lifecycle rule must expire noncurrent versions under every record namespace.
    Lifecycle,
    /// All four public access block flags must be on.
    PublicAccessBlock,
}

impl BucketSetting {
    /// Every setting, in the order findings are reported.
    pub const ALL: [BucketSetting; 3] = [
        BucketSetting::Versioning,
        BucketSetting::Lifecycle,
        BucketSetting::PublicAccessBlock,
    ];

    /// The configuration name: `versioning`, `lifecycle` or `public_access_block`.
    pub fn as_str(self) -> &'static str {
        match self {
            BucketSetting::Versioning => "versioning",
            BucketSetting::Lifecycle => "lifecycle",
            BucketSetting::PublicAccessBlock => "public_access_block",
        }
    }
}

impl fmt::Display for BucketSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name in `allow_insecure` that is not a bucket setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a bucket setting (expected versioning, lifecycle or public_access_block)")]
pub struct UnknownBucketSetting {
    /// The name as written.
    pub name: String,
}

impl FromStr for BucketSetting {
    type Err = UnknownBucketSetting;

    fn from_str(name: &str) -> Result<Self, UnknownBucketSetting> {
        BucketSetting::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| UnknownBucketSetting {
                name: name.to_owned(),
            })
    }
}

/// What one setting of the bucket turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketFinding {
    /// The setting.
    pub setting: BucketSetting,
    /// The bucket satisfies the assertion. Never true together with `unreadable`.
    pub ok: bool,
    /// The setting could not be read at all (the role lacks the `Get*` permission, typically).
    pub unreadable: bool,
    /// What the bucket has, in one clause, for a refusal to quote: "versioning is Suspended",
    /// "no lifecycle configuration", "s3:GetBucketVersioning was denied".
    pub found: String,
}

impl fmt::Display for BucketFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.setting, self.found)
    }
}

impl BucketFinding {
    fn new(setting: BucketSetting, ok: bool, found: impl Into<String>) -> BucketFinding {
        BucketFinding {
            setting,
            ok,
            unreadable: false,
            found: found.into(),
        }
    }

    fn denied(setting: BucketSetting, permission: &str) -> BucketFinding {
        BucketFinding {
            setting,
            ok: false,
            unreadable: true,
            found: format!("{permission} was denied"),
        }
    }
}

/// Splits the failing findings into `(refused, waived)`: a failure whose setting is in `waived` (the
/// configuration's `allow_insecure`) is waived, every other failure refuses. Findings that are `ok` are
/// in neither list; an unreadable setting fails like a wrong one.
pub fn split_waived(
    findings: &[BucketFinding],
    waived: &[BucketSetting],
) -> (Vec<BucketFinding>, Vec<BucketFinding>) {
    findings
        .iter()
        .filter(|f| !f.ok)
        .cloned()
        .partition(|f| !waived.contains(&f.setting))
}

fn is_denied<E: ProvideErrorMetadata>(err: &SdkError<E, HttpResponse>) -> bool {
    err.raw_response()
        .is_some_and(|r| r.status().as_u16() == 403)
        || err.code() == Some("AccessDenied")
}

/// The versioning status in a successful answer the SDK could not decode: moto names the root element
/// `GetBucketVersioningResponse` where S3 says `VersioningConfiguration`, and the SDK refuses the document.
/// `Some(None)` is an answer with no status (versioning never enabled); `None` is not such an answer.
fn versioning_from_raw<E>(err: &SdkError<E, HttpResponse>) -> Option<Option<String>> {
    let raw = err.raw_response()?;
    if raw.status().as_u16() != 200 {
        return None;
    }
    let body = std::str::from_utf8(raw.body().bytes()?).ok()?;
    if !body.contains("GetBucketVersioningResponse") && !body.contains("VersioningConfiguration") {
        return None;
    }
    let status = body
        .split_once("<Status>")
        .and_then(|(_, rest)| rest.split_once("</Status>"))
        .map(|(status, _)| status.trim().to_owned());
    Some(status)
}

fn is_code<E: ProvideErrorMetadata>(err: &SdkError<E, HttpResponse>, code: &str) -> bool {
    err.code() == Some(code)
}

fn contract_err<E>(op: &'static str, bucket: &str, err: SdkError<E, HttpResponse>) -> StoreError
where
    E: std::error::Error + Send + Sync + 'static,
{
    StoreError::Backend {
        backend: "s3",
        op,
        key: bucket.to_owned(),
        source: Box::new(err),
    }
}

impl S3Store {
    /// Reads the bucket's versioning, lifecycle and public access block and reports one finding per
    /// setting, in [`BucketSetting::ALL`] order.
    ///
    /// `namespaces` are the record key prefixes the caller will write (joined to the store's key prefix);
    /// the lifecycle must expire noncurrent versions under each of them (an empty list means the whole
    /// key prefix). Costs `s3:GetBucketVersioning`, `s3:GetLifecycleConfiguration` and
    /// `s3:GetBucketPublicAccessBlock`; a denied read is an `unreadable` finding, any other failure an
    /// error.
    #[tracing::instrument(skip_all, fields(bucket = %self.bucket), err)]
    pub async fn check_bucket_contract(
        &self,
        namespaces: &[&str],
    ) -> Result<Vec<BucketFinding>, StoreError> {
        Ok(vec![
            self.check_versioning().await?,
            self.check_lifecycle(namespaces).await?,
            self.check_public_access_block().await?,
        ])
    }

    async fn check_versioning(&self) -> Result<BucketFinding, StoreError> {
        let sent = self
            .client
            .get_bucket_versioning()
            .bucket(&self.bucket)
            .send()
            .await;
        let status = match sent {
            Ok(out) => out.status().map(|s| s.as_str().to_owned()),
            Err(err) if is_denied(&err) => {
                return Ok(BucketFinding::denied(
                    BucketSetting::Versioning,
                    "s3:GetBucketVersioning",
                ));
            }
            Err(err) => match versioning_from_raw(&err) {
                Some(status) => status,
                None => return Err(contract_err("GetBucketVersioning", &self.bucket, err)),
            },
        };
        Ok(match status {
            Some(status) => BucketFinding::new(
                BucketSetting::Versioning,
                status == BucketVersioningStatus::Enabled.as_str(),
                format!("versioning is {status}"),
            ),
            None => BucketFinding::new(
                BucketSetting::Versioning,
                false,
                "versioning was never enabled",
            ),
        })
    }

    async fn check_lifecycle(&self, namespaces: &[&str]) -> Result<BucketFinding, StoreError> {
        let setting = BucketSetting::Lifecycle;
        let sent = self
            .client
            .get_bucket_lifecycle_configuration()
            .bucket(&self.bucket)
            .send()
            .await;
        let rules = match sent {
            Ok(out) => out.rules().to_vec(),
            // Older S3 and the emulator answer 404 where current AWS answers an empty configuration.
            Err(err) if is_code(&err, "NoSuchLifecycleConfiguration") => Vec::new(),
            Err(err) if is_denied(&err) => {
                return Ok(BucketFinding::denied(
                    setting,
                    "s3:GetLifecycleConfiguration",
                ));
            }
            Err(err) => {
                return Err(contract_err(
                    "GetBucketLifecycleConfiguration",
                    &self.bucket,
                    err,
                ));
            }
        };
        if rules.is_empty() {
            return Ok(BucketFinding::new(
                setting,
                false,
                "no lifecycle configuration",
            ));
        }
        let whole = [""];
        let namespaces = if namespaces.is_empty() {
            &whole[..]
        } else {
            namespaces
        };
        for namespace in namespaces {
            let object_prefix = self.object_key(namespace);
            if !rules
                .iter()
                .any(|rule| self.rule_expires_noncurrent_under(rule, &object_prefix))
            {
                return Ok(BucketFinding::new(
                    setting,
                    false,
                    format!(
                        "no lifecycle rule expires noncurrent versions under {object_prefix:?}"
                    ),
                ));
            }
        }
        Ok(BucketFinding::new(
            setting,
            true,
            "a lifecycle rule expires noncurrent versions under every record namespace",
        ))
    }

    /// Whether `rule` is enabled, expires noncurrent versions, and applies to every object this store
    /// writes under `object_prefix` (a prefix filter that covers it, tag filters that the base tags meet,
    /// no size filter).
    // Rules written before filters existed carry the deprecated rule-level prefix, and still apply.
    #[allow(deprecated)]
    fn rule_expires_noncurrent_under(&self, rule: &LifecycleRule, object_prefix: &str) -> bool {
        let expires = rule.noncurrent_version_expiration().is_some_and(|e| {
            e.noncurrent_days().is_some() || e.newer_noncurrent_versions().is_some()
        });
        if *rule.status() != ExpirationStatus::Enabled || !expires {
            return false;
        }
        let tags_met = |tags: &[Tag]| {
            tags.iter()
                .all(|t| self.base_tags.get(t.key()).map(String::as_str) == Some(t.value()))
        };
        let (prefix, tags_ok, sized) = match rule.filter() {
            None => (rule.prefix().unwrap_or(""), true, false),
            Some(filter) => match filter.and() {
                Some(and) => (
                    and.prefix().unwrap_or(""),
                    tags_met(and.tags()),
                    and.object_size_greater_than().is_some()
                        || and.object_size_less_than().is_some(),
                ),
                None => (
                    filter.prefix().or(rule.prefix()).unwrap_or(""),
                    filter
                        .tag()
                        .is_none_or(|t| tags_met(std::slice::from_ref(t))),
                    filter.object_size_greater_than().is_some()
                        || filter.object_size_less_than().is_some(),
                ),
            },
        };
        tags_ok && !sized && object_prefix.starts_with(prefix)
    }

    async fn check_public_access_block(&self) -> Result<BucketFinding, StoreError> {
        let setting = BucketSetting::PublicAccessBlock;
        let sent = self
            .client
            .get_public_access_block()
            .bucket(&self.bucket)
            .send()
            .await;
        let config = match sent {
            Ok(out) => out.public_access_block_configuration().cloned(),
            Err(err) if is_code(&err, "NoSuchPublicAccessBlockConfiguration") => None,
            Err(err) if is_denied(&err) => {
                return Ok(BucketFinding::denied(
                    setting,
                    "s3:GetBucketPublicAccessBlock",
                ));
            }
            Err(err) => return Err(contract_err("GetPublicAccessBlock", &self.bucket, err)),
        };
        let Some(config) = config else {
            return Ok(BucketFinding::new(setting, false, "no public access block"));
        };
        let off: Vec<&str> = [
            ("BlockPublicAcls", config.block_public_acls()),
            ("IgnorePublicAcls", config.ignore_public_acls()),
            ("BlockPublicPolicy", config.block_public_policy()),
            ("RestrictPublicBuckets", config.restrict_public_buckets()),
        ]
        .into_iter()
        .filter(|(_, on)| *on != Some(true))
        .map(|(name, _)| name)
        .collect();
        Ok(if off.is_empty() {
            BucketFinding::new(
                setting,
                true,
                "all four public access block settings are on",
            )
        } else {
            BucketFinding::new(
                setting,
                false,
                format!("public access block leaves {} off", off.join(", ")),
            )
        })
    }
}
