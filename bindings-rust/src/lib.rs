//! The API of the [`gcf`](https://crates.io/crates/gcf) 3.1.0 crate, every
//! name at the same path with the same signature, on gcf-core: a program
//! written against the reference crate switches by one line of its
//! `Cargo.toml`,
//!
//! ```toml
//! gcf = { package = "gcf-compat", path = "/path/to/gcf-native/bindings-rust" }
//! ```
//!
//! and keeps every `use gcf::...`. The output is the reference crate's byte
//! for byte wherever the crate writes valid GCF; the differences (strict
//! decoding, no invalid output, errors with their spec category, line and
//! column) are listed in `bindings-rust/README.md`.
//!
//! ```
//! use gcf_compat::{decode, encode, Components, Payload, Symbol};
//!
//! let p = Payload {
//!     tool: "context_for_task".to_string(),
//!     token_budget: 5000,
//!     tokens_used: 1847,
//!     pack_root: String::new(),
//!     symbols: vec![Symbol {
//!         qualified_name: "pkg.AuthMiddleware".to_string(),
//!         kind: "function".to_string(),
//!         score: 0.78,
//!         provenance: "lsp_resolved".to_string(),
//!         distance: 0,
//!         signature: String::new(),
//!         components: Components::default(),
//!     }],
//!     edges: vec![],
//! };
//! let text = encode(&p);
//! assert!(text.starts_with("GCF profile=graph tool=context_for_task"));
//! assert_eq!(decode(&text).unwrap().symbols[0].kind, "function");
//! ```

pub mod constant_grouping;
pub mod decode;
pub mod decode_generic;
pub mod delta;
pub mod encode;
pub mod generic;
pub mod generic_delta;
pub mod packroot;
pub mod scalar;
pub mod session;
pub mod stream;
pub mod stream_generic;
pub mod types;

mod convert;

pub use constant_grouping::encode_generic_grouped;
pub use decode::{decode, DecodeError};
pub use decode_generic::decode_generic;
pub use delta::{decode_delta, encode_delta, verify_delta};
pub use encode::encode;
pub use generic::{encode_generic, encode_generic_with_options, GenericOptions};
pub use generic_delta::{
    canonical_cell, decode_generic_delta, decode_generic_full, diff_generic_sets,
    encode_generic_delta, encode_generic_full, generic_pack_root, verify_generic_delta,
    GenericDeltaPayload, GenericDeltaSession, GenericSet, ReanchorPolicy, DEFAULT_REANCHOR_N,
};
pub use packroot::{pack_root, pack_root_canonical_bytes};
pub use session::{encode_with_session, Session};
pub use stream::{StreamEncoder, StreamOptions};
pub use stream_generic::GenericStreamEncoder;
pub use types::{Components, DeltaPayload, Edge, Payload, Symbol};

/// The abbreviation GCF writes for `kind` (`function` -> `fn`), or `kind`
/// itself when it has none.
pub fn kind_abbrev(kind: &str) -> String {
    gcf_core::graph::abbreviate_kind(kind).to_string()
}

/// The kind an abbreviation stands for (`fn` -> `function`), or `abbrev`
/// itself when it is none.
pub fn kind_expand(abbrev: &str) -> String {
    gcf_core::graph::expand_kind(abbrev).to_string()
}

/// The text of a gcf-core error where the reference crate returns a
/// `String`: `category: message (line L, column C)`, led by the spec's
/// category as the crate's messages are.
pub(crate) fn error_text(e: &gcf_core::Error) -> String {
    let category = e.kind().name();
    let text = e.to_string();
    if text.starts_with(category) {
        text
    } else {
        format!("{category}: {text}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_abbreviate_and_expand_both_ways() {
        for (full, short) in [
            ("function", "fn"),
            ("interface", "iface"),
            ("package", "pkg"),
        ] {
            assert_eq!(super::kind_abbrev(full), short);
            assert_eq!(super::kind_expand(short), full);
        }
        assert_eq!(super::kind_abbrev("widget"), "widget");
        assert_eq!(super::kind_expand("widget"), "widget");
    }
}
