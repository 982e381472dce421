//! Constant columns (spec §7.4.7) and value-grouped tables (§7.4.8).
//!
//! Inputs whose first byte is odd (every GCF text: `G` is 0x47) are text:
//! every generic decoder entry (`decode`, `decode_bytes`, `decode_any`,
//! `decode_with_header` with identity fields allowed) agrees on the value or on
//! the error's kind, line and column; a decoded value encodes with constant
//! columns on and off and with flattening off, decodes back, and re-encodes
//! to the same text; an array of records re-encodes grouped by any two of
//! its fields (or is refused with `invalid_input`), and the grouped text
//! decodes to the same records; the JSON bridge of the bindings gives the
//! value back. A tight expansion budget (`max_expansion` 0, the default
//! ratio) gives the same value or `limit_exceeded`, and the bytes that
//! decode allocates stay linear in the input.
//!
//! Inputs whose first byte is even drive a generator of record arrays built
//! to factor (columns drawn from few values, quoting-prone strings, nested
//! tables, shared array schemas, inline schemas, absent and null fields):
//! `decode(encode(v)) == v` and idempotent re-encoding in every encoder
//! configuration, grouped by `id` and a chosen field (which must succeed
//! when the records are groupable).
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use gcf_core::generic::{self, Decoder, Encoder, Map, Value};
use gcf_core::{AnyPayload, ErrorKind, Limits, PayloadKind};
use gcf_fuzz::{position, same_value, Bytes};
use libfuzzer_sys::fuzz_target;

/// Counts every byte allocated (reallocations at their new size), an upper
/// bound of what a decode holds at its peak.
struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every operation is the system allocator's, unchanged; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The limits of the tight decoder: an expansion budget with nothing
/// fixed, only the default ratio; every other limit the default.
fn tight() -> Limits {
    Limits {
        max_expansion: 0,
        ..Limits::default()
    }
}

/// Bytes a decode may allocate per input byte, all counted (plain cells
/// take about 60 with vector growth; the expansion budget adds 64) ...
const BYTES_PER_INPUT_BYTE: usize = 512;
/// ... plus a fixed allowance for small inputs (initial capacities, the
/// error message).
const FIXED_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    match data.first() {
        Some(b) if b & 1 == 0 => structured(&data[1..]),
        _ => text(data),
    }
});

fn text(data: &[u8]) {
    let by_bytes = generic::decode_bytes(data);
    let Ok(text) = std::str::from_utf8(data) else {
        let e = by_bytes.expect_err("invalid UTF-8 is refused");
        let any = gcf_core::decode_any_bytes(data).expect_err("by decode_any too");
        assert_eq!(position(&e), position(&any));
        return;
    };
    let value = generic::decode(text);
    match (&value, &by_bytes) {
        (Ok(v), Ok(b)) => assert_eq!(v, b),
        (Err(a), Err(b)) => assert_eq!(position(a), position(b)),
        _ => panic!("decode and decode_bytes disagree"),
    }
    if gcf_core::payload_kind(text) == Ok(PayloadKind::Generic) {
        match (&value, gcf_core::decode_any(text)) {
            (Ok(v), Ok(AnyPayload::Generic(w))) => assert_eq!(v, &w),
            (Err(a), Err(b)) => assert_eq!(position(a), position(&b)),
            (v, w) => panic!("decode and decode_any disagree: {v:?} {w:?}"),
        }
    }
    // Identity fields allowed accepts more (`@` names), never less, and
    // never another value.
    let document = Decoder::new()
        .allow_identity_fields(true)
        .decode_with_header(text);
    if let Ok(v) = &value {
        assert_eq!(&document.expect("identity fields only widen").value, v);
    }

    let before = ALLOCATED.load(Ordering::Relaxed);
    let tight = Decoder::new().limits(tight()).decode(text);
    let spent = ALLOCATED.load(Ordering::Relaxed) - before;
    let bound = BYTES_PER_INPUT_BYTE
        .saturating_mul(text.len())
        .saturating_add(FIXED_BYTES);
    assert!(
        spent <= bound,
        "decoding {} bytes allocated {spent} bytes (bound {bound})",
        text.len()
    );
    if let (Ok(v), Ok(t)) = (&value, &tight) {
        assert_eq!(v, t);
    }
    if let (Ok(_), Err(e)) = (&value, &tight) {
        // Only the budget is tighter: a limit, never another verdict.
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    }

    let Ok(v) = value else { return };
    round_trips(&v);
    let json = serde_json::to_vec(&gcf_bind::value::Json(&v)).expect("a value serializes");
    let back = gcf_bind::value::from_slice(&json).expect("the bridge reads its own JSON");
    assert!(same_value(&back, &v));
    // Grouping small arrays (the record comparison is quadratic).
    if let Some(items) = v.as_array().filter(|a| a.len() <= 64) {
        let fields: Vec<&str> = items
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|m| m.keys())
            .take(3)
            .collect();
        for (i, key) in fields.iter().enumerate() {
            for group in &fields[i + 1..] {
                grouped(&v, key, group, false);
            }
        }
    }
}

