//! Opening the live system a command talks to: AWS for a configuration with `provider "aws"` blocks,
//! the simulated cloud with `--sim FILE` (whatever the provider blocks say) or without an `aws` block.
//!
//! The default provider configuration gives the home region (the simulated region under `--sim`); the
//! engine reaches every other region a configuration names from it. Every configuration's account
//! checks (`allowed_account_ids`, `forbidden_account_ids`) are made against the snapshot's account on
//! the simulated cloud, against the credentials' account from `sts:GetCallerIdentity` on AWS, before
//! anything else. What only serves to reach AWS (credentials, profile, roles,
//! endpoints) is ignored by the simulated cloud, with one warning naming it.

use std::sync::Arc;

use admission::{Code, Diagnostic, ProviderBlock, ProviderKind};
use fixtures::{SimCloud, SimConfig};
use provider::Provider;

use super::target::Inputs;

/// The live system a command talks to.
pub struct Live {
    /// The provider.
    pub provider: Arc<dyn Provider>,
    /// The simulated cloud behind the provider, when it is one: an apply gives its file an id first.
    pub sim: Option<Arc<SimCloud>>,
    /// Warnings about the provider configuration (`provider-settings-ignored`), for the plan to show.
    pub warnings: Vec<Diagnostic>,
}

/// Opens the live system: AWS with a `provider "aws"` block and no `--sim`, else the simulated cloud in
/// `--sim FILE` or `<dir>/.liveplan/cloud.json`. A snapshot that does not load is an `invalid-snapshot`
/// diagnostic; an account the provider configuration does not allow, `account-not-allowed`.
pub async fn open_live(inputs: &Inputs) -> Result<Live, Diagnostic> {
    let block = inputs.config.live_provider();
    let region = block.and_then(|b| inputs.setting_str(b.region.as_ref()));
    if !inputs.on_sim() {
        if let Some(refused) = unimplemented_on_aws(inputs) {
            return Err(refused);
        }
        let live = open_aws(region).await?;
        let checked: Vec<&ProviderBlock> = aws_blocks(inputs)
            .filter(|b| has_account_checks(b))
            .collect();
        if !checked.is_empty() {
            // As the AWS provider does, before anything else: the caller's account, then the lists of
            // every configuration (all of them use the same credentials, so one account).
            let account = caller_account(live.provider.as_ref()).await?;
            for block in checked {
                if let Some(refused) = check_account(inputs, block, &account, "the AWS credentials")
                {
                    return Err(refused);
                }
            }
        }
        return Ok(live);
    }
    let path = inputs.sim_file();
    let config = SimConfig {
        region,
        ..SimConfig::default()
    };
    // Shown relative to the configuration directory when it lies inside it, so messages stay short.
    let shown = path
        .strip_prefix(&inputs.dir)
        .unwrap_or(&path)
        .display()
        .to_string();
    let cloud = match SimCloud::open_file(&path, config) {
        Ok(cloud) => Arc::new(cloud),
        Err(e) if e.is_invalid_snapshot() => {
            return Err(Diagnostic::new(
                Code::InvalidSnapshot,
                format!("the live snapshot {shown} is not valid"),
                format!("{e}; fix the file or remove it to start from an empty simulated cloud"),
            ));
        }
        Err(e) => {
            return Err(Diagnostic::new(
                Code::InvalidSnapshot,
                format!("the simulated cloud {shown} cannot be opened"),
                e.to_string(),
            ));
        }
    };
    let account = SimCloud::account(&cloud).await;
    if let Some(refused) = aws_blocks(inputs)
        .chain(block.filter(|b| b.kind == ProviderKind::Sim))
        .find_map(|b| check_account(inputs, b, &account, &shown))
    {
        return Err(refused);
    }
    Ok(Live {
        provider: Arc::clone(&cloud) as Arc<dyn Provider>,
        sim: Some(cloud),
        warnings: ignored_settings(inputs).into_iter().collect(),
    })
}

/// The `aws` provider blocks of the configuration.
fn aws_blocks(inputs: &Inputs) -> impl Iterator<Item = &ProviderBlock> {
    inputs
        .config
        .providers
        .iter()
        .filter(|p| p.kind == ProviderKind::Aws)
}

/// Whether a provider block lists accounts to allow or forbid.
fn has_account_checks(block: &ProviderBlock) -> bool {
    ["allowed_account_ids", "forbidden_account_ids"]
        .iter()
        .any(|a| block.args.contains_key(*a))
}

/// The account of the provider's credentials, read as the `aws_caller_identity` data source (one
/// `sts:GetCallerIdentity`).
async fn caller_account(provider: &dyn Provider) -> Result<String, Diagnostic> {
    let request = provider::DataSourceRequest::new("aws_caller_identity");
    let read = provider
        .read_data_source(&provider::Call::unrecorded(), request)
        .await
        .map_err(|e| {
            Diagnostic::new(
                Code::DiscoveryIncomplete,
                "the account of the AWS credentials cannot be read for `allowed_account_ids` / \
                 `forbidden_account_ids`",
                format!("{e}; allow sts:GetCallerIdentity, or remove the account lists"),
            )
        })?;
    read.as_map()
        .and_then(|m| m.get("account_id"))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
        .ok_or_else(|| {
            Diagnostic::new(
                Code::DiscoveryIncomplete,
                "sts:GetCallerIdentity answered without an account",
                "check the endpoint AWS_ENDPOINT_URL points at",
            )
        })
}

