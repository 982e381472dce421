//! # gcf-core
//!
//! A `no_std` + `alloc` codec for GCF, the Graph Compact Format: a
//! line-oriented text format that hands structured data and code graphs to
//! language models in far fewer tokens than JSON. It implements spec 3.6.0,
//! both profiles, byte for byte.
//!
//! - [`graph`]: code graphs (symbols, edges, distance groups, locations),
//!   buffered and streaming, with sessions, deltas and pack roots.
//! - [`generic`]: any JSON value, buffered and streaming, with keyed-set
//!   deltas and pack roots.
//! - [`decode_any`]: decode whatever a header says a payload is.
//!
//! Every encoder writes into a [`Sink`] (a `Vec<u8>`, a `String`, a closure,
//! or with `std` any `io::Write` through [`IoSink`]); every decoder reports a
//! typed [`Error`] whose [`ErrorKind`] is one of the conformance suite's
//! categories, with line and column.
//!
//! ```
//! use gcf_core::graph::{self, Edge, Payload, Symbol};
//!
//! let payload = Payload {
//!     tool: "context_for_task",
//!     symbols: vec![
//!         Symbol::new("pkg.Auth", "function", 0.78, "lsp_resolved", 0),
//!         Symbol::new("pkg.Server", "function", 0.54, "lsp_resolved", 1),
//!     ],
//!     edges: vec![Edge::new("pkg.Server", "pkg.Auth", "calls")],
//!     ..Payload::default()
//! };
//! let text = graph::encode(&payload)?;
//! let expected = [
//!     "GCF profile=graph tool=context_for_task symbols=2 edges=1",
//!     "## targets",
//!     "@0 fn pkg.Auth 0.78 lsp_resolved",
//!     "## related",
//!     "@1 fn pkg.Server 0.54 lsp_resolved",
//!     "## edges [1]",
//!     "@0<@1 calls",
//! ];
//! assert_eq!(text, expected.join("\n") + "\n");
//! let back = graph::decode(&text)?;
//! assert_eq!(back.symbols[1].qualified_name, "pkg.Server");
//! # Ok::<(), gcf_core::Error>(())
//! ```
#![no_std]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod buffer;
mod digits;
mod document;
mod error;
pub mod header;
mod hint;
pub mod input;
mod limits;
pub mod number;
#[cfg(feature = "op-counts")]
#[doc(hidden)]
pub mod ops;
#[cfg(not(feature = "op-counts"))]
mod ops;
mod protocol;
mod sink;
pub mod text;
mod words;

pub mod generic;
pub mod graph;

pub use document::{decode_any, decode_any_bytes, payload_kind, Document, PayloadKind};
pub use error::{Error, ErrorClass, ErrorKind, Result};
pub use header::Profile;
pub use limits::Limits;
pub use protocol::{estimate_tokens, Outcome};
#[cfg(feature = "std")]
pub use sink::IoSink;
pub use sink::{CountingSink, FnSink, HostSink, Sink, SinkError};

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The version of the GCF specification this crate implements.
pub const SPEC_VERSION: &str = "3.6.0";
/// The version of this crate.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
