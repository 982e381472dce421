//! Deterministic generators shared by the integration tests.
#![allow(dead_code)]

use gcf_core::generic;
use gcf_core::graph::{Edge, Location, Payload, Symbol};

/// A small, fast, seeded PRNG (xorshift64*): tests stay reproducible without
/// a dependency, and a failing case prints its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// How many generated cases a property test runs: `GCF_PROPTEST_CASES`, or `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("GCF_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub const KINDS: &[&str] = &[
    "function",
    "type",
    "method",
    "interface",
    "var",
    "const",
    "resource",
    "table",
    "class",
    "selector",
    "field",
    "route_handler",
    "external",
    "file",
    "package",
    "service",
    "widget",
    "custom_kind",
];

/// A qualified name of printable non-space ASCII, Go-style most of the time.
pub fn qualified_name(rng: &mut Rng, i: usize) -> String {
    const SEGMENTS: &[&str] = &[
        "auth", "server", "store", "http", "internal", "cmd", "pkg", "v2",
    ];
    const ODD: &[char] = &[
        '-', '_', '*', '(', ')', '[', ']', '<', '>', '#', '@', '|', '"', '\'', '~', '^', ',', ':',
        '=',
    ];
    let mut s = String::from("github.com/org/repo");
    for _ in 0..rng.below(3) {
        s.push('/');
        s.push_str(rng.pick(SEGMENTS));
    }
    s.push('.');
    if rng.chance(20) {
        s.push(rng.pick(ODD));
    }
    s.push_str(&format!("Sym{i}"));
    if rng.chance(30) {
        s.push_str(".Method");
    }
    s
}

