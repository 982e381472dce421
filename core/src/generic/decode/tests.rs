//! Unit tests: one per construct, one per error kind with its position.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::generic::Map;

fn d(body: &str) -> Value {
    let input = alloc::format!("GCF profile=generic\n{body}");
    decode(&input).unwrap_or_else(|e| panic!("{body:?}: {e:?}"))
}

/// Kind, line and column of the error for a body after the header (line 1).
fn e(body: &str) -> (ErrorKind, usize, usize) {
    let input = alloc::format!("GCF profile=generic\n{body}");
    match decode(&input) {
        Ok(v) => panic!("{body:?} decoded to {v:?}"),
        Err(err) => (
            err.kind(),
            err.line().unwrap_or(0),
            err.column().unwrap_or(0),
        ),
    }
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.push_unique(k.to_string(), v);
    }
    Value::Object(m)
}

fn s(x: &str) -> Value {
    Value::from(x)
}

use Value::{Bool, Float, Int, Null};

#[test]
fn root_forms() {
    assert_eq!(d(""), obj(vec![]));
    assert_eq!(d("=42\n"), Int(42));
    assert_eq!(d("=\"hello world\"\n"), s("hello world"));
    assert_eq!(d("=-\n"), Null);
    assert_eq!(d("=true"), Bool(true));
    assert_eq!(
        d("## [3]: a,\"b,c\",-\n"),
        Value::Array(vec![s("a"), s("b,c"), Null])
    );
    assert_eq!(d("## [0]\n"), Value::Array(vec![]));
    assert_eq!(
        d("## [2]{a}\n1\n2\n"),
        Value::Array(vec![obj(vec![("a", Int(1))]), obj(vec![("a", Int(2))])])
    );
    assert_eq!(
        d("## [1:]{key,x}\nk|1\n"),
        obj(vec![("k", obj(vec![("x", Int(1))]))])
    );
    assert_eq!(
        d("## [2]\n@0 =x\n@1 {}\n"),
        Value::Array(vec![s("x"), obj(vec![])])
    );
    assert_eq!(e("=1\nx=2\n"), (ErrorKind::TrailingCharacters, 3, 1));
    assert_eq!(e("  x=1\n"), (ErrorKind::InvalidIndent, 2, 3));
}

#[test]
fn scalars_follow_precedence() {
    let v = d("a=-\nb=true\nc=false\nd=-0\ne=1.5e3\nf=01\ng=\"01\"\nh= spaced out \ni=1.٥\nj=\"\"\nk=\nl=a|b,c\n");
    let want = obj(vec![
        ("a", Null),
        ("b", Bool(true)),
        ("c", Bool(false)),
        ("d", Int(0)),
        ("e", Float(1500.0)),
        ("f", s("01")),
        ("g", s("01")),
        ("h", s("spaced out")),
        ("i", s("1.٥")),
        ("j", s("")),
        ("k", s("")),
        ("l", s("a|b,c")),
    ]);
    assert_eq!(v, want);
    // Spaces and tabs around an unquoted token are not part of it (§4.2),
    // so what they surround is still a number or a literal; gcf-python 2.8.0
    // reads the first two as strings (README, "Where the spec and the
    // references differ").
    assert_eq!(d("=  414"), Int(414));
    assert_eq!(d("z=780 \t"), obj(vec![("z", Int(780))]));
    assert_eq!(
        d("## [2]{a,b}\n0.5  |\ttrue\n-\t| x\n"),
        Value::Array(vec![
            obj(vec![("a", Float(0.5)), ("b", Bool(true))]),
            obj(vec![("a", Null), ("b", s("x"))]),
        ])
    );
    assert_eq!(d("v=-9223372036854775808"), obj(vec![("v", Int(i64::MIN))]));
    assert_eq!(d("v=\"\\ud83d\\ude00\\t\""), obj(vec![("v", s("😀\t"))]));
}

#[test]
fn objects_sections_and_keys() {
    let v = d("name=top\n## level1\n  a=1\n  ## level2\n    b=2\n  c=3\n## empty\n\"a b\"=1\n\"x=y\"[2]: 1,2\n");
    let want = obj(vec![
        ("name", s("top")),
        (
            "level1",
            obj(vec![
                ("a", Int(1)),
                ("level2", obj(vec![("b", Int(2))])),
                ("c", Int(3)),
            ]),
        ),
        ("empty", obj(vec![])),
        ("a b", Int(1)),
        ("x=y", Value::Array(vec![Int(1), Int(2)])),
    ]);
    assert_eq!(v, want);
    assert_eq!(
        d("## \"\"\n  \"\"=0\n"),
        obj(vec![("", obj(vec![("", Int(0))]))])
    );
    assert_eq!(d("tags[0]:\n"), obj(vec![("tags", Value::Array(vec![]))]));
    assert_eq!(
        d("## t [0]\nx=1\n"),
        obj(vec![("t", Value::Array(vec![])), ("x", Int(1))])
    );
}

