//! `S3Store`: records as S3 objects, with compare-and-swap enforced by S3 itself through conditional
//! requests.
//!
//! Every conditional operation is one S3 request carrying its condition, so there is no
//! read-compare-write window: create is `PutObject` with `If-None-Match: *`, update is `PutObject` with
//! `If-Match: <etag>`, delete is `DeleteObject` with `If-Match: <etag>`. A refused condition (412
//! `PreconditionFailed`, or 409 `ConditionalRequestConflict` for racing creates) becomes a
//! [`VersionConflict`]; one extra `HeadObject` afterwards names the actual version, and is not part of
//! the guarantee. `If-Match` on a missing key answers 404, which is a conflict with no actual record.
//!
//! This module never creates buckets, never configures them and never builds credentials: the caller
//! hands in a client and a bucket, and [`S3Store::check_bucket_contract`] only reads the bucket's settings.

use std::collections::BTreeMap;

use async_trait::async_trait;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use futures::{StreamExt, TryStreamExt};

use crate::error::{BoxError, StoreError, VersionConflict};
use crate::kms::KmsDenied;
use crate::record::{Record, Version};
use crate::store::{BulkReader, Store, check_key, current_object_tags};

/// How many `GetObject` requests [`BulkReader::get_all`] keeps in flight unless told otherwise.
pub const DEFAULT_GET_ALL_PARALLELISM: usize = 16;

/// A [`Store`] in an S3 bucket, optionally under a key prefix. A version is the object's ETag exactly as
/// S3 returns it (quotes included).
///
/// `key_prefix` is joined to every key with a `/` and stripped from listed keys, so callers sharing a
/// bucket under different prefixes never see each other's records. Every put carries the object tags
/// `base_tags` plus the per-write tags set with [`with_object_tags`](crate::with_object_tags) (per-write
/// values win).
#[derive(Debug, Clone)]
pub struct S3Store {
    pub(crate) client: aws_sdk_s3::Client,
    pub(crate) bucket: String,
    pub(crate) key_prefix: String,
    get_all_parallelism: usize,
    list_page_size: Option<i32>,
    pub(crate) base_tags: BTreeMap<String, String>,
}

/// What an S3 error says, as far as this store cares.
struct Failure {
    status: Option<u16>,
    code: Option<String>,
    message: Option<String>,
}

impl Failure {
    fn of<E: ProvideErrorMetadata>(err: &SdkError<E, HttpResponse>) -> Failure {
        Failure {
            status: err.raw_response().map(|r| r.status().as_u16()),
            code: err.code().map(str::to_owned),
            message: err.message().map(str::to_owned),
        }
    }

    fn is(&self, status: u16, codes: &[&str]) -> bool {
        self.status == Some(status) || self.code.as_deref().is_some_and(|c| codes.contains(&c))
    }

    fn precondition_failed(&self) -> bool {
        self.is(412, &["PreconditionFailed", "ConditionalRequestConflict"])
    }

    /// The key does not exist. A missing bucket is a 404 too, but it says nothing about the key: treated as
    /// "no record", a store pointed at a deleted bucket would read empty and take every conditional write
    /// for a conflict.
    fn not_found(&self) -> bool {
        self.code.as_deref() != Some("NoSuchBucket") && self.is(404, &["NoSuchKey", "NotFound"])
    }

    fn access_denied(&self) -> bool {
        self.is(403, &["AccessDenied"])
    }

    fn kms_denied(&self) -> Option<KmsDenied> {
        if !self.access_denied() {
            return None;
        }
        self.message.as_deref().and_then(KmsDenied::parse)
    }
}

