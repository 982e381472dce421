//! The layer every GCF binding shares: the CLI, the C ABI (and through it
//! Go), and the coming Node, Python and WebAssembly bindings.
//!
//! `gcf-core` does the format work and knows nothing of hosts. What a host
//! needs on top is the same everywhere, so it lives here once:
//!
//! - **Typed JSON in and out** ([`graph`], [`generic`], [`value`]): serde
//!   models of the core's payloads with the camelCase names of the spec's
//!   fixtures, read straight from JSON bytes and borrowing strings where the
//!   text allows; a generic [`Value`](gcf_core::generic::Value) visitor that
//!   keeps key order, reads integers exactly in the `int64` domain and
//!   bounds depth.
//! - **Options** ([`options`]): the stream writers' and delta sessions'
//!   options under the same names in every binding.
//! - **One error shape** ([`Failure`]): `{class, category, message, line,
//!   column}`, from which the CLI's exit codes, the C status codes and the
//!   Go errors are all mapped.
//! - **The conformance operations as JSON** ([`conformance`]): a fixture in,
//!   a verdict out, so a binding runs the whole suite in a few lines.
//!
//! ```
//! let payload = gcf_bind::graph::payload_from_slice(
//!     br#"{"tool":"t","symbols":[{"qualifiedName":"a.B","kind":"function","score":0.5,"provenance":"x","distance":0}]}"#,
//! )?;
//! let text = gcf_core::graph::encode(&payload)?;
//! assert!(text.starts_with("GCF profile=graph tool=t"));
//! # Ok::<(), gcf_bind::Failure>(())
//! ```

#![deny(missing_docs)]

pub mod conformance;
pub mod failure;
pub mod generic;
pub mod graph;
mod host;
pub mod json_path;
pub mod options;
pub mod records;
#[cfg(test)]
mod test_rng;
pub mod value;
mod value_reader;

pub use failure::{Failure, Result};