#[test]
fn comments_blank_lines_and_crlf() {
    let v =
        decode("GCF profile=generic\r\n# note\r\n\r\n## rows [2]{a}\r\n# row\r\n1\r\n  # indented\r\n2\r\nz=\"q\"\r\n")
            .unwrap();
    let rows = Value::Array(vec![obj(vec![("a", Int(1))]), obj(vec![("a", Int(2))])]);
    assert_eq!(v, obj(vec![("rows", rows), ("z", s("q"))]));
}

/// A comment is `#` and a space (spec §4's `comment` rule); a lone `#`, or
/// `#` and a tab, is content, as every reference reads it.
#[test]
fn a_comment_needs_its_space() {
    assert_eq!(d("# \nx=1\n  # indented\n"), obj(vec![("x", Int(1))]));
    assert_eq!(e("x=1\n#\n"), (ErrorKind::InvalidLine, 3, 1));
    assert_eq!(e("x=1\n#\t\n"), (ErrorKind::InvalidLine, 3, 1));
    assert_eq!(e("## s\n  x=1\n  #\n").0, ErrorKind::InvalidLine);
    // In a table it is a row like any other: here one too many.
    assert_eq!(e("## [1]{a}\n1\n#\n"), (ErrorKind::CountMismatch, 4, 1));
}

/// A line among an object's members that is none of their forms takes the
/// references' category: `invalid_line`, or `orphan_inline_attachment` for a
/// stray `a|b` body; a line with `=` or `[` keeps its own (its key or bracket
/// is what is wrong).
#[test]
fn lines_that_are_no_member_take_the_references_categories() {
    for line in [
        "foo", "#c", "##x", "@0 x", ".x {}", "~", "\"a\"", "\"a\" b", "1abc", "a:b", "foo bar",
    ] {
        assert_eq!(
            e(&alloc::format!("{line}\n")),
            (ErrorKind::InvalidLine, 2, 1),
            "{line:?}"
        );
        assert_eq!(
            e(&alloc::format!("## s\n  {line}\n")),
            (ErrorKind::InvalidLine, 3, 3),
            "{line:?}"
        );
    }
    assert_eq!(e("a|b\n"), (ErrorKind::OrphanInlineAttachment, 2, 1));
    assert_eq!(e("a[2] 1,2\n"), (ErrorKind::InvalidLine, 2, 1));
    assert_eq!(e("x=1\n=null\n"), (ErrorKind::InvalidLine, 3, 1));
    assert_eq!(e("\"-0\"|=\n"), (ErrorKind::OrphanInlineAttachment, 2, 1));
    assert_eq!(e("\"k\"[2] 1\n"), (ErrorKind::InvalidLine, 2, 1));
    assert_eq!(e("\"\"[1]\n"), (ErrorKind::InvalidLine, 2, 1));
    assert_eq!(e("a[01]: 1\n").0, ErrorKind::InvalidCount);
    for line in ["a b=1", "-x=1", "x y[2]: 1,2"] {
        assert_eq!(
            e(&alloc::format!("{line}\n")).0,
            ErrorKind::InvalidSyntax,
            "{line:?}"
        );
    }
    assert_eq!(e("\"a\n").0, ErrorKind::UnterminatedQuote);
}

/// A line after a root array of a declared count is one item too many
/// (`count_mismatch`), whatever the array's form, and a line after a root
/// scalar is extra (`trailing_characters`), as the references report them.
#[test]
fn lines_after_a_counted_root_array_or_a_root_scalar() {
    for body in [
        "## [0]\n+\n",
        "## [1]\n@0 [0]\nx\n",
        "## [0]\n## [0]\n",
        "## [1]: a\nb\n",
        "## [1]{a}\n1\n2\n",
    ] {
        let lines = body.lines().count();
        assert_eq!(
            e(body),
            (ErrorKind::CountMismatch, lines + 1, 1),
            "{body:?}"
        );
    }
    // After a root scalar a line is extra (`trailing_characters`, the
    // references' category); not so after a deferred count's array.
    assert_eq!(e("=1\nx=2\n"), (ErrorKind::TrailingCharacters, 3, 1));
    assert_eq!(e("=1\n=2\n"), (ErrorKind::TrailingCharacters, 3, 1));
    assert_eq!(
        e("## [?]{a}\n1\n##! summary counts=1\nx\n").0,
        ErrorKind::InvalidSyntax
    );
}