/// Every encoder configuration round-trips `v`, idempotently.
fn round_trips(v: &Value) {
    let configs = [
        Encoder::new(),
        Encoder::new().constant_columns(false),
        Encoder::new().flatten(false),
    ];
    for enc in &configs {
        let encoded = enc
            .encode(v)
            .unwrap_or_else(|e| panic!("{enc:?} refused {v:?}: {e}"));
        let back = generic::decode(&encoded).unwrap_or_else(|e| panic!("{e}\n{encoded}"));
        assert!(
            same_value(&back, v),
            "{enc:?}: decode(encode(v)) != v\n{encoded}"
        );
        assert_eq!(
            enc.encode(&back).unwrap(),
            encoded,
            "{enc:?}: re-encoding is idempotent"
        );
    }
}

/// `v` grouped by `group` with `key` as identity: refused with
/// `invalid_input` (never when `groupable`), or decoded back to the same
/// records, clustered, and re-encoded to the same text from then on.
fn grouped(v: &Value, key: &str, group: &str, groupable: bool) {
    let encoded = match generic::encode_grouped(v, key, group) {
        Ok(t) => t,
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
            assert!(!groupable, "grouping by {key}, {group} refused: {e}\n{v:?}");
            return;
        }
    };
    let back = generic::decode(&encoded).unwrap_or_else(|e| panic!("{e}\n{encoded}"));
    let (Value::Array(want), Value::Array(got)) = (v, &back) else {
        panic!("a grouped table decodes to an array\n{encoded}");
    };
    assert!(same_records(want, got), "{v:?}\n{encoded}\n{back:?}");
    // Clustered: a group's records are consecutive.
    let mut seen: Vec<&Value> = Vec::new();
    for r in got {
        let g = r
            .as_object()
            .and_then(|m| m.get(group))
            .expect("grouped records keep the group field");
        if seen.last() != Some(&g) {
            assert!(!seen.contains(&g), "group {g:?} split\n{encoded}");
            seen.push(g);
        }
    }
    let again = generic::encode_grouped(&back, key, group).expect("decoded records group");
    let back2 = generic::decode(&again).unwrap();
    assert_eq!(back2, back, "{again}");
    assert_eq!(generic::encode_grouped(&back2, key, group).unwrap(), again);
}

/// The same records in any order (each matched once), objects by membership.
fn same_records(a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let hit = (0..b.len()).find(|&i| !used[i] && same_value(x, &b[i]));
        hit.map(|i| used[i] = true).is_some()
    })
}

/// Strings that test quoting in declarations and subheaders.
const STRINGS: &[&str] = &[
    "file", "a,b", "a}b", "}", "{", "a=b", "=", "-", "~", "^", "^{x}", "^{x", "", " ", "null",
    "true", "1", "1.5", "-0", "x|y", "\"q\"", "a>b", "@x", "[1]", "é", "\t", "#", "## a",
];

