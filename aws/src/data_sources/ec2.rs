//! The EC2 data sources the AWS provider reads (feature `ec2`), one `Describe*` per page, as the
//! Terraform AWS provider reads them: `aws_availability_zones` (`ec2:DescribeAvailabilityZones`),
//! `aws_ami` (`ec2:DescribeImages`), `aws_vpc` (`ec2:DescribeVpcs`), `aws_subnet` and `aws_subnets`
//! (`ec2:DescribeSubnets`) and `aws_security_group` (`ec2:DescribeSecurityGroups`).
//!
//! The request's ids and filters are built by `awscatalog` (as the provider builds them); what the
//! answer gives (exactly one, `most_recent`, exclusions) is `awscatalog`'s too, so both clouds decide
//! alike. A read never writes; EC2's `Invalid…ID.NotFound` for an id asked for is no match (the
//! provider's `no matching … found`), any other failure is an error.

use aws_sdk_ec2::types::{Filter, Image as SdkImage, SecurityGroup as SdkGroup};
use aws_sdk_ec2::types::{Subnet as SdkSubnet, Vpc as SdkVpc};
use awscatalog::data::ec2::{
    self as data, AMI, AVAILABILITY_ZONES, DESCRIBE_AVAILABILITY_ZONES, DESCRIBE_IMAGES,
    DESCRIBE_SECURITY_GROUPS, DESCRIBE_SUBNETS, DESCRIBE_VPCS, Describe, SECURITY_GROUP, SUBNET,
    SUBNETS, VPC,
};
use awscatalog::data::ec2_shape::{
    self as shape, Image, SecurityGroup, Subnet, Vpc, Zone, exactly_one,
};
use provider::{Call, DataSourceRequest, ProviderError, ProviderErrorKind, Value};

use crate::AwsProvider;
use crate::error::from_sdk;

/// The page size asked of the describes that page (EC2's largest).
const PAGE: i32 = 1000;

fn sdk_filters(filters: &[data::Filter]) -> Option<Vec<Filter>> {
    let out: Vec<Filter> = filters
        .iter()
        .map(|f| {
            Filter::builder()
                .name(&f.name)
                .set_values(Some(f.values.clone()))
                .build()
        })
        .collect();
    (!out.is_empty()).then_some(out)
}

fn next(token: Option<&str>) -> Option<String> {
    token.filter(|t| !t.is_empty()).map(str::to_owned)
}

/// The provider's message for a read that found no answer, as an error of the describe `operation`.
fn no_match(operation: &'static str) -> impl Fn(String) -> ProviderError {
    move |message| ProviderError::new(operation, ProviderErrorKind::NotFound, message)
}

/// The answer of a describe by id: `Invalid…ID.NotFound` is no object.
fn none_when_not_found<T>(answer: Result<Vec<T>, ProviderError>) -> Result<Vec<T>, ProviderError> {
    match answer {
        Err(e) if e.kind == ProviderErrorKind::NotFound => Ok(Vec::new()),
        other => other,
    }
}

fn tags(tags: &[aws_sdk_ec2::types::Tag]) -> std::collections::BTreeMap<String, String> {
    tags.iter()
        .filter_map(|t| {
            Some((
                t.key()?.to_owned(),
                t.value().unwrap_or_default().to_owned(),
            ))
        })
        .collect()
}

fn ids(d: &Describe) -> Option<Vec<String>> {
    (!d.ids.is_empty()).then(|| d.ids.clone())
}

