//! `generic::to_string`/`from_str` (feature `serde`): a caller's own types in
//! and out of the generic profile, held to the route through serde_json
//! (`serde_json::to_value`, then `from_json`), which the module promises to
//! match value for value; and `Serialize`/`Deserialize` for `Value` on
//! random trees, both ways and through serde_json.

mod support;

use std::collections::{BTreeMap, HashMap};

use gcf_core::generic::{self, from_str, from_value, to_string, to_value, Map, Value};
use gcf_core::ErrorKind;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use support::{Rng, ValueGen};

/// `x` through the serializer is what serde_json's route gives, and its text
/// reads back as `x`.
fn holds<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(x: &T) {
    let ours = to_value(x).unwrap();
    let theirs = generic::from_json(&serde_json::to_value(x).unwrap()).unwrap();
    assert_eq!(ours, theirs, "{x:?}");
    let text = to_string(x).unwrap();
    assert_eq!(text, generic::encode(&theirs).unwrap());
    let back: T = from_str(&text).unwrap_or_else(|e| panic!("{x:?}: {e}\n{text}"));
    assert_eq!(&back, x, "{text}");
    // The tape route of `from_str` reads what `from_value` of the tree reads.
    let via_tree: T = from_value(generic::decode(&text).unwrap()).unwrap();
    assert_eq!(via_tree, back);
    // Decoding agrees with serde_json's reading of the decoded value.
    let via_json: T =
        serde_json::from_value(generic::to_json(&generic::decode(&text).unwrap())).unwrap();
    assert_eq!(via_json, back);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Symbol {
    qualified_name: String,
    kind: Kind,
    score: f64,
    line: Option<u32>,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Function,
    Method { receiver: String },
    Alias(String),
    Pair(i32, i32),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Page {
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
    total: u64,
    items: Vec<Symbol>,
    meta: BTreeMap<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hidden: Option<bool>,
    #[serde(flatten)]
    extra: HashMap<String, i64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Newtype(u16);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Unit;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    Click { x: i32, y: i32 },
    Key { code: String },
}

fn symbols(rng: &mut Rng, n: usize) -> Vec<Symbol> {
    (0..n)
        .map(|i| Symbol {
            qualified_name: support::qualified_name(rng, i),
            kind: match rng.below(4) {
                0 => Kind::Function,
                1 => Kind::Method {
                    receiver: format!("*T{i}"),
                },
                2 => Kind::Alias(support::string(rng)),
                _ => Kind::Pair(rng.below(100) as i32 - 50, i as i32),
            },
            score: support::score(rng),
            line: rng.chance(70).then(|| rng.below(10_000) as u32),
            tags: (0..rng.below(3)).map(|_| support::string(rng)).collect(),
        })
        .collect()
}

#[test]
fn derived_types_match_the_serde_json_route_and_read_back() {
    let mut rng = Rng::new(0x5e7d_e5e7);
    for _ in 0..support::cases(300) {
        let n = rng.below(12) as usize;
        holds(&symbols(&mut rng, n));
        let mut meta = BTreeMap::new();
        for _ in 0..rng.below(4) {
            // A whole double is written as an integer (spec §2.3.1), so a
            // `serde_json::Value` holding one reads back as that integer.
            let scalar = match support::scalar(&mut rng) {
                Value::Float(f) if f.fract() == 0.0 => Value::Float(0.5),
                other => other,
            };
            meta.insert(support::key(&mut rng), generic::to_json(&scalar));
        }
        let mut extra = HashMap::new();
        for k in 0..rng.below(3) {
            extra.insert(format!("x{k}"), support::int(&mut rng));
        }
        holds(&Page {
            next_cursor: rng.chance(50).then(|| support::string(&mut rng)),
            total: rng.below(1 << 40),
            items: {
                let n = rng.below(5) as usize;
                symbols(&mut rng, n)
            },
            meta,
            hidden: rng.chance(30).then(|| rng.chance(50)),
            extra,
        });
    }
    holds(&Newtype(7));
    holds(&Unit);
    holds(&vec![
        Tagged::Click { x: 1, y: -2 },
        Tagged::Key { code: "a|b".into() },
    ]);
    holds(&(1u8, 'x', String::from("tuple"), [0.5f64, -0.0], ()));
    holds(&BTreeMap::from([
        (3u8, String::from("three")),
        (10, "ten".into()),
    ]));
    holds(&BTreeMap::from([(true, 1), (false, 0)]));
    holds(&BTreeMap::from([(Kind::Function, 1)]));
    holds(&HashMap::from([('c', vec![Some(1i64), None])]));
    holds(&Some(Some(i64::MIN)));
    holds(&(i128::from(i64::MAX), u128::from(u32::MAX)));
    holds(&vec![Vec::<u8>::new(), vec![0, 255]]);
    holds(&String::from("  spaced\n\"quoted\" ~ - @0 ## x"));
}

#[test]
fn numbers_follow_the_spec_and_serde_json() {
    // Past int64: out of range, as `from_json` refuses it.
    for e in [
        to_value(&u64::MAX).unwrap_err(),
        to_value(&(i128::from(i64::MIN) - 1)).unwrap_err(),
        to_value(&serde_json::json!({"id": u64::MAX})).unwrap_err(),
        to_string(&vec![u128::MAX]).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::OutOfRange, "{e}");
        assert!(e.message().contains("model it as a string"), "{e}");
    }
    // An f32 is the double its shortest text reads as; NaN and infinities are null.
    assert_eq!(to_value(&0.1f32).unwrap(), Value::Float(0.1));
    assert_eq!(
        to_value(&16_777_217f32).unwrap(),
        Value::Float(16_777_216.0)
    );
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(to_value(&f).unwrap(), Value::Null);
        assert_eq!(to_value(&(f as f32)).unwrap(), Value::Null);
        assert_eq!(
            to_value(&f).unwrap(),
            generic::from_json(&serde_json::to_value(f).unwrap()).unwrap()
        );
    }
    // Float map keys: finite ones as their text (read back as the float), others refused.
    let keys = BTreeMap::from([(1.5f64.to_bits(), ()), (0.25f64.to_bits(), ())]);
    let floats: Vec<(f64, i32)> = keys.keys().map(|&b| (f64::from_bits(b), 1)).collect();
    let as_map: Value = to_value(&FloatKeys(floats.clone())).unwrap();
    assert_eq!(
        as_map.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["0.25", "1.5"]
    );
    let back: BTreeMap<String, i32> = from_value(as_map).unwrap();
    assert_eq!(back.len(), 2);
    let nan_key = to_value(&FloatKeys(vec![(f64::NAN, 1)])).unwrap_err();
    assert_eq!(nan_key.kind(), ErrorKind::InvalidInput);
}