/// Scores that survive the two-decimal wire form exactly.
pub fn score(rng: &mut Rng) -> f64 {
    let cents = rng.below(20_001) as f64 - 10_000.0;
    let v = if rng.chance(90) {
        rng.below(101) as f64 / 100.0
    } else {
        cents / 100.0
    };
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// A graph payload with unique qualified names, edges among its symbols
/// (sometimes to unknown ones), and locations.
pub fn graph_payload(rng: &mut Rng, max_symbols: u64) -> Payload {
    let n = rng.below(max_symbols + 1) as usize;
    let symbols: Vec<Symbol> = (0..n)
        .map(|i| Symbol {
            qualified_name: qualified_name(rng, i),
            kind: rng.pick(KINDS).to_string(),
            score: score(rng),
            provenance: rng
                .pick(&["lsp_resolved", "ast_inferred", "rwr", "x"])
                .to_string(),
            distance: if rng.chance(90) {
                rng.below(3) as u32
            } else {
                3 + rng.below(5) as u32
            },
        })
        .collect();
    let mut edges = Vec::new();
    if n > 0 {
        for _ in 0..rng.below(3 * n as u64 + 1) {
            let source = symbols[rng.below(n as u64) as usize].qualified_name.clone();
            let target = if rng.chance(3) {
                "unknown.Sym".to_string()
            } else {
                symbols[rng.below(n as u64) as usize].qualified_name.clone()
            };
            let status = rng.pick(&["", "", "", "added", "removed"]).to_string();
            edges.push(Edge {
                source,
                target,
                edge_type: rng
                    .pick(&["calls", "imports", "implements", "refs"])
                    .to_string(),
                status,
            });
        }
    }
    let mut locations = Vec::new();
    for s in &symbols {
        if !rng.chance(20) {
            continue;
        }
        let file = rng
            .pick(&["src/a.go", "my dir/b.go", "ünï/c.rs", "d\"q.go"])
            .to_string();
        let end = rng
            .chance(50)
            .then(|| (1 + rng.below(900) as u32, 1 + rng.below(80) as u32));
        locations.push(Location {
            qualified_name: s.qualified_name.clone(),
            file,
            line: 1 + rng.below(900) as u32,
            column: 1 + rng.below(80) as u32,
            end,
        });
    }
    Payload {
        tool: rng.pick(&["", "context_for_task", "t"]).to_string(),
        token_budget: if rng.chance(50) { rng.below(10_000) } else { 0 },
        tokens_used: if rng.chance(50) { rng.below(10_000) } else { 0 },
        symbols,
        edges,
        locations,
        ..Payload::default()
    }
}

// --- the generic profile -----------------------------------------------------

use gcf_core::generic::{Map, Value};

/// Structural equality of the JSON data model (spec §1.1):
/// [`Value::structurally_eq`].
pub fn same_value(a: &Value, b: &Value) -> bool {
    a.structurally_eq(b)
}

/// Whole strings that a decoder could misread if they were written bare.
pub const LOOKALIKE_STRINGS: &[&str] = &[
    "",
    "-",
    "~",
    "^",
    "^{a}",
    "^{a,b}",
    "^{}",
    "true",
    "false",
    "null",
    "01",
    "1e5",
    "1E5",
    "-0",
    "+1",
    ".5",
    "-.5",
    "0",
    "-1",
    "1.0",
    "12",
    "9223372036854775808",
    "1e400",
    "#x",
    "# x",
    "##",
    "##!",
    "@y",
    "@0 x",
    ".z",
    "ERR[404]: x",
    "[Speaker 1]: hi",
    "x[] :y",
    "a[1]:b",
    " lead",
    "trail ",
    " ",
    "|",
    ",",
    "\"",
    "\\",
    "a|b",
    "a,b",
    "q\"t",
    "back\\",
    "line\nfeed",
    "cr\r",
    "tab\t",
    "\u{1}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}x",
    "x\u{2028}",
    "\u{feff}",
    "\u{3000}",
    "=",
    "a=b",
    "k=v",
    "{}",
    "[0]",
    "[2]: a,b",
    "## x",
    "key",
    "_key",
    "NaN",
    "Infinity",
    "0x1f",
    "1.٥",
    "١٢",
    "00:01:23,456",
];

/// Pieces that random strings are glued from: delimiters, marks that
/// combine with whatever precedes them (U+0301, U+0BD7), bidi text and
/// controls, emoji, quotes and escapes.
pub const STRING_PIECES: &[&str] = &[
    "a",
    "Bob",
    "x y",
    "é",
    "e\u{301}",
    "\u{301}",
    "\u{bd7}",
    "ௗP",
    "\u{200f}",
    "\u{202e}",
    "\u{2066}",
    "שלום",
    "مرحبا",
    "日本",
    "😀",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "|",
    ",",
    "\"",
    "\\",
    "\n",
    "\t",
    "\u{1}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    " ",
    "-",
    "~",
    "^",
    "{",
    "}",
    "[",
    "]",
    ":",
    "#",
    "@",
    ".",
    "=",
    ">",
    "0",
    "1",
    "9",
    "e",
    "+",
    "true",
    "-",
];

/// A string from the look-alikes, or glued from pieces.
pub fn string(rng: &mut Rng) -> String {
    if rng.chance(35) {
        return rng.pick(LOOKALIKE_STRINGS).to_string();
    }
    let mut s = String::new();
    for _ in 0..1 + rng.below(4) {
        s.push_str(rng.pick(STRING_PIECES));
    }
    s
}

/// Keys: bare ones mostly, then quoted, `>`-carrying and empty ones.
pub fn key(rng: &mut Rng) -> String {
    const BARE: &[&str] = &[
        "id", "name", "a", "b", "c", "key", "_key", "__key", "x_1", "tags",
    ];
    const ODD: &[&str] = &[
        "", " ", "a>b", ">", "a>", ">a", "a>>b", "x y", "5", "k-1", "é", "😀", "a\u{301}", "|",
        ",", "\"q\"", "#h", "@i", ".d", "=", "[0]", "^", "~", "-", "true", "a\nb",
    ];
    if rng.chance(75) {
        rng.pick(BARE).to_string()
    } else if rng.chance(50) {
        rng.pick(ODD).to_string()
    } else {
        string(rng)
    }
}

/// int64 edges, the 2^53 boundary, and ordinary integers.
pub fn int(rng: &mut Rng) -> i64 {
    const TWO_53: i64 = 1 << 53;
    const EDGES: &[i64] = &[
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        i64::MAX - 1,
        TWO_53 - 1,
        TWO_53,
        TWO_53 + 1,
        -TWO_53 - 1,
        -TWO_53,
        -TWO_53 + 1,
        0,
        -1,
        1,
    ];
    match rng.below(4) {
        0 => rng.pick(EDGES),
        1 => rng.next_u64() as i64,
        _ => rng.below(2001) as i64 - 1000,
    }
}

/// Doubles whose shortest form is tricky, integer-valued ones, and random bits.
pub fn float(rng: &mut Rng) -> f64 {
    const TRICKY: &[f64] = &[
        0.1,
        1e-7,
        5e-324,
        -5e-324,
        1.797_693_134_862_315_7e308,
        -1.797_693_134_862_315_7e308,
        9_007_199_254_740_992.0,
        9_007_199_254_740_994.0,
        -0.0,
        0.0,
        1e21,
        1e20,
        1e-6,
        123_456.789,
        0.5,
        -1.25,
        2.5e-8,
        9.223_372_036_854_776e18,
        1.844_674_407_370_955_2e19,
        1.0,
        100.0,
        1e300,
        2.2250738585072014e-308,
    ];
    match rng.below(4) {
        0 => rng.pick(TRICKY),
        1 => loop {
            let f = f64::from_bits(rng.next_u64());
            if f.is_finite() {
                break f;
            }
        },
        2 => (rng.below(200_001) as f64 - 100_000.0) / 100.0,
        _ => rng.below(1_000_000) as f64 * 1e-3,
    }
}

/// Any scalar.
pub fn scalar(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 | 3 => Value::Int(int(rng)),
        4 => Value::Float(float(rng)),
        _ => Value::from(string(rng)),
    }
}

