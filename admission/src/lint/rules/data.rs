//! The data-block rules: a data block's type is a data source the provider reads, its arguments are
//! ones the data source takes, it is readable at plan time (it reads no resource, directly or through
//! locals or other data blocks) and no data blocks read each other in a ring.
//!
//! Only the blocks are judged here; what a read returns is the engine's, which reads every block these
//! rules accept before the identities that need it are judged.

use std::collections::BTreeSet;

use crate::config::Resource;
use crate::data::{data_block, data_reads};
use crate::diag::{Code, Diagnostic};
use crate::eval::Instance;
use crate::lint::Lint;
use ::provider::schema::AttributeMode;

impl Lint<'_, '_, '_> {
    /// Every data block, judged by the rules of this module.
    pub(crate) fn data_blocks(&mut self) {
        let config = self.input.config;
        for data in config.data_sources() {
            let address = format!("data.{}", data.address());
            let Some(schema) = self.input.catalog.data_source(&data.type_name) else {
                let served: Vec<&str> = self
                    .input
                    .catalog
                    .data_sources()
                    .map(|d| d.type_name.as_str())
                    .collect();
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedType,
                        format!("data source type `{}` is not supported", data.type_name),
                        format!(
                            "liveplan reads the data sources {}; pass the value in as a variable",
                            served.join(", ")
                        ),
                    )
                    .with_address(address)
                    .at(data.loc.to_pos()),
                );
                continue;
            };
            for (name, attr) in &data.attrs {
                if schema.argument(name).is_none() {
                    self.push(
                        Diagnostic::new(
                            Code::InvalidArgument,
                            format!(
                                "Unsupported argument: data source `{}` has no argument `{name}`",
                                data.type_name
                            ),
                            "remove it, or fix its name",
                        )
                        .with_address(address.clone())
                        .at(attr.loc.to_pos()),
                    );
                }
            }
            for arg in schema.arguments() {
                if arg.mode == AttributeMode::Required && !data.attrs.contains_key(&arg.name) {
                    self.push(
                        Diagnostic::new(
                            Code::InvalidArgument,
                            format!("Missing required argument: `{}` of `{address}`", arg.name),
                            format!("set `{}`", arg.name),
                        )
                        .with_address(address.clone())
                        .at(data.loc.to_pos()),
                    );
                }
            }
            self.data_arguments(data, &address);
        }
        self.data_timing();
    }

    /// The arguments of `data`, evaluated as the read will evaluate them, so that their errors show.
    fn data_arguments(&mut self, data: &Resource, address: &str) {
        let inst = match &data.repetition {
            crate::config::Repetition::Single => Instance::Single,
            crate::config::Repetition::Count(_) => Instance::AnyIndex,
            crate::config::Repetition::ForEach(_) => Instance::AnyKey,
        };
        for attr in data.attrs.values() {
            self.evaluate(&attr.expr, &inst, Some(address));
        }
    }

    /// Each data block is readable at plan time: it reads no resource (through anything) and is on no
    /// cycle of data blocks.
    fn data_timing(&mut self) {
        let config = self.input.config;
        let blocks: Vec<_> = config
            .data_sources()
            .iter()
            .filter_map(|d| Some((d, data_block(d)?, data_reads(config, d))))
            .collect();
        for (data, own, reads) in &blocks {
            let address = format!("data.{}", data.address());
            if let Some(resource) = &reads.resource {
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedConstruct,
                        format!("`{address}` reads `{resource}`, known only after apply"),
                        "liveplan reads data sources at plan time only: compute the data source's \
                         arguments from variables, locals, literals and other data sources",
                    )
                    .with_address(address.clone())
                    .at(data.loc.to_pos()),
                );
                continue;
            }
            // A data block reaching itself through the data blocks it reads is on a cycle.
            let mut todo: Vec<_> = reads.data.iter().cloned().collect();
            let mut seen = BTreeSet::new();
            let mut cyclic = false;
            while let Some(block) = todo.pop() {
                if &block == own {
                    cyclic = true;
                    break;
                }
                if !seen.insert(block.clone()) {
                    continue;
                }
                if let Some((_, _, inner)) = blocks.iter().find(|(_, b, _)| *b == block) {
                    todo.extend(inner.data.iter().cloned());
                }
            }
            if cyclic {
                self.push(
                    Diagnostic::new(
                        Code::DependencyCycle,
                        format!("`{address}` waits for itself through the data sources it reads"),
                        "a data source cannot read itself, directly or through other data sources: \
                         remove one of the references that close the cycle",
                    )
                    .with_address(address)
                    .at(data.loc.to_pos()),
                );
            }
        }
    }
}