/// A number past its domain is `out_of_range`, named for what it is.
#[test]
fn numbers_out_of_range_say_which_range() {
    for (token, said) in [
        (
            "9223372036854775808",
            "integer 9223372036854775808 is outside the int64 range",
        ),
        ("1e999", "number 1e999 is outside the range of a double"),
        (
            "-1.5E+400",
            "number -1.5E+400 is outside the range of a double",
        ),
    ] {
        let err = decode(&alloc::format!("GCF profile=generic\nx={token}\n")).unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::OutOfRange, Some(2), Some(3))
        );
        assert!(
            err.message().starts_with(said),
            "{token}: {}",
            err.message()
        );
    }
}

/// Readings where the references differ from the spec, pinned as the README's
/// "Where the spec and the references differ" lists them.
#[test]
fn whitespace_quotes_and_rows_as_the_spec_reads_them() {
    // §4.2: ASCII space and tab around a token are structural, in every
    // context, and only those: a raw CR or U+00A0 is data.
    assert_eq!(d("x= false\n"), obj(vec![("x", Bool(false))]));
    assert_eq!(d("x=\t\"q\" \n"), obj(vec![("x", s("q"))]));
    assert_eq!(
        d("## [1]{a,b}\n-260 |\u{a0}7\n"),
        Value::Array(vec![obj(vec![("a", Int(-260)), ("b", s("\u{a0}7"))])])
    );
    assert_eq!(
        d("## [2]: a,\r\u{e9}\n"),
        Value::Array(vec![s("a"), s("\r\u{e9}")])
    );
    // §2.1: only a token's first character opens a quoted string.
    assert_eq!(
        d("## [1]{a,b}\nab\"c|d\"\n"),
        Value::Array(vec![obj(vec![("a", s("ab\"c")), ("b", s("d\""))])])
    );
    // A row without its `@N` prefix keeps its attachments (§16.5 does not
    // refuse it), and a line of spaces is blank.
    let rows = d("## [2]{a,b}\n1|^\n.b {}\n    z=1\n   \n2|~\n");
    let want = Value::Array(vec![
        obj(vec![("a", Int(1)), ("b", obj(vec![("z", Int(1))]))]),
        obj(vec![("a", Int(2))]),
    ]);
    assert_eq!(rows, want);
    assert_eq!(
        d("## [1]{a}\n1\n.\"x>y\" =5\n"),
        Value::Array(vec![obj(vec![("a", Int(1)), ("x>y", Int(5))])])
    );
}

#[test]
fn tabular_null_missing_and_quoted_fields() {
    let v = d("## rows [2]{id,\"a,b\",\"x|y\",tag}\n1|-|\"p|q\"|~\n2| two |~|t\n");
    let want = Value::Array(vec![
        obj(vec![("id", Int(1)), ("a,b", Null), ("x|y", s("p|q"))]),
        obj(vec![("id", Int(2)), ("a,b", s("two")), ("tag", s("t"))]),
    ]);
    assert_eq!(v, obj(vec![("rows", want)]));
}

#[test]
fn traditional_attachments_every_form() {
    let body = "## r [1]{id,o,a,t,k,e,s}\n@0 1|^|^|^|^|^|^\n.o {}\n    x=1\n  .a [2]: p,q\n.t [1]{u}\n    9\n.k [1:]{key,v}\n    m|2\n.e [2]\n    @0 =z\n    @1 [0]\n.s =5\n";
    let v = d(body);
    let row = obj(vec![
        ("id", Int(1)),
        ("o", obj(vec![("x", Int(1))])),
        ("a", Value::Array(vec![s("p"), s("q")])),
        ("t", Value::Array(vec![obj(vec![("u", Int(9))])])),
        ("k", obj(vec![("m", obj(vec![("v", Int(2))]))])),
        ("e", Value::Array(vec![s("z"), Value::Array(vec![])])),
        ("s", Int(5)),
    ]);
    assert_eq!(v, obj(vec![("r", Value::Array(vec![row]))]));
}

#[test]
fn inline_schemas_shared_schemas_and_bare_gt_attachments() {
    let v = d("## o [2]{id,c,items}\n@0 1|^{n,e,t}|^\nA|a@x|p\n.items [1]{sku}\n    S1\n@1 2|^|^\n  B|b@x|q\n.items [2]\n    S2\n    S3\n");
    let c = |n: &str, e: &str, t: &str| obj(vec![("n", s(n)), ("e", s(e)), ("t", s(t))]);
    let sku = |x: &str| obj(vec![("sku", s(x))]);
    let want = Value::Array(vec![
        obj(vec![
            ("id", Int(1)),
            ("c", c("A", "a@x", "p")),
            ("items", Value::Array(vec![sku("S1")])),
        ]),
        obj(vec![
            ("id", Int(2)),
            ("c", c("B", "b@x", "q")),
            ("items", Value::Array(vec![sku("S2"), sku("S3")])),
        ]),
    ]);
    assert_eq!(v, obj(vec![("o", want)]));
    let v = d("## [1]{id}\n@0 1\n.\"a>b\" =x\n");
    assert_eq!(
        v,
        Value::Array(vec![obj(vec![("id", Int(1)), ("a>b", s("x"))])])
    );
}

