//! Constant columns (spec §7.4.7) and value-grouped tables (spec §7.4.8):
//! every form against the same data written out, and every error condition
//! with its category, line and column.

use alloc::string::ToString;
use alloc::vec;

use super::*;
use crate::generic::Map;
use crate::Limits;

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

/// The factored body decodes to what the written-out body does.
fn same(factored: &str, written_out: &str) {
    assert_eq!(d(factored), d(written_out), "{factored:?}");
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.push_unique(k.to_string(), v.clone());
    }
    Value::Object(m)
}

#[test]
fn the_issue_example() {
    same("## [3]{a,b=x}\n1\n2\n3\n", "## [3]{a,b}\n1|x\n2|x\n3|x\n");
}

#[test]
fn constants_keep_declaration_order_and_every_scalar_form() {
    same(
        "## rows [2]{k=-,id,t=true,f=false,i=-7,x=1.5e3,s=\"a,b}c\",n=\"\",sp=a b,q=\"-\",c=^{abc,w}\n1|p\n2|q\n",
        "## rows [2]{k,id,t,f,i,x,s,n,sp,q,c,w}\n-|1|true|false|-7|1.5e3|\"a,b}c\"|\"\"|a b|\"-\"|^{abc|p\n-|2|true|false|-7|1.5e3|\"a,b}c\"|\"\"|a b|\"-\"|^{abc|q\n",
    );
    // Quoted names, an escaped constant, a name holding `=`.
    same(
        "## [2]{\"a b\"=\"x\\ty\",\"c=d\",e}\n1|2\n3|4\n",
        "## [2]{\"a b\",\"c=d\",e}\n\"x\\ty\"|1|2\n\"x\\ty\"|3|4\n",
    );
    // Inner spaces are part of a bare constant.
    assert_eq!(
        d("## [1]{a=x  y,b}\n1\n"),
        Value::Array(vec![obj(&[
            ("a", Value::from("x  y")),
            ("b", Value::Int(1))
        ])])
    );
}

#[test]
fn constants_in_every_position() {
    // Nested sections and tables in an expanded array.
    same(
        "## outer\n  ## t [2]{a=1,b}\n  x\n  y\n",
        "## outer\n  ## t [2]{a,b}\n  1|x\n  1|y\n",
    );
    same(
        "## [1]\n@0 [2]{a,b=2}\n  1\n  3\n",
        "## [1]\n@0 [2]{a,b}\n  1|2\n  3|2\n",
    );
    // A keyed map.
    same(
        "## m [2:]{key,a,b=on}\nx|1\ny|2\n",
        "## m [2:]{key,a,b}\nx|1|on\ny|2|on\n",
    );
    // An attachment table, its shared schema reused by the later rows, and a
    // path column beside a constant.
    same(
        "## [2]{id,items}\n1|^\n  .items [2]{sku,qty=1,\"p>q\"}\n    a|5\n    b|6\n2|^\n  .items [1]\n    c|7\n",
        "## [2]{id,items}\n1|^\n  .items [2]{sku,qty,\"p>q\"}\n    a|1|5\n    b|1|6\n2|^\n  .items [1]\n    c|1|7\n",
    );
    // An inline schema with a constant: the positional body carries the rest.
    same(
        "## [2]{id,u}\n1|^{name,kind=user,age}\n  Ann|30\n2|^\n  Bob|41\n",
        "## [2]{id,u}\n1|^{name,kind,age}\n  Ann|user|30\n2|^\n  Bob|user|41\n",
    );
    // A row's absent cells and attachments beside constants.
    same(
        "## [2]{a,b=5,c}\n1|~\n~|^\n  .c {}\n    z=1\n",
        "## [2]{a,b,c}\n1|5|~\n~|5|^\n  .c {}\n    z=1\n",
    );
    // Delta-participating payloads mark the identity beside constants.
    let doc = Decoder::new()
        .decode_with_header("GCF profile=generic key=id\n## s [2]{@id,v=0}\n1\n2\n")
        .unwrap();
    assert_eq!(doc.identity_field.as_deref(), Some("id"));
}

