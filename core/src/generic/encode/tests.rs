//! Unit tests of the buffered generic encoder: exact output per form, and
//! the planning shortcuts against the general path.

use super::*;
use crate::generic::Map;
use crate::sink::{FnSink, SinkError};
use alloc::vec;

/// Test input from JSON text, independent of the `serde_json` feature.
fn json(text: &str) -> Value {
    fn convert(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => {
                let text = alloc::format!("{n}");
                match crate::number::parse_number(&text).unwrap() {
                    crate::number::ParsedNumber::Int(i) => Value::Int(i),
                    crate::number::ParsedNumber::Float(f) => Value::Float(f),
                }
            }
            serde_json::Value::String(s) => Value::from(s),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(convert).collect()),
            serde_json::Value::Object(o) => {
                let mut m = Map::new();
                for (k, v) in o {
                    m.push_unique(k, convert(v));
                }
                Value::Object(m)
            }
        }
    }
    convert(serde_json::from_str(text).unwrap())
}

fn body(text: &str) -> String {
    let out = encode(&json(text)).unwrap();
    String::from(out.strip_prefix("GCF profile=generic\n").unwrap())
}

#[test]
fn roots() {
    assert_eq!(body("null"), "=-\n");
    assert_eq!(body("\"-\""), "=\"-\"\n");
    assert_eq!(body("1.5"), "=1.5\n");
    assert_eq!(body("{}"), "");
    assert_eq!(body("[]"), "## [0]\n");
    assert_eq!(body("[1,\"a,b\",null]"), "## [3]: 1,\"a,b\",-\n");
    assert_eq!(body("[{}]"), "## [1]\n@0 {}\n");
}