/// Regression (property test): only row 0 establishes a shared array
/// schema (spec §7.4.5.3), and an `@N` body is an expanded array even when
/// one exists.
#[test]
fn shared_schemas_come_from_row_0_only() {
    let ab = |a: i64| obj(vec![("a", Int(a))]);
    // Row 1's declaration is no schema for row 2, whose `[1]` is an
    // expanded array with no `@0` item.
    assert_eq!(
        e("## [3]{t}\n@0 ^\n.t [0]\n@1 ^\n.t [1]{a}\n    1\n@2 ^\n.t [1]\n    x\n").0,
        ErrorKind::CountMismatch
    );
    let v = d("## [3]{t}\n@0 ^\n.t [1]{a}\n    1\n@1 ^\n.t [2]\n    @0 =5\n    @1 [1]: 6\n@2 ^\n.t [1]\n    2\n");
    let want = Value::Array(vec![
        obj(vec![("t", Value::Array(vec![ab(1)]))]),
        obj(vec![(
            "t",
            Value::Array(vec![Int(5), Value::Array(vec![Int(6)])]),
        )]),
        obj(vec![("t", Value::Array(vec![ab(2)]))]),
    ]);
    assert_eq!(v, want);
}

#[test]
fn path_columns() {
    let v = d("## [3]{id,\"c>n\",\"c>e\",\"b>a>c\"}\n1|A|~|x\n2|~|~|-\n3|-|-|~\n");
    let want = Value::Array(vec![
        obj(vec![
            ("id", Int(1)),
            ("c", obj(vec![("n", s("A"))])),
            ("b", obj(vec![("a", obj(vec![("c", s("x"))]))])),
        ]),
        obj(vec![("id", Int(2)), ("b", Null)]),
        obj(vec![("id", Int(3)), ("c", Null)]),
    ]);
    assert_eq!(v, want);
    assert_eq!(
        d("## [1]{\">\",\"a>\"}\n0|1\n"),
        Value::Array(vec![obj(vec![(">", Int(0)), ("a>", Int(1))])])
    );
    assert_eq!(
        e("## [1]{c,\"c>n\"}\n1|2\n"),
        (ErrorKind::DuplicateKey, 2, 4)
    );
}

#[test]
fn expanded_items_nest() {
    let v = d("## v [4]\n@0 =first\n@1 [2]: 1,2\n@2 {}\n  child=true\n@3 [1]{a}\n  7\nafter=1\n");
    let want = Value::Array(vec![
        s("first"),
        Value::Array(vec![Int(1), Int(2)]),
        obj(vec![("child", Bool(true))]),
        Value::Array(vec![obj(vec![("a", Int(7))])]),
    ]);
    assert_eq!(v, obj(vec![("v", want), ("after", Int(1))]));
    let v = d("## [1]\n@0 [1:]{key,x}\n  k|1\n");
    assert_eq!(
        v,
        Value::Array(vec![obj(vec![("k", obj(vec![("x", Int(1))]))])])
    );
}

#[test]
fn deferred_counts() {
    let v = d("## a [?]{x}\n1\n2\n## b [?]\n@0 =q\n##! summary counts=2,1\n");
    assert_eq!(v.as_object().unwrap().len(), 2);
    // No trailer: actual counts are accepted.
    d("## a [?]{x}\n1\n2\n");
    // A trailer in buffered mode is informational.
    d("## a [1]{x}\n1\n##! summary counts=7\n");
    assert_eq!(
        e("## a [?]{x}\n1\n##! summary counts=2\n"),
        (ErrorKind::CountMismatch, 4, 1)
    );
    assert_eq!(
        e("## a [?]{x}\n1\n##! summary counts=a:1\n"),
        (ErrorKind::InvalidCount, 4, 20)
    );
    assert_eq!(
        e("## a [?]{x}\n1\n##! summary tool=x\n"),
        (ErrorKind::CountMismatch, 4, 1)
    );
    assert_eq!(
        e("x=1\n##! summary\ny=2\n"),
        (ErrorKind::InvalidSyntax, 4, 1)
    );
}