/// A map whose keys are floats (no std map holds `f64` keys).
struct FloatKeys(Vec<(f64, i32)>);

impl Serialize for FloatKeys {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (*k, *v)))
    }
}

#[test]
fn keys_that_are_not_text_are_refused_and_repeated_keys_keep_their_place() {
    let tuple_keys = BTreeMap::from([((1, 2), "pair")]);
    let e = to_value(&tuple_keys).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(serde_json::to_value(&tuple_keys).is_err());
    // Keys that become the same text: the first place, the last value (serde_json's map).
    #[derive(Serialize)]
    struct Twice {
        a: i32,
        #[serde(flatten)]
        more: BTreeMap<String, i32>,
    }
    let v = to_value(&Twice {
        a: 1,
        more: BTreeMap::from([("a".into(), 2), ("b".into(), 3)]),
    })
    .unwrap();
    let theirs = generic::from_json(
        &serde_json::to_value(Twice {
            a: 1,
            more: BTreeMap::from([("a".into(), 2), ("b".into(), 3)]),
        })
        .unwrap(),
    )
    .unwrap();
    assert_eq!(v, theirs);
    assert_eq!(v.as_object().unwrap().as_slice().len(), 2);
    // `to_string` leaves its tape for the tree on a repeated key: same text.
    let twice = Twice {
        a: 1,
        more: BTreeMap::from([("a".into(), 2), ("b".into(), 3)]),
    };
    assert_eq!(to_string(&twice).unwrap(), generic::encode(&v).unwrap());
    let rows = vec![
        twice,
        Twice {
            a: 5,
            more: BTreeMap::new(),
        },
    ];
    assert_eq!(
        to_string(&rows).unwrap(),
        generic::encode(&to_value(&rows).unwrap()).unwrap()
    );
    assert_eq!(v.as_object().unwrap().get("a"), Some(&Value::Int(2)));
}

