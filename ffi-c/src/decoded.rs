//! Graph decode with a binary result instead of JSON: for bindings that
//! build their own values from the decoded payload (Go's `Decode`), where
//! writing JSON in Rust and parsing it again in the host costs more than the
//! decode itself.
//!
//! The graph result points into the caller's input wherever the decoder borrowed
//! from it (names, provenances, edge types: nearly every string), so a host
//! whose strings can share one buffer (Go substrings) builds its payload
//! without copying any text.

use std::borrow::Cow;

use gcf_core::generic::{self, Value};
use gcf_core::graph::{self, Payload};

use crate::buf::{bytes_arg, gcf_buf, put, reset_out};
use crate::error::{boundary, gcf_error, gcf_status};
use crate::limits::{gcf_limits, limits_arg};

/// Format version of [`gcf_graph_decode_packed`]'s result, its first word.
pub const GCF_PACKED_VERSION: u64 = 1;

/// A span's offset has this bit set when it counts from the start of the
/// result's arena instead of the input.
pub const GCF_PACKED_ARENA: u64 = 0x8000_0000_0000_0000;

/// Words before the records.
const HEADER_WORDS: usize = 13;
/// Words per symbol, edge and location record.
const RECORD_WORDS: usize = 8;
/// Slots of the cache of text already in the arena.
const CACHE: usize = 32;

/// Writes the result: header and records as little-endian words, text
/// the input does not hold in an arena after them.
struct Packer<'a> {
    input: &'a [u8],
    words: Vec<u8>,
    arena: Vec<u8>,
    /// Address, length and arena offset of text placed recently. Text
    /// outside the input is mostly the expanded kinds (`function`, ...):
    /// the same `'static` strings over and over, placed once each.
    cache: [(usize, usize, u64); CACHE],
}

impl Packer<'_> {
    fn word(&mut self, w: u64) {
        self.words.extend_from_slice(&w.to_le_bytes());
    }

    fn span(&mut self, s: &str) {
        let (addr, len) = (s.as_ptr() as usize, s.len());
        if len == 0 {
            self.word(0);
            self.word(0);
            return;
        }
        let base = self.input.as_ptr() as usize;
        let off = if addr >= base && addr + len <= base + self.input.len() {
            (addr - base) as u64
        } else {
            // Every string of the payload is alive while it is packed, so an
            // address and length name one text for the whole call.
            let slot = &mut self.cache[(addr >> 3) % CACHE];
            if slot.0 == addr && slot.1 == len {
                slot.2
            } else {
                let off = GCF_PACKED_ARENA | self.arena.len() as u64;
                self.arena.extend_from_slice(s.as_bytes());
                *slot = (addr, len, off);
                off
            }
        };
        self.word(off);
        self.word(len as u64);
    }
}

/// The packed form of `p`, whose borrowed strings lie in `input`.
fn pack(input: &[u8], p: &Payload<Cow<'_, str>>) -> Vec<u8> {
    let records = p.symbols.len() + p.edges.len() + p.locations.len();
    let mut k = Packer {
        input,
        words: Vec::with_capacity((HEADER_WORDS + RECORD_WORDS * records) * 8),
        arena: Vec::new(),
        cache: [(0, 0, 0); CACHE],
    };
    k.word(GCF_PACKED_VERSION);
    k.word(u64::from(p.session) | u64::from(p.unchanged) << 1);
    k.word(p.token_budget);
    k.word(p.tokens_used);
    k.span(&p.tool);
    k.span(&p.pack_root);
    k.word(p.symbols.len() as u64);
    k.word(p.edges.len() as u64);
    k.word(p.locations.len() as u64);
    // Arena offset and length, known once the records are written.
    let arena_at = k.words.len();
    k.word(0);
    k.word(0);
    for s in &p.symbols {
        k.span(&s.qualified_name);
        k.span(&s.kind);
        k.span(&s.provenance);
        k.word(s.score.to_bits());
        k.word(u64::from(s.distance));
    }
    for e in &p.edges {
        k.span(&e.source);
        k.span(&e.target);
        k.span(&e.edge_type);
        k.span(&e.status);
    }
    for l in &p.locations {
        k.span(&l.qualified_name);
        k.span(&l.file);
        let (end_line, end_column) = l.end.unwrap_or((0, 0));
        for n in [l.line, l.column, end_line, end_column] {
            k.word(u64::from(n));
        }
    }
    let mut out = k.words;
    let arena_off = out.len() as u64;
    out[arena_at..arena_at + 8].copy_from_slice(&arena_off.to_le_bytes());
    out[arena_at + 8..arena_at + 16].copy_from_slice(&(k.arena.len() as u64).to_le_bytes());
    out.extend_from_slice(&k.arena);
    out
}