fn backend<E>(op: &'static str, key: &str, err: SdkError<E, HttpResponse>) -> StoreError
where
    E: std::error::Error + Send + Sync + 'static,
{
    StoreError::Backend {
        backend: "s3",
        op,
        key: key.to_owned(),
        source: Box::new(err),
    }
}

fn missing_etag(op: &'static str, key: &str) -> StoreError {
    StoreError::Backend {
        backend: "s3",
        op,
        key: key.to_owned(),
        source: BoxError::from("the response carried no ETag"),
    }
}

/// Percent-encodes one tag key or value for the `x-amz-tagging` header (a URL query string).
fn encode_tag(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl S3Store {
    /// A store in `bucket`, with no key prefix, no base tags and the default `get_all` parallelism.
    pub fn new(client: aws_sdk_s3::Client, bucket: impl Into<String>) -> S3Store {
        S3Store {
            client,
            bucket: bucket.into(),
            key_prefix: String::new(),
            get_all_parallelism: DEFAULT_GET_ALL_PARALLELISM,
            list_page_size: None,
            base_tags: BTreeMap::new(),
        }
    }

    /// Puts every key under `prefix` (trailing `/` optional; `""` for none).
    pub fn with_key_prefix(mut self, prefix: impl Into<String>) -> S3Store {
        self.key_prefix = prefix.into().trim_end_matches('/').to_owned();
        self
    }

    /// Bounds how many `GetObject` requests `get_all` keeps in flight; `0` takes
    /// [`DEFAULT_GET_ALL_PARALLELISM`], `1` reads one object at a time.
    pub fn with_get_all_parallelism(mut self, parallelism: usize) -> S3Store {
        self.get_all_parallelism = if parallelism == 0 {
            DEFAULT_GET_ALL_PARALLELISM
        } else {
            parallelism
        };
        self
    }

    /// Asks `ListObjectsV2` for at most `keys` keys per page (S3's own default and maximum is 1000);
    /// `list` and `get_all` still return every key, one page after another.
    pub fn with_list_page_size(mut self, keys: u16) -> S3Store {
        self.list_page_size = Some(i32::from(keys.max(1)));
        self
    }

    /// Tags every object this store writes with `tags`.
    pub fn with_base_tags(mut self, tags: BTreeMap<String, String>) -> S3Store {
        self.base_tags = tags;
        self
    }

    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The key prefix, without its trailing `/` (`""` for none).
    pub fn key_prefix(&self) -> &str {
        &self.key_prefix
    }

    /// How many `GetObject` requests `get_all` keeps in flight.
    pub fn get_all_parallelism(&self) -> usize {
        self.get_all_parallelism
    }

    /// The S3 object key of record `key` (or of a list prefix).
    pub fn object_key(&self, key: &str) -> String {
        if self.key_prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}/{key}", self.key_prefix)
        }
    }

    fn tagging(&self) -> Option<String> {
        let mut tags = self.base_tags.clone();
        tags.extend(current_object_tags());
        (!tags.is_empty()).then(|| {
            tags.iter()
                .map(|(k, v)| format!("{}={}", encode_tag(k), encode_tag(v)))
                .collect::<Vec<_>>()
                .join("&")
        })
    }

    /// The current version of `key`, read with one `HeadObject`.
    async fn head_version(&self, key: &str) -> Result<Option<Version>, StoreError> {
        let sent = self
            .client
            .head_object()
            .bucket(&self.bucket)
            .key(self.object_key(key))
            .send()
            .await;
        crate::requests::note_requests(1);
        match sent {
            Ok(out) => match out.e_tag().and_then(Version::new) {
                Some(version) => Ok(Some(version)),
                None => Err(missing_etag("HeadObject", key)),
            },
            Err(err) if Failure::of(&err).not_found() => Ok(None),
            Err(err) => Err(backend("HeadObject", key, err)),
        }
    }

    /// The conflict for a refused condition, after one read that names the actual version.
    async fn conflict_after_read(&self, key: &str, expected: Option<&Version>) -> StoreError {
        match self.head_version(key).await {
            Ok(actual) => VersionConflict::new(key, expected, actual).into(),
            Err(err) => err,
        }
    }
}