impl AwsProvider {
    /// Reads the EC2 data source `request` names.
    pub(crate) async fn read_ec2_data(
        &self,
        call: &Call<'_>,
        request: &DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        let region = self.region.as_str();
        let args = &request.arguments;
        match request.type_name.as_str() {
            AVAILABILITY_ZONES => {
                let req = data::zones_request(args);
                let zones = self.call_describe_availability_zones(call, &req).await?;
                Ok(shape::zones_value(region, &req, &zones))
            }
            AMI => {
                let req = data::images_request(args);
                let images = self.call_describe_images(call, &req).await?;
                let image =
                    shape::select_image(&req, &images).map_err(no_match(DESCRIBE_IMAGES))?;
                Ok(shape::image_value(region, &req, image))
            }
            VPC => {
                let d = data::describe(VPC, args);
                let vpcs = none_when_not_found(self.describe_data_vpcs(call, &d).await)?;
                let vpc = exactly_one(VPC, vpcs).map_err(no_match(DESCRIBE_VPCS))?;
                Ok(shape::vpc_value(region, &vpc))
            }
            SUBNET | SUBNETS => {
                let d = data::describe(&request.type_name, args);
                let subnets = none_when_not_found(self.describe_data_subnets(call, &d).await)?;
                if request.type_name == SUBNETS {
                    return Ok(shape::subnets_value(region, &subnets));
                }
                let subnet = exactly_one(SUBNET, subnets).map_err(no_match(DESCRIBE_SUBNETS))?;
                Ok(shape::subnet_value(region, &subnet))
            }
            _ => {
                let d = data::describe(SECURITY_GROUP, args);
                let groups = none_when_not_found(self.describe_data_groups(call, &d).await)?;
                let group = exactly_one(SECURITY_GROUP, groups)
                    .map_err(no_match(DESCRIBE_SECURITY_GROUPS))?;
                Ok(shape::security_group_value(region, &group))
            }
        }
    }

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_AVAILABILITY_ZONES), err)]
    async fn call_describe_availability_zones(
        &self,
        call: &Call<'_>,
        req: &data::ZonesRequest,
    ) -> Result<Vec<Zone>, ProviderError> {
        call.attempt(DESCRIBE_AVAILABILITY_ZONES);
        let out = self
            .ec2
            .describe_availability_zones()
            .set_all_availability_zones(req.all.then_some(true))
            .set_filters(sdk_filters(&req.filters))
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_AVAILABILITY_ZONES, e))?;
        Ok(out
            .availability_zones()
            .iter()
            .map(|z| Zone {
                name: z.zone_name().unwrap_or_default().to_owned(),
                zone_id: z.zone_id().unwrap_or_default().to_owned(),
                state: z.state().map(|s| s.as_str().to_owned()).unwrap_or_default(),
                group_name: z.group_name().unwrap_or_default().to_owned(),
            })
            .collect())
    }

    /// Every page of `ec2:DescribeImages` for `req`, one attempt each.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_IMAGES), err)]
    async fn call_describe_images(
        &self,
        call: &Call<'_>,
        req: &data::ImagesRequest,
    ) -> Result<Vec<Image>, ProviderError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            call.attempt(DESCRIBE_IMAGES);
            let page = self
                .ec2
                .describe_images()
                .set_owners((!req.owners.is_empty()).then(|| req.owners.clone()))
                .set_executable_users(
                    (!req.executable_users.is_empty()).then(|| req.executable_users.clone()),
                )
                .include_deprecated(req.include_deprecated)
                .set_filters(sdk_filters(&req.filters))
                .max_results(PAGE)
                .set_next_token(token)
                .send()
                .await
                .map_err(|e| from_sdk(DESCRIBE_IMAGES, e))?;
            out.extend(page.images().iter().map(image));
            token = next(page.next_token());
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// Every page of `ec2:DescribeVpcs` for `d`.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_VPCS), err)]
    async fn describe_data_vpcs(
        &self,
        call: &Call<'_>,
        d: &Describe,
    ) -> Result<Vec<Vpc>, ProviderError> {
        let (mut out, mut token) = (Vec::new(), None);
        loop {
            call.attempt(DESCRIBE_VPCS);
            let page = self
                .ec2
                .describe_vpcs()
                .set_vpc_ids(ids(d))
                .set_filters(sdk_filters(&d.filters))
                .set_max_results(d.ids.is_empty().then_some(PAGE))
                .set_next_token(token)
                .send()
                .await
                .map_err(|e| from_sdk(DESCRIBE_VPCS, e))?;
            out.extend(page.vpcs().iter().map(vpc));
            token = next(page.next_token());
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// Every page of `ec2:DescribeSubnets` for `d`.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_SUBNETS), err)]
    async fn describe_data_subnets(
        &self,
        call: &Call<'_>,
        d: &Describe,
    ) -> Result<Vec<Subnet>, ProviderError> {
        let (mut out, mut token) = (Vec::new(), None);
        loop {
            call.attempt(DESCRIBE_SUBNETS);
            let page = self
                .ec2
                .describe_subnets()
                .set_subnet_ids(ids(d))
                .set_filters(sdk_filters(&d.filters))
                .set_max_results(d.ids.is_empty().then_some(PAGE))
                .set_next_token(token)
                .send()
                .await
                .map_err(|e| from_sdk(DESCRIBE_SUBNETS, e))?;
            out.extend(page.subnets().iter().map(subnet));
            token = next(page.next_token());
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// Every page of `ec2:DescribeSecurityGroups` for `d`.
    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_SECURITY_GROUPS), err)]
    async fn describe_data_groups(
        &self,
        call: &Call<'_>,
        d: &Describe,
    ) -> Result<Vec<SecurityGroup>, ProviderError> {
        let (mut out, mut token) = (Vec::new(), None);
        loop {
            call.attempt(DESCRIBE_SECURITY_GROUPS);
            let page = self
                .ec2
                .describe_security_groups()
                .set_group_ids(ids(d))
                .set_filters(sdk_filters(&d.filters))
                .set_max_results(d.ids.is_empty().then_some(PAGE))
                .set_next_token(token)
                .send()
                .await
                .map_err(|e| from_sdk(DESCRIBE_SECURITY_GROUPS, e))?;
            out.extend(page.security_groups().iter().map(group));
            token = next(page.next_token());
            if token.is_none() {
                return Ok(out);
            }
        }
    }
}

