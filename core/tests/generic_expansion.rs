//! The expansion budget (`Limits::max_expansion`, `max_expansion_ratio`):
//! text written once and decoded into every row (constant columns, group
//! subheader values, inline schemas, long field names) cannot make a small
//! input allocate without bound. Each hostile vector is rejected with
//! `limit_exceeded` at the row that crosses the budget, and a counting
//! global allocator proves the decode stayed small (a test binary of its
//! own for that allocator). Realistic factored data still decodes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gcf_core::generic::{self, Decoder, Encoder, Value};
use gcf_core::{ErrorKind, Limits};

struct Counting;

thread_local! {
    // Per thread, so tests running in parallel don't count each other's
    // allocations. A const initializer: no lazy allocation inside the allocator.
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn count(n: usize) {
    // `try_with`: the allocator may run while the thread's locals are torn down.
    let _ = BYTES.try_with(|c| c.set(c.get().saturating_add(n)));
}

// SAFETY: defers every operation to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated on this thread while `f` runs (every allocation and
/// reallocation counted in full, so an upper bound of the peak).
fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = BYTES.with(Cell::get);
    let out = f();
    (out, BYTES.with(Cell::get) - before)
}

#[test]
fn the_counter_sees_allocations() {
    let (v, n) = allocated(|| Vec::<u8>::with_capacity(std::hint::black_box(4096)));
    drop(v);
    assert!(n >= 4096, "{n}");
}

const TIGHT: Limits = Limits {
    max_expansion: 1 << 20,
    max_expansion_ratio: 4,
    ..Limits::spec_minimum()
};

/// The row (1-based) whose cost first passes the budget of `input`.
fn crossing_row(limits: &Limits, input: &str, cost: usize) -> usize {
    limits.expansion_budget(input.len()) / cost + 1
}

/// What one repeated value costs each row beside its string's bytes: the
/// row's map entry for it.
const ENTRY: usize = std::mem::size_of::<gcf_core::generic::Key>() + std::mem::size_of::<Value>();

struct Case {
    name: &'static str,
    input: String,
    /// Line and column of the crossing, given the input.
    at: fn(&str) -> (usize, usize),
}

fn rows(n: usize, row: impl Fn(usize) -> String) -> String {
    (1..=n).map(row).collect()
}

const BIG: usize = 16 * 1024;
const N: usize = 10_000;

fn cases() -> Vec<Case> {
    let big = "x".repeat(BIG);
    let head = "GCF profile=generic\n";
    vec![
        Case {
            name: "big constant, many rows",
            input: format!(
                "{head}## [{N}]{{a,b=\"{big}\"}}\n{}",
                rows(N, |_| "1\n".into())
            ),
            at: |input| (2 + crossing_row(&TIGHT, input, BIG + ENTRY), 1),
        },
        Case {
            name: "many empty constants (no line-limit cost at all)",
            input: format!(
                "{head}## [{N}]{{a,{}}}\n{}",
                (0..900)
                    .map(|i| format!("c{i}=\"\""))
                    .collect::<Vec<_>>()
                    .join(","),
                rows(N, |_| "1\n".into())
            ),
            at: |input| (2 + crossing_row(&TIGHT, input, 900 * ENTRY), 1),
        },
        Case {
            name: "keyed map with a constant",
            input: format!(
                "{head}## m [{N}:]{{k,a,b=\"{big}\"}}\n{}",
                rows(N, |i| format!("k{i}|1\n"))
            ),
            at: |input| (2 + crossing_row(&TIGHT, input, BIG + ENTRY), 1),
        },
        Case {
            name: "grouped subheader value",
            input: format!(
                "{head}## [{N}]{{@a,g}} group=g\ng=\"{big}\" [{N}]\n{}",
                rows(N, |i| format!("{i}\n"))
            ),
            at: |input| (3 + crossing_row(&TIGHT, input, BIG + ENTRY), 1),
        },
        Case {
            name: "nested tables under a shared schema",
            input: format!(
                "{head}## [{N}]{{id,items}}\n1|^\n  .items [1]{{x,c=\"{big}\"}}\n    1\n{}",
                rows(N - 1, |i| format!("{}|^\n  .items [1]\n    1\n", i + 1))
            ),
            at: |input| (3 * crossing_row(&TIGHT, input, BIG + ENTRY) + 2, 5),
        },
        Case {
            name: "nested table in an expanded item",
            input: format!(
                "{head}## [1]\n@0 [{N}]{{a,b=\"{big}\"}}\n{}",
                rows(N, |_| "  1\n".into())
            ),
            at: |input| (3 + crossing_row(&TIGHT, input, BIG + ENTRY), 3),
        },
        Case {
            name: "inline schema with a constant, reused by every later row",
            input: format!(
                "{head}## [{N}]{{a,u}}\n1|^{{b,c=\"{big}\"}}\n  x\n{}",
                rows(N - 1, |i| format!("{}|^\n  x\n", i + 1))
            ),
            at: |input| (2 + 2 * crossing_row(&TIGHT, input, BIG + ENTRY), 3),
        },
        Case {
            name: "a long field name keys every row",
            input: format!("{head}## [{N}]{{\"{big}\"}}\n{}", rows(N, |_| "x\n".into())),
            at: |input| (2 + crossing_row(&TIGHT, input, BIG), 1),
        },
    ]
}

