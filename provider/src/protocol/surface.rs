//! The protocol's next surface, offered now with defaults so that adding a use of it later breaks no
//! provider: data-source reads, a provider configured per `provider` block, and declared rate limits.
//!
//! These are plain data, `#[non_exhaustive]` so that fields can be added; build them with their
//! constructors and `with_*` methods. The engine reads data sources at plan time; it calls neither
//! `configure` nor `rate_limits` yet.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use crate::value::Value;

/// A read of one data source (Terraform's `data "TYPE" "NAME" { ... }`): its type and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DataSourceRequest {
    /// The data source's type (`aws_caller_identity`, `aws_vpc`).
    pub type_name: String,
    /// Its arguments, known values only (a data source whose arguments are unknown is read at apply).
    pub arguments: BTreeMap<String, Value>,
}

impl DataSourceRequest {
    /// A read of `type_name` with no arguments.
    pub fn new(type_name: impl Into<String>) -> DataSourceRequest {
        DataSourceRequest {
            type_name: type_name.into(),
            arguments: BTreeMap::new(),
        }
    }

    /// This request with the argument `name` set to `value`.
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.arguments.insert(name.into(), value.into());
        self
    }
}

/// The role a configured provider assumes before its calls (the AWS provider's `assume_role` block).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssumeRole {
    /// The role to assume (`role_arn`).
    pub role_arn: String,
    /// The session's name (`session_name`).
    pub session_name: Option<String>,
    /// The external id the role's trust policy asks for (`external_id`).
    pub external_id: Option<String>,
}

impl AssumeRole {
    /// Assumes `role_arn`, with no session name or external id.
    pub fn new(role_arn: impl Into<String>) -> AssumeRole {
        AssumeRole {
            role_arn: role_arn.into(),
            session_name: None,
            external_id: None,
        }
    }

    /// This role with the session name `name`.
    pub fn with_session_name(mut self, name: impl Into<String>) -> Self {
        self.session_name = Some(name.into());
        self
    }

    /// This role with the external id `id`.
    pub fn with_external_id(mut self, id: impl Into<String>) -> Self {
        self.external_id = Some(id.into());
        self
    }
}

/// What one `provider` block asks of a provider, named as Terraform's AWS provider names its arguments:
/// `alias`, `region`, `profile`, `assume_role`, `default_tags { tags = {...} }`.
///
/// A setting left unset asks for nothing: the provider keeps what it already is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// The block's `alias` (`provider = aws.west` selects it); `None` for the default configuration.
    pub alias: Option<String>,
    /// The region to read and write (`region`).
    pub region: Option<String>,
    /// The named credentials profile (`profile`).
    pub profile: Option<String>,
    /// The role to assume (`assume_role`).
    pub assume_role: Option<AssumeRole>,
    /// Tags every object the configured provider creates carries beside its own
    /// (`default_tags { tags = {...} }`); an object's own tag of the same key wins.
    pub default_tags: BTreeMap<String, String>,
}

impl ProviderConfig {
    /// The default configuration: no alias, nothing asked.
    pub fn new() -> ProviderConfig {
        ProviderConfig::default()
    }

    /// This configuration under `alias`.
    pub fn with_alias(mut self, alias: impl Into<String>) -> Self {
        self.alias = Some(alias.into());
        self
    }

    /// This configuration in `region`.
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// This configuration with the credentials profile `profile`.
    pub fn with_profile(mut self, profile: impl Into<String>) -> Self {
        self.profile = Some(profile.into());
        self
    }

    /// This configuration assuming `role`.
    pub fn with_assume_role(mut self, role: AssumeRole) -> Self {
        self.assume_role = Some(role);
        self
    }

    /// This configuration with the default tag `key` = `value`.
    pub fn with_default_tag(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.default_tags.insert(key.into(), value.into());
        self
    }

    /// The first setting of this configuration that a provider in `region`, with nothing else configured,
    /// does not already satisfy (`region`, `profile`, `assume_role`, `default_tags`); `None` when it asks
    /// for nothing beyond that. The alias names the configuration and asks for nothing.
    pub fn first_setting_beyond(&self, region: &str) -> Option<&'static str> {
        if self.region.as_deref().is_some_and(|r| r != region) {
            Some("region")
        } else if self.profile.is_some() {
            Some("profile")
        } else if self.assume_role.is_some() {
            Some("assume_role")
        } else if !self.default_tags.is_empty() {
            Some("default_tags")
        } else {
            None
        }
    }
}

/// How often one operation may be called: a steady rate with a burst allowance (a token bucket).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// Calls per second, sustained.
    pub per_second: NonZeroU32,
    /// Calls that may be made at once above the steady rate (at least 1).
    pub burst: NonZeroU32,
}

impl RateLimit {
    /// `per_second` calls a second, with a burst of as many.
    pub fn per_second(per_second: NonZeroU32) -> RateLimit {
        RateLimit {
            per_second,
            burst: per_second,
        }
    }

    /// This limit with a burst of `burst` calls.
    pub fn with_burst(mut self, burst: NonZeroU32) -> Self {
        self.burst = burst;
        self
    }
}

/// The rate limits a provider declares, by `service:Action` operation; an operation not listed has none
/// declared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimits {
    /// The limit of each operation that has one.
    pub by_operation: BTreeMap<String, RateLimit>,
}

impl RateLimits {
    /// No limit declared.
    pub fn none() -> RateLimits {
        RateLimits::default()
    }

    /// These limits with `operation` limited to `limit`.
    pub fn with(mut self, operation: impl Into<String>, limit: RateLimit) -> Self {
        self.by_operation.insert(operation.into(), limit);
        self
    }

    /// The limit of `operation`, if one is declared.
    pub fn get(&self, operation: &str) -> Option<RateLimit> {
        self.by_operation.get(operation).copied()
    }

    /// Whether no limit is declared.
    pub fn is_empty(&self) -> bool {
        self.by_operation.is_empty()
    }
}