#[test]
fn scalar_errors_with_positions() {
    assert_eq!(e("value=~\n"), (ErrorKind::InvalidMissing, 2, 7));
    assert_eq!(e("value=^\n"), (ErrorKind::InvalidAttachmentMarker, 2, 7));
    assert_eq!(e("t[2]: a,~\n"), (ErrorKind::InvalidMissing, 2, 9));
    assert_eq!(
        e("## [1]\n@0 =^{a}\n"),
        (ErrorKind::InvalidAttachmentMarker, 3, 5)
    );
    assert_eq!(e("value=\"open\n"), (ErrorKind::UnterminatedQuote, 2, 7));
    assert_eq!(e("value=\"a\\x\"\n"), (ErrorKind::InvalidEscape, 2, 9));
    assert_eq!(e("value=\"a\"b\n"), (ErrorKind::TrailingCharacters, 2, 10));
    assert_eq!(
        e("value=\"\\uDC00\"\n"),
        (ErrorKind::InvalidSurrogate, 2, 8)
    );
    assert_eq!(e("v=9223372036854775808\n"), (ErrorKind::OutOfRange, 2, 3));
    assert_eq!(e("é=1\n"), (ErrorKind::InvalidSyntax, 2, 1));
    assert_eq!(
        e("## [1]{a,b}\n1|^{x,x}\n"),
        (ErrorKind::InvalidAttachmentMarker, 3, 7)
    );
    let err = decode_bytes(b"GCF profile=generic\nv=\"\xed\xa0\x80\"\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidSurrogate);
}

#[test]
fn structural_errors_with_positions() {
    assert_eq!(e("a=1\na=2\n"), (ErrorKind::DuplicateKey, 3, 1));
    assert_eq!(e("## s\n  a=1\n  ## a\n"), (ErrorKind::DuplicateKey, 4, 6));
    assert_eq!(
        e("## [2:]{key,x}\na|1\na|2\n"),
        (ErrorKind::DuplicateKey, 4, 1)
    );
    assert_eq!(
        e("## r [1]{id,name,id}\n1|a|2\n"),
        (ErrorKind::DuplicateFieldName, 2, 18)
    );
    assert_eq!(e("## r [1]{a,b}\n1\n"), (ErrorKind::RowWidthMismatch, 3, 1));
    assert_eq!(e("## r [3]{a}\n1\n2\n"), (ErrorKind::CountMismatch, 2, 6));
    assert_eq!(e("## r [1]{a}\n1\n2\n"), (ErrorKind::CountMismatch, 4, 1));
    // A section header that fails to parse after a table that stopped at
    // its count is reported as itself, not as a surplus row: no row starts
    // with `##`.
    assert_eq!(
        e("## r [1]{a}\n1\n## s [1]{a,b c}\n1|2\n"),
        (ErrorKind::InvalidSyntax, 4, 13)
    );
    assert_eq!(
        e("## s [1]{a,b c}\n1|2\n"),
        (ErrorKind::InvalidSyntax, 2, 13)
    );
    // A row past the count is still one.
    assert_eq!(
        e("## r [1]{a}\n1\n2|3\n## s\n"),
        (ErrorKind::CountMismatch, 4, 1)
    );
    assert_eq!(e("t[3]: a,b\n"), (ErrorKind::CountMismatch, 2, 2));
    assert_eq!(
        e("## v [1]\n@0 =a\n@1 =b\n"),
        (ErrorKind::CountMismatch, 2, 6)
    );
    assert_eq!(e("## r [03]{a}\n"), (ErrorKind::InvalidCount, 2, 7));
    assert_eq!(e("## [0:]{key,x}\n"), (ErrorKind::InvalidCount, 2, 5));
    assert_eq!(e("## s\n\tk=v\n"), (ErrorKind::TabIndentation, 3, 1));
    assert_eq!(e("## s\n      k=v\n"), (ErrorKind::InvalidIndent, 3, 7));
    assert_eq!(e("## s\n   k=v\n"), (ErrorKind::InvalidIndent, 3, 4));
    assert_eq!(
        e("## v [2]\n@0 =a\n@5 =b\n"),
        (ErrorKind::InvalidItemId, 4, 1)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@3 1|^\n.b {}\n"),
        (ErrorKind::InvalidItemId, 3, 1)
    );
    assert_eq!(
        e("## r [1]{a}\n@0 1\n.x {}\n"),
        (ErrorKind::OrphanAttachment, 4, 1)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@0 1|2\n.b {}\n"),
        (ErrorKind::OrphanAttachment, 4, 1)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@0 1|^{x,y}\nA\n"),
        (ErrorKind::InlineWidthMismatch, 4, 1)
    );
    assert_eq!(
        e("## r [2]{a,b}\n@0 1|^{x,y}\nA|B\n@1 2|^\n"),
        (ErrorKind::MissingAttachment, 5, 6)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@0 1|^\n  P|Q\n"),
        (ErrorKind::OrphanInlineAttachment, 4, 3)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@0 1|^{x}\nA\nB\n"),
        (ErrorKind::OrphanInlineAttachment, 5, 1)
    );
    assert_eq!(
        e("## r [1]{a,b}\n@0 1|^\n.b {}\n.b {}\n"),
        (ErrorKind::DuplicateAttachment, 5, 1)
    );
    assert_eq!(e("## [1:]{key}\na\n"), (ErrorKind::InvalidSyntax, 2, 4));
    assert_eq!(e("what is this\n"), (ErrorKind::InvalidLine, 2, 1));
    assert_eq!(
        e("## r [1]{a}\n.x {}\n"),
        (ErrorKind::OrphanAttachment, 3, 1)
    );
}

#[test]
fn header_errors_and_graph_payloads() {
    let kind = |s: &str| decode(s).unwrap_err().kind();
    assert_eq!(kind(""), ErrorKind::MissingHeader);
    assert_eq!(kind("value=1\n"), ErrorKind::MissingHeader);
    assert_eq!(kind("GCF tool=x\n"), ErrorKind::MissingProfile);
    assert_eq!(kind("GCF profile=custom\n"), ErrorKind::UnknownProfile);
    assert_eq!(
        kind("GCF profile=generic broken\n"),
        ErrorKind::MalformedHeaderField
    );
    assert_eq!(
        kind("GCF profile=generic a=1 a=2\n"),
        ErrorKind::DuplicateHeaderField
    );
    let err = decode("GCF profile=graph\n## targets\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.message().contains("graph-profile payload"));
}

#[test]
fn identity_fields() {
    let dec = Decoder::new().allow_identity_fields(true);
    let doc = dec
        .decode_with_header("GCF profile=generic key=id\n## added [1]{@id,total}\n7|9.5\n")
        .unwrap();
    let row = obj(vec![("id", Int(7)), ("total", Float(9.5))]);
    assert_eq!(doc.value, obj(vec![("added", Value::Array(vec![row]))]));
    assert_eq!(doc.identity_field.as_deref(), Some("id"));
    assert_eq!(doc.header, vec![(String::from("key"), String::from("id"))]);
    assert!(dec
        .decode("GCF profile=generic\n## a [1]{@id,@x}\n1|2\n")
        .is_err());
    let err = decode("GCF profile=generic\n## a [1]{@id}\n1\n").unwrap_err();
    assert_eq!(
        (err.kind(), err.column()),
        (ErrorKind::InvalidSyntax, Some(10))
    );
    assert_eq!(
        Decoder::new()
            .decode_with_header("GCF profile=generic\nx=1\n")
            .unwrap()
            .identity_field,
        None
    );
}

/// Spec §10a.1: identity values are unique within a set, and a decoder
/// rejects a payload that repeats one; equal JSON values are one identity
/// whatever their spelling (`1` and `1.0`, `a` and `"a"`), a string of digits
/// is not the number. The `gcf` crate, gcf-python 2.8.0 and the npm package
/// decode such a payload, every row kept.
#[test]
fn repeated_identities_are_refused() {
    let dec = Decoder::new();
    for (rows, line) in [
        ("1|a\n2|b\n1|c\n", 5),
        ("1|a\n1.0|b\n", 4),
        ("x|a\n\"x\"|b\n", 4),
        ("-|a\n-|b\n", 4),
    ] {
        let text = alloc::format!(
            "GCF profile=generic pack_root=sha256:00 key=id\n## t [?]{{@id,v}}\n{rows}"
        );
        let err = dec.decode(&text).unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::DuplicateKey, Some(line), Some(1)),
            "{text}"
        );
        assert!(err.message().contains("(spec §10a.1)"), "{err}");
        // Through a builder too, and with the identity fields allowed by
        // the caller rather than by `key=`.
        let plain = text.replace(" pack_root=sha256:00 key=id", "");
        let err = Decoder::new()
            .allow_identity_fields(true)
            .decode_into(&plain, &mut ValueBuilder)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey);
    }
    for rows in [
        "1|a\n\"1\"|b\n2|c\n",
        "1|a\n1.5|b\n",
        "true|a\n\"true\"|b\n",
    ] {
        let text = alloc::format!("GCF profile=generic key=id\n## t [?]{{@id,v}}\n{rows}");
        assert!(dec.decode(&text).is_ok(), "{text}");
    }
    // Each table is a set of its own.
    let two = "GCF profile=generic key=id\n## a [1]{@id}\n1\n## b [1]{@id}\n1\n";
    assert!(dec.decode(two).is_ok());
}

