//! Both stream encoders against the reference crate (`gcf_oracle`, the
//! registry's `gcf` 3.1.0): random call sequences must give the crate's
//! bytes after every call, wherever the crate writes GCF. The classes where
//! it does not are generated on purpose further down, each checked for what
//! we do instead: the stream stops at the refused call (what was written
//! before it is the crate's output up to there), no trailer, nothing panics,
//! and the generic `close` returns the error with its category. One class
//! of valid output differs by design: when a distance group comes back, our
//! trailer counts each of its headers, and those counts must add up to the
//! crate's per-group ones.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use gcf_compat::stream_generic::GcfValue;
use gcf_compat::{Edge, GenericStreamEncoder, StreamEncoder, StreamOptions, Symbol};
use gcf_core::generic::Value;
use gcf_interop::gen::Rng;

mod common;
use common::KINDS;
use gcf_oracle::stream_generic::GcfValue as OracleValue;

/// A writer both sides can read from while the encoder still holds it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.borrow().clone()).expect("streams write UTF-8")
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// --- graph streams ---------------------------------------------------------

const NAMES: &[&str] = &[
    "pkg.Auth",
    "pkg.Server",
    "pkg.Server.Handle",
    "github.com/acme/payments/internal/ledger.Account.Reconcile",
    "a",
    "x_1",
    "pkg.(*T).M",
    "a/b-c_d.e",
    "paquete.Función",
    "名前.関数",
    "@odd#name",
    "v2.Ünïcode",
];
const PROVENANCES: &[&str] = &["lsp_resolved", "ast_inferred", "x", "grep", "heuristic:v2"];
const EDGE_TYPES: &[&str] = &["calls", "implements", "uses", "e", "references_type"];
const STATUSES: &[&str] = &["", "unchanged", "added", "removed", "modified"];

fn score(r: &mut Rng) -> f64 {
    let x = r.next_u64();
    let sign = if r.below(5) == 0 { -1.0 } else { 1.0 };
    let v = match r.below(10) {
        0 => (x % 100_000) as f64 / 1000.0,
        // Exact binary ties at the third decimal (0.125, 0.375, ...).
        1 => (x % 1000) as f64 / 8.0,
        2 => (x >> 11) as f64 / (1u64 << 53) as f64,
        3 => format!("{}.{:02}5", x % 7, (x >> 8) % 100).parse().unwrap(),
        4 => 10f64.powi((x % 26) as i32) * ((x >> 8) % 1000) as f64 / 7.0,
        5 => (x % 1000) as f64 * 1e-9,
        6 => (x % 5000) as f64,
        7 => 0.0,
        8 => [0.005, 0.015, 0.025, 0.995, 1.005, 0.5, 0.95, 2.675][(x % 8) as usize],
        _ => {
            // Any finite double, huge ones included.
            let v = f64::from_bits(x >> 2);
            if v.is_finite() {
                v
            } else {
                1.5
            }
        }
    };
    sign * v
}

fn symbol(name: &str, kind: &str, score: f64, provenance: &str, distance: i32) -> Symbol {
    Symbol {
        qualified_name: name.into(),
        kind: kind.into(),
        score,
        provenance: provenance.into(),
        distance,
        signature: String::new(),
        components: Default::default(),
    }
}

/// The crate's symbol, field by field (serde would not carry a NaN score).
fn oracle_symbol(s: &Symbol) -> gcf_oracle::Symbol {
    gcf_oracle::Symbol {
        qualified_name: s.qualified_name.clone(),
        kind: s.kind.clone(),
        score: s.score,
        provenance: s.provenance.clone(),
        distance: s.distance,
        signature: s.signature.clone(),
        components: Default::default(),
    }
}

fn edge(source: &str, target: &str, edge_type: &str, status: &str) -> Edge {
    Edge {
        source: source.into(),
        target: target.into(),
        edge_type: edge_type.into(),
        status: status.into(),
    }
}

#[derive(Clone, Debug)]
enum GraphOp {
    Symbol(Symbol),
    BareRef(String, i32),
    Edge(Edge),
}

#[derive(Clone, Debug, Default)]
struct GraphSetup {
    tool: String,
    token_budget: i64,
    tokens_used: i64,
    pack_root: String,
    session: bool,
    labeled: bool,
}

/// Our encoder and the crate's, fed the same calls.
struct GraphPair {
    ours: StreamEncoder<Shared>,
    theirs: gcf_oracle::StreamEncoder<Shared>,
    our_out: Shared,
    their_out: Shared,
}

impl GraphPair {
    fn new(setup: &GraphSetup) -> GraphPair {
        let (our_out, their_out) = (Shared::default(), Shared::default());
        let ours = StreamEncoder::new(
            our_out.clone(),
            &setup.tool,
            StreamOptions {
                token_budget: setup.token_budget,
                tokens_used: setup.tokens_used,
                pack_root: setup.pack_root.clone(),
                session: setup.session,
                labeled_trailer_counts: setup.labeled,
            },
        );
        let theirs = gcf_oracle::StreamEncoder::new(
            their_out.clone(),
            &setup.tool,
            gcf_oracle::StreamOptions {
                token_budget: setup.token_budget,
                tokens_used: setup.tokens_used,
                pack_root: setup.pack_root.clone(),
                session: setup.session,
                labeled_trailer_counts: setup.labeled,
            },
        );
        GraphPair {
            ours,
            theirs,
            our_out,
            their_out,
        }
    }

