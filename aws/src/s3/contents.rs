//! Emptying a bucket before its delete, as `force_destroy = true` asks: every object version and delete
//! marker is listed (`ListObjectVersions`, 1000 a page) and deleted (`DeleteObjects`, one call a page),
//! until the listing is empty; then the bucket goes.
//!
//! Objects under a governance-mode lock are deleted too (`BypassGovernanceRetention`), as the AWS provider
//! does; an object S3 still refuses to delete (compliance mode, legal hold) fails the whole delete with S3's
//! reason, and the bucket stays. This module must never delete anything but the bucket it is given.

use aws_sdk_s3::types::{Delete, ObjectIdentifier};
use provider::{Call, ProviderError, ProviderErrorKind};

use super::super::AwsProvider;
use super::super::error::from_sdk;

const LIST_OBJECT_VERSIONS: &str = "s3:ListObjectVersions";
const DELETE_OBJECTS: &str = "s3:DeleteObjects";

/// The most keys `DeleteObjects` takes, and the page asked of `ListObjectVersions`.
const PAGE: i32 = 1000;

impl AwsProvider {
    /// One page of the bucket's object versions and delete markers, as (key, version id) pairs.
    #[tracing::instrument(skip_all, fields(operation = LIST_OBJECT_VERSIONS, bucket = %bucket), err)]
    async fn call_list_object_versions(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<Vec<ObjectIdentifier>, ProviderError> {
        call.attempt(LIST_OBJECT_VERSIONS);
        let out = self
            .s3
            .list_object_versions()
            .bucket(bucket)
            .max_keys(PAGE)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_OBJECT_VERSIONS, e))?;
        let versions = out
            .versions()
            .iter()
            .filter_map(|v| Some((v.key()?, v.version_id())));
        let markers = out
            .delete_markers()
            .iter()
            .filter_map(|m| Some((m.key()?, m.version_id())));
        versions
            .chain(markers)
            .map(|(key, version)| {
                ObjectIdentifier::builder()
                    .key(key)
                    .set_version_id(version.map(str::to_owned))
                    .build()
                    .map_err(|e| {
                        ProviderError::new(
                            LIST_OBJECT_VERSIONS,
                            ProviderErrorKind::ServerError,
                            format!("an object version could not be named: {e}"),
                        )
                    })
            })
            .collect()
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_OBJECTS, bucket = %bucket, count = objects.len()), err)]
    async fn call_delete_objects(
        &self,
        call: &Call<'_>,
        bucket: &str,
        objects: Vec<ObjectIdentifier>,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_OBJECTS);
        let delete = Delete::builder()
            .set_objects(Some(objects))
            .quiet(true)
            .build()
            .map_err(|e| {
                ProviderError::new(
                    DELETE_OBJECTS,
                    ProviderErrorKind::InvalidArgument,
                    format!("the objects to delete could not be named: {e}"),
                )
            })?;
        let out = self
            .s3
            .delete_objects()
            .bucket(bucket)
            .delete(delete)
            .bypass_governance_retention(true)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_OBJECTS, e))?;
        match out.errors().first() {
            None => Ok(()),
            Some(refused) => Err(ProviderError::new(
                DELETE_OBJECTS,
                ProviderErrorKind::DependencyViolation,
                format!(
                    "S3 refused to delete {} object version(s) of {bucket}, {} first: {}",
                    out.errors().len(),
                    refused.key().unwrap_or_default(),
                    refused.message().unwrap_or_default()
                ),
            )),
        }
    }

    /// Deletes every object version and delete marker of the bucket, a page at a time.
    pub(super) async fn empty_bucket(
        &self,
        call: &Call<'_>,
        bucket: &str,
    ) -> Result<(), ProviderError> {
        loop {
            let page = self.call_list_object_versions(call, bucket).await?;
            if page.is_empty() {
                return Ok(());
            }
            self.call_delete_objects(call, bucket, page).await?;
        }
    }
}