/// Decodes graph-profile GCF text into a binary description of the payload
/// instead of JSON; the same decoder and errors as
/// [`gcf_graph_decode`](crate::gcf_graph_decode).
///
/// `out` receives little-endian 64-bit words:
///
/// - header (13 words): format version ([`GCF_PACKED_VERSION`]); flags (bit
///   0 `session=true`, bit 1 `unchanged=true`); token budget; tokens used;
///   tool and pack root as spans; the numbers of symbols, edges and
///   locations; the byte offset of the arena in `out` and its length;
/// - per symbol (8 words): name, kind (in full form) and provenance spans,
///   the score's IEEE 754 bits, the distance;
/// - per edge (8 words): source, target, edge type and status spans;
/// - per location (8 words): name and file spans, line, column, end line,
///   end column (0 and 0 for no end);
/// - the arena: text that is not in the input.
///
/// A span is two words, offset and length. Its offset counts bytes from the
/// start of `input` or, with [`GCF_PACKED_ARENA`] set, from the start of the
/// arena. Bare session references are not described.
///
/// # Safety
///
/// `input` points to `input_len` readable bytes (or is NULL with 0); `out`
/// is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode_packed(
    input: *const u8,
    input_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_graph_decode_packed_with_limits(input, input_len, std::ptr::null(), out, err) }
}

/// [`gcf_graph_decode_packed`] under the caller's decode limits (NULL for
/// the defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_graph_decode_packed`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_graph_decode_packed_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let decoder = graph::Decoder::new()
                .limits(limits_arg(limits)?)
                .refuse_references(true);
            let bytes = bytes_arg(input, input_len, "input")?;
            // A bad sequence is reported at its line and column.
            let text = gcf_core::validate_utf8(bytes)?;
            let payload = decoder.decode_borrowed(text)?;
            put(out, gcf_buf::from_vec(pack(bytes, &payload)));
            Ok(())
        })
    }
}

/// Format version of [`gcf_generic_decode_packed`]'s result, its first byte.
pub const GCF_GENERIC_PACKED_VERSION: u8 = 1;

/// Appends `n` as unsigned LEB128.
fn uvarint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn packed_text(out: &mut Vec<u8>, s: &str) {
    uvarint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends `v` in the form [`gcf_generic_decode_packed`] describes. The
/// depth is the decoder's, which §12's limits bound.
fn pack_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Bool(false) => out.push(1),
        Value::Bool(true) => out.push(2),
        Value::Int(n) => {
            out.push(3);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(4);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::String(s) => {
            out.push(5);
            packed_text(out, s);
        }
        Value::Array(items) => {
            out.push(6);
            uvarint(out, items.len() as u64);
            for item in items {
                pack_value(out, item);
            }
        }
        Value::Object(map) => {
            out.push(7);
            uvarint(out, map.len() as u64);
            for (k, item) in map.iter() {
                packed_text(out, k);
                pack_value(out, item);
            }
        }
    }
}

/// Decodes generic-profile GCF text into a binary description of the value
/// instead of JSON; the same decoder and errors as
/// [`gcf_generic_decode`](crate::gcf_generic_decode).
///
/// `out` holds the format version ([`GCF_GENERIC_PACKED_VERSION`], one
/// byte), then the value: a tag byte and what the tag says. 0 null, 1
/// false, 2 true; 3 an integer, 4 a double (its IEEE 754 bits), each as 8
/// little-endian bytes; 5 a string: its length in bytes as unsigned LEB128,
/// then its UTF-8; 6 an array: the number of items (LEB128), then each item;
/// 7 an object: the number of members (LEB128), then each member's key (as
/// a string without its tag) and value, in order, keys unique.
///
/// # Safety
///
/// As for [`gcf_graph_decode_packed`].
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_packed(
    input: *const u8,
    input_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe { gcf_generic_decode_packed_with_limits(input, input_len, std::ptr::null(), out, err) }
}

/// [`gcf_generic_decode_packed`] under the caller's decode limits (NULL for
/// the defaults; see [`gcf_limits`]).
///
/// # Safety
///
/// As for [`gcf_graph_decode_packed`]; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn gcf_generic_decode_packed_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const gcf_limits,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let decoder = generic::Decoder::new().limits(limits_arg(limits)?);
            let bytes = bytes_arg(input, input_len, "input")?;
            let value = decoder.decode_bytes(bytes)?;
            // The text is about as long as its values' bytes.
            let mut packed = Vec::with_capacity(bytes.len() + 64);
            packed.push(GCF_GENERIC_PACKED_VERSION);
            pack_value(&mut packed, &value);
            put(out, gcf_buf::from_vec(packed));
            Ok(())
        })
    }
}