    fn apply(&self, op: &GraphOp) {
        match op {
            GraphOp::Symbol(s) => {
                self.ours.write_symbol(s);
                self.theirs.write_symbol(&oracle_symbol(s));
            }
            GraphOp::BareRef(name, d) => {
                self.ours.write_bare_ref(name, *d);
                self.theirs.write_bare_ref(name, *d);
            }
            GraphOp::Edge(e) => {
                self.ours.write_edge(e);
                self.theirs.write_edge(&gcf_oracle::Edge {
                    source: e.source.clone(),
                    target: e.target.clone(),
                    edge_type: e.edge_type.clone(),
                    status: e.status.clone(),
                });
            }
        }
    }

    fn assert_same(&self, case: &str) {
        assert_eq!(self.our_out.text(), self.their_out.text(), "{case}");
        assert_eq!(
            self.ours.symbol_count(),
            self.theirs.symbol_count(),
            "{case}"
        );
        assert_eq!(self.ours.edge_count(), self.theirs.edge_count(), "{case}");
    }
}

fn graph_setup(r: &mut Rng) -> GraphSetup {
    let count = |r: &mut Rng| match r.below(4) {
        0 => 0,
        1 => -(r.below(1000) as i64) - 1,
        2 => r.below(100_000) as i64 + 1,
        _ => i64::MAX - r.below(3) as i64,
    };
    GraphSetup {
        tool: (*r.pick(&["", "ctx", "context_for_task", "t-1.x", "a=b"])).into(),
        token_budget: count(r),
        tokens_used: count(r),
        pack_root: match r.below(3) {
            0 => String::new(),
            1 => format!("sha256:{:016x}{:016x}", r.next_u64(), r.next_u64()),
            _ => "root".into(),
        },
        session: (r.below(2) == 0),
        labeled: (r.below(2) == 0),
    }
}

/// Symbols and, in a session, bare references (distances in order, or in
/// any order), then
/// edges, mostly among the names written.
fn graph_ops(r: &mut Rng, session: bool) -> Vec<GraphOp> {
    let mut ops = Vec::new();
    let mut written: Vec<String> = Vec::new();
    let ordered = r.below(2) == 0;
    let mut distance = 0;
    for _ in 0..r.below(30) {
        if ordered {
            if r.below(4) == 0 {
                distance += 1 + r.below(2) as i32;
            }
        } else {
            distance = r.below(5) as i32;
        }
        let mut name = (*r.pick(NAMES)).to_string();
        if r.below(2) == 0 {
            name = format!("{name}{}", r.below(40));
        }
        written.push(name.clone());
        if session && (r.below(4) == 0) {
            ops.push(GraphOp::BareRef(name, distance));
        } else {
            let (kind, provenance) = ((*r.pick(KINDS)), (*r.pick(PROVENANCES)));
            ops.push(GraphOp::Symbol(symbol(
                &name,
                kind,
                score(r),
                provenance,
                distance,
            )));
        }
    }
    for _ in 0..r.below(30) {
        let end = |r: &mut Rng| {
            if written.is_empty() || (r.below(8) == 0) {
                format!("unknown.N{}", r.below(5))
            } else {
                written[r.below(written.len())].clone()
            }
        };
        let (source, target) = (end(r), end(r));
        let (edge_type, status) = ((*r.pick(EDGE_TYPES)), (*r.pick(STATUSES)));
        ops.push(GraphOp::Edge(edge(&source, &target, edge_type, status)));
    }
    ops
}

/// The group labels of the `##` lines of a graph stream, in order.
fn group_headers(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter(|l| !l.starts_with("edges"))
        .collect()
}

/// The trailer the crate writes for our stream: one count per group label,
/// the counts of a label's later headers added to its first.
fn merged_trailer(ours: &str, labeled: bool) -> String {
    let (body, trailer) = ours.trim_end().rsplit_once('\n').unwrap();
    let rest = trailer.strip_prefix("##! summary ").unwrap();
    let (totals, counts) = rest.split_once(" counts=").unwrap();
    let counts: Vec<&str> = counts.split(',').collect();
    let headers = group_headers(body);
    assert_eq!(headers.len() + 1, counts.len(), "one count per header");
    let mut merged: Vec<(&str, u64)> = Vec::new();
    for (label, count) in headers.iter().zip(&counts) {
        let n: u64 = count.rsplit(':').next().unwrap().parse().unwrap();
        match merged.iter_mut().find(|(l, _)| l == label) {
            Some(entry) => entry.1 += n,
            None => merged.push((label, n)),
        }
    }
    let edges = counts.last().unwrap().rsplit(':').next().unwrap();
    let mut parts: Vec<String> = merged
        .iter()
        .map(|(l, n)| {
            if labeled {
                format!("{l}:{n}")
            } else {
                n.to_string()
            }
        })
        .collect();
    parts.push(if labeled {
        format!("edges:{edges}")
    } else {
        edges.to_string()
    });
    format!("##! summary {totals} counts={}", parts.join(","))
}

