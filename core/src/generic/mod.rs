//! The generic profile (spec §7): any JSON value, losslessly.

mod encode;
#[cfg(feature = "serde_json")]
mod json;
mod scalar;
mod value;

pub use encode::{encode, encode_to, Encoder};
#[cfg(feature = "serde_json")]
pub use json::{from_json, to_json};
pub use scalar::{is_bare_key, needs_quote, write_key, write_scalar, write_string};
pub use value::{Map, Value};
