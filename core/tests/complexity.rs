//! Near-linear cost on adversarial shapes (issue 21), measured by operation
//! counts (`gcf_core::ops`: key comparisons, slot and column scans, token
//! bytes checked), never by a timer: each shape is built at 1x, 2x and 4x
//! size and the count may grow by at most a little more than the input.
//! One quadratic loop makes the 4x count sixteen times the 1x count.
//!
//! One test function: the counter is process-wide.

use gcf_core::generic::{self, Map, Value};
use gcf_core::graph::{self, Edge, Payload, Symbol};
use gcf_core::ops;

/// Counts the operations `f` performs.
fn count(f: impl FnOnce()) -> u64 {
    ops::reset();
    f();
    ops::count()
}

/// Checks that the count at 2x and 4x grows at most `slack` times linearly.
fn near_linear(shape: &str, mut at: impl FnMut(usize) -> u64) {
    const BASE: usize = 2_000;
    let counts: Vec<u64> = [1, 2, 4].iter().map(|k| at(BASE * k)).collect();
    assert!(
        counts[0] > 0,
        "{shape}: nothing was counted, so the test could not fail"
    );
    for (k, &c) in [2u64, 4].iter().zip(&counts[1..]) {
        // 1.25 * k allows hashing and rounding effects; quadratic gives k * k.
        assert!(
            c * 4 <= counts[0] * k * 5,
            "{shape}: {counts:?} operations at 1x/2x/4x grow faster than the input"
        );
    }
    eprintln!("{shape}: {counts:?}");
}

fn record(n: usize, name: impl Fn(usize) -> String) -> Map {
    let mut m = Map::new();
    for i in 0..n {
        m.push_unique(name(i).as_str(), Value::Int(i as i64));
    }
    m
}

/// Encodes `value`, decodes the text and encodes that again: the same
/// text (member order aside, which a table normalises, the value survives).
fn round_trip(value: &Value) {
    let text = generic::encode(value).unwrap();
    let back = generic::decode(&text).unwrap();
    assert!(
        generic::encode(&back).unwrap() == text,
        "re-encoding changed the text"
    );
}