#[async_trait]
impl Store for S3Store {
    #[tracing::instrument(skip_all, fields(bucket = %self.bucket, key = %key), err)]
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        check_key(key)?;
        let sent = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(self.object_key(key))
            .send()
            .await;
        crate::requests::note_requests(1);
        let out = match sent {
            Ok(out) => out,
            Err(err) => {
                let failure = Failure::of(&err);
                if failure.not_found() {
                    return Ok(None);
                }
                if let Some(denied) = failure.kms_denied() {
                    return Err(denied.with_source(Box::new(err)).into());
                }
                return Err(backend("GetObject", key, err));
            }
        };
        let version = out
            .e_tag()
            .and_then(Version::new)
            .ok_or_else(|| missing_etag("GetObject", key))?;
        let payload = out
            .body
            .collect()
            .await
            .map_err(|err| StoreError::Backend {
                backend: "s3",
                op: "GetObject",
                key: key.to_owned(),
                source: Box::new(err),
            })?
            .into_bytes()
            .to_vec();
        Ok(Some(Record { payload, version }))
    }

    #[tracing::instrument(skip_all, fields(bucket = %self.bucket, key = %key), err)]
    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        check_key(key)?;
        let mut put = self
            .client
            .put_object()
            .bucket(&self.bucket)
            .key(self.object_key(key))
            .body(ByteStream::from(payload.to_vec()));
        put = match expected {
            None => put.if_none_match("*"),
            Some(version) => put.if_match(version.as_str()),
        };
        if let Some(tagging) = self.tagging() {
            put = put.tagging(tagging);
        }
        let sent = put.send().await;
        crate::requests::note_requests(1);
        match sent {
            Ok(out) => out
                .e_tag()
                .and_then(Version::new)
                .ok_or_else(|| missing_etag("PutObject", key)),
            Err(err) => {
                let failure = Failure::of(&err);
                if failure.precondition_failed() {
                    Err(self.conflict_after_read(key, expected).await)
                } else if expected.is_some() && failure.not_found() {
                    Err(VersionConflict::new(key, expected, None).into())
                } else if let Some(denied) = failure.kms_denied() {
                    Err(denied.with_source(Box::new(err)).into())
                } else {
                    Err(backend("PutObject", key, err))
                }
            }
        }
    }

    #[tracing::instrument(skip_all, fields(bucket = %self.bucket, key = %key), err)]
    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        check_key(key)?;
        let Some(expected) = expected else {
            // S3 has no "delete only if absent": a HEAD decides, and an absent key needs nothing.
            return match self.head_version(key).await? {
                None => Ok(()),
                actual => Err(VersionConflict::new(key, None, actual).into()),
            };
        };
        let sent = self
            .client
            .delete_object()
            .bucket(&self.bucket)
            .key(self.object_key(key))
            .if_match(expected.as_str())
            .send()
            .await;
        crate::requests::note_requests(1);
        match sent {
            Ok(_) => Ok(()),
            Err(err) => {
                let failure = Failure::of(&err);
                if failure.precondition_failed() {
                    Err(self.conflict_after_read(key, Some(expected)).await)
                } else if failure.not_found() {
                    Err(VersionConflict::new(key, Some(expected), None).into())
                } else {
                    Err(backend("DeleteObject", key, err))
                }
            }
        }
    }

    #[tracing::instrument(skip_all, fields(bucket = %self.bucket, prefix = %prefix), err)]
    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let strip = if self.key_prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.key_prefix)
        };
        let mut pages = self
            .client
            .list_objects_v2()
            .bucket(&self.bucket)
            .prefix(self.object_key(prefix))
            .set_max_keys(self.list_page_size)
            .into_paginator()
            .send();
        let mut keys = Vec::new();
        while let Some(page) = pages.next().await {
            crate::requests::note_requests(1);
            let page = page.map_err(|err| backend("ListObjectsV2", prefix, err))?;
            for object in page.contents() {
                let Some(key) = object.key().and_then(|k| k.strip_prefix(strip.as_str())) else {
                    continue;
                };
                // Objects that are not valid record keys were not written by a store and could not be
                // read through one: leave them out rather than list what `get` would refuse.
                if key.starts_with(prefix) && crate::key::validate_key(key).is_ok() {
                    keys.push(key.to_owned());
                } else {
                    tracing::debug!(object = key, "skipping an object that is not a record key");
                }
            }
        }
        keys.sort_unstable();
        Ok(keys)
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        Some(self)
    }

    fn location(&self, key: &str) -> String {
        format!("s3://{}/{}", self.bucket, self.object_key(key))
    }
}

#[async_trait]
impl BulkReader for S3Store {
    #[tracing::instrument(skip_all, fields(bucket = %self.bucket, prefix = %prefix), err)]
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        let keys = self.list(prefix).await?;
        futures::stream::iter(keys)
            .map(|key| async move {
                let record = self.get(&key).await?;
                Ok::<_, StoreError>(record.map(|r| (key, r)))
            })
            .buffer_unordered(self.get_all_parallelism)
            // A record deleted between the listing and its read is simply no longer there.
            .try_filter_map(|entry| async move { Ok(entry) })
            .try_collect()
            .await
    }
}
