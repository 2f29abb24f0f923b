//! The S3 side of the AWS provider: buckets (listed with `ListBuckets`, read and tagged through the bucket
//! tagging calls) and their versioning configurations (`GetBucketVersioning` / `PutBucketVersioning`).
//!
//! Each API operation is one private method that counts the attempt, opens a span named after the operation
//! and turns an SDK failure into a [`ProviderError`]; the protocol calls are built from those. This module
//! must never call an operation without counting it, and never read an error as an absence except where S3
//! says so (`NoSuchBucket`, `NoSuchTagSet`).

mod contents;

use std::collections::BTreeMap;

use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::types::{
    BucketLocationConstraint, BucketVersioningStatus, CreateBucketConfiguration, MfaDelete, Tag,
    Tagging, VersioningConfiguration,
};
use provider::LiveObject;
use provider::Value;
use provider::{
    Call, CreateRequest, ListPage, ListRequest, ProviderError, ProviderErrorKind, TagChange,
    UpdateRequest,
};

use super::error::from_sdk;
use super::{
    AwsProvider, BUCKET, BUCKET_VERSIONING, BucketTagging, check_names, invalid, string_attribute,
};

/// The page size asked of `ListBuckets`: AWS's largest, so an account at the default bucket quota is listed
/// in one call and a larger one is paged with continuation tokens.
const LIST_BUCKETS_PAGE: i32 = 10_000;

const LIST_BUCKETS: &str = "s3:ListBuckets";
const HEAD_BUCKET: &str = "s3:HeadBucket";
const CREATE_BUCKET: &str = "s3:CreateBucket";
const DELETE_BUCKET: &str = "s3:DeleteBucket";
const GET_BUCKET_TAGGING: &str = "s3:GetBucketTagging";
const PUT_BUCKET_TAGGING: &str = "s3:PutBucketTagging";
const DELETE_BUCKET_TAGGING: &str = "s3:DeleteBucketTagging";
const GET_BUCKET_VERSIONING: &str = "s3:GetBucketVersioning";
const PUT_BUCKET_VERSIONING: &str = "s3:PutBucketVersioning";

/// Whether an S3 failure carries `code`.
fn has_code<E: ProvideErrorMetadata>(err: &E, code: &str) -> bool {
    err.code() == Some(code)
}

fn s3_tags(operation: &str, tags: &BTreeMap<String, String>) -> Result<Vec<Tag>, ProviderError> {
    tags.iter()
        .map(|(k, v)| {
            Tag::builder()
                .key(k)
                .value(v)
                .build()
                .map_err(|e| invalid(operation, e.to_string()))
        })
        .collect()
}

/// A bucket's versioning configuration as S3 answers it: its status, and its MFA delete setting when S3
/// returns one (only once it was ever set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Versioning {
    status: String,
    mfa_delete: Option<String>,
}

/// The `versioning_configuration` block of the AWS provider v5 for a configuration: one block holding
/// `status` and `mfa_delete`.
fn versioning_block(v: &Versioning) -> Value {
    let body = BTreeMap::from([
        ("status".to_owned(), Value::from(v.status.as_str())),
        (
            "mfa_delete".to_owned(),
            v.mfa_delete.as_deref().map_or(Value::Null, Value::from),
        ),
    ]);
    Value::List(vec![Value::Map(body)])
}

/// What a bucket's versioning status means as an object: a configuration once versioning was enabled.
fn versioning_status(status: Option<&BucketVersioningStatus>) -> Option<&str> {
    match status {
        Some(BucketVersioningStatus::Enabled) => Some("Enabled"),
        Some(BucketVersioningStatus::Suspended) => Some("Suspended"),
        _ => None,
    }
}

/// The versioning status in a successful answer the SDK refused to decode: some emulators (moto) name
/// the document's root `GetBucketVersioningResponse` where S3 says `VersioningConfiguration`. `None` when the
/// failure is not such an answer.
fn status_in_undecoded_answer<E>(err: &SdkError<E>) -> Option<Option<Versioning>> {
    let raw = err.raw_response()?;
    if raw.status().as_u16() != 200 {
        return None;
    }
    let body = std::str::from_utf8(raw.body().bytes()?).ok()?;
    if !body.contains("<GetBucketVersioningResponse") {
        return None;
    }
    let status = body
        .split_once("<Status>")
        .and_then(|(_, rest)| rest.split_once("</Status>"))
        .map(|(status, _)| status.trim());
    let mfa_delete = body
        .split_once("<MfaDelete>")
        .and_then(|(_, rest)| rest.split_once("</MfaDelete>"))
        .map(|(m, _)| m.trim().to_owned());
    let status = match status {
        Some(s @ ("Enabled" | "Suspended")) => Some(Versioning {
            status: s.to_owned(),
            mfa_delete,
        }),
        _ => None,
    };
    Some(status)
}

