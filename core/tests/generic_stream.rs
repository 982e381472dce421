//! The generic streaming writer: byte-exact output for the spec's streaming
//! examples and the streaming-v2 / keyed-map decode fixtures' inputs, and
//! zero allocations per row (this binary counts every allocation).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell as StdCell;

use gcf_core::generic::{Cell, Map, StreamOptions, StreamWriter, Value};
use gcf_core::{CountingSink, ErrorKind, FnSink};

mod support;
use support::conformance_dir;

/// Counts allocations made by the current thread, so tests running in
/// parallel do not disturb each other.
struct CountingAlloc;

thread_local! {
    static ALLOCATIONS: StdCell<u64> = const { StdCell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the counter
// is a thread-local `Cell` with a const initializer, which never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.with(|n| n.get())
}

/// The `input` text of a decode fixture.
fn fixture_input(path: &str) -> String {
    let full = conformance_dir().join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["input"].as_str().unwrap().to_owned()
}

fn writer() -> StreamWriter<String> {
    StreamWriter::new(String::new(), StreamOptions::new()).unwrap()
}

#[test]
fn zero_allocations_per_row() {
    let mut w = StreamWriter::new(CountingSink::default(), StreamOptions::new()).unwrap();
    w.begin_table(
        Some("events"),
        &["id", "name", "score", "ok", "note", "gone"],
    )
    .unwrap();
    let before = allocations();
    for i in 0..100_000i64 {
        w.row(&[
            Cell::Int(i),
            Cell::Str(if i % 2 == 0 {
                "needs \"quotes\" | here"
            } else {
                "plain text"
            }),
            Cell::Float(i as f64 / 7.0),
            Cell::Bool(i % 3 == 0),
            Cell::Null,
            Cell::Missing,
        ])
        .unwrap();
    }
    let after = allocations();
    // The counter does see allocations on this thread.
    let probe = allocations();
    drop(std::hint::black_box(Vec::<u8>::with_capacity(16)));
    assert_eq!(allocations(), probe + 1);
    w.end_table().unwrap();
    let sink = w.finish().unwrap();
    assert_eq!(after - before, 0, "rows must not allocate");
    assert!(sink.bytes > 4_000_000, "{} bytes", sink.bytes);
}

#[test]
fn zero_allocations_per_object_row_and_keyed_row() {
    let mut w = StreamWriter::new(CountingSink::default(), StreamOptions::new()).unwrap();
    let mut object = Map::new();
    object.insert("a", Value::Int(7));
    object.insert("c", Value::from("x,y"));
    let values = [Value::Float(0.25), Value::Null, Value::from("true")];
    w.begin_table(Some("t"), &["a", "b", "c"]).unwrap();
    let before = allocations();
    for _ in 0..10_000 {
        w.row_object(&object).unwrap();
        w.row_values(&values).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    w.end_table().unwrap();
    w.begin_keyed_map(Some("m"), &["a", "b", "c"]).unwrap();
    let before = allocations();
    for _ in 0..10_000 {
        w.keyed_row("k-1", &[Cell::Int(1), Cell::Str("~"), Cell::Float(1e300)])
            .unwrap();
        w.keyed_row_object("k-2", &object).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    w.finish().unwrap();
}

#[test]
fn spec_8_8_example() {
    let mut w = writer();
    w.begin_table(Some("employees"), &["id", "name", "department", "salary"])
        .unwrap();
    w.row(&[
        Cell::Int(1),
        "Alice Smith".into(),
        "Engineering".into(),
        Cell::Int(95000),
    ])
    .unwrap();
    w.row(&[
        Cell::Int(2),
        "Bob Jones".into(),
        "Sales".into(),
        Cell::Int(72000),
    ])
    .unwrap();
    w.row(&[
        Cell::Int(3),
        "Carol Wu".into(),
        "Marketing".into(),
        Cell::Int(85000),
    ])
    .unwrap();
    w.end_table().unwrap();
    assert_eq!(
        w.finish().unwrap(),
        "GCF profile=generic\n## employees [?]{id,name,department,salary}\n1|Alice Smith|Engineering|95000\n\
         2|Bob Jones|Sales|72000\n3|Carol Wu|Marketing|85000\n##! summary counts=3\n"
    );
}

#[test]
fn streaming_v2_001() {
    let mut w = writer();
    w.begin_table(Some("employees"), &["id", "name", "department"])
        .unwrap();
    for (id, name, dept) in [
        (1, "Alice", "Engineering"),
        (2, "Bob", "Sales"),
        (3, "Carol", "Marketing"),
    ] {
        w.row(&[Cell::Int(id), Cell::Str(name), Cell::Str(dept)])
            .unwrap();
    }
    w.end_table().unwrap();
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("streaming-v2/001_generic_streaming.json")
    );
}

#[test]
fn streaming_v2_003_multiple_sections_from_objects() {
    let mut w = writer();
    w.begin_table(Some("users"), &["id", "name"]).unwrap();
    for (id, name) in [(1, "Alice"), (2, "Bob")] {
        let mut m = Map::new();
        m.insert("id", Value::Int(id));
        m.insert("name", Value::from(name));
        w.row_object(&m).unwrap();
    }
    w.end_table().unwrap();
    w.begin_table(Some("logs"), &["ts", "msg"]).unwrap();
    for (ts, msg) in [(100, "started"), (101, "stopped"), (102, "restarted")] {
        w.row_values(&[Value::Int(ts), Value::from(msg)]).unwrap();
    }
    w.end_table().unwrap();
    assert_eq!(w.counts(), &[2, 3]);
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("streaming-v2/003_multiple_deferred_sections.json")
    );
}

#[test]
fn streaming_v2_012_and_013_quoted_field_names() {
    let mut w = writer();
    w.begin_table(Some("rows"), &["id", "a,b"]).unwrap();
    w.row(&[Cell::Int(1), Cell::Int(99)]).unwrap();
    w.row(&[Cell::Int(2), Cell::Int(100)]).unwrap();
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("streaming-v2/012_generic_streaming_quoted_field_comma.json")
    );

    let mut w = writer();
    w.begin_table(Some("rows"), &["id", "x|y"]).unwrap();
    w.row(&[Cell::Int(1), Cell::Int(99)]).unwrap();
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("streaming-v2/013_generic_streaming_quoted_field_pipe.json")
    );
}