#[test]
fn hostile_expansion_is_rejected_where_it_crosses_the_budget() {
    let decoder = Decoder::new().limits(TIGHT);
    for case in cases() {
        let (result, bytes) = allocated(|| decoder.decode(&case.input));
        let err = result.expect_err(case.name);
        let (line, column) = (case.at)(&case.input);
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::LimitExceeded, Some(line), Some(column)),
            "{}: {err}",
            case.name
        );
        eprintln!(
            "{}: {bytes} bytes allocated, error at line {line}",
            case.name
        );
        // Without the budget, each case would allocate 160 MB or more.
        assert!(bytes < 16 << 20, "{}: allocated {bytes} bytes", case.name);
        // The same decoder with room for it decodes the case.
        let roomy = Decoder::new().limits(Limits {
            max_expansion: usize::MAX,
            ..TIGHT
        });
        let shorter = case.input.replacen(&"x".repeat(BIG), "x", 1);
        roomy
            .decode(&shorter)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    }
}

/// The vector: a 1 MiB constant and a million one-byte rows would
/// decode into a terabyte; with the default limits the decode stops at the
/// row where it passes 64 MiB plus 64 times the input (~3 MB).
#[test]
fn the_terabyte_vector_fails_small_with_default_limits() {
    let rows = 1_000_000;
    let input = format!(
        "GCF profile=generic\n## [{rows}]{{a,b=\"{}\"}}\n{}",
        "x".repeat(1 << 20),
        "1\n".repeat(rows)
    );
    let cost = (1 << 20) + ENTRY;
    let line = 2 + crossing_row(&Limits::default(), &input, cost);
    for decode in [
        |s: &str| generic::decode(s).map(drop),
        |s: &str| generic::decode_bytes(s.as_bytes()).map(drop),
        |s: &str| gcf_core::decode_any(s).map(drop),
    ] {
        let (result, bytes) = allocated(|| decode(&input));
        let err = result.unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::LimitExceeded, Some(line), Some(1)),
            "{err}"
        );
        eprintln!("the terabyte vector: {bytes} bytes allocated, error at line {line}");
        assert!(bytes < 512 << 20, "allocated {bytes} bytes");
    }
}

/// A generic delta's sections go through the same budget.
#[test]
fn delta_sections_are_bounded() {
    let big = "x".repeat(1 << 20);
    let input = format!(
        "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n\
         ## added [200000]{{@id,v=\"{big}\"}}\n{}",
        (0..200_000).map(|i| format!("{i}\n")).collect::<String>()
    );
    let (result, bytes) = allocated(|| generic::decode_delta(&input));
    let err = result.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    assert_eq!(err.column(), Some(1));
    assert!(bytes < 512 << 20, "allocated {bytes} bytes");
}

/// What our encoder writes for realistic data (100,000 records with a few
/// short constant columns, factored by default) decodes with the defaults,
/// and so does a keyed set grouped by one of its columns.
#[test]
fn realistic_factored_data_decodes() {
    let records: Vec<Value> = (0..100_000)
        .map(|i| {
            let mut m = generic::Map::new();
            m.push_unique("id".to_string(), Value::Int(i));
            m.push_unique("type".to_string(), Value::from("issue"));
            m.push_unique("repo".to_string(), Value::from("blackwell-systems/gcf"));
            m.push_unique("state".to_string(), Value::from("open"));
            m.push_unique("locked".to_string(), Value::Bool(false));
            m.push_unique(
                "team".to_string(),
                Value::from(["core", "docs", "ops"][(i % 3) as usize]),
            );
            Value::Object(m)
        })
        .collect();
    let value = Value::Array(records);
    let text = Encoder::new().encode(&value).unwrap();
    assert!(text.contains("type=issue"), "the encoder factors constants");
    assert_eq!(generic::decode(&text).unwrap(), value);
    let grouped = generic::encode_grouped(&value, "id", "team").unwrap();
    assert!(grouped.contains("group=team"));
    let back = generic::decode(&grouped).unwrap();
    assert_eq!(back.as_array().map(<[_]>::len), Some(100_000));
}
