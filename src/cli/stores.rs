//! Opening the record store a configuration names: the local directory (the default), an S3 bucket
//! after its contract check, or SSM Parameter Store under a parameter path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use admission::{Code, Diagnostic, RecordStoreKind};
use anyhow::Context as _;
use staterecord::{LocalStore, MemoryStore, Store};

use super::target::{Access, Inputs, STATE_DIR};

/// Opens the record store: the `live { record_store ... }` block, else `<dir>/.liveplan/records/`. For
/// read access a missing local directory is an empty store and is not created. A bucket that fails its
/// contract is a diagnostic; a local directory that cannot be created is an error.
pub async fn open_store(
    inputs: &Inputs,
    access: Access,
) -> anyhow::Result<Result<Arc<dyn Store>, Diagnostic>> {
    let block = inputs
        .config
        .live
        .as_ref()
        .and_then(|l| l.record_store.as_ref());
    if let Some(b) = block.filter(|b| b.kind != RecordStoreKind::Local)
        && inputs.sim.is_some()
        && !inputs.sim_remote_records
    {
        let kind = if b.kind == RecordStoreKind::S3 {
            "s3"
        } else {
            "ssm"
        };
        return Ok(Err(Diagnostic::new(
            Code::RecordStoreConfig,
            format!(
                "the configuration keeps its records in record_store \"{kind}\", and --sim runs it on a \
                 simulated cloud"
            ),
            "the records of a simulated cloud belong beside its file: remove --sim to use the store, or \
             pass --sim-remote-records to keep the simulated estate's records in it anyway",
        )));
    }
    match block {
        Some(b) if b.kind == RecordStoreKind::S3 => Ok(open_s3(inputs, b).await),
        Some(b) if b.kind == RecordStoreKind::Ssm => Ok(open_ssm(inputs, b).await),
        _ => {
            let path = block
                .and_then(|b| inputs.setting_str(b.settings.get("path")))
                .map(|p| inputs.dir.join(p))
                .unwrap_or_else(|| default_records(inputs));
            open_local(&path, &inputs.dir, access).map(Ok)
        }
    }
}

/// Where the estate's records go, as `init` says it: the local directory, or the bucket or parameter path
/// the `record_store` block names.
pub fn records_location(inputs: &Inputs) -> String {
    let block = inputs
        .config
        .live
        .as_ref()
        .and_then(|l| l.record_store.as_ref());
    let setting = |b: &admission::RecordStoreBlock, name: &str| {
        inputs.setting_str(b.settings.get(name)).unwrap_or_default()
    };
    match block {
        Some(b) if b.kind == RecordStoreKind::S3 => format!(
            "the S3 bucket {} under the key prefix \"{}\"",
            setting(b, "bucket"),
            setting(b, "key_prefix")
        ),
        Some(b) if b.kind == RecordStoreKind::Ssm => {
            format!("SSM Parameter Store under {}", setting(b, "key_prefix"))
        }
        _ => {
            let path = block
                .and_then(|b| inputs.setting_str(b.settings.get("path")))
                .map(|p| inputs.dir.join(p))
                .unwrap_or_else(|| default_records(inputs));
            format!("the local directory {}", path.display())
        }
    }
}

/// Where the records go without a `record_store` block: `<dir>/.liveplan/records/` beside the default
/// simulated cloud (or AWS), and a folder beside `--sim FILE` named after it (`world.json` keeps its
/// records in `world.records/`), so that two simulated clouds never share records. An estate whose
/// records were kept in `<dir>/.liveplan/records/` with `--sim` before keeps them there while the folder
/// beside the file does not exist.
fn default_records(inputs: &Inputs) -> PathBuf {
    let legacy = inputs.dir.join(STATE_DIR).join("records");
    let Some(file) = &inputs.sim else {
        return legacy;
    };
    if *file == inputs.dir.join(STATE_DIR).join("cloud.json") {
        return legacy;
    }
    let stem = file
        .file_stem()
        .map_or_else(|| "cloud".into(), |s| s.to_string_lossy().into_owned());
    let beside = file.with_file_name(format!("{stem}.records"));
    if !beside.exists() && legacy.is_dir() {
        return legacy;
    }
    beside
}

fn open_local(path: &Path, dir: &Path, access: Access) -> anyhow::Result<Arc<dyn Store>> {
    if access == Access::Read && !path.is_dir() {
        return Ok(Arc::new(MemoryStore::new()));
    }
    let store = LocalStore::open(path)
        .with_context(|| format!("cannot open the record store {}", path.display()))?;
    // Record files are named relative to the configuration directory when they lie inside it, as the
    // live snapshot is.
    let shown = path.strip_prefix(dir).unwrap_or(path).to_owned();
    Ok(Arc::new(store.shown_as(shown)))
}

