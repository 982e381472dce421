//! The seed corpus of the `constants_groups` fuzz target, generated from this
//! crate's own encoder with constant columns (§7.4.7) and value groups
//! (§7.4.8) on, plus hand-written texts of the forms only a decoder meets
//! (constants in keyed maps, attachments, inline and shared schemas; groups
//! nested in sections and attachments, `[?]` counts). The official
//! conformance fixtures hold no constants or groups, so these are the seeds
//! that reach the grammar.
//!
//! As a test, every seed must decode, and every generated one must decode
//! to the value it was encoded from; enough of them must factor and group
//! for the corpus to be worth having. With `GCF_FUZZ_SEEDS_DIR` set, the
//! seeds are also written there, one file each (`scripts/fuzz.sh` does
//! that; they are not committed).

mod support;

use gcf_core::generic::{self, Encoder, Map, Value};
use support::{same_value, Rng};

/// Scalars drawn from a small pool, so columns repeat and factor; the
/// strings are the ones a declaration or a subheader must quote.
fn scalar(rng: &mut Rng) -> Value {
    const STRINGS: &[&str] = &[
        "file",
        "src",
        "doc",
        "open",
        "a,b",
        "a}b",
        "}",
        "{x",
        "a=b",
        "-",
        "~",
        "^",
        "^{x}",
        "^{x",
        "",
        " a ",
        "null",
        "true",
        "7",
        "x|y",
        "\"q\"",
        "a>b",
        "@i",
        "[1]",
        "é",
        "#",
        "R&D, Labs",
    ];
    match rng.below(8) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => Value::Int(rng.below(3) as i64),
        3 => Value::Int(support::int(rng)),
        4 => Value::Float(rng.pick(&[0.5, -0.0, 75.0, 1e21, 2.5e-8, -1.25])),
        5 => Value::Float(support::float(rng)),
        _ => Value::from(rng.pick(STRINGS)),
    }
}

/// Records over a few fields, each field constant, two-valued, varying,
/// sometimes absent, or nested (path columns, inline schemas, shared array
/// schemas, attachments); `id` is unique so the records can be grouped.
fn records(rng: &mut Rng, depth: usize) -> Value {
    const NAMES: &[&str] = &[
        "type", "kind", "status", "owner", "repo", "a", "b", "a>b", "x y", "key", "=", "c,d", "é",
        "group",
    ];
    let n = 2 + rng.below(6) as usize;
    let mut fields = vec!["id"];
    for _ in 0..1 + rng.below(5) {
        let f = rng.pick(NAMES);
        if !fields.contains(&f) {
            fields.push(f);
        }
    }
    let modes: Vec<(u64, Value, Value)> = fields
        .iter()
        .map(|_| (rng.below(10), scalar(rng), scalar(rng)))
        .collect();
    let rows = (0..n)
        .map(|row| {
            let mut m = Map::new();
            for (f, (mode, p, q)) in fields.iter().zip(&modes) {
                let v = match mode {
                    _ if *f == "id" => Value::Int(row as i64 * 7 - 3),
                    0..=3 => p.clone(),
                    4 | 5 => {
                        if rng.chance(50) {
                            p.clone()
                        } else {
                            q.clone()
                        }
                    }
                    6 if rng.chance(30) => continue,
                    7 if depth > 0 => {
                        let mut o = Map::new();
                        for k in ["x", "y", "z"].iter().take(1 + rng.below(3) as usize) {
                            o.insert(
                                *k,
                                if rng.chance(70) {
                                    p.clone()
                                } else {
                                    scalar(rng)
                                },
                            );
                        }
                        Value::Object(o)
                    }
                    8 if depth > 0 => records(rng, depth - 1),
                    _ => scalar(rng),
                };
                m.insert(*f, v);
            }
            Value::Object(m)
        })
        .collect();
    Value::Array(rows)
}

/// A document around record arrays: the root, named tables, nested sections.
fn document(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => records(rng, 2),
        1 => {
            let mut inner = Map::new();
            inner.insert("rows", records(rng, 1));
            inner.insert("n", Value::Int(1));
            let mut m = Map::new();
            m.insert("tool", Value::from("search"));
            m.insert("files", records(rng, 2));
            m.insert("section", Value::Object(inner));
            Value::Object(m)
        }
        _ => Value::Array(vec![records(rng, 1), Value::Int(3)]),
    }
}

