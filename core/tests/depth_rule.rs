//! One depth rule for every reader and writer of the generic profile.
//!
//! The depth of a value is the number of containers (objects and arrays) on
//! its deepest path from the root, the root container counting 1 and a
//! scalar 0; a document's top-level `key=value` lines are its root object.
//! [`Limits::max_depth`] bounds it on every side: the encoder, the decoder
//! (a section, an expanded item, a table row, a keyed-map member, an
//! attachment, an inline schema's body and each `>` of a path column all
//! count one level), and the serde_json bridge. So for each container shape
//! below, the deepest value allowed encodes, decodes back equal and
//! re-encodes byte for byte, and one level deeper is `limit_exceeded` on
//! both sides (with its line and column when it comes from text).

mod support;

use gcf_core::generic::{self, Map, Value};
use gcf_core::{ErrorKind, Limits};
use support::{cases, nesting, same_value, Rng, ValueGen};

fn limit() -> usize {
    Limits::default().max_depth
}

fn object(members: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in members {
        m.push_unique(k, v);
    }
    Value::Object(m)
}

/// Wraps `v` (of depth `inner`) in containers up to depth `depth`, arrays
/// and objects alternating.
fn wrap(mut v: Value, inner: usize, depth: usize) -> Value {
    for level in inner..depth {
        v = if level % 2 == 0 {
            Value::Array(vec![v, Value::Int(2)])
        } else {
            object(vec![("a", v), ("b", Value::Int(3))])
        };
    }
    v
}

