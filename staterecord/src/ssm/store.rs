//! `SsmStore`: records as SSM Parameter Store parameters, with the guarantees SSM can give and no more.
//!
//! - A create (`put_if_absent`, or a put expecting no record) is one `PutParameter` with `Overwrite:
//!   false`: SSM itself refuses a second create (`ParameterAlreadyExists`), a real compare-and-swap.
//! - An update is a `GetParameter`, a compare, then a `PutParameter` with `Overwrite: true` (SSM has no
//!   conditional overwrite). The version SSM returns must be the expected one plus one; any other is
//!   reported as a version conflict, since another write landed in between. The conflict is reported,
//!   not prevented: this write landed.
//! - A delete is a `GetParameter`, a compare and a `DeleteParameter`; a write landing between the two is
//!   not detected.
//! - `list` and `get_all` ask `GetParametersByPath` (recursive, paged) for the nearest path that encloses
//!   the prefix and keep the names that start with it, so prefixes match as plain strings.
//!
//! A payload is stored as `lp1:` and its base64 (standard alphabet), so any bytes round-trip and an empty
//! payload is still a value; a record's version is the parameter's `Version`. Parameter names are the
//! store's prefix and the key, escaped as [`ParameterNames`] says. The estate's object tags go on at
//! creation only: SSM refuses tags with an overwrite.

use std::collections::BTreeMap;
#[cfg(feature = "testkit")]
use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_ssm::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_ssm::types::{ParameterTier, ParameterType, Tag};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use base64::Engine as _;

use super::names::{ParameterNames, PrefixError};
use crate::error::{BoxError, StoreError, VersionConflict};
use crate::kms::KmsDenied;
use crate::record::{Record, Version};
use crate::store::{BulkReader, ConflictCheck, Guarantees, Store, check_key, current_object_tags};

/// What starts every value this store writes, before the payload's base64.
const VALUE_MARK: &str = "lp1:";

/// The most results `GetParametersByPath` gives per page.
const PAGE_SIZE: i32 = 10;

/// The parameter tier records are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SsmTier {
    /// Values of up to 4 KB (about 3 KB of payload after base64), at no charge.
    #[default]
    Standard,
    /// Values of up to 8 KB, charged per parameter: opt-in.
    Advanced,
}

impl SsmTier {
    /// The longest value, in characters, the tier stores.
    pub fn value_limit(&self) -> usize {
        match self {
            SsmTier::Standard => 4096,
            SsmTier::Advanced => 8192,
        }
    }

    fn sdk(&self) -> ParameterTier {
        match self {
            SsmTier::Standard => ParameterTier::Standard,
            SsmTier::Advanced => ParameterTier::Advanced,
        }
    }
}

impl std::str::FromStr for SsmTier {
    type Err = String;

    fn from_str(s: &str) -> Result<SsmTier, String> {
        match s {
            "standard" => Ok(SsmTier::Standard),
            "advanced" => Ok(SsmTier::Advanced),
            other => Err(format!(
                "tier {other:?} is not an SSM parameter tier: write \"standard\" or \"advanced\""
            )),
        }
    }
}

/// A test's hook between an update's read and its write (see [`SsmStore::with_hook_before_write`]).
#[cfg(feature = "testkit")]
pub type BeforeWrite = Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// A [`Store`] in SSM Parameter Store under a parameter path prefix. See the module documentation for
/// what each operation guarantees ([`Store::guarantees`] says it too).
#[derive(Clone)]
pub struct SsmStore {
    client: aws_sdk_ssm::Client,
    names: ParameterNames,
    tier: SsmTier,
    kms_key_id: Option<String>,
    base_tags: BTreeMap<String, String>,
    #[cfg(feature = "testkit")]
    before_write: Option<BeforeWrite>,
}

impl std::fmt::Debug for SsmStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsmStore")
            .field("prefix", &self.names.prefix())
            .field("tier", &self.tier)
            .field("kms_key_id", &self.kms_key_id)
            .finish_non_exhaustive()
    }
}

/// What an SSM error says, as far as this store cares.
struct Failure {
    code: Option<String>,
    message: Option<String>,
}

impl Failure {
    fn of<E: ProvideErrorMetadata>(err: &SdkError<E, HttpResponse>) -> Failure {
        Failure {
            code: err.code().map(str::to_owned),
            message: err.message().map(str::to_owned),
        }
    }

    fn is(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }

    fn kms_denied(&self) -> Option<KmsDenied> {
        let kms_code = self.code.as_deref().is_some_and(|c| {
            c == "AccessDeniedException" || c.starts_with("KMS") || c.starts_with("Kms")
        });
        if !kms_code {
            return None;
        }
        self.message.as_deref().and_then(KmsDenied::parse)
    }
}

