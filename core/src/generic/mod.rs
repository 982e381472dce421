//! The generic profile (spec §7): any JSON value, losslessly.

mod decode;
mod scalar;
mod value;
pub use decode::{decode, decode_bytes, Decoder, Document};

pub use scalar::{is_bare_key, needs_quote, write_key, write_scalar, write_string};
pub use value::{Map, Value};