fn is_header_token(s: &str) -> bool {
    s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

#[test]
fn graph_streams_match_the_crate() {
    let (mut revisited, mut decoded) = (0, 0);
    for case in 0..2500u64 {
        let mut r = Rng::new(case);
        let setup = graph_setup(&mut r);
        if !is_header_token(&setup.tool) || !is_header_token(&setup.pack_root) {
            continue;
        }
        let ops = graph_ops(&mut r, setup.session);
        let pair = GraphPair::new(&setup);
        let label = format!("case {case}: {setup:?}");
        pair.assert_same(&label);
        for (i, op) in ops.iter().enumerate() {
            pair.apply(op);
            pair.assert_same(&format!("{label}, call {i} {op:?}"));
        }
        pair.ours.close();
        pair.theirs.close();
        let (ours, theirs) = (pair.our_out.text(), pair.their_out.text());
        let headers = group_headers(&ours);
        let mut labels = headers.clone();
        labels.dedup();
        labels.sort_unstable();
        labels.dedup();
        if labels.len() == headers.len() {
            assert_eq!(ours, theirs, "{label}");
        } else {
            // A distance that came back: every byte but the trailer's counts
            // is the crate's, and the counts add up to the crate's.
            revisited += 1;
            let body = |t: &str| t[..t.rfind("##! summary").unwrap()].to_string();
            assert_eq!(body(&ours), body(&theirs), "{label}");
            assert_eq!(
                merged_trailer(&ours, setup.labeled),
                theirs.trim_end().rsplit_once('\n').unwrap().1,
                "{label}"
            );
        }
        if !ops.iter().any(|op| matches!(op, GraphOp::BareRef(..))) {
            let p = gcf_core::graph::decode(&ours).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(p.symbols.len(), pair.ours.symbol_count(), "{label}");
            assert_eq!(p.edges.len(), pair.ours.edge_count(), "{label}");
            decoded += 1;
        }
    }
    assert!(revisited > 300, "{revisited} cases revisited a distance");
    assert!(decoded > 1000, "{decoded} cases decoded");
}

/// Pins the difference on its own: a group that comes back is counted per
/// header.
#[test]
fn a_resumed_group_is_counted_per_header() {
    let out = Shared::default();
    let enc = StreamEncoder::new(out.clone(), "t", StreamOptions::default());
    for (name, d) in [("a", 0), ("b", 1), ("c", 0)] {
        enc.write_symbol(&symbol(name, "function", 0.5, "lsp", d));
    }
    enc.close();
    assert_eq!(
        out.text(),
        "GCF profile=graph tool=t\n## targets\n@0 fn a 0.50 lsp\n## related\n@1 fn b 0.50 lsp\n\
         ## targets\n@2 fn c 0.50 lsp\n##! summary symbols=3 edges=0 counts=1,1,1,0\n"
    );
}

/// One call the crate writes as given and gcf-core refuses.
fn refused_graph_op(r: &mut Rng, written: &[String]) -> (GraphOp, &'static str) {
    let bad_tokens = [
        "",
        "a b",
        " a",
        "a\tb",
        "a\nb",
        "a\u{a0}b",
        "a\u{2028}",
        "x\u{7f}",
    ];
    let bad = bad_tokens[r.below(bad_tokens.len())];
    let known = |r: &mut Rng| written[r.below(written.len())].clone();
    let ok = |r: &mut Rng| {
        let name = *r.pick(NAMES);
        let kind = *r.pick(KINDS);
        symbol(name, kind, 0.5, "lsp", 0)
    };
    match r.below(9) {
        0 => {
            let s = ok(r);
            (
                GraphOp::Symbol(Symbol {
                    qualified_name: bad.into(),
                    ..s
                }),
                "name",
            )
        }
        1 => (
            GraphOp::Symbol(Symbol {
                kind: bad.into(),
                ..ok(r)
            }),
            "kind",
        ),
        2 => {
            let s = ok(r);
            (
                GraphOp::Symbol(Symbol {
                    provenance: bad.into(),
                    ..s
                }),
                "provenance",
            )
        }
        3 => {
            let d = -(r.below(3) as i32) - 1;
            (
                GraphOp::Symbol(Symbol {
                    distance: d,
                    ..ok(r)
                }),
                "negative distance",
            )
        }
        4 => (
            GraphOp::BareRef(known(r), -(r.below(3) as i32) - 1),
            "negative bare-ref distance",
        ),
        5 => {
            let score = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][r.below(3)];
            (GraphOp::Symbol(Symbol { score, ..ok(r) }), "score")
        }
        6 if !bad.is_empty() => (
            GraphOp::Edge(edge(&known(r), &known(r), bad, "")),
            "edge type",
        ),
        6 => (
            GraphOp::Edge(edge(&known(r), &known(r), "", "added")),
            "empty edge type",
        ),
        7 if !bad.is_empty() => (
            GraphOp::Edge(edge(&known(r), &known(r), "calls", bad)),
            "status",
        ),
        _ => (GraphOp::Symbol(ok(r)), "symbol after an edge"),
    }
}