#[test]
fn decode_errors_keep_their_place_and_type_errors_say_what_was_expected() {
    // A malformed payload: the decoder's category, line and column.
    let e = from_str::<Vec<Symbol>>("GCF profile=generic\n## [2]{a,b}\n1|2\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CountMismatch);
    assert!(e.line().is_some(), "{e}");
    // A payload that does not fit the type: serde's message.
    let e = from_str::<Vec<u8>>("GCF profile=generic\n## [2]: 1,x\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.message().contains("expected u8"), "{e}");
    let e = from_str::<u8>("GCF profile=generic\n=300\n").unwrap_err();
    assert!(e.message().contains("300"), "{e}");
    let e = from_value::<Kind>(Value::Array(vec![])).unwrap_err();
    assert!(e.message().contains("variant"), "{e}");
    let e = from_value::<Kind>(to_value(&serde_json::json!({"alias": 1, "pair": 2})).unwrap())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = from_value::<(i32, i32)>(Value::Array(vec![1.into(), 2.into(), 3.into()])).unwrap_err();
    assert!(e.message().contains("fewer elements"), "{e}");
    // Unknown fields are ignored unless the type denies them, as with serde_json.
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        a: i32,
    }
    let e = from_str::<Strict>("GCF profile=generic\na=1\nb=2\n").unwrap_err();
    assert!(e.message().contains("unknown field `b`"), "{e}");
}

#[test]
fn serde_json_values_inside_a_type_keep_their_numbers() {
    #[derive(Serialize)]
    struct Holder<'a> {
        json: serde_json::Value,
        raw: &'a serde_json::value::RawValue,
    }
    let raw = serde_json::value::RawValue::from_string(r#"{"z": [1, 2.50, "s"]}"#.into()).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(r#"{"big": 9223372036854775807, "f": 1e-7, "n": null}"#).unwrap();
    let v = to_value(&Holder {
        json: json.clone(),
        raw: &raw,
    })
    .unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(o.get("json"), Some(&generic::from_json(&json).unwrap()));
    assert_eq!(
        o.get("raw"),
        Some(&generic::from_json(&serde_json::from_str(raw.get()).unwrap()).unwrap())
    );
    assert_eq!(
        o.get("json").unwrap().as_object().unwrap().get("big"),
        Some(&Value::Int(i64::MAX))
    );
}

#[test]
fn value_trees_round_trip_through_serde_both_ways() {
    let mut rng = Rng::new(0x7a1e_0b5e);
    let n = support::cases(2_000);
    for _ in 0..n {
        let v = ValueGen { rng: &mut rng }.value(4);
        let json = generic::to_json(&v);
        // Serialize for Value, into this crate's tree and into serde_json's.
        assert_eq!(to_value(&v).unwrap(), v);
        assert_eq!(serde_json::to_value(&v).unwrap(), json);
        // serde_json's value through this serializer (its numbers as literals).
        assert_eq!(to_value(&json).unwrap(), v);
        // Deserialize: from the tree, into serde_json's value, and from JSON text
        // (numbers reach the visitor as serde_json's private map).
        assert_eq!(from_value::<Value>(v.clone()).unwrap(), v);
        assert_eq!(from_value::<serde_json::Value>(v.clone()).unwrap(), json);
        let text = serde_json::to_string(&json).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v, "{text}");
        // `from_str`'s tape reads the decoded document as the tree does.
        let gcf = generic::encode(&v).unwrap();
        let tree = generic::decode(&gcf).unwrap();
        assert_eq!(from_str::<Value>(&gcf).unwrap(), tree);
        assert_eq!(
            from_str::<serde_json::Value>(&gcf).unwrap(),
            generic::to_json(&tree)
        );
        // And the GCF text of each is the same: the tree through the tape
        // route, serde_json's value through the tree route (its numbers).
        let text = generic::encode(&v).unwrap();
        assert_eq!(to_string(&v).unwrap(), text);
        assert_eq!(to_string(&json).unwrap(), text);
    }
    // A JSON object that repeats a key: its first place, its last value.
    let v: Value = serde_json::from_str(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
    let mut want = Map::new();
    want.push_unique("a", Value::Int(3));
    want.push_unique("b", Value::Int(2));
    assert_eq!(v, Value::Object(want));
}

#[test]
fn bare_strings_are_lent_to_borrowing_types() {
    use std::borrow::Cow;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Sym<'a> {
        name: &'a str,
        #[serde(borrow)]
        kind: Cow<'a, str>,
        line: u32,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Page<'a> {
        #[serde(borrow)]
        tool: &'a str,
        #[serde(borrow)]
        items: Vec<Sym<'a>>,
        #[serde(borrow)]
        first: Option<Sym<'a>>,
    }

    let syms: Vec<Sym> = (0..3)
        .map(|i| Sym {
            name: ["main", "Parser::new", "a b"][i],
            kind: Cow::Borrowed(["fn", "method", "x y z"][i]),
            line: i as u32,
        })
        .collect();
    let page = Page {
        tool: "rg",
        first: Some(Sym {
            name: "lone",
            kind: Cow::Borrowed("fn"),
            line: 9,
        }),
        items: syms,
    };
    // Table cells, members (`tool=rg`) and a nested object's members.
    let text = to_string(&page).unwrap();
    let back: Page = from_str(&text).unwrap();
    assert_eq!(back, page, "{text}");
    let within = |s: &str| text.as_bytes().as_ptr_range().contains(&s.as_ptr());
    assert!(within(back.tool) && back.items.iter().all(|s| within(s.name)));
    assert!(back.first.as_ref().is_some_and(|s| within(s.name)));
    assert!(matches!(back.items[2].kind, Cow::Borrowed(k) if within(k)));
    // The same through `from_slice` and a decoder of its own.
    let from_bytes: Page = generic::from_slice(text.as_bytes()).unwrap();
    assert_eq!(from_bytes, page);
    let strict = generic::Decoder::new();
    assert_eq!(strict.deserialize::<Page>(&text).unwrap(), page);

    // Items of an expanded list and a root scalar are lent too.
    let items: Vec<&str> =
        from_str("GCF profile=generic\n## [2]\n@0 =one\n@1 =two words\n").unwrap();
    assert_eq!(items, ["one", "two words"]);
    let root: &str = from_str("GCF profile=generic\n= bare \n").unwrap();
    assert_eq!(root, "bare");

    // A quoted string is the decoder's own text: a `Cow` owns it, a `&str`
    // is refused as serde_json refuses a string with escapes.
    let quoted = "GCF profile=generic\nname=main\nkind=\"x\\ty\"\nline=1\n";
    let sym: Sym = from_str(quoted).unwrap();
    assert!(matches!(sym.kind, Cow::Owned(ref k) if k == "x\ty"));
    for name in ["\"-\"", "\"plain\""] {
        let text = format!("GCF profile=generic\nname={name}\nkind=fn\nline=1\n");
        let e = from_str::<Sym>(&text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.message().contains("borrowed string"), "{e}");
    }
    // Keys are transient: a map with borrowed keys is refused, owned or
    // `Cow` keys are read.
    let map_text = "GCF profile=generic\na=1\nb=2\n";
    let e = from_str::<HashMap<&str, i32>>(map_text).unwrap_err();
    assert!(e.message().contains("borrowed string"), "{e}");
    let owned: BTreeMap<String, i32> = from_str(map_text).unwrap();
    assert_eq!(owned.len(), 2);
    let cows: BTreeMap<Cow<str>, i32> = from_str(map_text).unwrap();
    assert_eq!(cows.get("b"), Some(&2));
}

