//! The data sources the AWS provider reads: `aws_caller_identity` (one `sts:GetCallerIdentity`, with
//! the feature `sts`), and `aws_region` and `aws_partition`, answered from the provider's region with no
//! call, as the Terraform AWS provider answers them from its configuration.
//!
//! The IAM, S3 and policy-document reads are in [`iam`]; the EC2 data sources (`aws_availability_zones`,
//! `aws_ami`, `aws_vpc`, `aws_subnet`, `aws_subnets`, `aws_security_group`) are read in `ec2` with the
//! feature `ec2`. A read never writes; a failed read is an error, never an empty result.

#[cfg(feature = "ec2")]
mod ec2;

use awscatalog::data::{
    CALLER_IDENTITY, PARTITION, REGION, partition_value, region_value, requested_region,
};
use provider::schema::DataSourceSchema;
use provider::{Call, DataSourceRequest, ProviderError, ProviderErrorKind, Value};

use super::AwsProvider;

mod iam;

#[cfg(feature = "sts")]
const GET_CALLER_IDENTITY: &str = "sts:GetCallerIdentity";

/// The EC2 data sources, read with the feature `ec2`.
const EC2_TYPES: &[&str] = {
    use awscatalog::data::ec2::{AMI, AVAILABILITY_ZONES, SECURITY_GROUP, SUBNET, SUBNETS, VPC};
    &[
        AVAILABILITY_ZONES,
        AMI,
        VPC,
        SUBNET,
        SUBNETS,
        SECURITY_GROUP,
    ]
};

/// Whether this build reads the data source `type_name`.
pub(crate) fn is_served(schema: &DataSourceSchema) -> bool {
    let name = schema.type_name.as_str();
    let iam_reads = [awscatalog::data::iam::ROLE, awscatalog::data::iam::POLICY];
    name == REGION
        || name == PARTITION
        || name == awscatalog::data::POLICY_DOCUMENT
        || name == awscatalog::data::s3::BUCKET
        || (name == CALLER_IDENTITY && cfg!(feature = "sts"))
        || (iam_reads.contains(&name) && cfg!(feature = "iam"))
        || (EC2_TYPES.contains(&name) && cfg!(feature = "ec2"))
}

impl AwsProvider {
    /// Reads the data source `request` names.
    pub(crate) async fn read_data(
        &self,
        call: &Call<'_>,
        request: &DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        match request.type_name.as_str() {
            #[cfg(feature = "sts")]
            CALLER_IDENTITY => self.call_get_caller_identity(call).await,
            REGION => {
                let name = requested_region(&request.arguments, &self.region).map_err(|e| {
                    ProviderError::new("read_data_source", ProviderErrorKind::NotFound, e)
                })?;
                region_value(&name, &self.region).ok_or_else(|| {
                    ProviderError::not_found("read_data_source", format!("region {name}"))
                })
            }
            PARTITION => Ok(partition_value(&self.region)),
            awscatalog::data::POLICY_DOCUMENT => iam::policy_document(request),
            awscatalog::data::s3::BUCKET => self.read_bucket_data(call, request).await,
            #[cfg(feature = "iam")]
            awscatalog::data::iam::ROLE => self.read_role_data(call, request).await,
            #[cfg(feature = "iam")]
            awscatalog::data::iam::POLICY => self.read_policy_data(call, request).await,
            #[cfg(feature = "ec2")]
            t if EC2_TYPES.contains(&t) => self.read_ec2_data(call, request).await,
            other => {
                let _ = call;
                Err(ProviderError::unsupported(
                    "read_data_source",
                    format!("the AWS provider does not read the data source {other}"),
                ))
            }
        }
    }

    /// `sts:GetCallerIdentity`: the account, ARN and user id of the provider's credentials.
    #[cfg(feature = "sts")]
    #[tracing::instrument(skip_all, err)]
    async fn call_get_caller_identity(&self, call: &Call<'_>) -> Result<Value, ProviderError> {
        call.attempt(GET_CALLER_IDENTITY);
        let out = self
            .sts
            .get_caller_identity()
            .send()
            .await
            .map_err(|e| super::error::from_sdk(GET_CALLER_IDENTITY, e))?;
        let missing = |what: &str| {
            ProviderError::new(
                GET_CALLER_IDENTITY,
                ProviderErrorKind::ServerError,
                format!("the answer names no {what}"),
            )
        };
        let account = out.account().ok_or_else(|| missing("account"))?;
        let arn = out.arn().ok_or_else(|| missing("ARN"))?;
        let user_id = out.user_id().ok_or_else(|| missing("user id"))?;
        Ok(awscatalog::data::caller_identity_value(
            account, arn, user_id,
        ))
    }
}