#[cfg(feature = "aws")]
async fn open_s3(
    inputs: &Inputs,
    block: &admission::RecordStoreBlock,
) -> Result<Arc<dyn Store>, Diagnostic> {
    use staterecord::{BucketSetting, S3Store};
    let setting = |name: &str| inputs.setting_str(block.settings.get(name));
    let Some(bucket) = setting("bucket") else {
        return Err(Diagnostic::new(
            Code::BucketContract,
            "record_store \"s3\" needs a bucket",
            "set `bucket` in the live block's record_store \"s3\" block",
        ));
    };
    let mut waived = Vec::new();
    if let Some(list) = inputs
        .setting(block.settings.get("allow_insecure"))
        .as_ref()
        .and_then(|v| v.as_list().map(<[admission::Value]>::to_vec))
    {
        for item in list {
            let name = item.as_str().unwrap_or_default().to_owned();
            match name.parse::<BucketSetting>() {
                Ok(s) => waived.push(s),
                Err(e) => {
                    return Err(Diagnostic::new(
                        Code::BucketContract,
                        format!("allow_insecure names {name:?}, which is not a bucket setting"),
                        e.to_string(),
                    ));
                }
            }
        }
    }
    let client = staterecord::s3::client_from_env(setting("region"), None).await;
    // The key prefix is applied by the engine to every record key (`Inputs::key_prefix`), not by the store.
    let store = S3Store::new(client, bucket.clone());
    let namespaces: Vec<&str> = Some(inputs.key_prefix.as_str())
        .filter(|p| !p.is_empty())
        .into_iter()
        .collect();
    let findings = store
        .check_bucket_contract(&namespaces)
        .await
        .map_err(|e| {
            Diagnostic::new(
                Code::BucketContract,
                format!("the record bucket {bucket} cannot be checked"),
                format!("{e}; check the bucket name, the region and the credentials"),
            )
        })?;
    let (refused, _) = staterecord::split_waived(&findings, &waived);
    if !refused.is_empty() {
        let found: Vec<String> = refused.iter().map(ToString::to_string).collect();
        return Err(Diagnostic::new(
            Code::BucketContract,
            format!(
                "the record bucket {bucket} fails its contract: {}",
                found.join("; ")
            ),
            "fix the bucket's settings, or list the setting in allow_insecure to accept the risk",
        ));
    }
    Ok(Arc::new(store))
}

#[cfg(not(feature = "aws"))]
async fn open_s3(
    _inputs: &Inputs,
    _block: &admission::RecordStoreBlock,
) -> Result<Arc<dyn Store>, Diagnostic> {
    Err(Diagnostic::new(
        Code::BucketContract,
        "this liveplan was built without the aws feature, so it has no S3 record store",
        "rebuild with `--features aws`, or use record_store \"local\"",
    ))
}

#[cfg(feature = "ssm")]
async fn open_ssm(
    inputs: &Inputs,
    block: &admission::RecordStoreBlock,
) -> Result<Arc<dyn Store>, Diagnostic> {
    use staterecord::{SsmStore, SsmTier};
    let setting = |name: &str| inputs.setting_str(block.settings.get(name));
    let refused = |summary: String, detail: &str| {
        Diagnostic::new(Code::RecordStoreConfig, summary, detail.to_owned())
    };
    let Some(prefix) = setting("key_prefix") else {
        return Err(refused(
            "record_store \"ssm\" needs a key_prefix".to_owned(),
            "set `key_prefix` to the parameter path the records live under, such as \"/team/estate\"",
        ));
    };
    let tier = match setting("tier").map(|t| t.parse::<SsmTier>()) {
        None => SsmTier::Standard,
        Some(Ok(tier)) => tier,
        Some(Err(e)) => {
            return Err(refused(
                e,
                "the advanced tier is opt-in; standard is the default",
            ));
        }
    };
    let client = staterecord::ssm::client_from_env(setting("region"), None).await;
    let region = client
        .config()
        .region()
        .map(|r| r.as_ref().to_owned())
        .unwrap_or_default();
    let store = SsmStore::new(client, &prefix, &region).map_err(|e| {
        refused(
            e.to_string(),
            "choose a key_prefix of letters, digits, `_`, `.`, `-` and `/` whose first level does not \
             start with aws or ssm",
        )
    })?;
    let store = store.with_tier(tier);
    Ok(Arc::new(match setting("kms_key_id") {
        Some(key_id) => store.with_kms_key(key_id),
        None => store,
    }))
}

#[cfg(not(feature = "ssm"))]
async fn open_ssm(
    _inputs: &Inputs,
    _block: &admission::RecordStoreBlock,
) -> Result<Arc<dyn Store>, Diagnostic> {
    Err(Diagnostic::new(
        Code::RecordStoreConfig,
        "this liveplan was built without the ssm feature, so it has no SSM record store",
        "rebuild with `--features ssm`, or use record_store \"local\" or \"s3\"",
    ))
}
