//! The generic profile (spec §7): any JSON value, losslessly.

mod scalar;
mod stream;
mod value;

pub use scalar::{is_bare_key, needs_quote, write_key, write_scalar, write_string};
pub use stream::{Cell, StreamOptions, StreamWriter, DEFAULT_STREAM_BUFFER};
pub use value::{Map, Value};