/// The refusal of an account `allowed_account_ids` does not list or `forbidden_account_ids` does, as the
/// AWS provider refuses it before any call.
fn check_account(
    inputs: &Inputs,
    block: &ProviderBlock,
    account: &str,
    system: &str,
) -> Option<Diagnostic> {
    let list = |name: &str| -> Option<Vec<String>> {
        let value = inputs.setting(block.args.get(name))?;
        Some(
            value
                .as_list()
                .unwrap_or_default()
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    };
    let shown = block.reference();
    if let Some(allowed) = list("allowed_account_ids")
        && !allowed.iter().any(|a| a == account)
    {
        return Some(Diagnostic::new(
            Code::AccountNotAllowed,
            format!(
                "account {account} of {system} is not in `allowed_account_ids` of provider `{shown}`"
            ),
            format!(
                "the configuration allows {}; point liveplan at one of those accounts, or change the list",
                allowed.join(", ")
            ),
        ));
    }
    if let Some(forbidden) = list("forbidden_account_ids")
        && forbidden.iter().any(|a| a == account)
    {
        return Some(Diagnostic::new(
            Code::AccountNotAllowed,
            format!(
                "account {account} of {system} is in `forbidden_account_ids` of provider `{shown}`"
            ),
            "point liveplan at another account, or change the list",
        ));
    }
    None
}

/// The settings `pick` takes of each `aws` provider block, each named with its block
/// (`` `profile` (provider `aws`) ``).
fn named_settings(
    inputs: &Inputs,
    pick: impl Fn(&ProviderBlock) -> Vec<&'static str>,
) -> Vec<String> {
    inputs
        .config
        .providers
        .iter()
        .filter(|p| p.kind == ProviderKind::Aws)
        .flat_map(|block| {
            pick(block)
                .into_iter()
                .map(move |setting| format!("`{setting}` (provider `{}`)", block.reference()))
        })
        .collect()
}

/// The one warning naming every setting of the `aws` provider blocks the simulated cloud ignores.
fn ignored_settings(inputs: &Inputs) -> Option<Diagnostic> {
    let named = named_settings(inputs, |block| block.connection_settings());
    if named.is_empty() {
        return None;
    }
    Some(Diagnostic::new(
        Code::ProviderSettingsIgnored,
        format!(
            "the simulated cloud ignores {}: it needs no credentials or endpoints",
            named.join(", ")
        ),
        "they take effect against AWS, without --sim",
    ))
}

/// The settings of the `aws` provider blocks liveplan does not act on against AWS yet, refused by name
/// rather than left unapplied: the connection settings (it reaches AWS through the SDK's environment
/// alone).
fn unimplemented_on_aws(inputs: &Inputs) -> Option<Diagnostic> {
    let named = named_settings(inputs, |block| block.connection_settings());
    if named.is_empty() {
        return None;
    }
    Some(Diagnostic::new(
        Code::UnsupportedConstruct,
        format!(
            "against AWS, liveplan does not act on {} yet",
            named.join(", ")
        ),
        "reach AWS through the SDK environment instead (AWS_PROFILE, AWS_ENDPOINT_URL, the credential \
         chain), or run the configuration on the simulated cloud with --sim FILE, which ignores them",
    ))
}

#[cfg(feature = "aws")]
async fn open_aws(region: Option<String>) -> Result<Live, Diagnostic> {
    use liveplan::aws::{AwsError, AwsProvider, AwsProviderConfig};
    let config = AwsProviderConfig {
        region,
        ..AwsProviderConfig::default()
    };
    match AwsProvider::from_env(&config).await {
        Ok(provider) => Ok(Live {
            provider: Arc::new(provider),
            sim: None,
            warnings: Vec::new(),
        }),
        Err(e @ (AwsError::NoCredentials { .. } | AwsError::CredentialsFailed { .. })) => {
            Err(Diagnostic::new(
                Code::NoCredentials,
                e.to_string(),
                "sign in as for the AWS CLI: `aws sso login` for an SSO profile, AWS_PROFILE for another \
                 profile, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; or run the configuration on \
                 the simulated cloud with --sim FILE",
            ))
        }
        Err(e) => Err(Diagnostic::new(
            Code::DiscoveryIncomplete,
            "the aws provider cannot be configured",
            format!("{e}; set the provider's region or the standard AWS SDK environment"),
        )),
    }
}

#[cfg(not(feature = "aws"))]
async fn open_aws(_region: Option<String>) -> Result<Live, Diagnostic> {
    Err(Diagnostic::new(
        Code::UnsupportedType,
        "this liveplan was built without the aws feature",
        "rebuild with `--features aws`, or run the configuration on the simulated cloud with --sim FILE",
    ))
}