fn text(s: Option<&str>) -> String {
    s.unwrap_or_default().to_owned()
}

fn image(i: &SdkImage) -> Image {
    Image {
        image_id: text(i.image_id()),
        name: text(i.name()),
        owner_id: text(i.owner_id()),
        owner_alias: i.image_owner_alias().map(str::to_owned),
        architecture: text(i.architecture().map(|a| a.as_str())),
        creation_date: text(i.creation_date()),
        deprecation_time: i.deprecation_time().map(str::to_owned),
        description: text(i.description()),
        root_device_type: text(i.root_device_type().map(|a| a.as_str())),
        root_device_name: text(i.root_device_name()),
        virtualization_type: text(i.virtualization_type().map(|a| a.as_str())),
        image_location: text(i.image_location()),
        image_type: text(i.image_type().map(|a| a.as_str())),
        state: text(i.state().map(|a| a.as_str())),
        public: i.public().unwrap_or(false),
        ena_support: i.ena_support().unwrap_or(false),
        platform: text(i.platform().map(|a| a.as_str())),
        platform_details: text(i.platform_details()),
        usage_operation: text(i.usage_operation()),
        hypervisor: text(i.hypervisor().map(|a| a.as_str())),
        boot_mode: text(i.boot_mode().map(|a| a.as_str())),
        sriov_net_support: text(i.sriov_net_support()),
        imds_support: text(i.imds_support().map(|a| a.as_str())),
        tags: tags(i.tags()),
    }
}

fn vpc(v: &SdkVpc) -> Vpc {
    let ipv6 = v
        .ipv6_cidr_block_association_set()
        .first()
        .map(|a| (text(a.ipv6_cidr_block()), text(a.association_id())));
    Vpc {
        id: text(v.vpc_id()),
        cidr_block: text(v.cidr_block()),
        default: v.is_default().unwrap_or(false),
        dhcp_options_id: text(v.dhcp_options_id()),
        state: text(v.state().map(|s| s.as_str())),
        instance_tenancy: text(v.instance_tenancy().map(|s| s.as_str())),
        owner_id: text(v.owner_id()),
        ipv6,
        tags: tags(v.tags()),
    }
}

fn subnet(s: &SdkSubnet) -> Subnet {
    Subnet {
        id: text(s.subnet_id()),
        vpc_id: text(s.vpc_id()),
        availability_zone: text(s.availability_zone()),
        availability_zone_id: text(s.availability_zone_id()),
        cidr_block: text(s.cidr_block()),
        default_for_az: s.default_for_az().unwrap_or(false),
        map_public_ip_on_launch: s.map_public_ip_on_launch().unwrap_or(false),
        assign_ipv6_address_on_creation: s.assign_ipv6_address_on_creation().unwrap_or(false),
        available_ip_address_count: i64::from(s.available_ip_address_count().unwrap_or(0)),
        state: text(s.state().map(|x| x.as_str())),
        owner_id: text(s.owner_id()),
        ipv6_cidr_block: s
            .ipv6_cidr_block_association_set()
            .first()
            .map(|a| text(a.ipv6_cidr_block()))
            .unwrap_or_default(),
        tags: tags(s.tags()),
    }
}

fn group(g: &SdkGroup) -> SecurityGroup {
    SecurityGroup {
        id: text(g.group_id()),
        name: text(g.group_name()),
        vpc_id: text(g.vpc_id()),
        description: text(g.description()),
        owner_id: text(g.owner_id()),
        tags: tags(g.tags()),
    }
}