#[test]
fn grouped_tables() {
    // Records come group by group, every member in declaration order.
    same(
        "## [3]{@id,dept,x=1,y} group=dept\ndept=Sales [2]\nu1|a\nu3|~\ndept=\"R&D, Labs\" [1]\nu2|c\n",
        "## [3]{id,dept,x,y}\nu1|Sales|1|a\nu3|Sales|1|~\nu2|\"R&D, Labs\"|1|c\n",
    );
    // Null and number groups, a value holding ` [`, a named nested section, a
    // quoted group column.
    same(
        "## s\n  ## t [3]{@k,\"g g\"} group=\"g g\"\n  \"g g\"=- [1]\n  1\n  \"g g\"=2.5 [1]\n  2\n  \"g g\"=a [1] [1]\n  3\n",
        "## s\n  ## t [3]{k,\"g g\"}\n  1|-\n  2|2.5\n  3|a [1]\n",
    );
    // A deferred count, closed by the trailer.
    same(
        "## t [?]{@k,g} group=g\ng=x [2]\n1\n2\n##! summary counts=2\n",
        "## t [2]{k,g}\n1|x\n2|x\n",
    );
    // An attachment's grouped table.
    same(
        "## [1]{id,m}\n1|^\n  .m [2]{@k,g} group=g\n    g=a [2]\n    1\n    2\n",
        "## [1]{id,m}\n1|^\n  .m [2]{k,g}\n    1|a\n    2|a\n",
    );
    // A following member of the enclosing object ends the table at its count.
    same(
        "## a\n  ## t [1]{@k,g} group=g\n  g=x [1]\n  1\n  z=2\n",
        "## a\n  ## t [1]{k,g}\n  1|x\n  z=2\n",
    );
    let doc = Decoder::new()
        .decode_with_header("GCF profile=generic\n## [1]{@id,g} group=g\ng=a [1]\n7\n")
        .unwrap();
    assert_eq!(doc.identity_field.as_deref(), Some("id"));
}

#[test]
fn constant_errors() {
    use ErrorKind::*;
    let cases: &[(&str, (ErrorKind, usize, usize))] = &[
        ("## [1]{a,b=}\n1\n", (InvalidConstValue, 2, 12)),
        ("## [1]{a,b=~}\n1\n", (InvalidConstValue, 2, 12)),
        ("## [1]{a,b=^}\n1\n", (InvalidConstValue, 2, 12)),
        ("## [1]{a=1,b=2}\n1\n", (NoBareColumn, 2, 7)),
        ("## [1]{a,b=\"x\"y}\n1\n", (TrailingCharacters, 2, 15)),
        ("## [1]{a,b=\"x}\n1\n", (UnterminatedQuote, 2, 12)),
        ("## [1]{a,b=\"\\q\"}\n1\n", (InvalidEscape, 2, 13)),
        ("## [1]{a,b=99999999999999999999}\n1\n", (OutOfRange, 2, 12)),
        ("## [1]{a,a=1}\n1\n", (DuplicateFieldName, 2, 10)),
        // A declaration has no structural whitespace, and encoders quote a
        // value with spaces at either end.
        ("## [1]{a,b=1 }\n1\n", (InvalidConstValue, 2, 12)),
        ("## [1]{a,b= x}\n1\n", (InvalidConstValue, 2, 12)),
        ("## [1]{a,b=1}x\n1\n", (InvalidSyntax, 2, 14)),
        // A `^{x}` constant is cut at its `}`: the rest trails the declaration.
        ("## [1]{a,b=^{x}}\n1\n", (InvalidSyntax, 2, 16)),
        ("## [1]{a,b=x}\n1|2\n", (RowWidthMismatch, 3, 1)),
        ("## [2]{a,b=x}\n1\n", (CountMismatch, 2, 4)),
        ("## m [1:]{k=a,v}\n1\n", (InvalidSyntax, 2, 6)),
        ("## [1]{\"a>b\",a=1}\n1\n", (DuplicateKey, 2, 4)),
        ("## [1]{a,b=1}\n1|^\n", (RowWidthMismatch, 3, 1)),
        ("## [1]{a,b=1}\n^\n  .b {}\n", (OrphanAttachment, 4, 3)),
        ("## [1]{a,u}\n1|^{x=1}\n", (NoBareColumn, 3, 3)),
        ("## [1]{a,u}\n1|^{x,y=~}\n  1\n", (InvalidConstValue, 3, 9)),
        (
            "## [1]{a,u}\n1|^{x,y=1}\n  1|2\n",
            (InlineWidthMismatch, 4, 3),
        ),
        ("## [1]{@a,b=1}\n1\n", (InvalidSyntax, 2, 8)),
    ];
    for (body, want) in cases {
        assert_eq!(e(body), *want, "{body:?}");
    }
}

