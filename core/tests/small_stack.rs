//! Values at the default depth limit decode, encode and drop on a 1 MiB
//! thread stack (issue 21): the recursion per nesting level stays small
//! enough that a hostile payload at the limit cannot overflow a modest
//! stack, in a debug build too. Each shape also checks that one level more
//! is refused with `limit_exceeded` rather than recursing further.

use gcf_core::generic::{self, Map, Value};
use gcf_core::{ErrorKind, Limits};

const STACK: usize = 1 << 20;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    on_stack(STACK, f)
}

/// A chain `depth` containers deep: objects, arrays of one item, tables
/// (arrays of one object), keyed maps, in turn by `shape`.
fn chain(depth: usize, shape: usize) -> Value {
    let mut v = Value::Int(1);
    let mut level = 1; // v becomes a container at each step
    while level <= depth {
        let mut m = Map::new();
        match (shape + level) % 4 {
            0 => {
                m.push_unique("a", v);
                v = Value::Object(m);
                level += 1;
            }
            1 => {
                v = Value::Array(vec![v, Value::Int(2)]);
                level += 1;
            }
            // A table of two rows, the deep value in the first only.
            2 if level < depth => {
                m.push_unique("a", v);
                m.push_unique("b", Value::Int(3));
                let mut other = Map::new();
                other.push_unique("b", Value::Int(4));
                v = Value::Array(vec![Value::Object(m), Value::Object(other)]);
                level += 2;
            }
            // A keyed map of two members, the deep value in the first only.
            _ if level < depth => {
                let mut inner = Map::new();
                inner.push_unique("a", v);
                inner.push_unique("b", Value::Int(3));
                let mut other = Map::new();
                other.push_unique("b", Value::Int(4));
                m.push_unique("k1", Value::Object(inner));
                m.push_unique("k2", Value::Object(other));
                v = Value::Object(m);
                level += 2;
            }
            _ => {
                m.push_unique("a", v);
                v = Value::Object(m);
                level += 1;
            }
        }
    }
    v
}

fn depth_of(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(depth_of).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn values_at_the_depth_limit_fit_a_one_mebibyte_stack() {
    let limit = Limits::default().max_depth;
    for shape in 0..4 {
        let value = chain(limit, shape);
        assert_eq!(depth_of(&value), limit, "shape {shape}");
        let text = generic::encode(&value).unwrap();
        let (back_ok, re_encoded) = on_small_stack(move || {
            let back = generic::decode(&text).unwrap();
            let again = generic::encode(&back).unwrap();
            let ok = again == text;
            drop(back);
            (ok, again.len())
        });
        assert!(back_ok && re_encoded > 0, "shape {shape}");
        // One level deeper is refused on both sides, on the small stack too.
        let deeper = chain(limit + 1, shape);
        let over = generic::Encoder::new()
            .limits(Limits {
                max_depth: limit + 1,
                ..Limits::default()
            })
            .encode(&deeper)
            .unwrap();
        let kinds = on_small_stack(move || {
            let decoded = generic::decode(&over).map(|_| ()).map_err(|e| e.kind());
            let encoded = generic::encode(&deeper).map(|_| ()).map_err(|e| e.kind());
            (decoded, encoded)
        });
        assert_eq!(
            kinds,
            (Err(ErrorKind::LimitExceeded), Err(ErrorKind::LimitExceeded)),
            "shape {shape}"
        );
    }
}

#[test]
fn deep_json_bridges_fit_a_one_mebibyte_stack() {
    let value = chain(Limits::default().max_depth, 0);
    on_small_stack(move || {
        let json = generic::to_json(&value);
        let back = generic::from_json(&json).unwrap();
        assert!(back == value);
        drop(json);
    });
}

/// `depth` levels: objects `{"a": ...}` around a two-row table with a
/// constant column (§7.4.7), which the encoder factors.
fn chain_to_constant_table(depth: usize) -> Value {
    let row = |id: i64| {
        let mut m = Map::new();
        m.push_unique("id", Value::Int(id));
        m.push_unique("kind", Value::from("file"));
        Value::Object(m)
    };
    let mut v = Value::Array(vec![row(1), row(2)]);
    for _ in 0..depth - 2 {
        let mut m = Map::new();
        m.push_unique("a", v);
        v = Value::Object(m);
    }
    v
}

/// Sections `## a` nested `sections` deep around a value-grouped table
/// (§7.4.8), which only a decoder meets there.
fn sections_to_grouped_table(sections: usize) -> String {
    let mut text = String::from("GCF profile=generic\n");
    for level in 0..sections {
        text.push_str(&format!("{}## a\n", "  ".repeat(level)));
    }
    let pad = "  ".repeat(sections);
    text.push_str(&format!(
        "{pad}## t [2]{{@id,g,kind=file}} group=g\n{pad}g=x [2]\n{pad}1\n{pad}2\n"
    ));
    text
}

#[test]
fn constant_and_grouped_tables_at_the_depth_limit_fit_a_one_mebibyte_stack() {
    let limit = Limits::default().max_depth;
    let value = chain_to_constant_table(limit);
    assert_eq!(depth_of(&value), limit);
    let text = generic::encode(&value).unwrap();
    assert!(text.contains("{id,kind=file}"), "the constant is factored");
    let deeper = generic::Encoder::new()
        .limits(Limits {
            max_depth: limit + 1,
            ..Limits::default()
        })
        .encode(&chain_to_constant_table(limit + 1))
        .unwrap();
    // The root object, the sections, the table and its records: `limit`
    // levels with `limit - 3` sections.
    let grouped = sections_to_grouped_table(limit - 3);
    let grouped_deeper = sections_to_grouped_table(limit - 2);
    let (back, over, grouped, grouped_over) = on_small_stack(move || {
        let back = generic::decode(&text).map(|v| generic::encode(&v).unwrap() == text);
        let over = generic::decode(&deeper).map(|_| ()).map_err(|e| e.kind());
        let grouped = generic::decode(&grouped).map(|v| depth_of(&v));
        let grouped_over = generic::decode(&grouped_deeper)
            .map(|_| ())
            .map_err(|e| e.kind());
        (back, over, grouped, grouped_over)
    });
    assert_eq!(back.ok(), Some(true), "decodes and re-encodes the same");
    assert_eq!(over, Err(ErrorKind::LimitExceeded));
    assert_eq!(grouped.ok(), Some(limit));
    assert_eq!(grouped_over, Err(ErrorKind::LimitExceeded));
}

/// `f` on a thread of `stack` bytes.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow")
}