#[test]
fn graph_calls_the_crate_writes_invalid_stop_the_stream() {
    let mut seen = std::collections::BTreeSet::new();
    for case in 0..600u64 {
        let mut r = Rng::new(case ^ 0xbad);
        let setup = GraphSetup {
            tool: "t".into(),
            labeled: (r.below(2) == 0),
            ..GraphSetup::default()
        };
        let pair = GraphPair::new(&setup);
        // A valid start: symbols, and for the last class an edge.
        let mut written = Vec::new();
        for i in 0..1 + r.below(6) {
            let name = format!("pkg.S{i}");
            let d = r.below(3) as i32;
            pair.apply(&GraphOp::Symbol(symbol(
                &name,
                "function",
                score(&mut r),
                "lsp",
                d,
            )));
            written.push(name);
        }
        let (bad, class) = refused_graph_op(&mut r, &written);
        if class == "symbol after an edge" {
            pair.apply(&GraphOp::Edge(edge(&written[0], &written[0], "calls", "")));
        }
        pair.assert_same(&format!("case {case}"));
        let (before, symbols, edges) = (
            pair.our_out.text(),
            pair.ours.symbol_count(),
            pair.ours.edge_count(),
        );
        pair.apply(&bad);
        // Valid calls after it change nothing either.
        for op in graph_ops(&mut r, false).iter().filter(|op| match op {
            GraphOp::Edge(e) => written.contains(&e.source) && written.contains(&e.target),
            _ => false,
        }) {
            pair.apply(op);
        }
        pair.apply(&GraphOp::Symbol(symbol("late", "function", 0.5, "lsp", 0)));
        pair.ours.close();
        pair.theirs.close();
        let label = format!("case {case}, {class}: {bad:?}");
        assert_eq!(pair.our_out.text(), before, "{label}");
        assert!(pair.their_out.text().starts_with(&before), "{label}");
        assert_ne!(pair.their_out.text(), before, "{label}: the crate wrote it");
        assert_eq!(pair.ours.symbol_count(), symbols, "{label}");
        assert_eq!(pair.ours.edge_count(), edges, "{label}");
        seen.insert(class);
    }
    assert_eq!(seen.len(), 10, "{seen:?}");
}

#[test]
fn graph_header_values_that_are_no_header_token_write_nothing() {
    for (tool, pack_root) in [
        ("a b", ""),
        ("t\u{e9}", ""),
        ("t", "sha256:a b"),
        ("t", "racine\u{e9}"),
        ("t", "\n"),
    ] {
        let out = Shared::default();
        let enc = StreamEncoder::new(
            out.clone(),
            tool,
            StreamOptions {
                pack_root: pack_root.into(),
                session: true,
                ..StreamOptions::default()
            },
        );
        enc.write_symbol(&symbol("pkg.A", "function", 0.5, "lsp", 0));
        enc.write_bare_ref("pkg.B", 1);
        enc.write_edge(&edge("pkg.A", "pkg.A", "calls", ""));
        enc.close();
        enc.close();
        assert_eq!(out.text(), "", "{tool:?} {pack_root:?}");
        assert_eq!((enc.symbol_count(), enc.edge_count()), (0, 0));
    }
}

#[test]
fn graph_calls_after_close_write_nothing() {
    let pair = GraphPair::new(&GraphSetup {
        tool: "t".into(),
        pack_root: "sha256:ab".into(),
        session: true,
        ..GraphSetup::default()
    });
    pair.apply(&GraphOp::Symbol(symbol("a", "function", 0.5, "lsp", 0)));
    pair.apply(&GraphOp::BareRef("b".into(), 1));
    pair.apply(&GraphOp::Edge(edge("b", "a", "calls", "")));
    pair.ours.close();
    pair.theirs.close();
    pair.assert_same("closed");
    assert_eq!(
        pair.our_out.text(),
        "GCF profile=graph tool=t pack_root=sha256:ab session=true\n## targets\n@0 fn a 0.50 lsp\n\
         ## related\n@1  # previously transmitted\n## edges [?]\n@0<@1 calls\n\
         ##! summary symbols=2 edges=1 counts=1,1,1\n"
    );
    let closed = pair.our_out.text();
    pair.ours
        .write_symbol(&symbol("c", "function", 0.5, "lsp", 0));
    pair.ours.write_edge(&edge("a", "a", "calls", ""));
    pair.ours.close();
    assert_eq!(pair.our_out.text(), closed);
    assert_eq!((pair.ours.symbol_count(), pair.ours.edge_count()), (2, 1));
}