/// Random JSON values shaped to reach every form of the generic encoder.
pub struct ValueGen<'r> {
    pub rng: &'r mut Rng,
}

impl ValueGen<'_> {
    /// A value nesting at most `depth` containers.
    pub fn value(&mut self, depth: usize) -> Value {
        if depth == 0 {
            return scalar(self.rng);
        }
        match self.rng.below(16) {
            0..=3 => scalar(self.rng),
            4 => Value::Array(Vec::new()),
            5 => Value::Object(Map::new()),
            6 => Value::Array((0..self.rng.below(5)).map(|_| scalar(self.rng)).collect()),
            7 => Value::Array(
                (0..self.rng.below(4))
                    .map(|_| self.value(depth - 1))
                    .collect(),
            ),
            8..=10 => Value::Array(self.table_rows(depth)),
            11 | 12 => self.keyed_map(depth),
            _ => Value::Object(self.object(depth)),
        }
    }

    /// An object of random members.
    pub fn object(&mut self, depth: usize) -> Map {
        let mut m = Map::new();
        for _ in 0..self.rng.below(5) {
            let k = key(self.rng);
            let v = self.value(depth.saturating_sub(1));
            m.insert(k, v);
        }
        m
    }

    /// Rows over one field set (the array nests at `depth`, rows below it):
    /// uniform or ragged, with uniform nested objects (flattening, inline
    /// schemas), arrays of uniform objects (shared schemas), nulls where a
    /// nested value is expected, and arbitrary values (attachments).
    pub fn table_rows(&mut self, depth: usize) -> Vec<Value> {
        #[derive(Clone, Copy)]
        enum Column {
            Scalar,
            Nested,
            NestedTwoLevel,
            Items,
            Any,
        }
        let mut fields: Vec<(String, Column)> = Vec::new();
        for _ in 0..1 + self.rng.below(5) {
            let name = key(self.rng);
            if fields.iter().any(|(f, _)| *f == name) {
                continue;
            }
            let column = if depth < 3 {
                Column::Scalar
            } else {
                match self.rng.below(10) {
                    0 | 1 => Column::Nested,
                    2 => Column::NestedTwoLevel,
                    3 => Column::Items,
                    4 => Column::Any,
                    _ => Column::Scalar,
                }
            };
            fields.push((name, column));
        }
        let nested: Vec<String> = (0..1 + self.rng.below(4)).map(|_| key(self.rng)).collect();
        let item_fields: Vec<String> = (0..1 + self.rng.below(3)).map(|_| key(self.rng)).collect();
        let ragged = self.rng.chance(30);
        let shuffled = self.rng.chance(20);
        let odd = self.rng.chance(15);
        let rows = if self.rng.chance(5) {
            0
        } else {
            1 + self.rng.below(6)
        };
        let mut out = Vec::new();
        for _ in 0..rows {
            let mut row: Vec<(String, Value)> = Vec::new();
            for (name, column) in &fields {
                if ragged && self.rng.chance(25) {
                    continue;
                }
                let v = match column {
                    _ if odd && self.rng.chance(10) => Value::Null,
                    Column::Scalar => scalar(self.rng),
                    Column::Nested => {
                        let holey = ragged && self.rng.chance(20);
                        self.record(&nested, holey)
                    }
                    Column::NestedTwoLevel => {
                        let mut outer = Map::new();
                        outer.insert("p", self.record(&nested, false));
                        outer.insert("q", scalar(self.rng));
                        Value::Object(outer)
                    }
                    Column::Items => match self.rng.below(8) {
                        0 if odd => Value::Null,
                        1 => Value::Array(Vec::new()),
                        2 => self.value(depth - 2),
                        _ => Value::Array(
                            (0..1 + self.rng.below(3))
                                .map(|_| self.record(&item_fields, false))
                                .collect(),
                        ),
                    },
                    Column::Any => self.value(depth - 2),
                };
                row.push((name.clone(), v));
            }
            if shuffled {
                for i in (1..row.len()).rev() {
                    row.swap(i, self.rng.below(i as u64 + 1) as usize);
                }
            }
            let mut m = Map::new();
            for (k, v) in row {
                m.insert(k, v);
            }
            out.push(Value::Object(m));
        }
        out
    }

    /// An object of scalars over `fields`, some absent when `ragged`.
    fn record(&mut self, fields: &[String], ragged: bool) -> Value {
        let mut m = Map::new();
        for f in fields {
            if ragged && self.rng.chance(30) {
                continue;
            }
            let v = scalar(self.rng);
            m.insert(f.as_str(), v);
        }
        Value::Object(m)
    }

    /// An object whose members are objects over one field set (a keyed map).
    fn keyed_map(&mut self, depth: usize) -> Value {
        let rows = self.table_rows(depth);
        let mut m = Map::new();
        for row in rows {
            let k = if self.rng.chance(70) {
                format!("k{}", self.rng.below(100))
            } else {
                string(self.rng)
            };
            m.insert(k, row);
        }
        Value::Object(m)
    }

    /// A chain of `levels` nested containers around a small value, each level
    /// an array, an object member, a table cell (an attachment) or a keyed-map
    /// member: the deep end of the encoder's and decoder's recursion.
    pub fn chain(&mut self, levels: usize) -> Value {
        let mut v = self.value(1);
        let mut depth = 1;
        while depth < levels {
            let wrapped = match self.rng.below(5) {
                0 => Value::Array(vec![v]),
                1 => {
                    let mut m = Map::new();
                    m.insert(key(self.rng), v);
                    Value::Object(m)
                }
                2 if depth + 2 <= levels => {
                    // A table row's attachment: array > row object > value.
                    let mut row = Map::new();
                    row.insert("id", Value::Int(1));
                    row.insert("v", v);
                    let mut other = Map::new();
                    other.insert("id", Value::Int(2));
                    other.insert("v", scalar(self.rng));
                    depth += 1;
                    Value::Array(vec![Value::Object(row), Value::Object(other)])
                }
                3 if depth + 2 <= levels => {
                    // A keyed-map member's attachment: object > member object > value.
                    let mut member = Map::new();
                    member.insert("n", Value::Int(1));
                    member.insert("v", v);
                    let mut other = Map::new();
                    other.insert("n", Value::Int(2));
                    let mut m = Map::new();
                    m.insert("a", Value::Object(member));
                    m.insert("b", Value::Object(other));
                    depth += 1;
                    Value::Object(m)
                }
                _ => {
                    let mut m = Map::new();
                    m.insert("s", v);
                    m.insert("t", scalar(self.rng));
                    Value::Object(m)
                }
            };
            v = wrapped;
            depth += 1;
        }
        v
    }
}

