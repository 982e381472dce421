//! A deterministic driver for profiling the generic writers under callgrind
//! (`valgrind --tool=callgrind target/release/generic_probe stream 20000 1`):
//! builds the workload once, outside the measured operation, then runs the
//! operation `iters` times and prints the output size and the min and median
//! time per iteration.
//!
//! Operations: `stream` (employee rows through `StreamWriter::row` into a
//! discarding sink), `build` (only builds the rows, to subtract), and
//! `employees`, `orders`, `keyed` (`generic::encode_to` of the benchmark
//! workload with `n` records into a reused buffer), and `decode-employees`,
//! `decode-orders`, `decode-keyed` (`generic::decode` of that workload's GCF
//! text, which is encoded once outside the measured loop), and
//! `from-str`, `json-from-str`, `to-string` (the typed `Vec<EmployeeRecord>`
//! through `generic::from_str` / serde_json's `from_str` of its JSON /
//! `generic::to_string`), and `from-str-ref`, `json-from-str-ref` (the same
//! decodes into `EmployeeRecordRef`, strings borrowed), and `objects`,
//! `decode-objects` (`n` small tool-result objects, each encoded into a
//! reused buffer, or its text decoded, by its own call, as a server answers
//! one call at a time).

use std::time::{Duration, Instant};

use gcf_benches::workload::{
    employee_records, employees, generic, EmployeeRecord, EmployeeRecordRef, EMPLOYEE_FIELDS, SEED,
};
use gcf_core::generic::{StreamOptions, StreamWriter};

fn workload(name: &str, n: usize) -> Option<gcf_core::generic::Value> {
    match name {
        "employees" => Some(generic::to_value(&generic::employees_json(n, SEED))),
        "orders" => Some(generic::to_value(&generic::orders_json(n, SEED))),
        "keyed" => Some(generic::to_value(&generic::keyed_json(n, SEED))),
        _ => None,
    }
}

/// One decode and the drop of its value, as a benchmark iteration does
/// (`--toggle-collect='*decode_and_drop*'` measures exactly this).
#[inline(never)]
fn decode_and_drop(text: &str) -> u64 {
    let back = gcf_core::generic::decode(text).expect("decode");
    std::hint::black_box(&back);
    text.len() as u64
}

/// One typed decode and the drop of its records.
#[inline(never)]
fn from_str_and_drop(text: &str, json: bool) -> u64 {
    let back: Vec<EmployeeRecord> = if json {
        serde_json::from_str(text).expect("from_str")
    } else {
        gcf_core::generic::from_str(text).expect("from_str")
    };
    std::hint::black_box(&back);
    back.len() as u64
}

/// One typed decode into borrowing records and their drop.
#[inline(never)]
fn from_str_borrowed_and_drop(text: &str, json: bool) -> u64 {
    let back: Vec<EmployeeRecordRef<'_>> = if json {
        serde_json::from_str(text).expect("from_str")
    } else {
        gcf_core::generic::from_str(text).expect("from_str")
    };
    std::hint::black_box(&back);
    back.len() as u64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("stream", String::as_str);
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let iters: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let decode_of = op.strip_prefix("decode-");
    let value = workload(decode_of.unwrap_or(op), n);
    let text = match (decode_of, &value) {
        (Some(_), Some(v)) => gcf_core::generic::encode(v).expect("encode"),
        _ => String::new(),
    };
    let records = match op {
        "from-str" | "json-from-str" | "to-string" | "from-str-ref" | "json-from-str-ref" => {
            employee_records(n, SEED)
        }
        _ => Vec::new(),
    };
    let typed_text = match op {
        "from-str" | "from-str-ref" => gcf_core::generic::to_string(&records).expect("to_string"),
        "json-from-str" | "json-from-str-ref" => {
            serde_json::to_string(&records).expect("to_string")
        }
        _ => String::new(),
    };
    let objects: Vec<gcf_core::generic::Value> = match decode_of.unwrap_or(op) {
        "objects" => generic::tool_results_json(n, SEED)
            .iter()
            .map(generic::to_value)
            .collect(),
        _ => Vec::new(),
    };
    let object_texts: Vec<String> = match decode_of {
        Some("objects") => objects
            .iter()
            .map(|v| gcf_core::generic::encode(v).expect("encode"))
            .collect(),
        _ => Vec::new(),
    };
    let rows = if value.is_none() && records.is_empty() && objects.is_empty() {
        employees(n, SEED)
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut times: Vec<Duration> = Vec::with_capacity(iters);
    for _ in 0..iters {
        let start = Instant::now();
        total += match (op, &value) {
            ("stream", _) => {
                let mut w =
                    StreamWriter::new(gcf_core::CountingSink::default(), StreamOptions::default())
                        .expect("header");
                w.begin_table(None, &EMPLOYEE_FIELDS).expect("table");
                for e in &rows {
                    w.row(&e.cells()).expect("row");
                }
                w.end_table().expect("end");
                w.finish().expect("trailer").bytes
            }
            ("build", _) => rows.len() as u64,
            ("objects", _) => objects
                .iter()
                .map(|v| {
                    out.clear();
                    gcf_core::generic::encode_to(v, &mut out).expect("encode");
                    out.len() as u64
                })
                .sum(),
            ("decode-objects", _) => object_texts.iter().map(|t| decode_and_drop(t)).sum(),
            ("from-str", _) => from_str_and_drop(&typed_text, false),
            ("json-from-str", _) => from_str_and_drop(&typed_text, true),
            ("from-str-ref", _) => from_str_borrowed_and_drop(&typed_text, false),
            ("json-from-str-ref", _) => from_str_borrowed_and_drop(&typed_text, true),
            ("to-string", _) => gcf_core::generic::to_string(&records)
                .expect("to_string")
                .len() as u64,
            (_, Some(_)) if decode_of.is_some() => decode_and_drop(&text),
            (_, Some(v)) => {
                out.clear();
                gcf_core::generic::encode_to(v, &mut out).expect("encode");
                out.len() as u64
            }
            (other, None) => panic!("unknown operation {other}"),
        };
        times.push(start.elapsed());
        std::hint::black_box(&out);
    }
    times.sort();
    let min = times.first().copied().unwrap_or_default();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    println!("{op} n={n} iters={iters} bytes={total} min={min:?} median={median:?}");
}
