//! Both stream writers driven by structured call sequences, misuse included
//! (rows with no table, sections inside tables, wrong widths, bad names,
//! unknown ids, huge nesting): each call succeeds or fails cleanly, and
//! whatever the writer finishes decodes, under the limits it was given.
#![no_main]

use gcf_core::generic::{self, Cell, Map, StreamOptions, StreamWriter, Value};
use gcf_core::graph;
use gcf_core::Limits;
use gcf_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

fn generic_calls(b: &mut Bytes<'_>) {
    let limits = Limits {
        max_depth: 1 + b.pick(8),
        max_fields: 1 + b.pick(6),
        max_container_len: 1 + b.pick(8),
        ..Limits::default()
    };
    let options = StreamOptions::new().buffer_capacity(b.pick(64));
    let Ok(w) = StreamWriter::new(String::new(), options) else {
        return;
    };
    let mut w = w.limits(limits);
    // Keys must be unique per object and member keys per map: the writer
    // keeps O(1) memory and documents that as the caller's duty, so every
    // generated name carries a serial number, and one that still spells a
    // name made before (`"7"` + 1 and `""` + 71 are both `71`) takes the
    // next serial.
    let serial = std::cell::Cell::new(0u32);
    // Every name and member key made so far, as decoders read it.
    let used = std::cell::RefCell::new(std::collections::HashSet::new());
    let mut unique = |b: &mut Bytes<'_>| {
        let text = b.text();
        loop {
            serial.set(serial.get() + 1);
            let key = format!("{text}{}", serial.get());
            if used.borrow_mut().insert(key.clone()) {
                return key;
            }
        }
    };
    for _ in 0..b.pick(40) {
        let names = |b: &mut Bytes<'_>,
                     unique: &mut dyn FnMut(&mut Bytes<'_>) -> String|
         -> Vec<String> { (0..b.pick(5)).map(|_| unique(b)).collect() };
        let _ = match b.pick(12) {
            0 => w.field_value(&unique(b), &b.value(1)),
            1 => {
                let values: Vec<Value> = (0..b.pick(4)).map(|_| b.value(1)).collect();
                w.inline_array(&unique(b), &values)
            }
            2 | 3 => w.begin_section(&unique(b)),
            4 => w.end_section(),
            5 => {
                let fields = names(b, &mut unique);
                let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                let name = (b.pick(5) != 0).then(|| unique(b));
                w.begin_table(name.as_deref(), &fields)
            }
            6 => {
                let fields = names(b, &mut unique);
                let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                let name = (b.pick(5) != 0).then(|| unique(b));
                w.begin_keyed_map(name.as_deref(), &fields)
            }
            7 => {
                let texts: Vec<String> = (0..b.pick(5)).map(|_| b.text()).collect();
                let cells: Vec<Cell<'_>> = texts
                    .iter()
                    .map(|t| match t.len() % 5 {
                        0 => Cell::Null,
                        1 => Cell::Int(t.len() as i64),
                        2 => Cell::Float(t.len() as f64 / 3.0),
                        3 => Cell::Missing,
                        _ => Cell::Str(t),
                    })
                    .collect();
                match b.pick(3) {
                    0 => w.row(&cells),
                    1 => w.keyed_row(&unique(b), &cells),
                    _ => {
                        // A number key, written bare and read back as its
                        // text: skipped when that text was a key already
                        // (a string key's text may spell a number).
                        let n = i64::from(serial.get()) * 7 - b.pick(3) as i64;
                        serial.set(serial.get() + 1);
                        let key =
                            [Cell::Int(n), Cell::Float(n as f64 + 0.5), Cell::Null][b.pick(3)];
                        let text = match key {
                            Cell::Int(n) => n.to_string(),
                            Cell::Float(f) => format!("{f}"),
                            _ => String::new(),
                        };
                        if used.borrow_mut().insert(text) {
                            w.keyed_row_cell(key, &cells)
                        } else {
                            Ok(())
                        }
                    }
                }
            }
            8 => {
                let values: Vec<Value> = (0..b.pick(5)).map(|_| b.value(1)).collect();
                w.row_values(&values)
            }
            9 => {
                let mut m = Map::new();
                for _ in 0..b.pick(4) {
                    let k = b.text();
                    let v = b.value(1);
                    m.insert(k.as_str(), v);
                }
                if b.pick(2) == 0 {
                    w.row_object(&m)
                } else {
                    w.keyed_row_object(&unique(b), &m)
                }
            }
            10 => w.end_table(),
            _ => w.flush(),
        };
    }
    if let Ok(text) = w.finish() {
        if let Err(e) = generic::Decoder::new().limits(limits).decode(&text) {
            panic!("the generic writer wrote what its decoder refuses: {e}\n{text}");
        }
    }
}

fn graph_calls(b: &mut Bytes<'_>) {
    let options = graph::StreamOptions {
        tool: ["t", "", "a b"][b.pick(3)],
        trailer: [
            graph::TrailerForm::Positional,
            graph::TrailerForm::Labeled,
            graph::TrailerForm::Legacy,
        ][b.pick(3)],
        index_names: b.pick(2) == 0,
        ..Default::default()
    };
    let Ok(mut w) = graph::StreamWriter::new(Vec::new(), options) else {
        return;
    };
    for _ in 0..b.pick(40) {
        let _ = match b.pick(5) {
            0 | 1 => {
                let s = graph::Symbol::new(
                    b.token(),
                    b.token(),
                    b.float(),
                    b.token(),
                    b.pick(5) as u32,
                );
                w.write_symbol(&s).map(|_| ())
            }
            2 => w.write_edge(
                b.pick(8) as u64,
                b.pick(8) as u64,
                &b.token(),
                ["", "added", "x"][b.pick(3)],
            ),
            3 => w.write_edge_by_name(&b.token(), &b.token(), &b.token(), ""),
            _ => {
                let end = (b.pick(2) == 0).then(|| (b.pick(9) as u32, b.pick(9) as u32));
                w.write_location(
                    b.pick(8) as u64,
                    &b.text(),
                    b.pick(9) as u32,
                    b.pick(9) as u32,
                    end,
                )
            }
        };
    }
    if let Ok(out) = w.finish() {
        let text = String::from_utf8(out).expect("the writer writes UTF-8");
        if let Err(e) = graph::decode(&text) {
            panic!("the graph writer wrote what its decoder refuses: {e}\n{text}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    if b.pick(2) == 0 {
        generic_calls(&mut b);
    } else {
        graph_calls(&mut b);
    }
});