/// A writer that accepts `budget` bytes, then fails.
struct Failing {
    out: Shared,
    budget: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.budget {
            return Err(io::Error::other("disk full"));
        }
        self.budget -= buf.len();
        self.out.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn graph_write_errors_stop_the_stream_without_panicking() {
    for budget in [0, 10, 40, 60, 1000] {
        let out = Shared::default();
        let enc = StreamEncoder::new(
            Failing {
                out: out.clone(),
                budget,
            },
            "tool",
            StreamOptions::default(),
        );
        for i in 0..20 {
            enc.write_symbol(&symbol(&format!("p.S{i}"), "function", 0.5, "lsp", i / 5));
        }
        enc.write_edge(&edge("p.S1", "p.S2", "calls", ""));
        enc.close();
        let text = out.text();
        // Whole lines only: each call's lines go to the writer in one piece.
        assert!(
            text.is_empty() || text.ends_with('\n'),
            "{budget}: {text:?}"
        );
        assert_eq!(text.contains("##! summary"), budget >= 1000, "{budget}");
    }
}

#[test]
fn encoders_are_send_and_sync_like_the_crates() {
    fn shareable<T: Send + Sync>() {}
    shareable::<StreamEncoder<Vec<u8>>>();
    shareable::<gcf_oracle::StreamEncoder<Vec<u8>>>();
    shareable::<GenericStreamEncoder<Vec<u8>>>();
    shareable::<gcf_oracle::GenericStreamEncoder<Vec<u8>>>();

    let enc = std::sync::Arc::new(StreamEncoder::new(
        Vec::new(),
        "t",
        StreamOptions::default(),
    ));
    std::thread::scope(|s| {
        for t in 0..4 {
            let enc = &enc;
            s.spawn(move || {
                for i in 0..250 {
                    enc.write_symbol(&symbol(&format!("p.T{t}.S{i}"), "function", 0.5, "x", 0));
                }
            });
        }
    });
    assert_eq!(enc.symbol_count(), 1000);
}

// --- generic streams -------------------------------------------------------

const STRINGS: &[&str] = &[
    "Alice",
    "x",
    "Engineering",
    "",
    " ",
    "a b",
    "x ",
    " x",
    "true",
    "false",
    "null",
    "-",
    "~",
    "^",
    "123",
    "-1.5",
    "1e5",
    "0x10",
    "01",
    "+1",
    "-0",
    "NaN",
    "inf",
    "@x",
    "#x",
    ".x",
    "a|b",
    "a,b",
    "a\"b",
    "a\\b",
    "a\nb",
    "\t",
    "é",
    "名前",
    "😀",
    "a=b",
    "a:b",
    "[x]",
    "{x}",
    "a>b",
    "##",
    "u\u{7f}",
];
const KEYS: &[&str] = &[
    "id",
    "name",
    "department",
    "salary",
    "a",
    "x_1",
    "b-c",
    "k.v",
    "ID",
    "n2",
    "_x",
    "v",
];

#[derive(Clone, Debug)]
enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl V {
    fn ours(&self) -> GcfValue {
        match self {
            V::Null => GcfValue::Null,
            V::Bool(b) => (*b).into(),
            V::Int(n) => (*n).into(),
            V::Float(f) => (*f).into(),
            V::Str(s) => s.as_str().into(),
        }
    }
    fn theirs(&self) -> OracleValue {
        match self {
            V::Null => OracleValue::Null,
            V::Bool(b) => (*b).into(),
            V::Int(n) => (*n).into(),
            V::Float(f) => (*f).into(),
            V::Str(s) => s.as_str().into(),
        }
    }
}

fn value(r: &mut Rng) -> V {
    match r.below(8) {
        0 => V::Null,
        1 => V::Bool(r.below(2) == 0),
        2 => V::Int(match r.below(4) {
            0 => i64::MIN + r.below(2) as i64,
            1 => i64::MAX - r.below(2) as i64,
            2 => r.next_u64() as i64,
            _ => r.below(200) as i64 - 100,
        }),
        3 => V::Float(match r.below(10) {
            0 => f64::NAN,
            1 => [f64::INFINITY, f64::NEG_INFINITY][r.below(2)],
            2 => -0.0,
            3 => (r.below(2000) as f64 - 1000.0) / 8.0,
            4 => 10f64.powi(r.below(60) as i32 - 30) * (1.0 + r.below(9) as f64),
            5 => r.below(1 << 20) as f64,
            6 => 2f64.powi(53 + r.below(20) as i32),
            7 => [0.1, 0.2, 0.30000000000000004, 1e21, 1e-7, 123456789.125][r.below(6)],
            _ => {
                let v = f64::from_bits(r.next_u64());
                if v.is_finite() {
                    v
                } else {
                    2.5
                }
            }
        }),
        4 | 5 => V::Str((*r.pick(STRINGS)).into()),
        _ => V::Str(format!("{}{}", (*r.pick(KEYS)), r.below(100))),
    }
}

fn values(r: &mut Rng, n: usize) -> Vec<V> {
    (0..n).map(|_| value(r)).collect()
}

/// A keyed map's member key: a string or a finite number.
fn member_key(r: &mut Rng) -> V {
    match r.below(4) {
        0 => V::Int(r.below(1000) as i64 - 10),
        1 => V::Float((r.below(1000) as f64 - 10.0) / 4.0),
        _ => V::Str(if r.below(3) == 0 {
            (*r.pick(STRINGS)).into()
        } else {
            format!("k{}", r.below(1000))
        }),
    }
}

/// Distinct field names (any text but `>`), at least one.
fn fields(r: &mut Rng) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for _ in 0..1 + r.below(5) {
        let f: String = if r.below(3) == 0 {
            (*r.pick(STRINGS)).into()
        } else {
            (*r.pick(KEYS)).into()
        };
        if !f.contains('>') && !out.contains(&f) {
            out.push(f);
        }
    }
    if out.is_empty() {
        out.push("id".into());
    }
    out
}