#[test]
fn encoders_and_decoders_are_near_linear_on_adversarial_shapes() {
    // Wide rows: one record of n keys in a table (was quadratic in encode).
    near_linear("one wide record", |n| {
        let v = Value::Array(vec![Value::Object(record(n, |i| format!("k{i}")))]);
        count(|| round_trip(&v))
    });
    // Two wide records with their keys in opposite orders.
    near_linear("two wide records, reversed", |n| {
        let a = record(n, |i| format!("k{i}"));
        let b = record(n, |i| format!("k{}", n - 1 - i));
        let v = Value::Array(vec![Value::Object(a), Value::Object(b)]);
        count(|| {
            let text = generic::encode(&v).unwrap();
            assert_eq!(generic::decode(&text).unwrap().as_array().unwrap().len(), 2);
        })
    });
    // A wide row whose `>` names become n bare attachments (was quadratic in decode).
    near_linear("wide row of path-named attachments", |n| {
        let mut m = record(n, |i| format!("k{i}>x"));
        for i in 0..n {
            m.push_unique(format!("k{i}").as_str(), Value::Int(1));
        }
        let v = Value::Array(vec![Value::Object(m)]);
        count(|| round_trip(&v))
    });
    // A wide row of inline-schema attachments (positional bodies).
    near_linear("wide row of inline attachments", |n| {
        let mut row = Map::new();
        for i in 0..n {
            let mut inner = Map::new();
            inner.push_unique("a", Value::Int(i as i64));
            row.push_unique(format!("k{i}").as_str(), Value::Object(inner));
        }
        let v = Value::Array(vec![Value::Object(row.clone()), Value::Object(row)]);
        count(|| round_trip(&v))
    });
    // A wide array attachment (the shared-schema union).
    near_linear("wide array attachment", |n| {
        let a = record(n, |i| format!("k{i}"));
        let b = record(n, |i| format!("k{}", n - 1 - i));
        let mut row = Map::new();
        row.push_unique("x", Value::Array(vec![Value::Object(a), Value::Object(b)]));
        let v = Value::Array(vec![Value::Object(row.clone()), Value::Object(row)]);
        count(|| {
            let text = generic::encode(&v).unwrap();
            assert_eq!(generic::decode(&text).unwrap().as_array().unwrap().len(), 2);
        })
    });
    // A line of quoted strings with escapes (each escape's column was counted
    // from the line's start: quadratic), in an inline array and as one value.
    near_linear("escapes on one line", |n| {
        let array = format!(
            "GCF profile=generic\nx[{n}]: {}\n",
            vec![r#""\n""#; n].join(",")
        );
        let one = format!("GCF profile=generic\nx=\"{}\"\n", r"a\n".repeat(n));
        count(|| {
            assert_eq!(
                generic::decode(&array).unwrap().as_object().unwrap().len(),
                1
            );
            assert!(generic::decode(&one).is_ok());
        })
    });
    // Sparse records: each its own key, so a table would hold n × n cells
    // (it did: output quadratic in the input); past a million mostly
    // absent cells the array is written expanded and the object as sections.
    near_linear("sparse records and keyed maps", |n| {
        let records: Vec<Value> = (0..n)
            .map(|i| Value::Object(record(1, |_| format!("k{i}"))))
            .collect();
        let mut keyed = Map::new();
        for i in 0..n {
            keyed.push_unique(
                format!("m{i}").as_str(),
                Value::Object(record(1, |_| format!("k{i}"))),
            );
        }
        let v = Value::Array(records);
        let m = Value::Object(keyed);
        count(|| {
            let text = generic::encode(&v).unwrap();
            assert!(
                text.len() < 64 * n,
                "{} bytes for {n} one-key records",
                text.len()
            );
            round_trip(&v);
            let text = generic::encode(&m).unwrap();
            assert!(
                text.len() < 64 * n,
                "{} bytes for {n} one-key members",
                text.len()
            );
            round_trip(&m);
        })
    });
    // Many sections, each a small object.
    near_linear("many sections", |n| {
        let mut m = Map::new();
        for i in 0..n {
            let mut inner = Map::new();
            inner.push_unique("x", Value::Int(1));
            inner.push_unique("y", Value::Array(vec![]));
            m.push_unique(format!("s{i}").as_str(), Value::Object(inner));
        }
        let v = Value::Object(m);
        count(|| round_trip(&v))
    });
    // Long names: keys and values of n bytes.
    near_linear("long names", |n| {
        let mut m = Map::new();
        for i in 0..8 {
            m.push_unique(
                format!("{i}{}", "k".repeat(n * 8)).as_str(),
                Value::from("v".repeat(n)),
            );
        }
        let v = Value::Array(vec![Value::Object(m.clone()), Value::Object(m)]);
        count(|| round_trip(&v))
    });
    // Deep nesting at the limit, repeated n / 100 times side by side.
    near_linear("deep values at the depth limit", |n| {
        let mut deep = Value::Int(1);
        // 42 objects and 42 arrays of one object: 126 levels, 127 with the root.
        for i in 0..84 {
            let mut m = Map::new();
            m.push_unique(format!("d{}", i % 3).as_str(), deep);
            deep = if i % 2 == 0 {
                Value::Object(m)
            } else {
                Value::Array(vec![Value::Object(m)])
            };
        }
        let mut wide = Map::new();
        for i in 0..n / 100 {
            wide.push_unique(format!("w{i}").as_str(), deep.clone());
        }
        let v = Value::Object(wide);
        count(|| round_trip(&v))
    });
    // The generic stream writer's row objects: wide, in order and reversed.
    near_linear("stream writer, wide row objects", |n| {
        let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        let fields: Vec<&str> = names.iter().map(String::as_str).collect();
        let forward = record(n, |i| format!("k{i}"));
        let reversed = record(n, |i| format!("k{}", n - 1 - i));
        count(|| {
            let options = generic::StreamOptions::new();
            let mut w = generic::StreamWriter::new(String::new(), options).unwrap();
            w.begin_table(Some("t"), &fields).unwrap();
            w.row_object(&forward).unwrap();
            w.row_object(&reversed).unwrap();
            w.end_table().unwrap();
            let text = w.finish().unwrap();
            assert_eq!(
                generic::decode(&text).unwrap().as_object().unwrap().len(),
                1
            );
        })
    });
    // Constant columns (§7.4.7): a declaration of n constants.
    near_linear("wide constant declaration", |n| {
        let mut a = record(n, |i| format!("k{i}"));
        let mut b = a.clone();
        a.push_unique("x", Value::Int(1));
        b.push_unique("x", Value::Int(2));
        let v = Value::Array(vec![Value::Object(a), Value::Object(b)]);
        count(|| {
            let text = generic::encode(&v).unwrap();
            assert!(text.contains("k1=1,"), "the constants are factored");
            round_trip(&v);
        })
    });
    // Value groups (§7.4.8): wide records, the second with its keys reversed.
    let grouped = |v: &Value| {
        let text = generic::encode_grouped(v, "id", "g").unwrap();
        let back = generic::decode(&text).unwrap();
        assert_eq!(
            back.as_array().map(<[_]>::len),
            v.as_array().map(<[_]>::len)
        );
        assert_eq!(generic::encode_grouped(&back, "id", "g").unwrap(), text);
    };
    let keyed = |id: usize, g: usize, m: Map| {
        let mut r = Map::new();
        r.push_unique("id", Value::Int(id as i64));
        r.push_unique("g", Value::Int(g as i64));
        for (k, v) in m.iter() {
            r.push_unique(k, v.clone());
        }
        Value::Object(r)
    };
    near_linear("grouped, two wide records, reversed", |n| {
        let a = keyed(1, 0, record(n, |i| format!("k{i}")));
        // `g` and `id` last: no row but the first holds the union in order.
        let mut b = record(n, |i| format!("k{}", n - 1 - i));
        b.push_unique("g", Value::Int(1));
        b.push_unique("id", Value::Int(2));
        let v = Value::Array(vec![a, Value::Object(b)]);
        count(|| grouped(&v))
    });
    near_linear("grouped, a group per record", |n| {
        let v = Value::Array(
            (0..n)
                .map(|i| keyed(i, i, record(2, |j| format!("v{j}"))))
                .collect(),
        );
        count(|| grouped(&v))
    });
    near_linear("grouped, one group of many records", |n| {
        let v = Value::Array(
            (0..n)
                .map(|i| keyed(i, 0, record(2, |j| format!("v{j}"))))
                .collect(),
        );
        count(|| grouped(&v))
    });
    near_linear(
        "grouped, refused: a wide record with a nested value last",
        |n| {
            let Value::Object(mut r) = keyed(1, 0, record(n, |i| format!("k{i}"))) else {
                unreachable!()
            };
            r.push_unique("nested", Value::Array(vec![]));
            let v = Value::Array(vec![Value::Object(r)]);
            count(|| {
                let e = generic::encode_grouped(&v, "id", "g").unwrap_err();
                assert!(e.to_string().contains("nested"), "{e}");
            })
        },
    );
    // Many distinct labels: graph kinds, provenances and edge types.
    // A header of n pairs (its duplicate check was a scan of the pairs
    // before each: a 200,000-pair header took a minute).
    near_linear("header of many pairs", |n| {
        let pairs: Vec<String> = (0..n).map(|i| format!("k{i}=v")).collect();
        let text = format!("GCF profile=generic {}\nx=1\n", pairs.join(" "));
        count(|| assert!(generic::decode(&text).is_ok()))
    });
    // A keyed set of n fields, written as a full delta payload (its schema
    // check scanned the earlier fields for each).
    near_linear("keyed set of a wide schema", |n| {
        let set = generic::KeyedSet {
            name: String::from("t"),
            key: String::from("k0"),
            fields: (0..n).map(|i| format!("k{i}")).collect(),
            rows: vec![record(n, |i| format!("k{i}"))],
        };
        let mut next = set.clone();
        next.rows.push(record(n, |i| format!("k{i}")));
        next.rows[1].insert("k0", Value::Int(-1));
        count(|| {
            assert!(generic::encode_full(&set, "t").is_ok());
            let delta = generic::diff(&set, &next).unwrap().unwrap();
            let text = generic::encode_delta(&delta).unwrap();
            assert_eq!(generic::apply_delta(&set, &text).unwrap().rows.len(), 2);
        })
    });
    near_linear("graph with distinct labels", |n| {
        let names: Vec<String> = (0..n).map(|i| format!("pkg.S{i}")).collect();
        let kinds: Vec<String> = (0..n).map(|i| format!("kind{i}")).collect();
        let provs: Vec<String> = (0..n).map(|i| format!("prov{i}")).collect();
        let types: Vec<String> = (0..n).map(|i| format!("type{i}")).collect();
        let p = Payload {
            tool: "t",
            symbols: (0..n)
                .map(|i| {
                    Symbol::new(
                        names[i].as_str(),
                        kinds[i].as_str(),
                        0.5,
                        provs[i].as_str(),
                        (i % 7) as u32,
                    )
                })
                .collect(),
            edges: (0..n)
                .map(|i| {
                    Edge::new(
                        names[i].as_str(),
                        names[(i * 7 + 3) % n].as_str(),
                        types[i].as_str(),
                    )
                })
                .collect(),
            ..Payload::default()
        };
        count(|| {
            let text = graph::encode(&p).unwrap();
            assert_eq!(graph::decode(&text).unwrap().symbols.len(), n);
        })
    });
    // A wide map through serde (`generic::to_value`), and a wide JSON object
    // read into a `Value` through serde: each member is checked against the
    // ones before it for a repeated key (an index past a few members).
    near_linear("wide map through serde", |n| {
        let map: std::collections::BTreeMap<String, usize> =
            (0..n).map(|i| (format!("k{i:08}"), i)).collect();
        count(|| {
            let v = generic::to_value(&map).unwrap();
            assert_eq!(v.as_object().unwrap().len(), n);
        })
    });
    near_linear("wide JSON object into a Value through serde", |n| {
        let text = format!(
            "{{{}}}",
            (0..n)
                .map(|i| format!("\"k{i}\": {i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        count(|| {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v.as_object().unwrap().len(), n);
        })
    });
}
