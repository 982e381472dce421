//! Property tests of the generic profile over seeded random values:
//! `decode(encode(v))` equals `v` structurally, and re-encoding the decoded
//! value reproduces the text byte for byte; the streaming writer's rows decode
//! back to themselves; `Value::structurally_eq` ignores member order and
//! nothing else.
//!
//! `GCF_PROPTEST_CASES` scales every property (the default keeps a debug
//! `cargo test` quick); `GCF_PROPTEST_SEED` moves the seed range. A failure
//! prints the seed, which reproduces it alone with `GCF_PROPTEST_CASES=1`.

mod support;

use gcf_core::generic::{self, Cell, Map, StreamOptions, StreamWriter, Value};
use gcf_core::Limits;
use support::{cases, key, nesting, same_value, scalar, string, Rng, ValueGen};

/// Values per `cargo test` run, split over the shards below so the harness
/// runs them in parallel.
const VALUES_PER_RUN: usize = 100_000;
const SHARDS: u64 = 4;
/// Chains stay this far below the default depth limit.
const DEPTH_MARGIN: usize = 8;

fn first_seed() -> u64 {
    std::env::var("GCF_PROPTEST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6763_6600)
}

/// One case: every seed makes its own value.
fn generate(seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let mut gen = ValueGen { rng: &mut rng };
    if gen.rng.chance(1) {
        let max = Limits::default().max_depth - DEPTH_MARGIN;
        let levels = max / 2 + gen.rng.below(max as u64 / 2 + 1) as usize;
        gen.chain(levels)
    } else {
        gen.value(5)
    }
}

/// Both encodings round-trip through this crate's decoder and re-encode to
/// the same text: the default (constant columns factored) and the one
/// without factoring. Where they differ, the reference decoder (`gcf` 3.1.0)
/// must also read the factored text as the same value.
fn check_round_trip(value: &Value) -> Result<(), String> {
    let factored = generic::Encoder::new();
    let unfactored = generic::Encoder::new().constant_columns(false);
    let default_text = factored
        .encode(value)
        .map_err(|e| format!("encode failed: {e}"))?;
    let plain_text = unfactored
        .encode(value)
        .map_err(|e| format!("encode failed: {e}"))?;
    if default_text != plain_text {
        let back = gcf_oracle::decode_generic(&default_text)
            .map_err(|e| format!("reference decode failed: {e}\n{default_text}"))
            .and_then(|j| generic::from_json(&j).map_err(|e| e.to_string()))?;
        if !same_value(&back, value) {
            return Err(format!(
                "the reference decodes factored output differently\nwire:\n{default_text}decoded: {back:?}"
            ));
        }
    }
    for (encoder, text) in [(&factored, &default_text), (&unfactored, &plain_text)] {
        let back = generic::decode(text).map_err(|e| format!("decode failed: {e}\n{text}"))?;
        if !same_value(&back, value) {
            return Err(format!(
                "decode(encode(v)) differs\nwire:\n{text}decoded: {back:?}"
            ));
        }
        let again = encoder
            .encode(&back)
            .map_err(|e| format!("re-encode failed: {e}"))?;
        if &again != text {
            return Err(format!(
                "encode(decode(encode(v))) differs\nfirst:\n{text}second:\n{again}"
            ));
        }
    }
    Ok(())
}

fn round_trip_shard(shard: u64) {
    let total = cases(VALUES_PER_RUN) as u64;
    let per_shard = total.div_ceil(SHARDS);
    let start = first_seed().wrapping_add(shard * per_shard);
    let mut deepest = 0;
    for i in 0..per_shard.min(total.saturating_sub(shard * per_shard)) {
        let seed = start.wrapping_add(i);
        let value = generate(seed);
        deepest = deepest.max(nesting(&value));
        if let Err(why) = check_round_trip(&value) {
            panic!(
                "seed {seed} (rerun with GCF_PROPTEST_SEED={seed} GCF_PROPTEST_CASES=1): {why}\nvalue: {value:?}"
            );
        }
        // Dropping a deep chain recurses once per level: fine at this depth.
    }
    if per_shard >= 10_000 {
        assert!(
            deepest >= Limits::default().max_depth / 2,
            "no deep values generated (deepest {deepest})"
        );
    }
}

#[test]
fn round_trip_shard_0() {
    round_trip_shard(0);
}

#[test]
fn round_trip_shard_1() {
    round_trip_shard(1);
}

#[test]
fn round_trip_shard_2() {
    round_trip_shard(2);
}

#[test]
fn round_trip_shard_3() {
    round_trip_shard(3);
}

/// Values the generator reaches only by chance, pinned.
#[test]
fn pinned_values_round_trip() {
    let mut m = Map::new();
    m.insert("", Value::from("^{a}"));
    m.insert("a>b", Value::Int(i64::MIN));
    m.insert(">", Value::Float(-0.0));
    m.insert("x", Value::Float(5e-324));
    m.insert("y", Value::Float(1.797_693_134_862_315_7e308));
    m.insert("z", Value::Float(9_007_199_254_740_992.0));
    m.insert("|\u{301}", Value::from(",\u{bd7}"));
    m.insert("bidi", Value::from("\u{202e}abc\u{2066}"));
    m.insert("e", Value::Array(vec![Value::Object(Map::new())]));
    check_round_trip(&Value::Object(m)).unwrap();
}

/// One table written through the streaming writer.
struct StreamTable {
    name: Option<String>,
    keyed: bool,
    fields: Vec<String>,
    /// Keyed-map member keys (unique), one per row when `keyed`.
    keys: Vec<String>,
    rows: Vec<Vec<Value>>,
    /// Which cells are `~` (absent).
    missing: Vec<Vec<bool>>,
}

fn stream_tables(rng: &mut Rng) -> Vec<StreamTable> {
    let anonymous = rng.chance(15);
    let count = if anonymous { 1 } else { rng.below(4) as usize };
    let mut names: Vec<String> = Vec::new();
    let mut tables = Vec::new();
    for _ in 0..count {
        let name = loop {
            let n = key(rng);
            if !names.contains(&n) {
                break n;
            }
        };
        names.push(name.clone());
        let keyed = rng.chance(30);
        let mut fields: Vec<String> = Vec::new();
        for _ in 0..1 + rng.below(5) {
            let f = key(rng);
            if !f.contains('>') && !fields.contains(&f) {
                fields.push(f);
            }
        }
        if fields.is_empty() {
            fields.push("v".into());
        }
        let mut keys: Vec<String> = Vec::new();
        let (mut rows, mut missing) = (Vec::new(), Vec::new());
        for _ in 0..rng.below(12) {
            if keyed {
                let k = string(rng);
                if keys.contains(&k) {
                    continue;
                }
                keys.push(k);
            }
            let cells: Vec<Value> = fields.iter().map(|_| scalar(rng)).collect();
            missing.push(fields.iter().map(|_| rng.chance(15)).collect());
            rows.push(cells);
        }
        tables.push(StreamTable {
            name: (!anonymous).then_some(name),
            keyed,
            fields,
            keys,
            rows,
            missing,
        });
    }
    tables
}

fn expected_row(table: &StreamTable, r: usize) -> Value {
    let mut m = Map::new();
    for (c, field) in table.fields.iter().enumerate() {
        if !table.missing[r][c] {
            m.insert(field.as_str(), table.rows[r][c].clone());
        }
    }
    Value::Object(m)
}

fn stream_case(seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let tables = stream_tables(&mut rng);
    let mut w = StreamWriter::new(String::new(), StreamOptions::new().buffer_capacity(64))
        .map_err(|e| e.to_string())?;
    let mut expected = Map::new();
    let mut anonymous = None;
    let named = tables.iter().all(|t| t.name.is_some());
    let taken = |name: &str| tables.iter().any(|t| t.name.as_deref() == Some(name));
    if named && rng.chance(30) {
        let k = (0..).map(|i| format!("f{i}")).find(|k| !taken(k)).unwrap();
        let v = scalar(&mut rng);
        w.field_value(&k, &v).map_err(|e| e.to_string())?;
        expected.insert(k, v);
    }
    // Sometimes the tables sit in a section: indented rows and headers.
    let section = (named && rng.chance(30))
        .then(|| (0..).map(|i| format!("s{i}")).find(|k| !taken(k)).unwrap());
    if let Some(name) = &section {
        w.begin_section(name).map_err(|e| e.to_string())?;
    }
    let mut inner = Map::new();
    for table in &tables {
        let fields: Vec<&str> = table.fields.iter().map(String::as_str).collect();
        if table.keyed {
            w.begin_keyed_map(table.name.as_deref(), &fields)
        } else {
            w.begin_table(table.name.as_deref(), &fields)
        }
        .map_err(|e| e.to_string())?;
        for (r, cells) in table.rows.iter().enumerate() {
            let cells: Vec<Cell> = cells
                .iter()
                .zip(&table.missing[r])
                .map(|(v, &absent)| {
                    if absent {
                        Cell::Missing
                    } else {
                        Cell::from_value(v).expect("scalar")
                    }
                })
                .collect();
            if table.keyed {
                w.keyed_row(&table.keys[r], &cells)
            } else {
                w.row(&cells)
            }
            .map_err(|e| format!("row {r}: {e}"))?;
        }
        w.end_table().map_err(|e| e.to_string())?;
        let value = if table.keyed {
            let mut m = Map::new();
            for r in 0..table.rows.len() {
                m.insert(table.keys[r].as_str(), expected_row(table, r));
            }
            Value::Object(m)
        } else {
            Value::Array(
                (0..table.rows.len())
                    .map(|r| expected_row(table, r))
                    .collect(),
            )
        };
        match &table.name {
            Some(name) => {
                inner.insert(name.as_str(), value);
            }
            None => anonymous = Some(value),
        }
    }
    match section {
        Some(name) => {
            w.end_section().map_err(|e| e.to_string())?;
            expected.insert(name, Value::Object(inner));
        }
        None => {
            for (k, v) in inner.into_vec() {
                expected.insert(k, v);
            }
        }
    }
    let text = w.finish().map_err(|e| e.to_string())?;
    let expected = anonymous.unwrap_or(Value::Object(expected));
    let back = generic::decode(&text).map_err(|e| format!("decode failed: {e}\n{text}"))?;
    if !same_value(&back, &expected) {
        return Err(format!(
            "stream rows differ\nwire:\n{text}decoded: {back:?}\nexpected: {expected:?}"
        ));
    }
    Ok(())
}

#[test]
fn streamed_rows_decode_back() {
    let start = first_seed() ^ 0x5eed;
    for i in 0..cases(VALUES_PER_RUN / 10) as u64 {
        let seed = start.wrapping_add(i);
        if let Err(why) = stream_case(seed) {
            panic!("stream seed {seed}: {why}");
        }
    }
}

/// The generator's corners are reached: a quick guard that a refactor of the
/// generator does not silently stop exercising a form.
#[test]
fn generator_reaches_every_form() {
    let mut wire = String::new();
    for seed in 0..3000 {
        let v = generate(first_seed().wrapping_add(seed));
        wire.push_str(&generic::encode(&v).unwrap());
    }
    for (needle, form) in [
        ("]{", "tabular"),
        (":]{", "keyed map"),
        ("^{", "inline schema"),
        ("|~", "absent cell"),
        ("\n.", "attachment"),
        (">", "flattened path"),
        ("@0 ", "expanded item"),
        ("[0]", "empty array"),
        ("{}", "empty object"),
        ("\"\"", "empty string or key"),
    ] {
        assert!(wire.contains(needle), "no {form} ({needle:?}) generated");
    }
}

/// At the default depth limit the encoder and the decoder agree: whatever
/// encodes decodes, and one level more is refused by the encoder.
#[test]
fn depth_limit_is_symmetric() {
    let max = Limits::default().max_depth;
    for levels in max - 2..=max + 2 {
        for seed in 0..40u64 {
            let mut rng = Rng::new(first_seed() ^ (seed << 8) ^ levels as u64);
            let value = ValueGen { rng: &mut rng }.chain(levels);
            let depth = nesting(&value);
            match generic::Encoder::new()
                .constant_columns(false)
                .encode(&value)
            {
                Ok(text) => {
                    assert!(depth <= max, "nesting {depth} encoded");
                    let back = generic::decode(&text)
                        .unwrap_or_else(|e| panic!("nesting {depth}: {e}\n{text}"));
                    assert!(same_value(&back, &value), "nesting {depth}");
                }
                Err(e) => {
                    assert!(depth > max, "nesting {depth} refused: {e}");
                    assert_eq!(e.kind(), gcf_core::ErrorKind::LimitExceeded);
                }
            }
        }
    }
}

/// Limits of a decoder set at random, each either the default or small
/// enough that some inputs pass it and some do not.
fn random_limits(rng: &mut Rng, text_len: usize) -> Limits {
    let mut l = Limits::default();
    let pick = |rng: &mut Rng, small: u64| -> Option<usize> {
        rng.chance(40).then(|| 1 + rng.below(small) as usize)
    };
    if let Some(n) = pick(rng, 8) {
        l.max_depth = n;
    }
    if let Some(n) = pick(rng, 12) {
        l.max_container_len = n;
    }
    if let Some(n) = pick(rng, 80) {
        l.max_line_len = n;
    }
    if let Some(n) = pick(rng, 6) {
        l.max_fields = n;
    }
    if let Some(n) = pick(rng, text_len as u64 + 8) {
        l.max_input_len = n;
    }
    if let Some(n) = pick(rng, 64) {
        l.max_expansion = n;
        l.max_expansion_ratio = rng.below(2) as usize;
    }
    l
}

/// Each member of `a` at least that of `b`.
fn at_least(a: &Limits, b: &Limits) -> bool {
    a.max_depth >= b.max_depth
        && a.max_container_len >= b.max_container_len
        && a.max_line_len >= b.max_line_len
        && a.max_fields >= b.max_fields
        && a.max_input_len >= b.max_input_len
        && a.max_expansion >= b.max_expansion
        && a.max_expansion_ratio >= b.max_expansion_ratio
}

/// A caller's limits change what a decode accepts, never what it returns:
/// under any limits, a valid document decodes to the value the defaults
/// give or fails with `limit_exceeded`, and limits that accept it stay
/// accepting when every one of them is raised (the bindings' `limits`
/// options rest on this: `gcf_bind::options::DecodeLimits`).
#[test]
fn caller_limits_refuse_or_decode_the_same() {
    let n = cases(2_000);
    let mut refused = 0;
    for i in 0..n as u64 {
        let seed = first_seed() ^ (i << 20) ^ 0x4c49_4d00;
        let value = generate(seed);
        let Ok(text) = generic::Encoder::new().encode(&value) else {
            continue;
        };
        let whole = generic::decode(&text).expect("a written document decodes");
        let mut rng = Rng::new(seed);
        let tight = random_limits(&mut rng, text.len());
        let looser = {
            let mut l = random_limits(&mut rng, text.len());
            l.max_depth = l.max_depth.max(tight.max_depth);
            l.max_container_len = l.max_container_len.max(tight.max_container_len);
            l.max_line_len = l.max_line_len.max(tight.max_line_len);
            l.max_fields = l.max_fields.max(tight.max_fields);
            l.max_input_len = l.max_input_len.max(tight.max_input_len);
            l.max_expansion = l.max_expansion.max(tight.max_expansion);
            l.max_expansion_ratio = l.max_expansion_ratio.max(tight.max_expansion_ratio);
            l
        };
        assert!(at_least(&looser, &tight));
        let under = |l: &Limits| generic::Decoder::new().limits(*l).decode(&text);
        match under(&tight) {
            Ok(v) => {
                assert!(same_value(&v, &whole), "seed {seed}: {tight:?}\n{text}");
                let v = under(&looser).unwrap_or_else(|e| {
                    panic!(
                        "seed {seed}: looser {looser:?} refused what {tight:?} took: {e}\n{text}"
                    )
                });
                assert!(same_value(&v, &whole), "seed {seed}");
            }
            Err(e) => {
                refused += 1;
                assert_eq!(
                    e.kind(),
                    gcf_core::ErrorKind::LimitExceeded,
                    "seed {seed}: {tight:?}: {e}\n{text}"
                );
            }
        }
    }
    // The limits are small enough to refuse some documents, not all.
    assert!(refused > n / 20 && refused < n, "{refused} of {n} refused");
}

/// `v` with every object's members in reverse order, at every depth.
fn members_reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut members: Vec<(String, Value)> = m
                .iter()
                .map(|(k, v)| (k.to_owned(), members_reversed(v)))
                .collect();
            members.reverse();
            Value::Object(members.into_iter().collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(members_reversed).collect()),
        other => other.clone(),
    }
}