/// A name for a table: any text; for a `key=value` key, a section or an
/// inline array, one the crate writes as gcf-core does (a bare key).
fn name(r: &mut Rng, bare: bool) -> String {
    loop {
        let n: String = match r.below(3) {
            0 => (*r.pick(STRINGS)).into(),
            _ => format!("{}{}", (*r.pick(KEYS)), r.below(10)),
        };
        if !bare || gcf_oracle::scalar::format_key(&n) == n {
            return n;
        }
    }
}

#[derive(Clone, Debug)]
enum GenOp {
    BeginArray(String, Vec<String>),
    BeginKeyedMap(String, String, Vec<String>),
    Row(Vec<V>),
    EndArray,
    Kv(String, V),
    Section(String),
    Inline(String, Vec<V>),
}

struct GenPair {
    ours: GenericStreamEncoder<Shared>,
    theirs: gcf_oracle::GenericStreamEncoder<Shared>,
    our_out: Shared,
    their_out: Shared,
}

impl GenPair {
    fn new() -> GenPair {
        let (our_out, their_out) = (Shared::default(), Shared::default());
        GenPair {
            ours: GenericStreamEncoder::new(our_out.clone()),
            theirs: gcf_oracle::GenericStreamEncoder::new(their_out.clone()),
            our_out,
            their_out,
        }
    }

    fn apply(&self, op: &GenOp) {
        self.ours.apply_one(op);
        self.theirs.apply_one(op);
    }
}

/// What is open, for generating only calls the crate writes as GCF.
#[derive(Default)]
struct GenState {
    /// The open table's row width, and whether it is a keyed map.
    table: Option<(usize, bool)>,
    /// A table ended in the root object since the last section line.
    after_table: bool,
}

impl GenState {
    fn track(&mut self, op: &GenOp) {
        let ends = |s: &mut GenState| {
            if s.table.take().is_some() {
                s.after_table = true;
            }
        };
        match op {
            GenOp::BeginArray(_, f) => {
                ends(self);
                self.table = Some((f.len(), false));
            }
            GenOp::BeginKeyedMap(_, _, f) => {
                ends(self);
                self.table = Some((f.len() + 1, true));
            }
            GenOp::EndArray => ends(self),
            GenOp::Section(_) => {
                self.table = None;
                self.after_table = false;
            }
            GenOp::Row(_) | GenOp::Kv(..) | GenOp::Inline(..) => {}
        }
    }

    /// A `key=value` line or inline array may come here.
    fn object_line_ok(&self) -> bool {
        self.table.is_none() && !self.after_table
    }
}

fn gen_op(r: &mut Rng, state: &GenState) -> GenOp {
    loop {
        let op = match r.below(10) {
            0 => GenOp::BeginArray(name(r, false), fields(r)),
            1 => {
                let f = fields(r);
                let label = loop {
                    let l = name(r, false);
                    if !f.contains(&l) {
                        break l;
                    }
                };
                GenOp::BeginKeyedMap(name(r, false), label, f)
            }
            2..=4 => match state.table {
                Some((width, false)) => GenOp::Row(values(r, width)),
                Some((width, true)) => {
                    let mut row = vec![member_key(r)];
                    row.extend(values(r, width - 1));
                    GenOp::Row(row)
                }
                // Ignored by both.
                None => {
                    let n = r.below(3);
                    GenOp::Row(values(r, n))
                }
            },
            5 => GenOp::EndArray,
            6 if state.object_line_ok() => GenOp::Kv(name(r, true), value(r)),
            7 => GenOp::Section(name(r, true)),
            8 if state.object_line_ok() => {
                let n = 1 + r.below(5);
                GenOp::Inline(name(r, true), values(r, n))
            }
            _ => continue,
        };
        return op;
    }
}

#[test]
fn generic_streams_match_the_crate() {
    let mut trailers = 0;
    for case in 0..2500u64 {
        let mut r = Rng::new(case ^ 0x6e6e);
        let pair = GenPair::new();
        let mut state = GenState::default();
        let mut calls = Vec::new();
        for _ in 0..r.below(25) {
            let op = gen_op(&mut r, &state);
            state.track(&op);
            pair.apply(&op);
            calls.push(op);
            assert_eq!(
                pair.our_out.text(),
                pair.their_out.text(),
                "case {case}: {calls:#?}"
            );
        }
        let ours = pair.ours.close();
        let theirs = pair.theirs.close();
        let (out, want) = (pair.our_out.text(), pair.their_out.text());
        assert_eq!(out, want, "case {case}: {calls:#?}");
        assert!(
            ours.is_ok() && theirs.is_ok(),
            "case {case}: {ours:?} {theirs:?}"
        );
        trailers += usize::from(out.contains("##! summary"));
    }
    assert!(trailers > 1000, "{trailers} streams had a table");
}

