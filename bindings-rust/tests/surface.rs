//! The reference crate's public surface, item by item, checked at compile
//! time: one macro names every public function, method, type, variant and
//! constant of the `gcf` 3.1.0 crate at its path with its exact signature (as a
//! function pointer type), and is expanded twice, once over the crate itself
//! (`gcf_oracle`) and once over this one. A signature that differs, or a
//! name that is missing, fails to compile here. Not provided (see the
//! README): `scalar::split_respecting_quotes`, `scalar::split_field_decl`,
//! `scalar::find_closing_brace`.

use std::io::Write;

macro_rules! surface {
    ($module:ident, $g:ident) => {
        #[allow(dead_code, clippy::type_complexity)]
        mod $module {
            use g::{DecodeError, DeltaPayload, Edge, Payload, Symbol};
            use serde_json::{Map, Number, Value};
            use $g as g;

            type Stream = g::StreamEncoder<Vec<u8>>;
            type GenericStream = g::GenericStreamEncoder<Vec<u8>>;

            pub fn check() {
                // The crate root.
                let _: fn(&Payload) -> String = g::encode;
                let _: fn(&str) -> Result<Payload, DecodeError> = g::decode;
                let _: fn(&DeltaPayload) -> String = g::encode_delta;
                let _: fn(&str) -> Result<DeltaPayload, String> = g::decode_delta;
                let _: fn(
                    &[Symbol],
                    &[Edge],
                    &[Symbol],
                    &[Symbol],
                    &[Edge],
                    &[Edge],
                    &str,
                ) -> Result<(Vec<Symbol>, Vec<Edge>), String> = g::verify_delta;
                let _: fn(&[Symbol], &[Edge]) -> String = g::pack_root;
                let _: fn(&[Symbol], &[Edge]) -> String = g::pack_root_canonical_bytes;
                let _: fn(&Payload, &g::Session) -> String = g::encode_with_session;
                let _: fn(&Value) -> Result<String, String> = g::encode_generic;
                let _: fn(&Value, &g::GenericOptions) -> Result<String, String> =
                    g::encode_generic_with_options;
                let _: fn(&str) -> Result<Value, String> = g::decode_generic;
                let _: fn(&Value, &str, &str) -> Result<String, String> = g::encode_generic_grouped;
                let _: fn(&str) -> String = g::kind_abbrev;
                let _: fn(&str) -> String = g::kind_expand;
                // Generic deltas.
                let _: fn(&Value) -> String = g::canonical_cell;
                let _: fn(&g::GenericSet) -> String = g::generic_pack_root;
                let _: fn(
                    &g::GenericSet,
                    &g::GenericSet,
                ) -> Result<g::GenericDeltaPayload, String> = g::diff_generic_sets;
                let _: fn(&g::GenericSet, &str) -> String = g::encode_generic_full;
                let _: fn(&g::GenericDeltaPayload) -> String = g::encode_generic_delta;
                let _: fn(
                    &g::GenericSet,
                    &g::GenericDeltaPayload,
                    &str,
                ) -> Result<g::GenericSet, String> = g::verify_generic_delta;
                let _: fn(&str) -> Result<(g::GenericSet, String), String> = g::decode_generic_full;
                let _: fn(&str) -> Result<g::GenericDeltaPayload, String> = g::decode_generic_delta;
                let _: usize = g::DEFAULT_REANCHOR_N;
                let _: fn(usize) -> g::ReanchorPolicy = g::ReanchorPolicy::fixed_n;
                let _: fn() -> g::ReanchorPolicy = g::ReanchorPolicy::size_guard;
                let _: fn(g::GenericSet, String, g::ReanchorPolicy) -> g::GenericDeltaSession =
                    g::GenericDeltaSession::new;
                let _: fn(&g::GenericDeltaSession) -> String = g::GenericDeltaSession::current_full;
                let _: fn(&g::GenericDeltaSession) -> usize = g::GenericDeltaSession::turn;
                let _: fn(
                    &mut g::GenericDeltaSession,
                    g::GenericSet,
                ) -> Result<(String, bool), String> = g::GenericDeltaSession::next;
                // Sessions.
                let _: fn() -> g::Session = g::Session::new;
                let _: fn() -> g::Session = <g::Session as Default>::default;
                let _: fn(&g::Session, &str) -> bool = g::Session::transmitted;
                let _: fn(&g::Session, &str) -> Option<usize> = g::Session::get_id;
                let _: fn(&g::Session, &[Symbol]) = g::Session::record;
                let _: fn(&g::Session) -> usize = g::Session::next_id;
                let _: fn(&g::Session) -> usize = g::Session::size;
                let _: fn(&g::Session) = g::Session::reset;
                // Streams.
                let _: fn(Vec<u8>, &str, g::StreamOptions) -> Stream = Stream::new;
                let _: fn(&Stream, &Symbol) = Stream::write_symbol;
                let _: fn(&Stream, &Edge) = Stream::write_edge;
                let _: fn(&Stream, &str, i32) = Stream::write_bare_ref;
                let _: fn(&Stream) = Stream::close;
                let _: fn(&Stream) -> usize = Stream::symbol_count;
                let _: fn(&Stream) -> usize = Stream::edge_count;
                let _: fn() -> g::StreamOptions = <g::StreamOptions as Default>::default;
                let _: fn(Vec<u8>) -> GenericStream = GenericStream::new;
                let _: fn(&GenericStream, &str, &[&str]) = GenericStream::begin_array;
                let _: fn(&GenericStream, &str, &str, &[&str]) = GenericStream::begin_keyed_map;
                let _: fn(&GenericStream, &[g::stream_generic::GcfValue]) =
                    GenericStream::write_row;
                let _: fn(&GenericStream) = GenericStream::end_array;
                let _: fn(&GenericStream, &str, &g::stream_generic::GcfValue) =
                    GenericStream::write_kv;
                let _: fn(&GenericStream, &str) = GenericStream::write_section;
                let _: fn(&GenericStream, &str, &[g::stream_generic::GcfValue]) =
                    GenericStream::write_inline_array;
                let _: fn(&GenericStream) -> std::io::Result<()> = GenericStream::close;
                // Scalars.
                use g::scalar as s;
                let _: fn(&str) -> bool = s::needs_quote;
                let _: fn(&str) -> String = s::quote_string;
                let _: fn(&Value, char) -> String = s::format_scalar;
                let _: fn(&Number) -> String = s::format_number;
                let _: fn(&Number) -> Result<String, (String, String)> = s::format_number_checked;
                let _: fn(&str) -> String = s::out_of_range_message;
                let _: fn(&str) -> bool = s::is_bare_key;
                let _: fn(&str) -> String = s::format_key;
                let _: fn(&str, bool) -> Result<s::ScalarValue, String> = s::parse_scalar;
                let _: fn(&str) -> Result<String, String> = s::parse_quoted_string;
            }

            // Every field of every struct, by name and type, and every
            // variant: a literal that compiles only with exactly these.
            pub fn values() -> (Payload, DeltaPayload, g::GenericSet, g::GenericDeltaPayload) {
                let symbol = Symbol {
                    qualified_name: String::new(),
                    kind: String::new(),
                    score: 0.0_f64,
                    provenance: String::new(),
                    distance: 0_i32,
                    signature: String::new(),
                    components: g::Components {
                        blast_radius: 0.0_f64,
                        confidence: 0.0_f64,
                        recency: 0.0_f64,
                        distance: 0.0_f64,
                    },
                };
                let edge = Edge {
                    source: String::new(),
                    target: String::new(),
                    edge_type: String::new(),
                    status: String::new(),
                };
                let payload = Payload {
                    tool: String::new(),
                    tokens_used: 0_i64,
                    token_budget: 0_i64,
                    pack_root: String::new(),
                    symbols: vec![symbol.clone()],
                    edges: vec![edge.clone()],
                };
                let delta = DeltaPayload {
                    tool: String::new(),
                    base_root: String::new(),
                    new_root: String::new(),
                    removed: vec![symbol.clone()],
                    added: vec![symbol],
                    removed_edges: vec![edge.clone()],
                    added_edges: vec![edge],
                    delta_tokens: 0_i64,
                    full_tokens: 0_i64,
                };
                let set = g::GenericSet {
                    name: String::new(),
                    key: String::new(),
                    fields: Vec::<String>::new(),
                    rows: Vec::<Map<String, Value>>::new(),
                };
                let generic_delta = g::GenericDeltaPayload {
                    tool: String::new(),
                    key: String::new(),
                    fields: Vec::<String>::new(),
                    base_root: String::new(),
                    new_root: String::new(),
                    added: Vec::<Map<String, Value>>::new(),
                    changed: Vec::<Map<String, Value>>::new(),
                    removed: Vec::<Value>::new(),
                    delta_tokens: 0_u64,
                    full_tokens: 0_u64,
                };
                let _ = g::GenericOptions { no_flatten: false };
                let _ = g::StreamOptions {
                    token_budget: 0_i64,
                    tokens_used: 0_i64,
                    pack_root: String::new(),
                    session: false,
                    labeled_trailer_counts: false,
                };
                (payload, delta, set, generic_delta)
            }

            pub fn variants(
                e: &DecodeError,
                v: &g::stream_generic::GcfValue,
                s: &g::scalar::ScalarValue,
                p: &g::ReanchorPolicy,
            ) -> usize {
                use g::scalar::ScalarValue as S;
                use g::stream_generic::GcfValue as V;
                let e = match e {
                    DecodeError::EmptyInput => 0,
                    DecodeError::InvalidHeader(m)
                    | DecodeError::InvalidField(m)
                    | DecodeError::InvalidSymbolLine(m)
                    | DecodeError::InvalidEdgeLine(m)
                    | DecodeError::UnknownEdgeId(m) => m.len(),
                };
                let v = match v {
                    V::Null => 0,
                    V::Bool(b) => usize::from(*b),
                    V::Int(i) => *i as usize,
                    V::Float(f) => *f as usize,
                    V::Str(s) => s.len(),
                };
                let s = match s {
                    S::Null | S::Missing | S::Attachment => 0,
                    S::Bool(b) => usize::from(*b),
                    S::Int(i) => *i as usize,
                    S::Float(f) => *f as usize,
                    S::Str(s) => s.len(),
                };
                let p = match p {
                    g::ReanchorPolicy::FixedN(n) => *n,
                    g::ReanchorPolicy::SizeGuard => 0,
                };
                e + v + s + p
            }
        }
    };
}

surface!(reference, gcf_oracle);
surface!(ours, gcf_compat);

/// Both expansions compile (the test) and run. The values built above have
/// empty names and kinds, which the crate writes as given (text no decoder
/// reads) and gcf-compat refuses with `""` (README: no invalid output).
#[test]
fn the_crates_surface_is_here_with_its_signatures() {
    reference::check();
    ours::check();
    let (payload, delta, ..) = ours::values();
    let (their_payload, their_delta, ..) = reference::values();
    assert_eq!(gcf_compat::encode(&payload), "");
    assert_eq!(gcf_compat::encode_delta(&delta), "");
    assert!(gcf_oracle::decode(&gcf_oracle::encode(&their_payload)).is_err());
    assert!(!gcf_oracle::encode_delta(&their_delta).is_empty());
    let mut out = Vec::new();
    let n = ours::variants(
        &gcf_compat::DecodeError::InvalidField("xy".into()),
        &gcf_compat::stream_generic::GcfValue::Int(3),
        &gcf_compat::scalar::ScalarValue::Missing,
        &gcf_compat::ReanchorPolicy::FixedN(4),
    );
    writeln!(out, "{n}").unwrap();
    assert_eq!(out, b"9\n");
}