impl AwsProvider {
    /// A bucket as a read returns it: `id`, `bucket` and `arn`, and its tags.
    fn bucket_object(
        &self,
        name: &str,
        region: Option<&str>,
        tags: BTreeMap<String, String>,
    ) -> LiveObject {
        let arn = format!("arn:{}:s3:::{name}", self.partition());
        LiveObject {
            type_name: BUCKET.to_owned(),
            id: name.to_owned(),
            region: region.unwrap_or(&self.region).to_owned(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(name)),
                ("bucket".to_owned(), Value::from(name)),
                ("arn".to_owned(), Value::from(arn)),
            ]),
            tags,
        }
    }

    /// A versioning configuration as a read returns it: `id` and `bucket` (both the bucket's name) and
    /// the `versioning_configuration` block.
    fn versioning_object(&self, bucket: &str, versioning: &Versioning) -> LiveObject {
        LiveObject {
            type_name: BUCKET_VERSIONING.to_owned(),
            id: bucket.to_owned(),
            region: self.region.clone(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(bucket)),
                ("bucket".to_owned(), Value::from(bucket)),
                (
                    "versioning_configuration".to_owned(),
                    versioning_block(versioning),
                ),
            ]),
            tags: BTreeMap::new(),
        }
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = LIST_BUCKETS), err)]
    async fn call_list_buckets(
        &self,
        call: &Call<'_>,
        token: Option<String>,
    ) -> Result<(Vec<LiveObject>, Option<String>), ProviderError> {
        call.attempt(LIST_BUCKETS);
        let out = self
            .s3
            .list_buckets()
            .max_buckets(LIST_BUCKETS_PAGE)
            .set_continuation_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_BUCKETS, e))?;
        let objects = out
            .buckets()
            .iter()
            .filter_map(|b| {
                let name = b.name()?;
                Some(self.bucket_object(name, b.bucket_region(), BTreeMap::new()))
            })
            .collect();
        let next = out
            .continuation_token()
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        Ok((objects, next))
    }

    /// Whether the bucket exists and this caller may see it; `None` when S3 will not say (a 403: another
    /// account's bucket, or no `s3:ListBucket` permission).
    #[tracing::instrument(skip_all, fields(operation = HEAD_BUCKET, bucket = %bucket), err)]
    async fn call_head_bucket(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<Option<bool>, ProviderError> {
        call.attempt(HEAD_BUCKET);
        match self.s3.head_bucket().bucket(bucket).send().await {
            Ok(_) => Ok(Some(true)),
            Err(e) => {
                let status = e.raw_response().map(|r| r.status().as_u16());
                match status {
                    Some(404) => Ok(Some(false)),
                    Some(403) => Ok(None),
                    // Redirected to the bucket's own region: it exists.
                    Some(301) => Ok(Some(true)),
                    _ => Err(from_sdk(HEAD_BUCKET, e)),
                }
            }
        }
    }

    /// The bucket's tags; `None` when the bucket does not exist.
    #[tracing::instrument(skip_all, fields(operation = GET_BUCKET_TAGGING, bucket = %bucket), err)]
    async fn call_get_bucket_tagging(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<Option<BTreeMap<String, String>>, ProviderError> {
        call.attempt(GET_BUCKET_TAGGING);
        match self.s3.get_bucket_tagging().bucket(bucket).send().await {
            Ok(out) => Ok(Some(
                out.tag_set()
                    .iter()
                    .map(|t| (t.key().to_owned(), t.value().to_owned()))
                    .collect(),
            )),
            Err(e) if has_code(&e, "NoSuchTagSet") => Ok(Some(BTreeMap::new())),
            Err(e) if has_code(&e, "NoSuchBucket") => Ok(None),
            Err(e) => Err(from_sdk(GET_BUCKET_TAGGING, e)),
        }
    }

    #[tracing::instrument(skip_all, fields(operation = PUT_BUCKET_TAGGING, bucket = %bucket), err)]
    async fn call_put_bucket_tagging(
        &self,
        call: &Call<'_>,
        bucket: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        call.attempt(PUT_BUCKET_TAGGING);
        let tagging = Tagging::builder()
            .set_tag_set(Some(s3_tags(PUT_BUCKET_TAGGING, tags)?))
            .build()
            .map_err(|e| invalid(PUT_BUCKET_TAGGING, e.to_string()))?;
        self.s3
            .put_bucket_tagging()
            .bucket(bucket)
            .tagging(tagging)
            .send()
            .await
            .map_err(|e| from_sdk(PUT_BUCKET_TAGGING, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_BUCKET_TAGGING, bucket = %bucket), err)]
    async fn call_delete_bucket_tagging(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_BUCKET_TAGGING);
        self.s3
            .delete_bucket_tagging()
            .bucket(bucket)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_BUCKET_TAGGING, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_BUCKET, bucket = %bucket), err)]
    async fn call_create_bucket(
        &self,
        call: &Call<'_>,
        bucket: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        call.attempt(CREATE_BUCKET);
        let mut configuration = CreateBucketConfiguration::builder();
        // us-east-1 is the one region S3 wants no location constraint for.
        if self.region != "us-east-1" {
            configuration = configuration
                .location_constraint(BucketLocationConstraint::from(self.region.as_str()));
        }
        if !tags.is_empty() {
            configuration = configuration.set_tags(Some(s3_tags(CREATE_BUCKET, tags)?));
        }
        let configuration = configuration.build();
        let mut create = self.s3.create_bucket().bucket(bucket);
        if configuration.location_constraint().is_some() || !configuration.tags().is_empty() {
            create = create.create_bucket_configuration(configuration);
        }
        create
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_BUCKET, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_BUCKET, bucket = %bucket), err)]
    async fn call_delete_bucket(&self, call: &Call<'_>, bucket: &str) -> Result<(), ProviderError> {
        call.attempt(DELETE_BUCKET);
        self.s3
            .delete_bucket()
            .bucket(bucket)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_BUCKET, e))?;
        Ok(())
    }

    /// The bucket's versioning status; `None` when the bucket does not exist.
    #[tracing::instrument(skip_all, fields(operation = GET_BUCKET_VERSIONING, bucket = %bucket), err)]
    async fn call_get_bucket_versioning(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<Option<Option<Versioning>>, ProviderError> {
        call.attempt(GET_BUCKET_VERSIONING);
        match self.s3.get_bucket_versioning().bucket(bucket).send().await {
            Ok(out) => Ok(Some(versioning_status(out.status()).map(|s| Versioning {
                status: s.to_owned(),
                mfa_delete: out.mfa_delete().map(|m| m.as_str().to_owned()),
            }))),
            Err(e) if has_code(&e, "NoSuchBucket") => Ok(None),
            Err(e) => match status_in_undecoded_answer(&e) {
                Some(status) => Ok(Some(status)),
                None => Err(from_sdk(GET_BUCKET_VERSIONING, e)),
            },
        }
    }

    #[tracing::instrument(skip_all, fields(operation = PUT_BUCKET_VERSIONING, bucket = %bucket, status = %versioning.status), err)]
    async fn call_put_bucket_versioning(
        &self,
        call: &Call<'_>,
        bucket: &str,
        versioning: &Versioning,
    ) -> Result<(), ProviderError> {
        call.attempt(PUT_BUCKET_VERSIONING);
        let configuration = VersioningConfiguration::builder()
            .status(BucketVersioningStatus::from(versioning.status.as_str()))
            .set_mfa_delete(versioning.mfa_delete.as_deref().map(MfaDelete::from))
            .build();
        self.s3
            .put_bucket_versioning()
            .bucket(bucket)
            .versioning_configuration(configuration)
            .send()
            .await
            .map_err(|e| from_sdk(PUT_BUCKET_VERSIONING, e))?;
        Ok(())
    }

    // ----- Buckets through the protocol. -----

    pub(super) async fn list_buckets(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        if let Some(parent) = &request.parent {
            return Err(invalid(
                LIST_BUCKETS,
                format!("{BUCKET} is not listed under a {}", parent.type_name),
            ));
        }
        // ListBuckets cannot filter by tags: the page says its tags mean nothing, and the caller filters
        // after reading them (the tagging API or one read each).
        let (objects, next_page_token) = self
            .call_list_buckets(call, request.page_token.clone())
            .await?;
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token,
        })
    }

    pub(super) async fn read_bucket(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        Ok(self
            .call_get_bucket_tagging(call, name)
            .await?
            .map(|tags| self.bucket_object(name, None, tags)))
    }

    pub(super) async fn create_bucket(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(CREATE_BUCKET, BUCKET, &request.attributes)?;
        let name = string_attribute(CREATE_BUCKET, BUCKET, &request.attributes, "bucket")?;
        if let Some(v) = request.attributes.get("force_destroy")
            && v.peel().as_bool().is_none()
        {
            return Err(invalid(
                CREATE_BUCKET,
                format!("{BUCKET}.force_destroy must be a bool, not {v}"),
            ));
        }
        if self.region == "us-east-1" && self.call_head_bucket(call, name).await? == Some(true) {
            return Err(ProviderError::new(
                CREATE_BUCKET,
                ProviderErrorKind::AlreadyExists,
                format!("the bucket {name} already exists"),
            ));
        }
        match self.bucket_tagging {
            BucketTagging::InCreateCall => {
                self.call_create_bucket(call, name, &request.tags).await?
            }
            BucketTagging::AfterCreate => {
                self.call_create_bucket(call, name, &BTreeMap::new())
                    .await?;
                if !request.tags.is_empty()
                    && let Err(err) = self
                        .call_put_bucket_tagging(call, name, &request.tags)
                        .await
                {
                    return Err(self.undo_create(call, name, err).await);
                }
            }
        }
        Ok(self.bucket_object(name, None, request.tags.clone()))
    }

    /// Deletes a bucket whose tagging failed right after its create, and returns the tagging error, saying
    /// whether the bucket is gone or left unmarked.
    async fn undo_create(&self, call: &Call<'_>, name: &str, err: ProviderError) -> ProviderError {
        let outcome = match self.call_delete_bucket(call, name).await {
            Ok(()) => "the bucket was deleted again".to_owned(),
            Err(e) => format!(
                "the bucket {name} exists without its tags and could not be deleted ({e}): delete it by hand"
            ),
        };
        let message = if err.message.is_empty() {
            outcome
        } else {
            format!("{}; {outcome}", err.message)
        };
        ProviderError::new(err.operation, err.kind, message)
    }

    pub(super) async fn update_bucket(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(PUT_BUCKET_TAGGING, BUCKET, &request.attributes)?;
        if let Some(v) = request.attributes.get("bucket")
            && v.peel().as_str() != Some(request.id.as_str())
        {
            return Err(invalid(
                PUT_BUCKET_TAGGING,
                format!(
                    "a bucket cannot be renamed in place ({} to {v}): bucket forces replacement",
                    request.id
                ),
            ));
        }
        // Only the tags of a bucket change in place; `force_destroy` is residue the engine keeps.
        self.change_bucket_tags(call, &request.id, &request.tags)
            .await
    }

    /// Applies a tag change: S3 replaces a bucket's whole tag set, so the current set is read first. A tag
    /// written by someone else between the read and the write is lost.
    pub(super) async fn change_bucket_tags(
        &self,
        call: &Call<'_>,
        name: &str,
        change: &TagChange,
    ) -> Result<LiveObject, ProviderError> {
        let Some(current) = self.call_get_bucket_tagging(call, name).await? else {
            return Err(ProviderError::not_found(
                GET_BUCKET_TAGGING,
                format!("the bucket {name} does not exist"),
            ));
        };
        let desired = change.applied_to(&current);
        if desired != current {
            let written = if desired.is_empty() {
                self.call_delete_bucket_tagging(call, name).await
            } else {
                self.call_put_bucket_tagging(call, name, &desired).await
            };
            written.map_err(|e| match e.kind {
                ProviderErrorKind::NotFound => ProviderError::not_found(
                    e.operation,
                    format!("the bucket {name} does not exist"),
                ),
                _ => e,
            })?;
        }
        Ok(self.bucket_object(name, None, desired))
    }

    pub(super) async fn delete_bucket(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_bucket(call, name).await
    }

    /// Deletes every object version of the bucket, then the bucket (`force_destroy`).
    pub(super) async fn delete_bucket_with_contents(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        self.empty_bucket(call, name).await?;
        self.call_delete_bucket(call, name).await
    }

    // ----- Versioning configurations through the protocol. -----

    pub(super) async fn list_versioning(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let bucket = match &request.parent {
            Some(parent) if parent.type_name == BUCKET => parent.id.as_str(),
            _ => {
                return Err(invalid(
                    GET_BUCKET_VERSIONING,
                    format!("{BUCKET_VERSIONING} is listed under one {BUCKET} only"),
                ));
            }
        };
        let objects = self
            .read_versioning(call, bucket)
            .await?
            .into_iter()
            .collect();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token: None,
        })
    }

    pub(super) async fn read_versioning(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let status = self
            .call_get_bucket_versioning(call, bucket)
            .await?
            .flatten();
        Ok(status.map(|v| self.versioning_object(bucket, &v)))
    }

    /// The versioning configuration a request asks for: its one `versioning_configuration` block's
    /// `status` (`Enabled` or `Suspended`) and `mfa_delete`.
    fn desired_versioning(
        &self,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<Versioning, ProviderError> {
        check_names(PUT_BUCKET_VERSIONING, BUCKET_VERSIONING, attributes)?;
        let bad = |why: &str| invalid(PUT_BUCKET_VERSIONING, format!("{BUCKET_VERSIONING}.{why}"));
        let block = match attributes.get("versioning_configuration").map(Value::peel) {
            Some(Value::List(items)) if items.len() == 1 => items[0].peel().as_map(),
            _ => None,
        }
        .ok_or_else(|| bad("versioning_configuration must be one block"))?;
        let status = string_attribute(PUT_BUCKET_VERSIONING, BUCKET_VERSIONING, block, "status")?;
        if !matches!(status, "Enabled" | "Suspended") {
            return Err(bad(&format!(
                "versioning_configuration.status is {status:?}; expected Enabled or Suspended"
            )));
        }
        let mfa_delete = match block.get("mfa_delete").map(Value::peel) {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) if m == "Enabled" || m == "Disabled" => Some(m.clone()),
            Some(other) => {
                return Err(bad(&format!(
                    "versioning_configuration.mfa_delete is {other}; expected Enabled or Disabled"
                )));
            }
        };
        Ok(Versioning {
            status: status.to_owned(),
            mfa_delete,
        })
    }

    pub(super) async fn create_versioning(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let versioning = self.desired_versioning(&request.attributes)?;
        let bucket = string_attribute(
            PUT_BUCKET_VERSIONING,
            BUCKET_VERSIONING,
            &request.attributes,
            "bucket",
        )?;
        self.call_put_bucket_versioning(call, bucket, &versioning)
            .await
            .map_err(|e| match e.kind {
                ProviderErrorKind::NotFound => ProviderError::new(
                    e.operation,
                    ProviderErrorKind::InvalidReference,
                    format!("the bucket {bucket} does not exist"),
                ),
                _ => e,
            })?;
        Ok(self.versioning_object(bucket, &versioning))
    }

    pub(super) async fn update_versioning(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        if !request.tags.is_empty() {
            return Err(invalid(
                PUT_BUCKET_VERSIONING,
                format!("{BUCKET_VERSIONING} carries no tags"),
            ));
        }
        let versioning = self.desired_versioning(&request.attributes)?;
        if let Some(v) = request.attributes.get("bucket")
            && v.peel().as_str() != Some(request.id.as_str())
        {
            return Err(invalid(
                PUT_BUCKET_VERSIONING,
                format!("bucket forces replacement ({} to {v})", request.id),
            ));
        }
        self.call_put_bucket_versioning(call, &request.id, &versioning)
            .await?;
        Ok(self.versioning_object(&request.id, &versioning))
    }

    /// Deleting a versioning configuration suspends versioning: S3 cannot turn it back to never enabled.
    pub(super) async fn suspend_versioning(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<(), ProviderError> {
        let suspended = Versioning {
            status: "Suspended".to_owned(),
            mfa_delete: None,
        };
        self.call_put_bucket_versioning(call, bucket, &suspended)
            .await
    }
}
