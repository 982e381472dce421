//! A generic value handed over in a binary form instead of JSON: for
//! bindings whose values are already typed (Go's `EncodeGeneric`), where
//! formatting numbers and strings as JSON and parsing them again costs more
//! than the encode itself.

use gcf_core::generic::{Map, Value};
use gcf_core::{ErrorKind, Limits};

use crate::buf::{bytes_arg, gcf_buf, put, reset_out};
use crate::error::{boundary, gcf_error, gcf_status, FfiError};

fn malformed(what: &str) -> FfiError {
    FfiError::argument(ErrorKind::InvalidInput, format!("packed value: {what}"))
}

/// Reads the form [`gcf_generic_encode_packed`] describes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, FfiError> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| malformed("ends early"))?;
        self.pos += 1;
        Ok(b)
    }

    fn uvarint(&mut self) -> Result<u64, FfiError> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err(malformed("a length longer than 64 bits"))
    }

    /// A count of items, each at least one byte: never more than the bytes
    /// left, so no count reserves more memory than the input backs.
    fn count(&mut self) -> Result<usize, FfiError> {
        let n = self.uvarint()?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(malformed("a count past the end"));
        }
        Ok(n as usize)
    }

    fn u64(&mut self) -> Result<u64, FfiError> {
        let end = self.pos + 8;
        let b = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| malformed("ends early"))?;
        self.pos = end;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    fn text(&mut self) -> Result<&'a str, FfiError> {
        let n = self.count()?;
        let bytes: &'a [u8] = self.bytes;
        let b = &bytes[self.pos..self.pos + n];
        self.pos += n;
        core::str::from_utf8(b).map_err(|e| {
            FfiError::argument(
                ErrorKind::InvalidUtf8,
                format!(
                    "packed value: a string is not valid UTF-8 (first bad byte at offset {})",
                    self.pos - n + e.valid_up_to()
                ),
            )
        })
    }

    fn value(&mut self, depth_left: usize) -> Result<Value, FfiError> {
        Ok(match self.byte()? {
            0 => Value::Null,
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => Value::Int(self.u64()? as i64),
            4 => {
                let f = f64::from_bits(self.u64()?);
                if !f.is_finite() {
                    return Err(FfiError::argument(
                        ErrorKind::OutOfRange,
                        format!("number {f} is not a finite double"),
                    ));
                }
                Value::Float(f)
            }
            5 => Value::from(self.text()?),
            6 => {
                let inner = descend(depth_left)?;
                let n = self.count()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(inner)?);
                }
                Value::Array(items)
            }
            7 => {
                let inner = descend(depth_left)?;
                let n = self.count()?;
                let mut map = Map::with_capacity(n);
                for _ in 0..n {
                    let key = self.text()?;
                    let item = self.value(inner)?;
                    map.push_unique(key, item);
                }
                Value::Object(gcf_bind::value::last_wins(map))
            }
            tag => return Err(malformed(&format!("unknown tag {tag}"))),
        })
    }
}

fn descend(depth_left: usize) -> Result<usize, FfiError> {
    depth_left.checked_sub(1).ok_or_else(|| {
        FfiError::argument(
            ErrorKind::LimitExceeded,
            "packed value nests deeper than the maximum depth".to_string(),
        )
    })
}

/// The value of a packed argument, all of its bytes.
fn packed_value(bytes: &[u8]) -> Result<Value, FfiError> {
    let mut r = Reader { bytes, pos: 0 };
    let value = r.value(Limits::default().max_depth)?;
    if r.pos != bytes.len() {
        return Err(malformed("bytes after the value"));
    }
    Ok(value)
}

/// [`gcf_generic_encode_flags`](crate::gcf_generic_encode_flags) of a value
/// given in a binary form instead of JSON: the same output and encode
/// errors.
///
/// The value is a tag byte and what the tag says: 0 null, 1 false, 2 true;
/// 3 an integer, 4 a finite double (its IEEE 754 bits), each as 8
/// little-endian bytes; 5 a string: its length in bytes as unsigned LEB128,
/// then its UTF-8; 6 an array: the number of items (LEB128), then each
/// item; 7 an object: the number of members (LEB128), then each member's
/// key (a string without its tag) and value, in order (a repeated key keeps
/// its first position and its last value). A malformed form is an
/// `invalid_input` argument error; nesting beyond the default depth limit a
/// `limit_exceeded` one.
///
/// # Safety
///
/// `value` points to `value_len` readable bytes (or is NULL with 0); `out`
/// is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_encode_packed(
    value: *const u8,
    value_len: usize,
    flags: u32,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let encoder = crate::generic::encoder_for(flags)?;
            let value = packed_value(bytes_arg(value, value_len, "value")?)?;
            put(out, gcf_buf::from_vec(encoder.encode(&value)?.into_bytes()));
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `depth` packed arrays of one item around the integer 1.
    fn nested(depth: usize) -> Vec<u8> {
        let mut bytes = [6, 1].repeat(depth);
        bytes.push(3);
        bytes.extend_from_slice(&1i64.to_le_bytes());
        bytes
    }

    #[test]
    fn packed_values_take_the_codec_depth() {
        let limit = Limits::default().max_depth;
        let value = packed_value(&nested(limit)).unwrap();
        let text = gcf_core::generic::encode(&value).unwrap();
        assert!(gcf_core::generic::decode(&text).unwrap() == value);
        let e = packed_value(&nested(limit + 1)).unwrap_err();
        assert_eq!(e.category, "limit_exceeded", "{}", e.message);
    }
}