/// Texts of the forms only a decoder meets.
const HAND_WRITTEN: &[&str] = &[
    "## m [2:]{key,a,b=on}\nx|1\ny|2\n",
    "## [2]{id,items}\n1|^\n  .items [2]{sku,qty=1,\"p>q\"}\n    a|5\n    b|6\n2|^\n  .items [1]\n    c|7\n",
    "## [2]{id,u}\n1|^{name,kind=user,age}\n  Ann|30\n2|^\n  Bob|41\n",
    "## [1]\n@0 [2]{a,b=2}\n  1\n  3\n",
    "## [2]{a,b=5,c}\n1|~\n~|^\n  .c {}\n    z=1\n",
    "## rows [2]{k=-,id,t=true,i=-7,x=1.5e3,s=\"a,b}c\",n=\"\",sp=a b,c=^{abc,w}\n1|p\n2|q\n",
    "## s\n  ## t [3]{@k,\"g g\"} group=\"g g\"\n  \"g g\"=- [1]\n  1\n  \"g g\"=2.5 [1]\n  2\n  \"g g\"=a [1] [1]\n  3\n",
    "## t [?]{@k,g,r=core,v} group=g\ng=x [2]\n1|a\n2|~\n##! summary counts=2\n",
    "## [1]{id,m}\n1|^\n  .m [2]{@k,g} group=g\n    g=a [2]\n    1\n    2\n",
    "## [3]{@id,dept,x=1,y} group=dept\ndept=Sales [2]\nu1|a\nu3|~\ndept=\"R&D, Labs\" [1]\nu2|c\n",
];

fn seeds() -> (Vec<String>, usize, usize) {
    let mut out = Vec::new();
    let (mut factored, mut grouped) = (0, 0);
    let mut rng = Rng::new(0x5EED);
    for i in 0..300 {
        let v = document(&mut rng);
        let text = Encoder::new()
            .encode(&v)
            .unwrap_or_else(|e| panic!("case {i}: {e}\n{v:?}"));
        let back = generic::decode(&text).unwrap_or_else(|e| panic!("case {i}: {e}\n{text}"));
        assert!(same_value(&back, &v), "case {i}\n{text}");
        if text.lines().any(|l| l.starts_with("##") && l.contains('=')) {
            factored += 1;
        }
        out.push(text);
        // Flat records, grouped by a field every record has.
        let flat = records(&mut rng, 0);
        let rows = flat.as_array().unwrap();
        let first = rows[0].as_object().unwrap();
        let candidates: Vec<&str> = first
            .keys()
            .filter(|k| *k != "id" && rows.iter().all(|r| r.as_object().unwrap().contains_key(k)))
            .collect();
        if !candidates.is_empty() {
            let group = rng.pick(&candidates);
            let text = generic::encode_grouped(&flat, "id", group)
                .unwrap_or_else(|e| panic!("case {i} grouped by {group}: {e}\n{flat:?}"));
            let back = generic::decode(&text).unwrap_or_else(|e| panic!("case {i}: {e}\n{text}"));
            assert_eq!(back.as_array().map(<[_]>::len), Some(rows.len()), "{text}");
            assert!(
                rows.iter()
                    .all(|r| back.as_array().unwrap().iter().any(|b| same_value(r, b))),
                "case {i}: a record lost\n{text}"
            );
            grouped += 1;
            out.push(text);
        }
    }
    for body in HAND_WRITTEN {
        let text = format!("GCF profile=generic\n{body}");
        generic::decode(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        out.push(text);
    }
    (out, factored, grouped)
}

#[test]
fn seeds_decode_factor_and_group() {
    let (seeds, factored, grouped) = seeds();
    assert!(
        factored >= 100,
        "only {factored} of 300 documents factor a constant"
    );
    assert!(grouped >= 150, "only {grouped} documents group");
    if let Some(dir) = std::env::var_os("GCF_FUZZ_SEEDS_DIR") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(dir.join(format!("encoder-{i:03}")), s).unwrap();
        }
    }
}

/// A host builder gets what `decode` returns on every seed, its cuts and
/// mutations, constants and group values reaching it as repeats.
#[test]
fn host_builders_see_what_decode_returns_on_the_seeds() {
    let (seeds, _, _) = seeds();
    let (mut decoded, mut repeated) = (0, 0);
    let hand_written = seeds.len() - HAND_WRITTEN.len();
    for (i, seed) in seeds.iter().enumerate() {
        // Every variant of the hand-written seeds (the last ones), some of
        // the encoder's.
        let count = if i >= hand_written { usize::MAX } else { 12 };
        let (d, r) = support::host_builder_on_variants(seed.as_bytes(), count);
        decoded += d;
        repeated += r;
    }
    assert!(decoded > 2000, "{decoded}");
    assert!(repeated > 2000, "{repeated}");
}