#[test]
fn grouped_errors() {
    use ErrorKind::*;
    let cases: &[(&str, (ErrorKind, usize, usize))] = &[
        // The header.
        (
            "## [1]{id,g} group=g\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 14),
        ),
        (
            "## [1]{@id,@g,x} group=g\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 12),
        ),
        (
            "## [1]{@id,g} group=h\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 21),
        ),
        (
            "## [1]{@id,g} group=id\nid=a [1]\n1\n",
            (InvalidGroupHeader, 2, 21),
        ),
        (
            "## [1]{@id,g=1,x} group=g\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 25),
        ),
        (
            "## [1]{@id,g} group=\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 21),
        ),
        (
            "## [1]{@id,g} group=g x\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 22),
        ),
        (
            "## [1:]{@id,g} group=g\ng=a [1]\n1\n",
            (InvalidGroupHeader, 2, 16),
        ),
        ("## [1]{@id,g}group=g\ng=a [1]\n1\n", (InvalidSyntax, 2, 8)),
        ("## [1]{a,g}group=g\ng=a [1]\n1\n", (InvalidSyntax, 2, 12)),
        ("## [1]{@id=1,g} group=g\ng=a [1]\n\n", (NoBareColumn, 2, 7)),
        // Subheaders.
        (
            "## [1]{@id,g} group=g\nh=a [1]\n1\n",
            (InvalidGroupHeader, 3, 1),
        ),
        (
            "## [1]{@id,g} group=g\ng a [1]\n1\n",
            (InvalidGroupHeader, 3, 2),
        ),
        (
            "## [1]{@id,g} group=g\ng=a\n1\n",
            (InvalidGroupHeader, 3, 4),
        ),
        (
            "## [1]{@id,g} group=g\ng=a [1]x\n1\n",
            (InvalidGroupHeader, 3, 9),
        ),
        ("## [1]{@id,g} group=g\ng=a [0]\n", (InvalidCount, 3, 6)),
        ("## [1]{@id,g} group=g\ng=a [?]\n1\n", (InvalidCount, 3, 6)),
        ("## [1]{@id,g} group=g\ng=a [01]\n1\n", (InvalidCount, 3, 6)),
        (
            "## [1]{@id,g} group=g\ng= [1]\n1\n",
            (InvalidConstValue, 3, 3),
        ),
        (
            "## [1]{@id,g} group=g\ng=~ [1]\n1\n",
            (InvalidConstValue, 3, 3),
        ),
        (
            "## [1]{@id,g} group=g\ng=a  [1]\n1\n",
            (InvalidConstValue, 3, 3),
        ),
        (
            "## [1]{@id,g} group=g\ng=^{a} [1]\n1\n",
            (InvalidConstValue, 3, 3),
        ),
        (
            "## [1]{@id,g} group=g\ng=\"a\"b [1]\n1\n",
            (TrailingCharacters, 3, 6),
        ),
        (
            "## [2]{@id,g} group=g\ng=a [1]\n1\ng=a [1]\n2\n",
            (DuplicateGroup, 5, 1),
        ),
        // Counts.
        ("## [3]{@id,g} group=g\ng=a [2]\n1\n", (CountMismatch, 3, 5)),
        // A group short of rows takes the next subheader for a row (a key
        // may read `g=b [1]`), and then the next row for a subheader.
        (
            "## [3]{@id,g} group=g\ng=a [2]\n1\ng=b [1]\n2\n",
            (InvalidGroupHeader, 6, 1),
        ),
        (
            "## [3]{@id,g,x} group=g\ng=a [2]\n1|p\ng=b [1]\n2|q\n",
            (RowWidthMismatch, 5, 1),
        ),
        (
            "## [1]{@id,g} group=g\ng=a [2]\n1\n2\n",
            (CountMismatch, 2, 4),
        ),
        ("## [3]{@id,g} group=g\ng=a [1]\n1\n", (CountMismatch, 2, 4)),
        (
            "## [1]{@id,g} group=g\ng=a [1]\n1\ng=b [1]\n2\n",
            (CountMismatch, 5, 1),
        ),
        // Rows.
        (
            "## [1]{@id,g,x} group=g\ng=a [1]\n1\n",
            (RowWidthMismatch, 4, 1),
        ),
        (
            "## [1]{@id,g,x} group=g\ng=a [1]\n1|^\n",
            (InvalidGroupHeader, 4, 3),
        ),
        (
            "## [1]{@id,g,x} group=g\ng=a [1]\n~|1\n",
            (InvalidGroupHeader, 4, 1),
        ),
        (
            "## [2]{@id,g} group=g\ng=a [1]\n1\ng=b [1]\n1\n",
            (DuplicateKey, 6, 1),
        ),
        (
            "## [1]{@id,g} group=g\ng=a [1]\n  1\n",
            (InvalidIndent, 4, 3),
        ),
        ("## [1]{@id,g} group=g\n  g=a [1]\n", (InvalidIndent, 3, 3)),
    ];
    for (body, want) in cases {
        assert_eq!(e(body), *want, "{body:?}");
    }
}