/// `v` with its `n`-th scalar leaf (depth first, modulo the leaves there
/// are) replaced by a value of another kind or text; `None` when `v` holds
/// no scalar.
fn one_leaf_changed(v: &Value, n: &mut usize, leaves: usize) -> Option<Value> {
    fn walk(v: &Value, at: &mut usize, target: usize) -> (Value, bool) {
        match v {
            Value::Object(m) => {
                let mut changed = false;
                let members: Vec<(String, Value)> = m
                    .iter()
                    .map(|(k, v)| {
                        let (v, c) = if changed {
                            (v.clone(), false)
                        } else {
                            walk(v, at, target)
                        };
                        changed |= c;
                        (k.to_owned(), v)
                    })
                    .collect();
                (Value::Object(members.into_iter().collect()), changed)
            }
            Value::Array(a) => {
                let mut changed = false;
                let items = a
                    .iter()
                    .map(|v| {
                        let (v, c) = if changed {
                            (v.clone(), false)
                        } else {
                            walk(v, at, target)
                        };
                        changed |= c;
                        v
                    })
                    .collect();
                (Value::Array(items), changed)
            }
            scalar => {
                *at += 1;
                if *at - 1 != target {
                    return (scalar.clone(), false);
                }
                let other = match scalar {
                    Value::String(s) => Value::from(format!("{}~", s.as_str())),
                    Value::Null => Value::Bool(false),
                    _ => Value::Null,
                };
                (other, true)
            }
        }
    }
    if leaves == 0 {
        return None;
    }
    let (changed, done) = walk(v, &mut 0, *n % leaves);
    *n += 1;
    done.then_some(changed)
}

fn leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(leaves).sum(),
        Value::Array(a) => a.iter().map(leaves).sum(),
        _ => 1,
    }
}

/// `Value::structurally_eq` ignores member order at every depth and sees
/// any one changed leaf; `==` sees member order.
#[test]
fn structural_equality_ignores_member_order_and_nothing_else() {
    let start = first_seed() ^ 0x57_2e_c7;
    let mut n = 0usize;
    for i in 0..cases(VALUES_PER_RUN / 20) as u64 {
        let seed = start + i;
        let value = generate(seed);
        let reversed = members_reversed(&value);
        assert!(value.structurally_eq(&reversed), "seed {seed}");
        assert!(reversed.structurally_eq(&value), "seed {seed}");
        if let Some(changed) = one_leaf_changed(&value, &mut n, leaves(&value)) {
            assert!(!value.structurally_eq(&changed), "seed {seed}");
            assert!(
                !members_reversed(&changed).structurally_eq(&value),
                "seed {seed}"
            );
        }
    }
}