/// A keyed map whose cell 0 is a bare number (what the references' streams
/// write for a number key) names the member by the number's canonical text,
/// as every reference decoder reads it; null and booleans are still refused
/// (the references disagree on their text: `null`/`None`, `true`/`True`).
#[test]
fn number_keys_of_keyed_maps() {
    let text = "GCF profile=generic\n## m [3:]{k,v}\n2.5|a\n7|b\n\"7.0\"|c\n";
    let m = decode(text).unwrap();
    let m = m
        .as_object()
        .unwrap()
        .get("m")
        .unwrap()
        .as_object()
        .unwrap();
    assert_eq!(m.keys().collect::<Vec<_>>(), ["2.5", "7", "7.0"]);
    // `7` and `"7"` are one member.
    let twice = "GCF profile=generic\n## m [2:]{k,v}\n7|a\n\"7\"|b\n";
    assert_eq!(decode(twice).unwrap_err().kind(), ErrorKind::DuplicateKey);
    for cell in ["-", "true"] {
        let text = alloc::format!("GCF profile=generic\n## m [1:]{{k,v}}\n{cell}|a\n");
        assert_eq!(
            decode(&text).unwrap_err().kind(),
            ErrorKind::InvalidSyntax,
            "{cell}"
        );
    }
}

#[test]
fn limits_are_errors() {
    // 10,000 nested sections: a LimitExceeded, not a stack overflow.
    let mut deep = String::from("GCF profile=generic\n");
    for level in 0..10_000 {
        deep.push_str(&" ".repeat(level * 2));
        deep.push_str("## a\n");
    }
    assert_eq!(decode(&deep).unwrap_err().kind(), ErrorKind::LimitExceeded);
    let mut deep = String::from("GCF profile=generic\n## [1]\n");
    for level in 0..10_000 {
        deep.push_str(&" ".repeat(level * 2));
        deep.push_str("@0 [1]\n");
    }
    assert_eq!(decode(&deep).unwrap_err().kind(), ErrorKind::LimitExceeded);
    let path = alloc::format!(
        "GCF profile=generic\n## [1]{{\"{}\"}}\n1\n",
        ["a"; 5000].join(">")
    );
    assert_eq!(decode(&path).unwrap_err().kind(), ErrorKind::LimitExceeded);
    // A huge declared count neither allocates nor passes.
    let err = decode("GCF profile=generic\n## r [99999999999]{a}\n1\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CountMismatch);
    let err = decode("GCF profile=generic\n## r [99999999999999999999999999]\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CountMismatch);
    let tight = Limits {
        max_container_len: 2,
        max_fields: 2,
        max_depth: 3,
        ..Limits::default()
    };
    let dec = Decoder::new().limits(tight);
    assert_eq!(
        dec.decode("GCF profile=generic\na=1\nb=2\nc=3\n")
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        dec.decode("GCF profile=generic\nt[3]: 1,2,3\n")
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        dec.decode("GCF profile=generic\n## [?]{a}\n1\n2\n3\n")
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        dec.decode("GCF profile=generic\n## [1]{a,b,c}\n1|2|3\n")
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
    // An inline schema is a field declaration too, bounded by `max_fields`
    // (not only by the container limit its bodies meet).
    let fields_only = Decoder::new().limits(Limits {
        max_fields: 2,
        ..Limits::default()
    });
    let err = fields_only
        .decode("GCF profile=generic\n## [1]{id,o}\n1|^{a,b,c}\n  1|2|3\n")
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.line(), err.column()),
        (ErrorKind::LimitExceeded, Some(3), Some(3))
    );
    assert!(fields_only
        .decode("GCF profile=generic\n## [1]{id,o}\n1|^{a,b}\n  1|2\n")
        .is_ok());
    assert!(dec
        .decode("GCF profile=generic\n## a\n  ## b\n    x=1\n")
        .is_ok());
    assert_eq!(
        dec.decode("GCF profile=generic\n## a\n  ## b\n    ## c\n")
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
}

/// `max_container_len` bounds every object a table makes, not only its
/// rows (and `max_fields` its declaration): a row (constants and the
/// objects path columns nest included), a keyed map's values, a grouped
/// record, an inline schema's bodies, and a row that bare `>` attachments
/// add members to. Each fails where the object is declared; at the limit
/// each decodes.
#[test]
fn container_limit_bounds_the_objects_tables_make() {
    let dec = Decoder::new().limits(Limits {
        max_container_len: 2,
        ..Limits::default()
    });
    let cases = [
        ("## [1]{a,b,c}\n1|2|3\n", "## [1]{a,b}\n1|2\n", (2, 4)),
        ("## t [1]{a,b=1,c=2}\n1\n", "## t [1]{a,b=1}\n1\n", (2, 6)),
        (
            "## [1]{\"a>x\",\"a>y\",\"a>z\"}\n1|2|3\n",
            "## [1]{\"a>x\",\"a>y\",\"b>x\",\"b>y\"}\n1|2|3|4\n",
            (2, 4),
        ),
        (
            "## m [1:]{k,a,b,c}\nx|1|2|3\n",
            "## m [1:]{k,a,b}\nx|1|2\n",
            (2, 6),
        ),
        (
            "## [1]{@id,g,v} group=g\ng=x [1]\n1|2\n",
            "## [1]{@id,g} group=g\ng=x [1]\n1\n",
            (2, 4),
        ),
        (
            "## [1]{id,o}\n1|^{a,b,c}\n  1|2|3\n",
            "## [1]{id,o}\n1|^{a,b}\n  1|2\n",
            (3, 3),
        ),
        (
            "## [1]{id}\n@0 1\n.\"a>b\" =1\n.\"a>c\" =2\n",
            "## [1]{id}\n@0 1\n.\"a>b\" =1\n",
            (5, 1),
        ),
    ];
    for (over, within, (line, column)) in cases {
        let over = alloc::format!("GCF profile=generic\n{over}");
        let err = dec.decode(&over).unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::LimitExceeded, Some(line), Some(column)),
            "{over:?}: {err}"
        );
        let within = alloc::format!("GCF profile=generic\n{within}");
        dec.decode(&within)
            .unwrap_or_else(|e| panic!("{within:?}: {e}"));
    }
}