#[test]
fn keyed_map_fixture_inputs() {
    let mut w = writer();
    w.begin_keyed_map(Some("servers"), &["cpu", "mem"]).unwrap();
    w.keyed_row("web-01", &[Cell::Int(23), Cell::Int(61)])
        .unwrap();
    w.keyed_row("db-01", &[Cell::Int(41), Cell::Int(83)])
        .unwrap();
    w.end_table().unwrap();
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("keyed-map/021_decode_streaming.json")
    );

    let mut w = writer();
    w.begin_keyed_map(Some("m"), &["a,b"]).unwrap();
    let mut k1 = Map::new();
    k1.insert("a,b", Value::Int(99));
    w.keyed_row_object("k1", &k1).unwrap();
    w.keyed_row("k2", &[Cell::Null]).unwrap();
    assert_eq!(
        w.finish().unwrap(),
        fixture_input("keyed-map/027_streaming_quoted_field.json")
    );
}

#[test]
fn keyed_row_cell_writes_number_keys_bare_and_refuses_null_and_booleans() {
    // A number key is written as the SDKs' streams write it (`7|...`), and
    // read back as its canonical text; the string "7" stays quoted.
    let mut w = writer();
    w.begin_section("outer").unwrap();
    w.begin_keyed_map_labeled(Some("m"), "id", &["v"]).unwrap();
    w.keyed_row_cell(Cell::Int(7), &[Cell::Int(1)]).unwrap();
    w.keyed_row_cell(Cell::Float(1.5), &[Cell::Missing])
        .unwrap();
    w.keyed_row_cell(Cell::Float(2.0), &[Cell::Str("a|b")])
        .unwrap();
    w.keyed_row_cell(Cell::Int(-9), &[Cell::Null]).unwrap();
    w.keyed_row_cell(Cell::Str("7s"), &[Cell::Bool(true)])
        .unwrap();
    for refused in [Cell::Null, Cell::Bool(false), Cell::Missing] {
        let e = w.keyed_row_cell(refused, &[Cell::Int(1)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{refused:?}");
    }
    let e = w
        .keyed_row_cell(Cell::Float(f64::NAN), &[Cell::Int(1)])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfRange);
    let e = w
        .keyed_row_cell(Cell::Int(1), &[Cell::Float(f64::INFINITY)])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfRange);
    let e = w.keyed_row_cell(Cell::Int(1), &[]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RowWidthMismatch);
    w.end_table().unwrap();
    w.end_section().unwrap();
    let text = w.finish().unwrap();
    assert_eq!(
        text,
        "GCF profile=generic\n## outer\n  ## m [?:]{id,v}\n  7|1\n  1.5|~\n  2|\"a|b\"\n  -9|-\n  7s|true\n##! summary counts=5\n"
    );
    // Read back as the texts of the numbers: the same value as every key
    // written as a string.
    let as_strings = text
        .replace("  7|", "  \"7\"|")
        .replace("  1.5|", "  \"1.5\"|")
        .replace("  2|", "  \"2\"|")
        .replace("  -9|", "  \"-9\"|");
    assert_ne!(as_strings, text);
    assert_eq!(
        gcf_core::generic::decode(&text).unwrap(),
        gcf_core::generic::decode(&as_strings).unwrap()
    );

    // Without an open keyed map it is the state error `keyed_row` gives.
    let mut w = writer();
    assert_eq!(
        w.keyed_row_cell(Cell::Int(1), &[]).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    w.begin_table(Some("t"), &["v"]).unwrap();
    assert_eq!(
        w.keyed_row_cell(Cell::Int(1), &[Cell::Int(2)])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidState
    );
}

#[test]
fn anonymous_root_table_and_quoting() {
    let mut w = StreamWriter::new(
        Vec::new(),
        StreamOptions::new().tool("dump").buffer_capacity(0),
    )
    .unwrap();
    w.begin_table(None, &["id", "content-type", "note"])
        .unwrap();
    w.row(&[Cell::Str("007"), Cell::Str("a|b"), Cell::Str("ERR[404]: x")])
        .unwrap();
    w.row(&[Cell::Float(-0.0), Cell::Float(5e18), Cell::Str(" pad ")])
        .unwrap();
    w.end_table().unwrap();
    let bytes = w.finish().unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "GCF profile=generic tool=dump\n## [?]{id,\"content-type\",note}\n\"007\"|\"a|b\"|\"ERR[404]: x\"\n\
         0|5e+18|\" pad \"\n##! summary counts=2\n"
    );
}