/// `Some(true)` when `r` is `Ok(expected)`, `Some(false)` when it is the
/// stack's `limit_exceeded`, `None` for anything else.
fn same_or_stack_limit<T: PartialEq>(r: Result<T, gcf_core::Error>, expected: &T) -> Option<bool> {
    match r {
        Ok(v) => (v == *expected).then_some(true),
        Err(e) => {
            (e.kind() == ErrorKind::LimitExceeded && e.message().contains("stack")).then_some(false)
        }
    }
}

/// Threads far smaller than 1 MiB (a musl thread has 128 KiB; a program may
/// ask for less): a value at the depth limit is decoded, encoded and
/// bridged from JSON as on a large stack, or refused with `limit_exceeded`
/// where the stack runs short (`gcf_core::stack`), never overflowing it.
#[test]
fn a_small_stack_refuses_what_it_cannot_hold_instead_of_overflowing() {
    let limit = Limits::default().max_depth;
    let mut refusals = Vec::new();
    for stack in [64 << 10, 96 << 10, 128 << 10, 192 << 10, 256 << 10] {
        let mut refused = 0;
        for shape in 0..4 {
            let value = chain(limit, shape);
            let text = generic::encode(&value).unwrap();
            let json = generic::to_json(&value);
            let outcomes = on_stack(stack, move || {
                let decoded = generic::decode(&text);
                let round_trip = decoded
                    .as_ref()
                    .map(|v| generic::encode(v).ok() == Some(text.clone()));
                [
                    same_or_stack_limit(round_trip.map_err(Clone::clone), &true),
                    same_or_stack_limit(generic::encode(&value), &text),
                    same_or_stack_limit(generic::from_json(&json).map(|b| b == value), &true),
                ]
            });
            for (op, outcome) in ["decode", "encode", "from_json"].iter().zip(outcomes) {
                assert!(outcome.is_some(), "{stack}: {op} of shape {shape}");
                refused += usize::from(outcome == Some(false));
            }
        }
        refusals.push(refused);
    }
    // The smallest stack cannot hold every walk at the limit: the check,
    // not luck, kept these threads alive.
    assert!(refusals[0] > 0, "{refusals:?}");
}