#[test]
fn bytes_writers_and_encoders_give_the_same_text() {
    let mut rng = Rng::new(7);
    let syms = symbols(&mut rng, 40);
    let text = to_string(&syms).unwrap();
    assert_eq!(generic::to_vec(&syms).unwrap(), text.as_bytes());
    let mut out = Vec::new();
    generic::to_writer(&mut out, &syms).unwrap();
    assert_eq!(out, text.as_bytes());
    assert_eq!(generic::Encoder::new().serialize(&syms).unwrap(), text);
    let mut sink = String::new();
    generic::Encoder::new()
        .serialize_to(&syms, &mut sink)
        .unwrap();
    assert_eq!(sink, text);
    // The tree route (a repeated map key) writes the same as `encode`.
    let repeated = serde_json::json!({"a": 1});
    let mut tree_out = Vec::new();
    generic::to_writer(&mut tree_out, &repeated).unwrap();
    assert_eq!(tree_out, to_string(&repeated).unwrap().as_bytes());

    // A writer that fails: `sink`, with the I/O error's message.
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = generic::to_writer(Broken, &syms).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Sink);
    assert!(e.message().contains("disk on fire"), "{e}");

    // Bytes that are not UTF-8: the decoder's category, line and column.
    let e = generic::from_slice::<Vec<Symbol>>(b"GCF profile=generic\nvalue=\xff\n").unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.column()),
        (ErrorKind::InvalidUtf8, Some(2), Some(7))
    );
    let back: Vec<Symbol> = generic::from_slice(text.as_bytes()).unwrap();
    assert_eq!(back, syms);

    // An encoder's options and a decoder's limits reach the typed routes.
    let plain = generic::Encoder::new()
        .constant_columns(false)
        .serialize(&syms)
        .unwrap();
    assert_eq!(
        plain,
        generic::Encoder::new()
            .constant_columns(false)
            .encode(&to_value(&syms).unwrap())
            .unwrap()
    );
    let tight = generic::Decoder::new().limits(gcf_core::Limits {
        max_input_len: 10,
        ..gcf_core::Limits::default()
    });
    let e = tight.deserialize::<Vec<Symbol>>(&text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn readers_are_read_to_their_end_within_the_input_limit() {
    let mut rng = Rng::new(11);
    let syms = symbols(&mut rng, 60);
    let text = to_string(&syms).unwrap();

    // Whole, and in the small pieces a pipe or socket hands over.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let back: Vec<Symbol> = generic::from_reader(text.as_bytes()).unwrap();
    assert_eq!(back, syms);
    let back: Vec<Symbol> = generic::from_reader(Trickle(text.as_bytes())).unwrap();
    assert_eq!(back, syms);

    // The decoder's errors, with their line and column, as from_slice's.
    let e = generic::from_reader::<_, Vec<Symbol>>(&b"GCF profile=generic\nvalue=\xff\n"[..])
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.column()),
        (ErrorKind::InvalidUtf8, Some(2), Some(7))
    );

    // A limit: exactly at it decodes; one byte over is refused, and the
    // reader is not read much past it (an endless reader ends).
    let exact = generic::Decoder::new().limits(gcf_core::Limits {
        max_input_len: text.len(),
        ..gcf_core::Limits::default()
    });
    let back: Vec<Symbol> = exact.deserialize_reader(text.as_bytes()).unwrap();
    assert_eq!(back, syms);
    let short = generic::Decoder::new().limits(gcf_core::Limits {
        max_input_len: text.len() - 1,
        ..gcf_core::Limits::default()
    });
    let e = short
        .deserialize_reader::<_, Vec<Symbol>>(text.as_bytes())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    let e = short
        .deserialize_reader::<_, Vec<Symbol>>(std::io::repeat(b'a'))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");

    // A failed read: `invalid_input`, with the I/O error's message.
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("cable unplugged"))
        }
    }
    let e = generic::from_reader::<_, Vec<Symbol>>(Broken).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.message().contains("cable unplugged"), "{e}");
}
