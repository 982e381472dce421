//! The generic profile (spec §7): any JSON value, losslessly.

mod value;

pub use value::{Map, Value};