#[test]
fn limits_count_constants() {
    // Constants count toward max_fields.
    let tight = Decoder::new().limits(Limits {
        max_fields: 2,
        ..Limits::default()
    });
    let err = tight
        .decode("GCF profile=generic\n## [1]{a,b=1,c=2}\n1\n")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    // A row with its constants counts toward max_line_len.
    let short = Decoder::new().limits(Limits {
        max_line_len: 40,
        ..Limits::default()
    });
    let (c, cell) = ("c".repeat(15), "x".repeat(30));
    let cases = [
        (alloc::format!("## [1]{{a,b=\"{c}\"}}\n{cell}\n"), 3, 1),
        (
            alloc::format!("## [1]{{@a,g,b=\"{c}\"}} group=g\ng=1 [1]\n{cell}\n"),
            4,
            1,
        ),
        (
            alloc::format!("## [1]{{a,u}}\n1|^{{b,c=\"{c}\"}}\n  {cell}\n"),
            4,
            3,
        ),
    ];
    for (body, line, column) in cases {
        let input = alloc::format!("GCF profile=generic\n{body}");
        let err = short.decode(&input).unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::LimitExceeded, Some(line), Some(column)),
            "{body}"
        );
        // Within the limit once the cell is shorter.
        let fits = input.replace(&cell, "x");
        short
            .decode(&fits)
            .unwrap_or_else(|e| panic!("{fits}: {e:?}"));
    }
    // Rows beyond max_container_len in a grouped table.
    let few = Decoder::new().limits(Limits {
        max_container_len: 2,
        ..Limits::default()
    });
    let err = few
        .decode("GCF profile=generic\n## [3]{@a,g} group=g\ng=1 [3]\n1\n2\n3\n")
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.line()),
        (ErrorKind::LimitExceeded, Some(6))
    );
}

#[test]
fn decode_any_and_bytes_read_both_forms() {
    let text = "GCF profile=generic\n## [2]{a,b=x}\n1\n2\n";
    match crate::decode_any(text).unwrap() {
        crate::AnyPayload::Generic(v) => assert_eq!(v, d("## [2]{a,b}\n1|x\n2|x\n")),
        other => panic!("{other:?}"),
    }
    let grouped = b"GCF profile=generic\n## [1]{@a,g} group=g\ng=1 [1]\n1\n";
    assert_eq!(decode_bytes(grouped).unwrap(), d("## [1]{a,g}\n1|1\n"));
}

/// A generic delta whose sections are factored decodes to the rows and the
/// field list of the written-out delta (canonical cells do not change).
#[test]
fn factored_delta_sections() {
    let head = "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n";
    let factored = alloc::format!(
        "{head}## added [2]{{@id,v=0,w}}\n1|a\n2|b\n## changed [1]{{@id,v=0,w}}\n3|c\n"
    );
    let written = alloc::format!(
        "{head}## added [2]{{@id,v,w}}\n1|0|a\n2|0|b\n## changed [1]{{@id,v,w}}\n3|0|c\n"
    );
    let f = crate::generic::decode_delta(&factored).unwrap();
    let w = crate::generic::decode_delta(&written).unwrap();
    assert_eq!(f.fields, ["id", "v", "w"]);
    assert_eq!(
        (f.fields, f.added, f.changed),
        (w.fields, w.added, w.changed)
    );
}
