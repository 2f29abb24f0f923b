//! The four admission paths by which a plan finds a managed object again, named by the provider seam.

pub use ::provider::AdmissionPath;
