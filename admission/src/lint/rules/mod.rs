//! The lint's rules, one family per module: each adds its diagnostics to the [`Lint`](super::Lint)
//! context and decides nothing else.
//!
//! The rules never read the live system, the store, the environment or the clock.

pub(crate) mod addresses;
mod arguments;
mod conditions;
pub(crate) mod count_index;
pub(crate) mod cycles;
mod data;
mod estate;
mod identity;
mod inline;
mod lifecycle;
mod references;
mod settings;
mod tag_keys;
mod tag_settings;
mod types;