#[test]
fn callback_sink_sees_few_writes() {
    let mut calls = 0usize;
    let mut total = 0usize;
    {
        let sink = FnSink(|b: &[u8]| {
            calls += 1;
            total += b.len();
            Ok(())
        });
        let mut w = StreamWriter::new(sink, StreamOptions::new()).unwrap();
        w.begin_table(Some("t"), &["a", "b"]).unwrap();
        for i in 0..1000 {
            w.row(&[Cell::Int(i), Cell::Str("value")]).unwrap();
        }
        w.finish().unwrap();
    }
    assert!(total > 8192);
    assert!(
        calls <= total / 8192 + 1,
        "{calls} writes for {total} bytes"
    );
}

#[test]
fn errors_keep_their_kinds() {
    let mut w = writer();
    w.begin_table(Some("t"), &["a"]).unwrap();
    assert_eq!(
        w.row(&[Cell::Int(1), Cell::Int(2)]).unwrap_err().kind(),
        ErrorKind::RowWidthMismatch
    );
    let mut m = Map::new();
    m.insert("a", Value::Array(vec![Value::Int(1)]));
    assert_eq!(
        w.row_object(&m).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        w.begin_table(Some("u"), &["x"]).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    w.end_table().unwrap();
    assert_eq!(w.end_table().unwrap_err().kind(), ErrorKind::InvalidState);
    assert_eq!(
        w.finish().unwrap(),
        "GCF profile=generic\n## t [?]{a}\n##! summary counts=0\n"
    );
}

/// A `Write` the reference stream encoder can own while the test reads it.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A streamed table cannot know its constants when it writes its header, so
/// it never factors them: every row carries every cell, as the reference
/// stream encoders (the crate's and gcf-python's `GenericStreamEncoder`) do,
/// while the buffered encoder factors the same rows.
#[test]
fn streamed_tables_never_factor_constant_columns() {
    use gcf_oracle::stream_generic::GcfValue;
    let rows = [(1, "file"), (2, "file"), (3, "file")];
    let mut w = writer();
    w.begin_table(Some("files"), &["id", "type"]).unwrap();
    for (id, kind) in rows {
        w.row(&[Cell::Int(id), Cell::Str(kind)]).unwrap();
    }
    w.end_table().unwrap();
    let ours = w.finish().unwrap();

    let out = Shared::default();
    let reference = gcf_oracle::GenericStreamEncoder::new(out.clone());
    reference.begin_array("files", &["id", "type"]);
    for (id, kind) in rows {
        reference.write_row(&[GcfValue::Int(id), GcfValue::Str(kind.into())]);
    }
    reference.end_array();
    reference.close().unwrap();
    let reference = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();

    assert_eq!(ours, reference);
    assert_eq!(
        ours,
        "GCF profile=generic\n## files [?]{id,type}\n1|file\n2|file\n3|file\n##! summary counts=3\n"
    );
    let buffered: serde_json::Value = serde_json::from_str(
        r#"{"files":[{"id":1,"type":"file"},{"id":2,"type":"file"},{"id":3,"type":"file"}]}"#,
    )
    .unwrap();
    assert_eq!(
        gcf_core::generic::encode(&gcf_core::generic::from_json(&buffered).unwrap()).unwrap(),
        "GCF profile=generic\n## files [3]{id,type=file}\n1\n2\n3\n"
    );
}
