//! Integration tests of the root package: the CLI end to end.

#[cfg(feature = "aws")]
mod aws_data_ec2;
#[cfg(feature = "aws")]
mod aws_data_sources;
mod aws_data_sources_iam;
#[cfg(feature = "aws")]
mod aws_e2e;
mod aws_e2e_arguments;
#[cfg(feature = "aws")]
mod aws_e2e_ec2;
#[cfg(feature = "aws")]
mod aws_e2e_iam_logs;
#[cfg(feature = "aws")]
mod aws_e2e_inline;
mod aws_e2e_regions;
#[cfg(feature = "aws")]
mod aws_engine;
#[cfg(feature = "aws")]
mod aws_errors;
#[cfg(feature = "aws")]
mod aws_fake;
#[cfg(feature = "aws")]
mod aws_provider;
#[cfg(feature = "aws")]
mod aws_provider_ec2;
#[cfg(feature = "aws")]
mod aws_provider_iam_logs;
mod bench_scenarios;
mod cli;
#[cfg(feature = "aws")]
mod cli_aws;
mod cli_claims;

mod cli_files;
mod cli_module_context;
mod cli_modules;
mod cli_ownership;
mod cli_plan_options;
mod cli_providers;
mod cli_saved_apply;
mod cli_saved_plans;
mod cli_spelling;
#[cfg(feature = "ssm")]
mod cli_ssm;
mod cli_state_output;
mod cli_terminal;
mod cli_variables;
mod damaged_records;
#[cfg(feature = "aws")]
mod differential;
mod differential_data;
#[cfg(feature = "aws")]
mod differential_data_ec2;
#[cfg(feature = "aws")]
mod differential_modules;
#[cfg(feature = "aws")]
mod differential_sdk;
#[cfg(feature = "aws")]
mod differential_support;
mod ecosystem;
mod embed_configuration;
mod embed_example;
mod fuzz_inputs;
mod fuzz_plan;
mod golden;
mod record_lineage;
mod record_write_failed;
mod reliability_faults;
mod reliability_processes;
mod reliability_slots;
mod reliability_support;
mod secrets_sentinel;
mod source_shape;
mod tracing_spans;
mod withheld;
