//! The type rules: a resource block's type is one the provider or the engine knows, it has an admission
//! path, and the block's type and name make an address.
//!
//! A block that fails them is reported once and never expanded into instances.

use crate::address::BlockAddress;
use crate::config::Resource;
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::schema::ResourceTypeSchema;
use ::provider::AdmissionPath;

impl<'a> Lint<'_, 'a, '_> {
    /// The schema, admission path and address of the block `res`, or `None` once its unknown type,
    /// unadmitted type or malformed address is reported.
    pub(crate) fn admitted_type(
        &mut self,
        res: &Resource,
    ) -> Option<(&'a ResourceTypeSchema, AdmissionPath, BlockAddress)> {
        let block_addr = res.address().to_string();
        let catalog = self.input.catalog;
        let Some(schema) = catalog.get(&res.type_name) else {
            let detail = match res.type_name.strip_prefix("aws_default_") {
                // The provider's `aws_default_*` types take over an object AWS made (the default VPC, a
                // VPC's default security group) without creating it: the estate would change an object
                // it does not own, which liveplan never does.
                Some(made) => format!(
                    "`{}` takes over the {} AWS made by itself, which this estate does not own, and \
                     liveplan never changes an object it does not own; refer to that object by its id, or \
                     declare an `aws_{made}` of the estate's own",
                    res.type_name,
                    made.split('_')
                        .map(|w| match w {
                            "vpc" | "acl" => w.to_uppercase(),
                            _ => w.to_owned(),
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                None => format!(
                    "neither the configured provider nor the engine knows it; the known types are: {}",
                    catalog.type_names().collect::<Vec<_>>().join(", ")
                ),
            };
            self.push(
                Diagnostic::new(
                    Code::UnsupportedType,
                    format!("resource type `{}` is not supported", res.type_name),
                    detail,
                )
                .with_address(&block_addr)
                .at(res.loc.to_pos()),
            );
            return None;
        };
        let Some(path) = schema.admission else {
            self.push(
                Diagnostic::new(
                    Code::UnadmittedType,
                    format!("resource type `{}` has no admission path", res.type_name),
                    "its live objects cannot be found again without a state file (untaggable, server-named); \
                     manage it with another tool or leave it out",
                )
                .with_address(&block_addr)
                .at(res.loc.to_pos()),
            );
            return None;
        };
        let block = match BlockAddress::in_module(res.module.clone(), &res.type_name, &res.name) {
            Ok(b) => b,
            Err(e) => {
                self.push(
                    Diagnostic::new(
                        Code::InvalidName,
                        format!("Invalid resource name: {e}"),
                        "use identifiers for type and name",
                    )
                    .at(res.loc.to_pos()),
                );
                return None;
            }
        };
        Some((schema, path, block))
    }
}