/// How deep `v` nests containers (a scalar is 0).
pub fn nesting(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// A host's own tree, built by [`generic::Build`] with the trait's default
/// `repeated` and `scalar_array` (the core's builder overrides both).
#[derive(Debug, PartialEq)]
pub enum Tree {
    Scalar(generic::Value),
    List(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

impl Tree {
    pub fn of(value: &generic::Value) -> Tree {
        match value {
            generic::Value::Array(items) => Tree::List(items.iter().map(Tree::of).collect()),
            generic::Value::Object(map) => Tree::Object(
                map.iter()
                    .map(|(k, v)| (k.to_string(), Tree::of(v)))
                    .collect(),
            ),
            scalar => Tree::Scalar(scalar.clone()),
        }
    }
}

/// Builds [`Tree`]s, checking that it is handed scalars as scalars and
/// distinct keys, and counts the scalars handed by reference (repeats).
#[derive(Default)]
pub struct TreeBuilder {
    pub repeated: usize,
}

impl generic::Build for TreeBuilder {
    type Value = Tree;

    fn scalar(&mut self, value: generic::Value) -> Tree {
        assert!(
            value.is_scalar(),
            "a container handed as a scalar: {value:?}"
        );
        Tree::Scalar(value)
    }

    fn repeated(&mut self, value: &generic::Value) -> Tree {
        self.repeated += 1;
        self.scalar(value.clone())
    }

    fn array(&mut self, items: Vec<Tree>) -> Tree {
        Tree::List(items)
    }

    fn object(&mut self, mut members: Vec<(generic::Key, Tree)>) -> Tree {
        self.object_from(&mut members)
    }

    // Reads the members in place and leaves the vector for the decoder to
    // reuse, as the host builders do, so every fixture runs that path too.
    fn object_from(&mut self, members: &mut Vec<(generic::Key, Tree)>) -> Tree {
        let mut seen = std::collections::HashSet::new();
        for (k, _) in members.iter() {
            assert!(
                seen.insert(k.as_str()),
                "duplicate key {k:?} handed to a builder"
            );
        }
        Tree::Object(members.drain(..).map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// Decodes `bytes` with [`generic::Decoder::decode_bytes`] and into a
/// [`TreeBuilder`], and panics unless both give the same value or the same
/// error (category, line, column). Returns whether it decoded, and how many
/// repeats the builder was handed.
pub fn same_through_a_host_builder(bytes: &[u8]) -> (bool, usize) {
    let decoder = generic::Decoder::new();
    let mut build = TreeBuilder::default();
    let built = decoder.decode_bytes_into(bytes, &mut build);
    let ok = match (decoder.decode_bytes(bytes), built) {
        (Ok(value), Ok(tree)) => {
            assert_eq!(
                Tree::of(&value),
                tree,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
            true
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                (a.kind(), a.line(), a.column()),
                (b.kind(), b.line(), b.column()),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
            false
        }
        (a, b) => panic!(
            "{:?}: decode {a:?}, decode_into {b:?}",
            String::from_utf8_lossy(bytes)
        ),
    };
    (ok, build.repeated)
}

/// [`same_through_a_host_builder`] on `text`, `count` of its cuts and one-byte
/// mutations at `count` places, spread evenly: how many decoded, and the
/// repeats handed over.
pub fn host_builder_on_variants(text: &[u8], count: usize) -> (usize, usize) {
    let (mut decoded, mut repeated) = (0, 0);
    let mut tally = |(ok, r): (bool, usize)| {
        decoded += usize::from(ok);
        repeated += r;
    };
    let stride = (text.len() / count.max(1)).max(1);
    for cut in (0..=text.len()).step_by(stride) {
        tally(same_through_a_host_builder(&text[..cut]));
    }
    let mut buf = text.to_vec();
    for pos in (stride / 2..text.len()).step_by(stride) {
        for &m in b"|-@.^=> \n" {
            let orig = buf[pos];
            buf[pos] = m;
            tally(same_through_a_host_builder(&buf));
            buf[pos] = orig;
        }
    }
    (decoded, repeated)
}

/// The official conformance fixtures: `GCF_CONFORMANCE_DIR`, else
/// `../shared/conformance` beside the repository.
pub fn conformance_dir() -> std::path::PathBuf {
    match std::env::var_os("GCF_CONFORMANCE_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    }
}

/// Every fixture file (`*.json`) under the conformance directory, sorted.
pub fn fixture_paths() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("conformance dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&conformance_dir(), &mut out);
    out
}

/// The bytes of a fixture's `inputBase64` (standard alphabet, padding
/// and whitespace ignored).
pub fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .map(val)
        .collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | (u32::from(d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}