fn arrays(depth: usize) -> Value {
    let mut v = Value::Int(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// Objects in objects: `## a` sections in the text.
fn sections(depth: usize) -> Value {
    let mut v = Value::Int(1);
    for _ in 0..depth {
        v = object(vec![("a", v)]);
    }
    v
}

fn mixed(depth: usize) -> Value {
    wrap(Value::Int(1), 0, depth)
}

/// Tables in table rows: each level is an array of two rows, the deep value
/// an attachment of the first.
fn tables(depth: usize) -> Value {
    let mut v = Value::Int(1);
    let mut level = 0;
    while level + 2 <= depth {
        let deep = object(vec![("a", v), ("b", Value::Int(3))]);
        let other = object(vec![("a", Value::Int(5)), ("b", Value::Int(4))]);
        v = Value::Array(vec![deep, other]);
        level += 2;
    }
    wrap(v, level, depth)
}

/// Keyed maps in keyed-map members.
fn keyed(depth: usize) -> Value {
    let mut v = Value::Int(1);
    let mut level = 0;
    while level + 2 <= depth {
        let deep = object(vec![("a", v), ("b", Value::Int(3))]);
        let other = object(vec![("a", Value::Int(5)), ("b", Value::Int(4))]);
        v = object(vec![("k1", deep), ("k2", other)]);
        level += 2;
    }
    wrap(v, level, depth)
}

/// One table whose rows flatten a chain of objects into an `a>a>...>a`
/// path column: every `>` is a level.
fn paths(depth: usize) -> Value {
    let row = |id: i64| object(vec![("id", Value::Int(id)), ("a", sections(depth - 2))]);
    Value::Array(vec![row(1), row(2)])
}

/// A table with an inline schema `^{x,y,z}` at the deep end.
fn inline(depth: usize) -> Value {
    let p = |x: Value| object(vec![("x", x), ("y", Value::Int(2)), ("z", Value::Int(3))]);
    let nulls = object(vec![
        ("x", Value::Null),
        ("y", Value::Null),
        ("z", Value::Null),
    ]);
    let table = Value::Array(vec![
        object(vec![("id", Value::Int(1)), ("p", p(Value::Int(1)))]),
        object(vec![("id", Value::Int(2)), ("p", nulls)]),
    ]);
    wrap(table, 3, depth)
}

type Shape = fn(usize) -> Value;

const SHAPES: [(&str, Shape, &str); 7] = [
    ("arrays in arrays", arrays, "@0 [1]"),
    ("objects in objects (sections)", sections, "## a"),
    ("mixed", mixed, "## a"),
    ("tables (attachments)", tables, ".a [2]{a,b}"),
    ("keyed maps", keyed, "[2:]"),
    ("path columns", paths, "a>a>a"),
    ("inline schemas", inline, "^{x,y,z}"),
];

fn wide() -> generic::Encoder {
    generic::Encoder::new().limits(Limits {
        max_depth: limit() + 1,
        ..Limits::default()
    })
}

/// The deepest value round-trips; one deeper is refused by the encoder, the
/// decoder (with a position) and the JSON bridge.
fn check(name: &str, deepest: &Value, deeper: &Value) {
    assert_eq!(nesting(deepest), limit(), "{name}");
    assert_eq!(nesting(deeper), limit() + 1, "{name}");
    let text = generic::encode(deepest).unwrap_or_else(|e| panic!("{name}: {e}"));
    let back = generic::decode(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == *deepest, "{name}");
    assert_eq!(generic::encode(&back).unwrap(), text, "{name}");
    assert!(generic::from_json(&generic::to_json(deepest)).unwrap() == *deepest);

    let e = generic::encode(deeper).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{name}: {e}");
    let over = wide().encode(deeper).unwrap();
    let e = generic::decode(&over).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{name}: {e}");
    assert!(e.line().is_some() && e.column().is_some(), "{name}: {e}");
    let e = generic::from_json(&generic::to_json(deeper)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{name}: {e}");
}

#[test]
fn every_shape_takes_max_depth_levels_and_refuses_one_more() {
    for (name, shape, marker) in SHAPES {
        let deepest = shape(limit());
        let text = generic::encode(&deepest).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains(marker), "{name}: no {marker:?} in\n{text}");
        check(name, &deepest, &shape(limit() + 1));
    }
}

#[test]
fn a_lower_limit_moves_every_side_together() {
    let limits = Limits {
        max_depth: 9,
        ..Limits::default()
    };
    let enc = generic::Encoder::new().limits(limits);
    let dec = generic::Decoder::new().limits(limits);
    for (name, shape, _) in SHAPES {
        let text = enc
            .encode(&shape(9))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(dec.decode(&text).unwrap() == shape(9), "{name}");
        let e = enc.encode(&shape(10)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{name}");
        let e = dec
            .decode(&generic::encode(&shape(10)).unwrap())
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{name}: {e}");
    }
}

/// Random nesting shapes (arrays, members, table attachments, keyed-map
/// members) from two levels under the limit to two over it.
#[test]
fn random_shapes_near_the_limit_agree_on_both_sides() {
    for seed in 0..cases(60) as u64 {
        let mut rng = Rng::new(0xdee9 ^ seed);
        let levels = limit() - 2 + rng.below(5) as usize;
        let value = ValueGen { rng: &mut rng }.chain(levels);
        let depth = nesting(&value);
        let text = generic::Encoder::new()
            .limits(Limits {
                max_depth: 4 * limit(),
                ..Limits::default()
            })
            .encode(&value)
            .unwrap();
        let decoded = generic::decode(&text);
        let encoded = generic::encode(&value);
        let bridged = generic::from_json(&generic::to_json(&value));
        if depth <= limit() {
            assert!(same_value(&decoded.unwrap(), &value), "seed {seed}");
            assert_eq!(encoded.unwrap(), text, "seed {seed}");
            assert!(same_value(&bridged.unwrap(), &value), "seed {seed}");
        } else {
            let e = decoded.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::LimitExceeded, "seed {seed}");
            assert!(e.line().is_some(), "seed {seed}: {e}");
            assert_eq!(encoded.unwrap_err().kind(), ErrorKind::LimitExceeded);
            assert_eq!(bridged.unwrap_err().kind(), ErrorKind::LimitExceeded);
        }
    }
}

/// The stream writer counts as the decoder does: sections nest up to the
/// limit, an inline array and a table's rows are a level each, and a
/// section one deeper is refused before anything is written.
#[test]
fn the_stream_writer_writes_what_the_decoder_reads_at_the_limit() {
    use gcf_core::generic::{Cell, StreamOptions, StreamWriter};
    let writer = |sections: usize, tail: usize| -> Result<String, gcf_core::Error> {
        let mut w = StreamWriter::new(String::new(), StreamOptions::new())?;
        for _ in 0..sections {
            w.begin_section("a")?;
        }
        match tail {
            0 => w.field("x", Cell::Int(1))?,
            1 => w.inline_array("x", &[Value::Int(1)])?,
            _ => {
                w.begin_table(Some("x"), &["n", "m"])?;
                w.row(&[Cell::Int(1), Cell::Int(2)])?;
                w.end_table()?;
            }
        }
        for _ in 0..sections {
            w.end_section()?;
        }
        w.finish()
    };
    // The root object is level 1, each section one more; an inline array
    // takes one level and a table's rows two.
    for (tail, levels) in [(0, 0), (1, 1), (2, 2)] {
        let sections = limit() - 1 - levels;
        let text = writer(sections, tail).unwrap();
        let value = generic::decode(&text).unwrap_or_else(|e| panic!("tail {tail}: {e}"));
        assert_eq!(nesting(&value), limit(), "tail {tail}");
        let again = generic::encode(&value).unwrap();
        assert!(generic::decode(&again).unwrap() == value, "tail {tail}");
        let e = writer(sections + 1, tail).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "tail {tail}: {e}");
    }
}

/// A value-grouped table (§7.4.8) is always a root array of flat records:
/// two levels, which the decoder counts like any table.
#[test]
fn value_groups_count_two_levels() {
    let rec = |k: i64, g: &str| object(vec![("k", Value::Int(k)), ("g", Value::from(g))]);
    let value = Value::Array(vec![rec(1, "x"), rec(2, "y"), rec(3, "x")]);
    let text = generic::encode_grouped(&value, "k", "g").unwrap();
    assert!(text.contains("group=g"), "{text}");
    let at = |max_depth| {
        generic::Decoder::new()
            .limits(Limits {
                max_depth,
                ..Limits::default()
            })
            .decode(&text)
    };
    // Decoded in group order (1, 3, 2): compare shape and size.
    let back = at(2).unwrap();
    assert_eq!(
        (nesting(&back), back.as_array().map(<[Value]>::len)),
        (2, Some(3))
    );
    let e = at(1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.line().is_some(), "{e}");
}
