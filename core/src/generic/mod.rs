//! The generic profile (spec §7): any JSON value, losslessly.

mod cell;
mod decode;
mod delta;
mod encode;
pub mod flat;
#[cfg(feature = "serde_json")]
mod json;
mod key;
mod row;
mod scalar;
#[cfg(feature = "serde")]
mod serde;
mod stream;
mod value;
mod view;
pub use decode::{
    decode, decode_bytes, parse_cell_token, parse_scalar, Build, CellToken, Decoder, ValueBuilder,
    ValueWithHeader,
};

#[cfg(feature = "serde")]
pub use self::serde::{from_reader, to_writer};
#[cfg(feature = "serde")]
pub use self::serde::{from_slice, from_str, from_value, to_string, to_value, to_vec};
pub use cell::Cell;
pub use delta::{
    apply, apply_delta, apply_delta_with, canonical_cell, decode_delta, decode_delta_with,
    decode_full, decode_full_with, diff, encode_delta, encode_full, no_delta, pack_root, respond,
    respond_echoed, DeltaSession, FullPayload, GenericDelta, KeyedSet, Outcome, ReanchorPolicy,
    DEFAULT_REANCHOR_N,
};
pub use encode::{encode, encode_grouped, encode_to, Encoder};
#[cfg(feature = "serde_json")]
pub use json::{
    from_json, generic_delta_from_json, keyed_set_from_json, keyed_set_to_json, to_json,
};
pub use key::Key;
pub use scalar::{format_key, format_scalar, is_bare_key, needs_quote, quote, ScalarWriter};
pub use stream::{
    check_row_width, check_stream_fields, StreamOptions, StreamWriter, DEFAULT_STREAM_BUFFER,
};
pub use value::{Map, Value};
pub use view::{Members, Name, Shape, View};