/// Classes of calls the crate writes as text no decoder reads back (or
/// refuses itself), with the error category `close` reports here.
fn refused_generic_op(
    r: &mut Rng,
    state: &GenState,
) -> Option<(GenOp, &'static str, &'static str)> {
    let invalid_input = "invalid_input";
    Some(match r.below(12) {
        0 => (
            GenOp::BeginArray(name(r, false), vec![]),
            "no fields",
            invalid_input,
        ),
        1 => (
            GenOp::BeginArray(name(r, false), vec!["a".into(), "b".into(), "a".into()]),
            "field twice",
            "duplicate_field_name",
        ),
        2 => (
            GenOp::BeginArray(name(r, false), vec!["a".into(), "b>c".into()]),
            "path field",
            invalid_input,
        ),
        3 => (
            GenOp::BeginKeyedMap(name(r, false), "id".into(), vec!["v".into(), "id".into()]),
            "label is a field",
            invalid_input,
        ),
        4 => (
            GenOp::BeginKeyedMap(name(r, false), "id".into(), vec![]),
            "keyed map without value fields",
            invalid_input,
        ),
        5 => match state.table {
            Some((width, _)) => {
                let n = if r.below(2) == 0 {
                    width + 1
                } else {
                    width - 1
                };
                (GenOp::Row(values(r, n)), "row width", "row_width_mismatch")
            }
            None => return None,
        },
        6 => match state.table {
            Some((width, true)) => {
                let key = [V::Null, V::Bool(true), V::Float(f64::NAN)][r.below(3)].clone();
                let mut row = vec![key];
                row.extend(values(r, width - 1));
                (GenOp::Row(row), "member key", invalid_input)
            }
            _ => return None,
        },
        7 => match state.table {
            Some((_, true)) => (
                GenOp::Row(vec![]),
                "keyed row without key",
                "row_width_mismatch",
            ),
            _ => return None,
        },
        8 | 9 if state.table.is_some() || state.after_table => (
            if r.below(2) == 0 {
                GenOp::Kv(name(r, true), value(r))
            } else {
                GenOp::Inline(name(r, true), values(r, 2))
            },
            "object line after a table",
            "invalid_state",
        ),
        _ => return None,
    })
}

#[test]
fn generic_calls_the_crate_writes_invalid_stop_the_stream() {
    let mut seen = std::collections::BTreeSet::new();
    let mut case = 0u64;
    while case < 600 {
        let mut r = Rng::new(case ^ 0x7e57);
        case += 1;
        let pair = GenPair::new();
        let mut state = GenState::default();
        for _ in 0..r.below(8) {
            let op = gen_op(&mut r, &state);
            state.track(&op);
            pair.apply(&op);
        }
        let Some((bad, class, category)) = refused_generic_op(&mut r, &state) else {
            continue;
        };
        let before = pair.our_out.text();
        assert_eq!(before, pair.their_out.text(), "case {case}");
        pair.apply(&bad);
        for _ in 0..r.below(8) {
            let op = gen_op(&mut r, &state);
            state.track(&op);
            pair.apply(&op);
        }
        let ours = pair.ours.close();
        let theirs = pair.theirs.close();
        let label = format!("case {case}, {class}: {bad:?}");
        assert_eq!(pair.our_out.text(), before, "{label}");
        assert!(pair.their_out.text().starts_with(&before), "{label}");
        let e = ours.expect_err(&label);
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{label}");
        assert!(
            e.to_string().starts_with(&format!("{category}: ")),
            "{label}: {e}"
        );
        if class == "path field" {
            // The one class the crate refuses too.
            assert!(theirs.is_err(), "{label}");
        } else {
            let decoded = theirs.map(|()| gcf_core::generic::decode(&pair.their_out.text()));
            assert!(
                !matches!(decoded, Ok(Ok(_))),
                "{label}: the crate's text reads back"
            );
        }
        // The error is handed over once; the stream stays closed.
        assert!(pair.ours.close().is_ok(), "{label}");
        seen.insert(class);
    }
    assert_eq!(seen.len(), 9, "{seen:?}");
}

/// Runs `calls` on both encoders, with `rename` applied to the crate's
/// names: the crate writes them raw, so handing it our quoted form gives
/// the bytes we write.
fn same_with_crate_names(calls: &[GenOp], rename: impl Fn(&str) -> String) -> String {
    let pair = GenPair::new();
    for op in calls {
        pair.ours.apply_one(op);
        let theirs = match op {
            GenOp::Kv(k, v) => GenOp::Kv(rename(k), v.clone()),
            GenOp::Section(n) => GenOp::Section(rename(n)),
            GenOp::Inline(n, vs) => GenOp::Inline(rename(n), vs.clone()),
            other => other.clone(),
        };
        pair.theirs.apply_one(&theirs);
    }
    pair.ours.close().unwrap();
    pair.theirs.close().unwrap();
    assert_eq!(pair.our_out.text(), pair.their_out.text(), "{calls:?}");
    pair.our_out.text()
}

fn strs(f: &[String]) -> Vec<&str> {
    f.iter().map(String::as_str).collect()
}

trait ApplyOne {
    fn apply_one(&self, op: &GenOp);
}