/// A scalar from a small pool, so columns often hold one value.
fn scalar(b: &mut Bytes) -> Value {
    match b.pick(10) {
        0 => Value::Null,
        1 => Value::Bool(b.byte() & 1 == 1),
        2 => Value::Int(b.pick(3) as i64),
        3 => Value::Int(b.u64() as i64),
        4 => Value::Float([0.5, -0.0, 1.0, 75.0, 1e21, 2.5e-8, 0.1][b.pick(7)]),
        5 => {
            let f = b.float();
            if f.is_finite() {
                Value::Float(f)
            } else {
                Value::Null
            }
        }
        6 => Value::from(b.text()),
        _ => Value::from(STRINGS[b.pick(STRINGS.len())]),
    }
}

const NAMES: &[&str] = &[
    "id", "type", "kind", "name", "status", "a", "b", "a>b", "x y", "@k", "key", "group", "=",
    "c,d", "é",
];

/// A record array: `n` rows over a few fields, each field's value drawn per
/// row from a pool of one or two scalars (or anything, or nested).
fn records(b: &mut Bytes, depth: usize) -> Value {
    let n = b.pick(7);
    let width = 1 + b.pick(5);
    let fields: Vec<&str> = (0..width)
        .map(|i| {
            if i == 0 {
                "id"
            } else {
                NAMES[b.pick(NAMES.len())]
            }
        })
        .collect();
    let pools: Vec<(u8, Value, Value)> = fields
        .iter()
        .map(|_| (b.byte(), scalar(b), scalar(b)))
        .collect();
    let rows = (0..n)
        .map(|row| {
            let mut m = Map::new();
            for (f, (mode, p, q)) in fields.iter().zip(&pools) {
                let v = match mode % 16 {
                    // Unique ids, so the records group.
                    _ if *f == "id" && mode % 4 != 0 => Value::Int(row as i64 * 3 - 4),
                    0..=5 => p.clone(),
                    6..=8 => {
                        if b.byte() & 1 == 0 {
                            p.clone()
                        } else {
                            q.clone()
                        }
                    }
                    9 => continue, // absent here
                    10 if depth > 0 => records(b, depth - 1),
                    11 if depth > 0 => {
                        // An object: inline schema or path columns.
                        let mut o = Map::new();
                        for k in ["x", "y", "z"].iter().take(1 + b.pick(3)) {
                            o.insert(
                                *k,
                                if b.byte() & 3 == 0 {
                                    scalar(b)
                                } else {
                                    p.clone()
                                },
                            );
                        }
                        Value::Object(o)
                    }
                    _ => scalar(b),
                };
                m.insert(*f, v);
            }
            Value::Object(m)
        })
        .collect();
    Value::Array(rows)
}

fn structured(data: &[u8]) {
    let mut b = Bytes::new(data);
    let rows = records(&mut b, 2);
    let v = match b.pick(3) {
        0 => rows,
        1 => {
            // Tables under names, and a keyed map.
            let mut m = Map::new();
            m.insert("t", rows);
            m.insert("u", records(&mut b, 1));
            Value::Object(m)
        }
        _ => Value::Array(vec![rows]),
    };
    round_trips(&v);
    if let Value::Array(items) = &v {
        let flat = items.iter().all(|r| {
            r.as_object().is_some_and(|m| {
                matches!(m.get("id"), Some(Value::Int(_)))
                    && m.values()
                        .all(|x| !matches!(x, Value::Array(_) | Value::Object(_)))
            })
        });
        let mut ids: Vec<i64> = items
            .iter()
            .filter_map(|r| match r.as_object()?.get("id") {
                Some(Value::Int(i)) => Some(*i),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let unique = ids.len() == items.len();
        let group = NAMES[b.pick(NAMES.len())];
        let present = items
            .iter()
            .all(|r| r.as_object().is_some_and(|m| m.get(group).is_some()));
        let groupable = !items.is_empty() && flat && unique && present && group != "id";
        grouped(&v, "id", group, groupable);
    }
}