#[test]
fn objects_and_sections() {
    assert_eq!(
        body(r#"{"a":1,"b c":{"d":[],"e":{},"f":[true]},"g":"x"}"#),
        "a=1\n## \"b c\"\n  ## d [0]\n  ## e\n  f[1]: true\ng=x\n"
    );
}

#[test]
fn keyed_maps() {
    assert_eq!(
        body(r#"{"a":{"x":1},"b":{"y":2}}"#),
        "## [2:]{key,x,y}\na|1|~\nb|~|2\n"
    );
    assert_eq!(
        body(r#"{"m":{"a":{"key":1,"_key":2},"b":{"key":3}}}"#),
        "## m [2:]{__key,key,_key}\na|1|2\nb|3|~\n"
    );
    // One member, a scalar member, or only `>` fields: sections.
    assert_eq!(body(r#"{"a":{"x":1}}"#), "## a\n  x=1\n");
    assert_eq!(body(r#"{"a":{"x":1},"b":2}"#), "## a\n  x=1\nb=2\n");
    assert_eq!(
        body(r#"{"a":{"x>y":1},"b":{"x>y":2}}"#),
        "## a\n  \"x>y\"=1\n## b\n  \"x>y\"=2\n"
    );
    // In an expanded item.
    assert_eq!(
        body(r#"[1,{"a":{"x":1},"b":{"x":2}}]"#),
        "## [2]\n@0 =1\n@1 [2:]{key,x}\n  a|1\n  b|2\n"
    );
}

#[test]
fn tables_null_missing_and_union() {
    assert_eq!(
        body(r#"[{"id":1,"n":null},{"id":2,"t":"x"},{}]"#),
        "## [3]{id,n,t}\n1|-|~\n2|~|x\n~|~|~\n"
    );
}

#[test]
fn expanded_items() {
    assert_eq!(
        body(r#"{"m":[1,[2,[3]],{"a":{"b":1}},[{"c":1}],[]]}"#),
        "## m [5]\n@0 =1\n@1 [2]\n  @0 =2\n  @1 [1]: 3\n@2 {}\n  ## a\n    b=1\n@3 [1]{c}\n  1\n@4 [0]\n"
    );
}

#[test]
fn traditional_attachments() {
    assert_eq!(
        body(r#"[{"id":1,"o":{"k":[1]},"a":[]},{"id":2,"o":"s","a":[[1],{"z":{}}]}]"#),
        "## [2]{id,o,a}\n@0 1|^|^\n.o {}\n    k[1]: 1\n.a [0]\n@1 2|s|^\n.a [2]\n    @0 [1]: 1\n    @1 {}\n      ## z\n"
    );
}

#[test]
fn flattening() {
    assert_eq!(
        body(r#"[{"c":{"a":{"x":1},"b":2}},{"c":null},{}]"#),
        "## [3]{\"c>a>x\",\"c>b\"}\n1|2\n-|-\n~|~\n"
    );
    // A group whose leaves are all null would decode as a null object.
    assert_eq!(
        body(r#"[{"c":{"a":{"x":null},"b":2}},{"c":{"a":{"x":1},"b":3}}]"#),
        "## [2]{c}\n@0 ^\n.c {}\n    ## a\n      x=-\n    b=2\n@1 ^\n.c {}\n    ## a\n      x=1\n    b=3\n"
    );
    // Different shapes, empty objects and intermediate nulls do not flatten.
    assert!(body(r#"[{"c":{"a":1}},{"c":{"b":1}}]"#).starts_with("## [2]{c}\n@0 ^\n.c {}"));
    assert!(body(r#"[{"c":{"a":{}}},{"c":{"a":{}}}]"#).starts_with("## [2]{c}\n"));
    assert!(body(r#"[{"c":{"a":{"x":1}}},{"c":{"a":null}}]"#).starts_with("## [2]{c}\n"));
}

/// Regression (gcf-python 2.8.0 differential, seed 2941204312): objects
/// with the same keys in another order do not flatten (§7.4.6.1 rule 1:
/// "exactly the same keys in exactly the same order"), at any level, since
/// path columns would read every row back in the first row's key order
/// (§7.4.6.3). gcf-python 2.8.0 flattens them; the gcf 3.1.0 crate does not.
#[test]
fn flattening_needs_one_key_order() {
    assert_eq!(
        body(r#"[{"k":{"a":1,"x y":2}},{"k":{"x y":3,"a":4}}]"#),
        "## [2]{k}\n@0 ^\n.k {}\n    a=1\n    \"x y\"=2\n@1 ^\n.k {}\n    \"x y\"=3\n    a=4\n"
    );
    let nested = body(r#"[{"k":{"o":{"a":1,"b":2}}},{"k":{"o":{"b":3,"a":4}}}]"#);
    assert!(nested.starts_with("## [2]{k}\n@0 ^\n.k {}\n"), "{nested}");
    // The same order flattens.
    assert_eq!(
        body(r#"[{"k":{"a":1,"x y":2}},{"k":{"a":3,"x y":4}}]"#),
        "## [2]{\"k>a\",\"k>x y\"}\n1|2\n3|4\n"
    );
}

/// `prototype_name_paths(false)` (the JS packages, as 2.5.2 writes it): no
/// path column through a member named `__proto__`, `constructor` or
/// `prototype` at any depth, so the object takes the next form; a field so
/// named still flattens. The default (the crate, gcf-python 2.8.0) flattens.
#[test]
fn prototype_names_in_paths() {
    let js = |text: &str| {
        let out = Encoder::new()
            .prototype_name_paths(false)
            .encode(&json(text))
            .unwrap();
        String::from(out.strip_prefix("GCF profile=generic\n").unwrap())
    };
    for name in ["__proto__", "constructor", "prototype"] {
        let rows = alloc::format!(r#"[{{"t":{{"a":1,"{name}":2}}}},{{"t":{{"a":3,"{name}":4}}}}]"#);
        assert_eq!(
            body(&rows),
            alloc::format!("## [2]{{\"t>a\",\"t>{name}\"}}\n1|2\n3|4\n")
        );
        assert_eq!(
            js(&rows),
            alloc::format!("## [2]{{t}}\n@0 ^\n.t {{}}\n    a=1\n    {name}=2\n@1 ^\n.t {{}}\n    a=3\n    {name}=4\n")
        );
        // At any depth: the outer object is not flattened either.
        let deep = alloc::format!(
            r#"[{{"t":{{"a":{{"{name}":1}},"b":2}}}},{{"t":{{"a":{{"{name}":3}},"b":4}}}}]"#
        );
        assert!(body(&deep).starts_with("## [2]{\"t>a>"), "{}", body(&deep));
        assert!(
            js(&deep).starts_with("## [2]{t}\n@0 ^\n.t {}\n"),
            "{}",
            js(&deep)
        );
        // The same in a keyed map's values.
        let keyed = alloc::format!(r#"{{"x":{{"t":{{"{name}":1}}}},"y":{{"t":{{"{name}":2}}}}}}"#);
        assert_eq!(
            body(&keyed),
            alloc::format!("## [2:]{{key,\"t>{name}\"}}\nx|1\ny|2\n")
        );
        assert!(
            js(&keyed).starts_with("## [2:]{key,t}\n@0 x|^\n.t {}\n"),
            "{}",
            js(&keyed)
        );
        // A field so named is a path's first segment, which 2.5.2 writes.
        let field = alloc::format!(r#"[{{"{name}":{{"a":1}}}},{{"{name}":{{"a":2}}}}]"#);
        assert_eq!(js(&field), body(&field));
        assert!(js(&field).starts_with(&alloc::format!("## [2]{{\"{name}>a\"}}")));
    }
    // Other names, three or more members: an inline schema, as without it.
    let rows = r#"[{"t":{"a":1,"b":2,"c":3}},{"t":{"a":4,"b":5,"c":6}}]"#;
    assert_eq!(js(rows), body(rows));
    let rows = r#"[{"t":{"a":1,"b":2,"constructor":3}},{"t":{"a":4,"b":5,"constructor":6}}]"#;
    assert_eq!(
        js(rows),
        "## [2]{t}\n@0 ^{a,b,constructor}\n1|2|3\n@1 ^\n4|5|6\n"
    );
}

#[test]
fn inline_schemas() {
    assert_eq!(
        body(r#"[{"c":{"a>":1,"b":"x|y","c":3}},{},{"c":{"a>":4,"b":5,"c":6}}]"#),
        "## [3]{c}\n@0 ^{\"a>\",b,c}\n1|\"x|y\"|3\n~\n@2 ^\n4|5|6\n"
    );
    // A later null row is a `-` cell under the schema (gcf 3.1.0 and the
    // 2.5.2 npm package write the same).
    assert_eq!(
        body(r#"[{"c":{"a>":1,"b":2,"c":3}},{"c":null}]"#),
        "## [2]{c}\n@0 ^{\"a>\",b,c}\n1|2|3\n-\n"
    );
    // A null or missing first row, or fewer than three keys: traditional.
    assert!(body(r#"[{"c":null},{"c":{"a>":1,"b":2,"c":3}}]"#).contains(".c {}"));
    assert!(body(r#"[{},{"c":{"a>":1,"b":2,"c":3}}]"#).contains(".c {}"));
    assert!(body(r#"[{"c":{"a>":1,"b":2}},{"c":{"a>":1,"b":2}}]"#).contains(".c {}"));
}

#[test]
fn shared_array_schemas() {
    assert_eq!(
        body(r#"[{"t":[{"a":1}]},{"t":null},{"t":[{"a":2},{"a":3}]}]"#),
        "## [3]{t}\n@0 ^\n.t [1]{a}\n    1\n-\n@2 ^\n.t [2]\n    2\n    3\n"
    );
    // A different list anywhere, or an array with nested values: no sharing.
    assert!(body(r#"[{"t":[{"a":1}]},{"t":[{"b":2}]},{"t":[{"a":3}]}]"#)
        .ends_with(".t [1]{a}\n    3\n"));
    assert!(body(r#"[{"t":[{"a":[1]}]},{"t":[{"a":[2]}]}]"#).contains("@1 ^\n.t [1]{a}\n"));
}

/// Regression (property test): a literal `a>b` member next to an object
/// `a` with a member `b` must not share the name `a>b` between a path
/// column and an attachment.
#[test]
fn flattening_yields_to_a_literal_path_name() {
    let input = r#"[{"a":{"b":1,"c":2}},{"a":{"b":3,"c":4},"a>b":5}]"#;
    let out = body(input);
    assert_eq!(
        out,
        "## [2]{a}\n@0 ^\n.a {}\n    b=1\n    c=2\n@1 ^\n.a {}\n    b=3\n    c=4\n.\"a>b\" =5\n"
    );
    let text = encode(&json(input)).unwrap();
    let back = crate::generic::decode(&text).unwrap();
    let want = json(input);
    let rows = |v: &Value| v.as_array().unwrap().len();
    assert_eq!(rows(&back), rows(&want));
    assert_eq!(
        back.as_array().unwrap()[1].as_object().unwrap().get("a>b"),
        Some(&Value::Int(5))
    );
    // A `>` name that is no extension of a field's path leaves it flat.
    assert!(body(r#"[{"a":{"b":1},"ab>c":2}]"#).starts_with("## [1]{\"a>b\"}"));
}

/// Regression (interop, seed 20056 of `encode_interop`): a literal `f>...`
/// name that is none of `f`'s path columns leaves `f` flat, beside the
/// literal's attachment, byte for byte as the `gcf` 3.1.0 crate and
/// gcf-python 2.8.0 write it (this encoder used an inline schema there), and
/// it reads back as the input. Deeper leaves clash only on their exact path.
#[test]
fn flattening_beside_a_literal_name_that_is_no_leaf() {
    let input = r#"[{"k":"s","x":{"r":-662,"id":"src","t":"d"},"x>y>z":382}]"#;
    let out = body(input);
    assert_eq!(
        out,
        "## [1]{k,\"x>r\",\"x>id\",\"x>t\"}\n@0 s|-662|src|d\n.\"x>y>z\" =382\n"
    );
    let text = encode(&json(input)).unwrap();
    assert_eq!(crate::generic::decode(&text).unwrap(), json(input));
    // Nested: `x>a>b` is a leaf (a clash), `x>a` is not (no clash).
    let clash = body(r#"[{"x":{"a":{"b":1,"c":2}},"x>a>b":3}]"#);
    assert!(clash.starts_with("## [1]{x}\n"), "{clash}");
    let apart = body(r#"[{"x":{"a":{"b":1,"c":2}},"x>a":3}]"#);
    assert!(
        apart.starts_with("## [1]{\"x>a>b\",\"x>a>c\"}\n"),
        "{apart}"
    );
}

/// Regression (property test): an expanded array attachment after the
/// row-0 tabular one for the same field stays expanded on decode.
#[test]
fn expanded_attachment_after_a_tabular_one() {
    let input = r#"[{"t":[{"a":1}]},{"t":[1,[2]]},{"t":[{"a":2}]}]"#;
    let text = encode(&json(input)).unwrap();
    assert!(text.contains("@1 ^\n.t [2]\n    @0 =1\n"), "{text}");
    let back = crate::generic::decode(&text).unwrap();
    assert_eq!(back, json(input));
}

#[test]
fn gt_fields_are_attachments() {
    assert_eq!(
        body(r#"[{"id":1,"a>b":"s","o":[1]},{"id":2}]"#),
        "## [2]{id,o}\n@0 1|^\n.o [1]: 1\n.\"a>b\" =s\n2|~\n"
    );
    assert_eq!(body(r#"[{"a>b":1}]"#), "## [1]\n@0 {}\n  \"a>b\"=1\n");
}

#[test]
fn header_tool() {
    let enc = Encoder::new().tool("my_tool");
    assert_eq!(
        enc.encode(&Value::Null).unwrap(),
        "GCF profile=generic tool=my_tool\n=-\n"
    );
    for bad in ["", "a b", "é"] {
        assert_eq!(
            Encoder::new()
                .tool(bad)
                .encode(&Value::Null)
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
    }
}

#[test]
fn errors() {
    assert_eq!(
        encode(&Value::Float(f64::NAN)).unwrap_err().kind(),
        ErrorKind::OutOfRange
    );
    let limits = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    let enc = Encoder::new().limits(limits);
    assert!(enc.encode(&json(r#"{"a":{"b":1}}"#)).is_ok());
    for deep in [
        r#"{"a":{"b":{}}}"#,
        r#"[[[1]]]"#,
        r#"[{"a":{"b":1}}]"#,
        r#"{"x":[{"a":[1]}]}"#,
    ] {
        assert_eq!(
            enc.encode(&json(deep)).unwrap_err().kind(),
            ErrorKind::LimitExceeded,
            "{deep}"
        );
    }
    let mut refusing = FnSink(|_: &[u8]| Err(SinkError));
    assert_eq!(
        encode_to(&Value::Null, &mut refusing).unwrap_err().kind(),
        ErrorKind::Sink
    );
}

/// Every form of field declaration is bounded by `max_fields`, counted as
/// a decoder counts it (key column, constants and path columns included):
/// at the limit the text decodes with the same limits, one past it the
/// encoder refuses what that decoder would refuse.
#[test]
fn field_declarations_stay_within_max_fields() {
    let limits = Limits {
        max_fields: 3,
        ..Limits::default()
    };
    let cases = [
        // A planned table (sparse records: the union is the columns).
        (
            r#"[{"a":1},{"b":2},{"c":3}]"#,
            r#"[{"a":1},{"b":2},{"c":3},{"d":4}]"#,
        ),
        // Uniform rows, with and without a constant column.
        (
            r#"[{"a":1,"b":2,"c":3},{"a":4,"b":5,"c":6}]"#,
            r#"[{"a":1,"b":2,"c":3,"d":4},{"a":4,"b":5,"c":6,"d":7}]"#,
        ),
        (
            r#"[{"a":1,"b":2,"c":0},{"a":4,"b":5,"c":0}]"#,
            r#"[{"a":1,"b":2,"c":0,"d":4},{"a":4,"b":5,"c":0,"d":7}]"#,
        ),
        // Flattened path columns count one per leaf.
        (
            r#"[{"a":1,"o":{"x":1,"y":2}},{"a":2,"o":{"x":3,"y":4}}]"#,
            r#"[{"a":1,"o":{"x":1,"y":2,"z":3}},{"a":2,"o":{"x":3,"y":4,"z":5}}]"#,
        ),
        // Keyed maps: the key column counts.
        (
            r#"{"m":{"r1":{"a":1,"b":2},"r2":{"a":3,"b":4}}}"#,
            r#"{"m":{"r1":{"a":1,"b":2,"c":3},"r2":{"a":3,"b":4,"c":5}}}"#,
        ),
        (
            r#"{"m":{"r1":{"a":1,"b":2},"r2":{"a":3}}}"#,
            r#"{"m":{"r1":{"a":1,"b":2,"c":3},"r2":{"a":3}}}"#,
        ),
    ];
    let enc = Encoder::new().limits(limits);
    for (within, past) in cases {
        let text = enc.encode(&json(within)).unwrap();
        let decoded = crate::generic::Decoder::new().limits(limits).decode(&text);
        assert_eq!(
            decoded.as_ref().ok(),
            Some(&json(within)),
            "{within}: {text}"
        );
        let e = enc.encode(&json(past)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{past}");
        assert!(e.message().contains("limit of 3 fields"), "{}", e.message());
        // The decoder agrees: the default encoder's text of `past` is refused.
        let text = encode(&json(past)).unwrap();
        let refused = crate::generic::Decoder::new().limits(limits).decode(&text);
        assert_eq!(
            refused.map(drop).unwrap_err().kind(),
            ErrorKind::LimitExceeded,
            "{text}"
        );
    }
    // A grouped table: key, group and value columns.
    let rows = json(r#"[{"id":1,"g":"x","v":1},{"id":2,"g":"y","v":2}]"#);
    let text = Encoder::new()
        .limits(limits)
        .group_by("id", "g")
        .encode(&rows)
        .unwrap();
    assert!(
        crate::generic::Decoder::new()
            .limits(limits)
            .decode(&text)
            .is_ok(),
        "{text}"
    );
    let rows = json(r#"[{"id":1,"g":"x","v":1,"w":1},{"id":2,"g":"y","v":2,"w":2}]"#);
    let e = Encoder::new()
        .limits(limits)
        .group_by("id", "g")
        .encode(&rows)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
}

/// `value` encoded with every planning shortcut off.
fn encode_general(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = Writer {
        sink: Buffered::new(&mut out, DEFAULT_CAPACITY),
        numbers: NumberBuffer::new(),
        max_depth: Limits::default().max_depth,
        max_fields: Limits::default().max_fields,
        fast_tables: false,
        factor: true,
        flatten: Flatten::On,
    };
    w.root(value).unwrap();
    w.sink.flush().unwrap();
    drop(w);
    out
}

/// The `Uniform` table shortcut writes what planning writes, on tables
/// that take it and on near misses that must not.
#[test]
fn uniform_tables_match_the_general_path() {
    let scalars = [
        Value::Null,
        Value::Bool(true),
        Value::Int(-7),
        Value::Float(2.5),
        Value::Float(1e300),
        Value::from(""),
        Value::from("plain"),
        Value::from("a|b,c"),
        Value::from("true"),
        Value::from("12"),
        Value::from("ünïcödé\u{2028}"),
        Value::from("x".repeat(70).as_str()),
        Value::from(" lead"),
    ];
    let keysets: [&[&str]; 6] = [
        &["a"],
        &["sku", "qty", "price"],
        &["", "b c", "é"],
        &["a>b", "c"],
        &["k", "key", "_key"],
        &["x", "y", "z", "w", "v"],
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut checked = 0;
    for round in 0..3000 {
        let keys = keysets[next(keysets.len())];
        let rows = 1 + next(5);
        let mut items = Vec::new();
        for r in 0..rows {
            let mut m = Map::new();
            for k in keys {
                m.push_unique(String::from(*k), scalars[next(scalars.len())].clone());
            }
            // Near misses: a container, a missing, extra, duplicate or
            // reordered key, a non-object item.
            match (round % 9, r == rows - 1) {
                (1, true) => m.push_unique(String::from("extra"), Value::Int(1)),
                (2, true) => m.push_unique(String::from(keys[0]), Value::Int(1)),
                (3, true) => {
                    let last = keys[keys.len() - 1];
                    m.insert(last, Value::Array(vec![Value::Int(1)]));
                }
                (4, true) => {
                    let mut pairs = m.into_vec();
                    pairs.reverse();
                    m = Map::new();
                    for (k, v) in pairs {
                        m.push_unique(k, v);
                    }
                }
                (5, true) => {
                    m = Map::new();
                }
                _ => {}
            }
            items.push(if round % 9 == 6 && r == rows - 1 {
                Value::Int(3)
            } else {
                Value::Object(m)
            });
        }
        // The same rows as a keyed map's members: at the root, as a
        // section and as an expanded item.
        let member_keys = ["a", "b c", "true", "", "é", "12", "key"];
        let mut keyed = Map::new();
        for (k, item) in member_keys.iter().zip(&items) {
            keyed.push_unique(String::from(*k), item.clone());
        }
        let keyed = Value::Object(keyed);
        let mut section = Map::new();
        section.push_unique(String::from("s"), keyed.clone());
        let expanded = Value::Array(vec![Value::Int(0), keyed.clone()]);
        // Alone, as a member, and as a row field (shared schemas).
        let array = Value::Array(items);
        let mut member = Map::new();
        member.push_unique(String::from("t"), array.clone());
        let mut outer_rows = Vec::new();
        for i in 0..2 {
            let mut row = Map::new();
            row.push_unique(String::from("id"), Value::Int(i));
            row.push_unique(String::from("t"), array.clone());
            outer_rows.push(Value::Object(row));
        }
        for v in [
            array,
            Value::Object(member),
            Value::Array(outer_rows),
            keyed,
            Value::Object(section),
            expanded,
        ] {
            let mut fast = Vec::new();
            encode_to(&v, &mut fast).unwrap();
            let general = encode_general(&v);
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(general)
                    .unwrap()
                    .replacen("", "GCF profile=generic\n", 1),
                "{v:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 18000);
    // The depth limit still applies to the rows.
    let rows = json(r#"{"a":[{"x":1}]}"#);
    let enc = Encoder::new().limits(Limits {
        max_depth: 2,
        ..Limits::default()
    });
    assert_eq!(
        enc.encode(&rows).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let keyed = json(r#"{"a":{"m":{"x":1},"n":{"x":2}}}"#);
    assert_eq!(
        enc.encode(&keyed).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    assert!(Encoder::new()
        .limits(Limits {
            max_depth: 3,
            ..Limits::default()
        })
        .encode(&keyed)
        .is_ok());
}

/// Scalar rows that meet the end of the buffer's free tail (which is
/// then flushed, or grown when the buffer is the output) or are longer than
/// the whole buffer (written piece by piece) come out as any other row, in
/// tables and keyed maps, into a new string and into a sink alike.
#[test]
fn scalar_rows_across_and_beyond_the_buffer() {
    // Past the streaming chunk, and past a growing output's largest step.
    for long_len in [DEFAULT_CAPACITY + 100, 2 * 64 * 1024 + 7] {
        let long = "y".repeat(long_len);
        let cell = |i: usize| match i % 7 {
            3 => long.clone(),
            _ => alloc::format!("row {i}"),
        };
        let mut items = Vec::new();
        let mut keyed = Map::new();
        let mut want_items = String::from("GCF profile=generic\n## [50]{a,b}\n");
        let mut want_keyed = String::from("GCF profile=generic\n## [50:]{key,a,b}\n");
        for i in 0..50 {
            let mut m = Map::new();
            m.push_unique("a", Value::Int(i as i64));
            m.push_unique("b", Value::from(cell(i)));
            items.push(Value::Object(m.clone()));
            keyed.push_unique(alloc::format!("k{i}"), Value::Object(m));
            want_items.push_str(&alloc::format!("{i}|{}\n", cell(i)));
            want_keyed.push_str(&alloc::format!("k{i}|{i}|{}\n", cell(i)));
        }
        for (value, want) in [
            (Value::Array(items), want_items),
            (Value::Object(keyed), want_keyed),
        ] {
            assert_eq!(encode(&value).unwrap(), want);
            let mut sunk = Vec::new();
            encode_to(&value, &mut sunk).unwrap();
            assert_eq!(sunk, want.as_bytes());
        }
    }
}

#[test]
fn sink_receives_the_same_bytes() {
    let v = json(r#"{"rows":[{"a":1,"b":{"c":[1,2]}},{"a":2}],"m":{"x":{"k":1},"y":{"k":2}}}"#);
    let mut chunks = vec![];
    encode_to(
        &v,
        &mut FnSink(|b: &[u8]| {
            chunks.extend_from_slice(b);
            Ok(())
        }),
    )
    .unwrap();
    assert_eq!(chunks, encode(&v).unwrap().into_bytes());
}

#[test]
fn only_a_huge_mostly_absent_table_takes_the_expanded_form() {
    // Records with half their fields, and a million cells mostly absent but
    // below the bound: tables, as every reference writes them.
    let record = |i: usize, keys: core::ops::Range<usize>| {
        let mut m = Map::new();
        for k in keys {
            m.push_unique(alloc::format!("f{k}").as_str(), Value::Int(i as i64));
        }
        Value::Object(m)
    };
    let half: Vec<Value> = (0..200)
        .map(|i| record(i, (i % 2) * 10..(i % 2) * 10 + 10))
        .collect();
    assert!(encode(&Value::Array(half))
        .unwrap()
        .starts_with("GCF profile=generic\n## [200]{"));
    let below: Vec<Value> = (0..1000).map(|i| record(i, i..i + 1)).collect();
    assert!(encode(&Value::Array(below))
        .unwrap()
        .starts_with("GCF profile=generic\n## [1000]{"));
    // Past it (1,100 × 1,100 cells, one in 1,100 filled): each record as itself.
    let past: Vec<Value> = (0..1100).map(|i| record(i, i..i + 1)).collect();
    let text = encode(&Value::Array(past.clone())).unwrap();
    assert!(
        text.starts_with("GCF profile=generic\n## [1100]\n@0 {}\n"),
        "{}",
        &text[..60]
    );
    assert_eq!(crate::generic::decode(&text).unwrap(), Value::Array(past));
}