impl ApplyOne for GenericStreamEncoder<Shared> {
    fn apply_one(&self, op: &GenOp) {
        let row = |vs: &[V]| vs.iter().map(V::ours).collect::<Vec<_>>();
        match op {
            GenOp::BeginArray(n, f) => self.begin_array(n, &strs(f)),
            GenOp::BeginKeyedMap(n, l, f) => self.begin_keyed_map(n, l, &strs(f)),
            GenOp::Row(vs) => self.write_row(&row(vs)),
            GenOp::EndArray => self.end_array(),
            GenOp::Kv(k, v) => self.write_kv(k, &v.ours()),
            GenOp::Section(n) => self.write_section(n),
            GenOp::Inline(n, vs) => self.write_inline_array(n, &row(vs)),
        }
    }
}

impl ApplyOne for gcf_oracle::GenericStreamEncoder<Shared> {
    fn apply_one(&self, op: &GenOp) {
        let row = |vs: &[V]| vs.iter().map(V::theirs).collect::<Vec<_>>();
        match op {
            GenOp::BeginArray(n, f) => self.begin_array(n, &strs(f)),
            GenOp::BeginKeyedMap(n, l, f) => self.begin_keyed_map(n, l, &strs(f)),
            GenOp::Row(vs) => self.write_row(&row(vs)),
            GenOp::EndArray => self.end_array(),
            GenOp::Kv(k, v) => self.write_kv(k, &v.theirs()),
            GenOp::Section(n) => self.write_section(n),
            GenOp::Inline(n, vs) => self.write_inline_array(n, &row(vs)),
        }
    }
}

#[test]
fn generic_names_that_are_no_bare_key_are_quoted() {
    let quote = |n: &str| gcf_oracle::scalar::format_key(n);
    let mut quoted = 0;
    for (i, n) in STRINGS.iter().enumerate() {
        if quote(n) == *n {
            continue;
        }
        quoted += 1;
        let (section, inline) = (format!("s{i}{n}"), format!("l{i}{n}"));
        let calls = [
            GenOp::Kv(n.to_string(), V::Int(i as i64)),
            GenOp::Section(section.clone()),
            GenOp::Inline(inline.clone(), vec![V::Int(1), V::Str(n.to_string())]),
        ];
        let text = same_with_crate_names(&calls, quote);
        let members = generic_object(&text);
        let get = |k: &str| members.get(k).cloned();
        assert_eq!(get(n), Some(Value::Int(i as i64)), "{text}");
        assert_eq!(
            get(&section),
            Some(Value::Object(Default::default())),
            "{text}"
        );
        assert_eq!(
            get(&inline),
            Some(Value::Array(vec![Value::Int(1), Value::from(*n)])),
            "{text}"
        );
    }
    assert!(quoted > 20, "{quoted}");
}

#[test]
fn an_empty_inline_array_is_an_empty_section() {
    let pair = GenPair::new();
    pair.apply(&GenOp::Kv("a".into(), V::Int(1)));
    pair.apply(&GenOp::Inline("tags".into(), vec![]));
    pair.apply(&GenOp::Kv("b".into(), V::Int(2)));
    pair.ours.close().unwrap();
    pair.theirs.close().unwrap();
    assert_eq!(
        pair.their_out.text(),
        "GCF profile=generic\na=1\ntags[0]: \nb=2\n"
    );
    let ours = pair.our_out.text();
    assert_eq!(ours, "GCF profile=generic\na=1\n## tags [0]\nb=2\n");
    let v = generic_object(&ours);
    assert_eq!(v.get("tags"), Some(&Value::Array(vec![])));
    assert_eq!(v.get("b"), Some(&Value::Int(2)));
}

fn generic_object(text: &str) -> gcf_core::generic::Map {
    match gcf_core::generic::decode(text) {
        Ok(Value::Object(m)) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn generic_calls_after_close_write_nothing() {
    let pair = GenPair::new();
    pair.apply(&GenOp::BeginArray("t".into(), vec!["id".into()]));
    pair.apply(&GenOp::Row(vec![V::Int(1)]));
    assert!(pair.ours.close().is_ok());
    assert!(pair.theirs.close().is_ok());
    let closed = pair.our_out.text();
    assert_eq!(closed, pair.their_out.text());
    pair.ours.apply_one(&GenOp::Row(vec![V::Int(2)]));
    pair.ours.apply_one(&GenOp::Section("s".into()));
    pair.ours
        .apply_one(&GenOp::BeginArray("u".into(), vec!["id".into()]));
    assert!(pair.ours.close().is_ok());
    assert_eq!(pair.our_out.text(), closed);
}

#[test]
fn generic_write_errors_are_returned_by_close() {
    for budget in [0, 20, 30, 45, 60, 10_000] {
        let out = Shared::default();
        let enc = GenericStreamEncoder::new(Failing {
            out: out.clone(),
            budget,
        });
        enc.begin_array("employees", &["id", "name"]);
        for i in 0..3 {
            enc.write_row(&[i.into(), "Alice".into()]);
        }
        let result = enc.close();
        let text = out.text();
        assert!(
            text.is_empty() || text.ends_with('\n'),
            "{budget}: {text:?}"
        );
        if budget == 10_000 {
            assert!(result.is_ok());
            assert!(text.ends_with("##! summary counts=3\n"));
        } else {
            let e = result.expect_err("the writer failed");
            assert_eq!(
                (e.kind(), e.to_string()),
                (io::ErrorKind::Other, "disk full".into())
            );
            assert!(!text.contains("##! summary"), "{budget}");
        }
    }
}