fn backend<E>(op: &'static str, key: &str, err: SdkError<E, HttpResponse>) -> StoreError
where
    E: std::error::Error + ProvideErrorMetadata + Send + Sync + 'static,
{
    let failure = Failure::of(&err);
    if let Some(denied) = failure.kms_denied() {
        return denied.with_source(Box::new(err)).into();
    }
    StoreError::Backend {
        backend: "ssm",
        op,
        key: key.to_owned(),
        source: Box::new(err),
    }
}

fn malformed(op: &'static str, key: &str, what: &str) -> StoreError {
    StoreError::Backend {
        backend: "ssm",
        op,
        key: key.to_owned(),
        source: BoxError::from(what.to_owned()),
    }
}

fn version_of(version: i64) -> Version {
    Version::new(version.to_string()).unwrap_or_else(|| unreachable!("a number is never empty"))
}

/// The payload of a stored value; a value this store did not write reads as its own bytes.
fn payload_of(value: &str) -> Vec<u8> {
    match value.strip_prefix(VALUE_MARK) {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap_or_else(|_| value.as_bytes().to_vec()),
        None => value.as_bytes().to_vec(),
    }
}

impl SsmStore {
    /// A store under the parameter path `prefix` (a leading `/` added when missing, a trailing one
    /// trimmed), in `region` (for the name length SSM allows there), standard tier, plain `String`
    /// parameters.
    pub fn new(
        client: aws_sdk_ssm::Client,
        prefix: &str,
        region: &str,
    ) -> Result<SsmStore, PrefixError> {
        Ok(SsmStore {
            client,
            names: ParameterNames::new(prefix, region)?,
            tier: SsmTier::Standard,
            kms_key_id: None,
            base_tags: BTreeMap::new(),
            #[cfg(feature = "testkit")]
            before_write: None,
        })
    }

    /// Writes records in `tier`.
    pub fn with_tier(mut self, tier: SsmTier) -> SsmStore {
        self.tier = tier;
        self
    }

    /// Writes every record as a `SecureString` under the KMS key `key_id` (read back with decryption).
    pub fn with_kms_key(mut self, key_id: impl Into<String>) -> SsmStore {
        self.kms_key_id = Some(key_id.into());
        self
    }

    /// Tags every parameter this store creates with `tags` (and the per-write tags).
    pub fn with_base_tags(mut self, tags: BTreeMap<String, String>) -> SsmStore {
        self.base_tags = tags;
        self
    }

    /// Runs `hook` with the key between an update's read and its write: a test forces another writer into
    /// the window there.
    #[cfg(feature = "testkit")]
    pub fn with_hook_before_write(mut self, hook: BeforeWrite) -> SsmStore {
        self.before_write = Some(hook);
        self
    }

    /// The parameter names of this store.
    pub fn names(&self) -> &ParameterNames {
        &self.names
    }

    fn value_of(&self, key: &str, payload: &[u8]) -> Result<String, StoreError> {
        let value = format!(
            "{VALUE_MARK}{}",
            base64::engine::general_purpose::STANDARD.encode(payload)
        );
        let limit = self.tier.value_limit();
        if value.len() > limit {
            return Err(StoreError::TooLarge {
                backend: "ssm",
                key: key.to_owned(),
                size: value.len(),
                limit,
                hint: match self.tier {
                    SsmTier::Standard => "the advanced tier stores 8 KB: set tier = \"advanced\"",
                    SsmTier::Advanced => "no SSM tier stores more: use the S3 record store",
                },
            });
        }
        Ok(value)
    }

    /// The parameter's current version, read with one `GetParameter`.
    async fn current(
        &self,
        key: &str,
        name: &str,
    ) -> Result<Option<(Version, String)>, StoreError> {
        crate::requests::note_requests(1);
        let sent = self
            .client
            .get_parameter()
            .name(name)
            .with_decryption(true)
            .send()
            .await;
        match sent {
            Ok(out) => {
                let parameter = out
                    .parameter()
                    .ok_or_else(|| malformed("GetParameter", key, "the answer had no parameter"))?;
                let value = parameter.value().unwrap_or_default().to_owned();
                Ok(Some((version_of(parameter.version()), value)))
            }
            Err(err) if Failure::of(&err).is("ParameterNotFound") => Ok(None),
            Err(err) => Err(backend("GetParameter", key, err)),
        }
    }

    /// One `PutParameter`; its version, or `Ok(None)` when `overwrite` is off and the name exists.
    async fn put(
        &self,
        key: &str,
        name: &str,
        value: String,
        overwrite: bool,
    ) -> Result<Option<Version>, StoreError> {
        let mut put = self
            .client
            .put_parameter()
            .name(name)
            .value(value)
            .tier(self.tier.sdk())
            .overwrite(overwrite);
        put = match &self.kms_key_id {
            Some(key_id) => put.r#type(ParameterType::SecureString).key_id(key_id),
            None => put.r#type(ParameterType::String),
        };
        if !overwrite {
            let mut tags = self.base_tags.clone();
            tags.extend(current_object_tags());
            for (k, v) in tags {
                let tag = Tag::builder()
                    .key(k)
                    .value(v)
                    .build()
                    .map_err(|e| malformed("PutParameter", key, &e.to_string()))?;
                put = put.tags(tag);
            }
        }
        crate::requests::note_requests(1);
        match put.send().await {
            Ok(out) => Ok(Some(version_of(out.version()))),
            Err(err) if !overwrite && Failure::of(&err).is("ParameterAlreadyExists") => Ok(None),
            Err(err) => Err(backend("PutParameter", key, err)),
        }
    }

    /// Every parameter under the name of `prefix`, as record keys with their values and versions, one
    /// `GetParametersByPath` page after another.
    async fn by_path(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        let path = self.names.enclosing_path(prefix);
        let mut pages = self
            .client
            .get_parameters_by_path()
            .path(&path)
            .recursive(true)
            .with_decryption(true)
            .max_results(PAGE_SIZE)
            .into_paginator()
            .send();
        let mut out = BTreeMap::new();
        while let Some(page) = pages.next().await {
            crate::requests::note_requests(1);
            let page = page.map_err(|err| backend("GetParametersByPath", prefix, err))?;
            for parameter in page.parameters() {
                let Some(key) = parameter.name().and_then(|n| self.names.key(n)) else {
                    continue;
                };
                // Names this store could not have written are left out, as `get` would refuse them.
                if !key.starts_with(prefix) || crate::key::validate_key(&key).is_err() {
                    continue;
                }
                let payload = payload_of(parameter.value().unwrap_or_default());
                out.insert(
                    key,
                    Record {
                        payload,
                        version: version_of(parameter.version()),
                    },
                );
            }
        }
        Ok(out)
    }

    #[cfg(feature = "testkit")]
    async fn before_write(&self, key: &str) {
        if let Some(hook) = &self.before_write {
            hook(key.to_owned()).await;
        }
    }

    #[cfg(not(feature = "testkit"))]
    async fn before_write(&self, _key: &str) {}
}

#[async_trait]
impl Store for SsmStore {
    #[tracing::instrument(skip_all, fields(prefix = %self.names.prefix(), key = %key), err)]
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        check_key(key)?;
        let name = self.names.name(key)?;
        Ok(self
            .current(key, &name)
            .await?
            .map(|(version, value)| Record {
                payload: payload_of(&value),
                version,
            }))
    }

    #[tracing::instrument(skip_all, fields(prefix = %self.names.prefix(), key = %key), err)]
    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        check_key(key)?;
        let name = self.names.name(key)?;
        let value = self.value_of(key, payload)?;
        let Some(expected) = expected else {
            return match self.put(key, &name, value, false).await? {
                Some(version) => Ok(version),
                None => {
                    let actual = self.current(key, &name).await?.map(|(v, _)| v);
                    Err(VersionConflict::new(key, None, actual).into())
                }
            };
        };
        let actual = self.current(key, &name).await?.map(|(v, _)| v);
        if actual.as_ref() != Some(expected) {
            return Err(VersionConflict::new(key, Some(expected), actual).into());
        }
        self.before_write(key).await;
        let written = self.put(key, &name, value, true).await?.ok_or_else(|| {
            malformed("PutParameter", key, "an overwrite was refused as a create")
        })?;
        let next = expected
            .as_str()
            .parse::<i64>()
            .ok()
            .and_then(|v| v.checked_add(1));
        if next.map(version_of).as_ref() != Some(&written) {
            // Another write landed between the read and this one: this write replaced it. Reported, not
            // prevented.
            return Err(StoreError::Overwrote(VersionConflict {
                key: key.to_owned(),
                expected: Some(expected.clone()),
                actual: Some(written),
            }));
        }
        Ok(written)
    }

    #[tracing::instrument(skip_all, fields(prefix = %self.names.prefix(), key = %key), err)]
    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        check_key(key)?;
        let name = self.names.name(key)?;
        let actual = self.current(key, &name).await?.map(|(v, _)| v);
        match (expected, actual) {
            (None, None) => return Ok(()),
            (Some(e), Some(a)) if *e == a => {}
            (e, a) => return Err(VersionConflict::new(key, e, a).into()),
        }
        crate::requests::note_requests(1);
        match self.client.delete_parameter().name(&name).send().await {
            Ok(_) => Ok(()),
            Err(err) if Failure::of(&err).is("ParameterNotFound") => {
                Err(VersionConflict::new(key, expected, None).into())
            }
            Err(err) => Err(backend("DeleteParameter", key, err)),
        }
    }

    #[tracing::instrument(skip_all, fields(prefix = %self.names.prefix(), list = %prefix), err)]
    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        Ok(self.by_path(prefix).await?.into_keys().collect())
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        Some(self)
    }

    fn location(&self, key: &str) -> String {
        format!("ssm:{}", self.names.encoded(key))
    }

    fn guarantees(&self) -> Guarantees {
        Guarantees {
            create: ConflictCheck::Prevented,
            update: ConflictCheck::Detected,
            delete: ConflictCheck::CheckedBefore,
        }
    }
}

#[async_trait]
impl BulkReader for SsmStore {
    #[tracing::instrument(skip_all, fields(prefix = %self.names.prefix(), list = %prefix), err)]
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        self.by_path(prefix).await
    }
}
