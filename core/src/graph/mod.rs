//! The graph profile (spec §5-6b, §8, §9, §10): code graphs of symbols,
//! edges, distance groups and source locations.
//!
//! - [`encode`] / [`decode`]: buffered payloads, byte-exact with the spec's
//!   canonical form.
//! - [`StreamWriter`]: write symbols and edges as they are produced, in O(1)
//!   memory, with counts in a trailer.
//! - [`Session`]: stable ids and bare references across calls.
//! - [`pack_root`], [`encode_delta`], [`apply_delta`], [`respond`]: content
//!   identity, deltas and the three-outcome protocol.
//!
//! # Fast paths
//!
//! - Encoding one payload after another (a binding answering requests): keep
//!   one [`Encoder`]. It keeps the tables it builds between calls, so a call
//!   allocates only its output. Any `Payload<S: AsRef<str>>` works; owned
//!   payloads (a separate allocation for every string, as parsed from JSON)
//!   are resolved by their text, and a `Payload<&str>` whose edges reuse the
//!   symbols' own `&str` is resolved by address, without reading names.
//! - Decoding: [`decode`] returns owned `Payload<String>`, whose strings
//!   (two per edge for its endpoints alone) cost more to allocate and free
//!   than the parse. Prefer [`decode_borrowed`] (borrows from the input) or,
//!   when the result must own its text, [`decode_shared`] (`Arc<str>`, one
//!   allocation per name). A binding that turns the result into host values
//!   (objects of another language, a string table) uses [`decode_indexed`]:
//!   borrowed as well, with every name and label numbered, so each becomes
//!   one host value, found by number.

mod decode;
mod decode_fast;
mod delta;
mod encode;
#[cfg(feature = "serde_json")]
mod json;
mod kind;
mod line;
mod name_index;
mod pack_root;
mod session;
mod stream;
mod stream_names;
mod token;
mod types;

pub use crate::protocol::{estimate_tokens, Outcome};
#[cfg(target_has_atomic = "ptr")]
pub use decode::decode_shared;
pub use decode::{decode, decode_borrowed, decode_bytes, decode_indexed, Decoder, Indexed};
pub use delta::{
    apply_decoded_delta, apply_delta, apply_delta_with, decode_delta, decode_delta_with, diff,
    encode_delta, encode_delta_to, respond, Delta, Snapshot, SymbolRef,
};
pub use encode::{encode, encode_to, Encoder};
#[cfg(feature = "serde_json")]
pub use json::{
    delta_from_json, delta_to_json, edge_from_json, edge_to_json, location_from_json,
    payload_from_json, payload_to_json, snapshot_from_json, snapshot_to_json, symbol_from_json,
    symbol_to_json,
};
pub use kind::{abbreviate_kind, expand_kind, is_known_kind};
pub use pack_root::{pack_root, pack_root_canonical_bytes};
pub use session::{Session, SessionDecoder};
pub use stream::{StreamOptions, StreamWriter, TrailerForm};
pub use types::{Edge, Location, Payload, Reference, Symbol};
