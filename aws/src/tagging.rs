//! The tagging side of the AWS provider: one page of `tagging:GetResources` (up to 100 resources, tag
//! filters and resource type filters sent to the API) with each ARN mapped back to the resource type and id
//! the engine knows.
//!
//! Only the types this provider serves are asked for (`s3` for buckets, `logs` for log groups with the
//! feature `logs`, `ec2:vpc`, `ec2:subnet`, `ec2:security-group`, `ec2:internet-gateway`,
//! `ec2:route-table` and `ec2:elastic-ip` with the feature `ec2`); an ARN it cannot map (an S3 access point, a log destination, a type it does not serve)
//! is left out of the page, never guessed. This module must never filter
//! by tags itself: the API does, and its index may lag (a deleted bucket can still be returned).

use aws_sdk_resourcegroupstagging::types::TagFilter;
use provider::{Call, ProviderError, TagQuery, TaggedPage, TaggedResource};

use super::error::from_sdk;
use super::{AwsProvider, BUCKET};

/// The tagging API's resource type filter of each served type the index covers. Log groups are asked for
/// by service (`logs`): AWS spells the type `logs:log-group`, the emulator `logs:loggroup`, and both
/// answer the service filter.
const INDEXED: &[(&str, &str)] = &[
    (BUCKET, "s3"),
    #[cfg(feature = "logs")]
    (super::LOG_GROUP, "logs"),
];

/// Every indexed type with its resource type filter: the ones above, and the EC2 types with the feature
/// `ec2`, asked for by exact resource type (`ec2:vpc`), as the service `ec2` holds far more.
fn indexed() -> impl Iterator<Item = (&'static str, &'static str)> {
    let ec2: &[(&str, &str, &str)] = {
        #[cfg(feature = "ec2")]
        {
            super::ec2::INDEXED
        }
        #[cfg(not(feature = "ec2"))]
        {
            &[]
        }
    };
    INDEXED
        .iter()
        .copied()
        .chain(ec2.iter().map(|(t, filter, _)| (*t, *filter)))
}

const GET_RESOURCES: &str = "tagging:GetResources";

/// The most resources AWS returns on one page.
const RESOURCES_PER_PAGE: i32 = 100;

/// The resource type and id an ARN names, for the types this provider serves.
fn resource_of_arn(arn: &str) -> Option<(&'static str, String)> {
    let mut parts = arn.splitn(6, ':');
    let (Some("arn"), Some(_partition), Some(service), Some(region), Some(account), Some(resource)) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    // A bucket's ARN has neither region nor account, and its resource part is the bare name.
    let is_bucket = service == "s3"
        && region.is_empty()
        && account.is_empty()
        && !resource.is_empty()
        && !resource.contains('/');
    if is_bucket {
        return Some((BUCKET, resource.to_owned()));
    }
    #[cfg(feature = "ec2")]
    if service == "ec2" {
        return super::ec2::resource_of_arn(resource);
    }
    #[cfg(feature = "logs")]
    if service == "logs"
        && let Some(name) = resource.strip_prefix("log-group:")
    {
        // DescribeLogGroups' form ends in `:*`; log group names hold no colon.
        let name = name.strip_suffix(":*").unwrap_or(name);
        return (!name.is_empty() && !name.contains(':'))
            .then(|| (super::LOG_GROUP, name.to_owned()));
    }
    None
}

impl AwsProvider {
    #[tracing::instrument(skip_all, fields(operation = GET_RESOURCES), err)]
    pub(super) async fn get_resources(
        &self,
        call: &Call<'_>,
        query: &TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        // Only the indexed types asked for (all of them when none is named); asking for none costs nothing.
        let services: Vec<String> = indexed()
            .filter(|(t, _)| query.type_names.is_empty() || query.type_names.iter().any(|q| q == t))
            .map(|(_, service)| service.to_owned())
            .collect();
        if services.is_empty() {
            return Ok(TaggedPage::default());
        }
        let filters: Vec<TagFilter> = query
            .tag_filters
            .iter()
            .map(|f| {
                TagFilter::builder()
                    .key(&f.key)
                    .set_values((!f.values.is_empty()).then(|| f.values.clone()))
                    .build()
            })
            .collect();
        call.attempt(GET_RESOURCES);
        let out = self
            .tagging
            .get_resources()
            .set_tag_filters((!filters.is_empty()).then_some(filters))
            .set_resource_type_filters(Some(services))
            .resources_per_page(RESOURCES_PER_PAGE)
            .set_pagination_token(query.page_token.clone())
            .send()
            .await
            .map_err(|e| from_sdk(GET_RESOURCES, e))?;
        let resources = out
            .resource_tag_mapping_list()
            .iter()
            .filter_map(|mapping| {
                let (type_name, id) = resource_of_arn(mapping.resource_arn()?)?;
                Some(TaggedResource {
                    type_name: type_name.to_owned(),
                    id,
                    tags: mapping
                        .tags()
                        .iter()
                        .map(|t| (t.key().to_owned(), t.value().to_owned()))
                        .collect(),
                })
            })
            .collect();
        // AWS ends the listing with an empty token, moto with none.
        let next_page_token = out
            .pagination_token()
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        Ok(TaggedPage {
            resources,
            next_page_token,
        })
    }
}