#[test]
fn large_objects_detect_duplicates() {
    let mut body = String::new();
    for i in 0..5000 {
        body.push_str(&alloc::format!("k{i}={i}\n"));
    }
    assert_eq!(d(&body).as_object().unwrap().len(), 5000);
    body.push_str("k4321=0\n");
    assert_eq!(e(&body), (ErrorKind::DuplicateKey, 5002, 1));
}

/// Tables and keyed maps are sized from their declared count capped by the
/// remaining input: honest counts of every size around the linear/hash
/// switch decode to the same members, and huge or short counts still give
/// their count errors (no outsized allocation happens before them).
#[test]
fn reserved_tables_and_keyed_maps_match_their_rows() {
    for n in [1usize, 2, 15, 16, 17, 18, 40, 1100] {
        let mut keyed = alloc::format!("## m [{n}:]{{k,v}}\n");
        let mut rows = alloc::format!("## t [{n}]{{a,b}}\n");
        for i in 0..n {
            keyed.push_str(&alloc::format!("k{i}|{i}\n"));
            rows.push_str(&alloc::format!("{i}|x\n"));
        }
        let m = d(&keyed);
        let m = m
            .as_object()
            .unwrap()
            .get("m")
            .unwrap()
            .as_object()
            .unwrap();
        assert_eq!(m.len(), n);
        for i in 0..n {
            let key = alloc::format!("k{i}");
            let member = m.get(&key).and_then(Value::as_object);
            assert_eq!(member.and_then(|o| o.get("v")), Some(&Value::Int(i as i64)));
        }
        let t = d(&rows);
        let t = t.as_object().unwrap().get("t").unwrap().as_array().unwrap();
        assert_eq!(t.len(), n);
    }
    assert_eq!(
        e("## m [18446744073709551615:]{k,v}\na|1\nb|2\n"),
        (ErrorKind::CountMismatch, 2, 6)
    );
    assert_eq!(
        e("## t [18446744073709551615]{a,b}\n1|2\n"),
        (ErrorKind::CountMismatch, 2, 6)
    );
    assert_eq!(
        e("## m [20:]{k,v}\nk0|0\nk1|1\nk0|2\n"),
        (ErrorKind::DuplicateKey, 5, 1)
    );
}

/// A table's row lines are recorded where the caller judges its rows'
/// identities (a delta's sections), counting attachment lines between
/// rows, and not for a full payload, whose identities the decoder judges.
#[test]
fn row_lines_are_recorded_for_deltas_only() {
    let text =
        "GCF profile=generic key=id\n## t [2]{@id,v}\n1|^\n.v {}\n    z=1\n2|x\n## u [1]{@id}\n3\n";
    let decoder = Decoder::new().allow_identity_fields(true);
    let rows = |unique| -> Vec<Vec<usize>> {
        let (_, sections) = decoder.decode_sections(text, unique).unwrap();
        sections.into_iter().map(|s| s.row_lines).collect()
    };
    assert_eq!(rows(false), [vec![3, 6], vec![8]]);
    assert_eq!(rows(true), [Vec::<usize>::new(), Vec::new()]);
}
