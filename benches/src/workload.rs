//! The one deterministic workload generator every benchmark shares.
//!
//! Everything is derived from a seed through SplitMix64, so two runs (and the
//! two sides of every comparison) see exactly the same bytes. The builders
//! return plain owned data; views for each codec (`Payload<&str>` for
//! gcf-core, `gcf::Payload` for the reference crate, `serde_json::Value` for
//! the JSON baseline) are made from it outside the timed loops.

use gcf_core::generic::{Map, Value};
use serde_json::{json, Value as Json};

/// The seed used by every benchmark and by the report.
pub const SEED: u64 = 0x6cf_2026;

/// Graph sizes measured by the buffered benchmarks: 10-300 symbols is what
/// an MCP tool result usually holds, where the per-call cost dominates.
pub const GRAPH_SIZES: [usize; 6] = [10, 30, 100, 1_000, 10_000, 100_000];

/// A small, fast, well-mixed generator (SplitMix64); no dependency, stable forever.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A uniform double in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// One element of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const ORGS: &[&str] = &["acme", "initech", "globex", "umbrella", "hooli", "stark"];
const REPOS: &[&str] = &["billing", "gateway", "platform", "search", "ledger", "auth"];
const DIRS: &[&str] = &[
    "internal",
    "pkg",
    "cmd",
    "internal/core",
    "pkg/api",
    "internal/store",
];
const PACKAGES: &[&str] = &[
    "auth", "server", "cache", "storage", "router", "metrics", "queue", "config", "session",
    "billing",
];
const TYPES: &[&str] = &[
    "Server", "Client", "Handler", "Store", "Cache", "Router", "Manager", "Worker", "Queue",
    "Registry",
];
const METHODS: &[&str] = &[
    "Handle", "Serve", "Get", "Put", "Delete", "Close", "Start", "Stop", "Validate", "Flush",
    "Lookup", "Refresh",
];
/// Kinds of the spec's table (§5), weighted towards the common ones by repetition.
const KINDS: &[&str] = &[
    "function",
    "function",
    "function",
    "method",
    "method",
    "method",
    "type",
    "type",
    "interface",
    "var",
    "const",
    "field",
    "class",
    "package",
    "route_handler",
    "external",
    "file",
    "service",
    "resource",
    "table",
    "selector",
];
const PROVENANCE: &[&str] = &["lsp_resolved", "lsp_resolved", "ast_inferred", "text_match"];
const EDGE_TYPES: &[&str] = &[
    "calls",
    "calls",
    "calls",
    "references",
    "imports",
    "implements",
    "embeds",
    "returns",
];

/// One symbol of a graph workload, with owned strings.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphSymbol {
    /// A Go-style qualified name, unique within the workload.
    pub qualified_name: String,
    /// A full kind name from the spec's table.
    pub kind: &'static str,
    /// A score in `[0, 1)`.
    pub score: f64,
    /// The discovery method.
    pub provenance: &'static str,
    /// Hops from the targets, 0-3.
    pub distance: u32,
}

/// A graph workload: symbols, and edges between them by index.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphWorkload {
    /// The nodes, in generation order (not emission order).
    pub symbols: Vec<GraphSymbol>,
    /// `(source index, target index, edge type)`, about three per symbol.
    pub edges: Vec<(u32, u32, &'static str)>,
}

impl GraphSymbol {
    /// The symbol for gcf-core, borrowing its strings.
    pub fn borrowed(&self) -> gcf_core::graph::Symbol<&str> {
        gcf_core::graph::Symbol::new(
            self.qualified_name.as_str(),
            self.kind,
            self.score,
            self.provenance,
            self.distance,
        )
    }
}

/// A graph workload as rows for the streaming writers, built before any
/// timing starts.
pub struct GraphStream<'w> {
    /// Workload indexes of the symbols in stream order.
    pub order: Vec<u32>,
    /// The symbols in stream order.
    pub symbols: Vec<gcf_core::graph::Symbol<&'w str>>,
    /// `(source id, target id, edge type)`.
    pub edges: Vec<(u64, u64, &'static str)>,
}

impl GraphStream<'_> {
    /// Streams every row through gcf-core's writer into a discarding sink;
    /// returns the bytes written. Never inlined, so that a profiler can
    /// count just the writer (`--toggle-collect` on this function).
    #[inline(never)]
    pub fn write_core(&self) -> u64 {
        use gcf_core::graph::{StreamOptions, StreamWriter};
        let mut out =
            StreamWriter::new(gcf_core::CountingSink::default(), StreamOptions::default()).unwrap();
        for s in &self.symbols {
            out.write_symbol(s).unwrap();
        }
        for &(s, t, ty) in &self.edges {
            out.write_edge(s, t, ty, "").unwrap();
        }
        out.finish().unwrap().bytes
    }
}

/// Writes the qualified name of symbol `i` into `out` (cleared first).
///
/// The name depends only on `(i, seed)`, so a streaming producer can
/// regenerate any earlier name without storing it. The `(type number,
/// method)` pair is unique per index, so names never collide; the package
/// path around it is random but seeded. Does not allocate once `out` has
/// grown to fit.
pub fn qualified_name_into(out: &mut String, i: usize, seed: u64) {
    use std::fmt::Write;
    let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    out.clear();
    let _ = write!(
        out,
        "github.com/{}/{}/{}/{}.{}{}.{}",
        rng.pick(ORGS),
        rng.pick(REPOS),
        rng.pick(DIRS),
        rng.pick(PACKAGES),
        TYPES[(i / METHODS.len()) % TYPES.len()],
        i / (METHODS.len() * TYPES.len()),
        METHODS[i % METHODS.len()],
    );
}

/// A symbol kind from the spec's table, weighted towards the common ones.
pub fn kind(rng: &mut Rng) -> &'static str {
    rng.pick(KINDS)
}

/// A provenance value.
pub fn provenance(rng: &mut Rng) -> &'static str {
    rng.pick(PROVENANCE)
}

/// An edge type.
pub fn edge_type(rng: &mut Rng) -> &'static str {
    rng.pick(EDGE_TYPES)
}

/// A distance 0-3: few targets, most symbols one or two hops away.
pub fn distance(rng: &mut Rng) -> u32 {
    match rng.below(100) {
        0..=4 => 0,
        5..=34 => 1,
        35..=74 => 2,
        _ => 3,
    }
}

/// Builds the graph workload of `n` symbols (about `3 n` edges) from `seed`.
pub fn graph(n: usize, seed: u64) -> GraphWorkload {
    let mut rng = Rng::new(seed ^ n as u64);
    let mut symbols = Vec::with_capacity(n);
    let mut name = String::new();
    for i in 0..n {
        qualified_name_into(&mut name, i, seed);
        symbols.push(GraphSymbol {
            qualified_name: name.clone(),
            kind: rng.pick(KINDS),
            score: rng.unit(),
            provenance: rng.pick(PROVENANCE),
            distance: distance(&mut rng),
        });
    }
    let mut edges = Vec::with_capacity(n * 3);
    if n > 1 {
        for source in 0..n {
            for _ in 0..2 + rng.below(3) {
                let mut target = rng.below(n);
                if target == source {
                    target = (target + 1) % n;
                }
                edges.push((source as u32, target as u32, rng.pick(EDGE_TYPES)));
            }
        }
    }
    GraphWorkload { symbols, edges }
}

impl GraphWorkload {
    /// The payload for gcf-core, borrowing every string.
    pub fn payload(&self) -> gcf_core::graph::Payload<&str> {
        use gcf_core::graph::{Edge, Payload};
        Payload {
            tool: "context_for_task",
            symbols: self.symbols.iter().map(GraphSymbol::borrowed).collect(),
            edges: self
                .edges
                .iter()
                .map(|&(s, t, ty)| {
                    Edge::new(
                        self.symbols[s as usize].qualified_name.as_str(),
                        self.symbols[t as usize].qualified_name.as_str(),
                        ty,
                    )
                })
                .collect(),
            ..Payload::default()
        }
    }

    /// What a producer streams (the `stream_graph` bench and `graph_probe
    /// stream`): the symbols breadth first (grouped by distance), then the
    /// first `edges` edges, by their symbols' stream ids.
    pub fn stream(&self, edges: usize) -> GraphStream<'_> {
        let mut order: Vec<u32> = (0..self.symbols.len() as u32).collect();
        order.sort_by_key(|&i| self.symbols[i as usize].distance);
        let mut stream_id = vec![0u64; order.len()];
        for (id, &i) in order.iter().enumerate() {
            stream_id[i as usize] = id as u64;
        }
        GraphStream {
            symbols: order
                .iter()
                .map(|&i| self.symbols[i as usize].borrowed())
                .collect(),
            edges: self.edges[..edges.min(self.edges.len())]
                .iter()
                .map(|&(s, t, ty)| (stream_id[s as usize], stream_id[t as usize], ty))
                .collect(),
            order,
        }
    }

    /// The same payload for the reference crate.
    pub fn oracle_payload(&self) -> gcf_oracle::Payload {
        gcf_oracle::Payload {
            tool: "context_for_task".into(),
            tokens_used: 0,
            token_budget: 0,
            pack_root: String::new(),
            symbols: self.symbols.iter().map(oracle_symbol).collect(),
            edges: self
                .edges
                .iter()
                .map(|&(s, t, ty)| {
                    oracle_edge(
                        &self.symbols[s as usize].qualified_name,
                        &self.symbols[t as usize].qualified_name,
                        ty,
                    )
                })
                .collect(),
        }
    }

    /// The same payload as JSON (the camelCase form of the conformance fixtures).
    pub fn json(&self) -> Json {
        gcf_core::graph::payload_to_json(&self.payload())
    }

    /// The payload as a caller hands it over: written to JSON text, parsed
    /// back by serde_json and converted with `payload_from_json`, so every
    /// string (each edge's endpoints, each kind and edge type) is its own
    /// allocation, as from a JSON parser, Node, Python or a C caller.
    pub fn owned_payload(&self) -> gcf_core::graph::Payload<String> {
        let text = serde_json::to_string(&self.json()).unwrap();
        let parsed: Json = serde_json::from_str(&text).unwrap();
        gcf_core::graph::payload_from_json(&parsed).unwrap()
    }
}

/// The workload of the headline rows: [`graph`]'s symbols and edges with
/// scores rounded to four decimals (what a ranker reports) and the symbols
/// shuffled, so that neither memory order nor input order says anything
/// about emission order. Edges stay grouped by source (as a producer walking
/// the graph emits them), but the sources come in shuffled order.
pub fn realistic_graph(n: usize, seed: u64) -> GraphWorkload {
    let w = graph(n, seed);
    let mut rng = Rng::new(seed ^ 0x5_4ff1e ^ n as u64);
    // `from[k]`: the generated symbol placed at position `k`.
    let mut from: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        from.swap(i, rng.below(i + 1));
    }
    let mut to = vec![0u32; n];
    for (k, &i) in from.iter().enumerate() {
        to[i] = k as u32;
    }
    let symbols = from
        .iter()
        .map(|&i| {
            let mut s = w.symbols[i].clone();
            s.score = (s.score * 10_000.0).round() / 10_000.0;
            s
        })
        .collect();
    let edges = w
        .edges
        .iter()
        .map(|&(s, t, ty)| (to[s as usize], to[t as usize], ty))
        .collect();
    GraphWorkload { symbols, edges }
}

/// A reference-crate payload with the strings of `p`.
/// Whether `p` names one qualified name twice: the crate writes such a
/// payload differently (README, "Where the spec and the references
/// differ"), so byte comparisons with it leave these out.
pub fn repeats_a_name<S: AsRef<str>>(p: &gcf_core::graph::Payload<S>) -> bool {
    let mut names: Vec<&str> = p
        .symbols
        .iter()
        .map(|s| s.qualified_name.as_ref())
        .collect();
    names.sort_unstable();
    names.windows(2).any(|w| w[0] == w[1])
}

pub fn oracle_from_owned(p: &gcf_core::graph::Payload<String>) -> gcf_oracle::Payload {
    gcf_oracle::Payload {
        tool: p.tool.clone(),
        tokens_used: p.tokens_used as i64,
        token_budget: p.token_budget as i64,
        pack_root: p.pack_root.clone(),
        symbols: p
            .symbols
            .iter()
            .map(|s| gcf_oracle::Symbol {
                qualified_name: s.qualified_name.clone(),
                kind: s.kind.clone(),
                score: s.score,
                provenance: s.provenance.clone(),
                distance: s.distance as i32,
                signature: String::new(),
                components: Default::default(),
            })
            .collect(),
        edges: p
            .edges
            .iter()
            .map(|e| oracle_edge(&e.source, &e.target, &e.edge_type))
            .collect(),
    }
}

/// What an owned decode cannot avoid: a payload shaped like `p` (same
/// symbols and edges, same string lengths) with every string allocated and
/// filled by `make`, and no parsing. Dropping it is the other half.
pub fn floor<'a, S: Default>(
    p: &'a gcf_core::graph::Payload,
    mut make: impl FnMut(&'a str) -> S,
) -> gcf_core::graph::Payload<S> {
    let mut symbols = Vec::with_capacity(p.symbols.len());
    for s in &p.symbols {
        symbols.push(gcf_core::graph::Symbol::new(
            make(std::hint::black_box(&s.qualified_name)),
            make(&s.kind),
            s.score,
            make(&s.provenance),
            s.distance,
        ));
    }
    let mut edges = Vec::with_capacity(p.edges.len());
    for e in &p.edges {
        edges.push(gcf_core::graph::Edge {
            source: make(std::hint::black_box(&e.source)),
            target: make(&e.target),
            edge_type: make(&e.edge_type),
            status: make(&e.status),
        });
    }
    gcf_core::graph::Payload {
        symbols,
        edges,
        ..gcf_core::graph::Payload::default()
    }
}

/// Each edge's endpoints of `p` as symbol indexes, for [`floor_shared`].
pub fn endpoints(p: &gcf_core::graph::Payload) -> Vec<(usize, usize)> {
    let index: std::collections::HashMap<&str, usize> = p
        .symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.qualified_name.as_str(), i))
        .collect();
    p.edges
        .iter()
        .map(|e| (index[e.source.as_str()], index[e.target.as_str()]))
        .collect()
}

/// What a shared decode cannot avoid: one `Arc<str>` per name, cloned for
/// each edge endpoint, one per distinct label, with no parsing and no
/// lookups; dropping it is the other half.
pub fn floor_shared(
    p: &gcf_core::graph::Payload,
    endpoints: &[(usize, usize)],
) -> gcf_core::graph::Payload<std::sync::Arc<str>> {
    use std::sync::Arc;
    let label: Arc<str> = Arc::from("function");
    let mut symbols = Vec::with_capacity(p.symbols.len());
    for s in &p.symbols {
        symbols.push(gcf_core::graph::Symbol::new(
            Arc::from(std::hint::black_box(s.qualified_name.as_str())),
            Arc::clone(&label),
            s.score,
            Arc::clone(&label),
            s.distance,
        ));
    }
    let mut edges = Vec::with_capacity(endpoints.len());
    for &(source, target) in endpoints {
        let (source, target) = std::hint::black_box((source, target));
        edges.push(gcf_core::graph::Edge {
            source: Arc::clone(&symbols[source].qualified_name),
            target: Arc::clone(&symbols[target].qualified_name),
            edge_type: Arc::clone(&label),
            status: Arc::clone(&label),
        });
    }
    gcf_core::graph::Payload {
        symbols,
        edges,
        ..gcf_core::graph::Payload::default()
    }
}

/// A reference-crate symbol with the fields of `s`.
pub fn oracle_symbol(s: &GraphSymbol) -> gcf_oracle::Symbol {
    gcf_oracle::Symbol {
        qualified_name: s.qualified_name.clone(),
        kind: s.kind.into(),
        score: s.score,
        provenance: s.provenance.into(),
        distance: s.distance as i32,
        signature: String::new(),
        components: Default::default(),
    }
}

/// A reference-crate edge.
pub fn oracle_edge(source: &str, target: &str, edge_type: &str) -> gcf_oracle::Edge {
    gcf_oracle::Edge {
        source: source.into(),
        target: target.into(),
        edge_type: edge_type.into(),
        status: String::new(),
    }
}

const FIRST: &[&str] = &[
    "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory",
    "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Zoe",
];
const LAST: &[&str] = &[
    "Smith", "Jones", "Wu", "Garcia", "Miller", "Davis", "Martinez", "Nguyen", "Kim", "O'Brien",
    "Schmidt", "Rossi",
];
const DEPARTMENTS: &[&str] = &[
    "Engineering",
    "Sales",
    "Marketing",
    "Finance",
    "Support",
    "Legal",
    "Operations",
    "R&D",
];
const CITIES: &[&str] = &[
    "Berlin", "Austin", "Tokyo", "Lagos", "Lima", "Oslo", "Pune", "Paris",
];

/// One flat employee record (the generic streaming and tabular workload).
#[derive(Debug, Clone, PartialEq)]
pub struct Employee {
    /// 1-based.
    pub id: i64,
    /// `First Last`.
    pub name: String,
    /// `first.last<id>@example.com`.
    pub email: String,
    /// One of eight departments.
    pub department: &'static str,
    /// Whole currency units.
    pub salary: i64,
    /// A rating with one or two decimals.
    pub rating: f64,
    /// Whether the employee is active.
    pub active: bool,
    /// Office city.
    pub city: &'static str,
}

/// The column names of [`Employee`], in row order.
pub const EMPLOYEE_FIELDS: [&str; 8] = [
    "id",
    "name",
    "email",
    "department",
    "salary",
    "rating",
    "active",
    "city",
];

/// Employee `i` of the sequence started by `rng` (1-based id `i + 1`).
pub fn employee(i: usize, rng: &mut Rng) -> Employee {
    let mut e = Employee {
        id: 0,
        name: String::with_capacity(32),
        email: String::with_capacity(64),
        department: "",
        salary: 0,
        rating: 0.0,
        active: false,
        city: "",
    };
    e.refill(i, rng);
    e
}

impl Employee {
    /// Overwrites this record with employee `i`, reusing the string buffers
    /// (no allocation once they have grown), for streaming producers.
    pub fn refill(&mut self, i: usize, rng: &mut Rng) {
        use std::fmt::Write;
        let first = rng.pick(FIRST);
        let last = rng.pick(LAST);
        self.id = i as i64 + 1;
        self.name.clear();
        self.name.push_str(first);
        self.name.push(' ');
        self.name.push_str(last);
        self.email.clear();
        self.email
            .extend(first.chars().map(|c| c.to_ascii_lowercase()));
        self.email.push('.');
        self.email
            .extend(last.chars().map(|c| c.to_ascii_lowercase()));
        let _ = write!(self.email, "{i}@example.com");
        self.department = rng.pick(DEPARTMENTS);
        self.salary = 40_000 + rng.below(120_000) as i64;
        self.rating = (rng.below(500) as f64) / 100.0;
        self.active = rng.below(10) != 0;
        self.city = rng.pick(CITIES);
    }

    /// The record as borrowed streaming cells, in [`EMPLOYEE_FIELDS`] order.
    pub fn cells(&self) -> [gcf_core::generic::Cell<'_>; 8] {
        use gcf_core::generic::Cell;
        [
            Cell::Int(self.id),
            Cell::Str(&self.name),
            Cell::Str(&self.email),
            Cell::Str(self.department),
            Cell::Int(self.salary),
            Cell::Float(self.rating),
            Cell::Bool(self.active),
            Cell::Str(self.city),
        ]
    }
}

/// `n` employee records.
pub fn employees(n: usize, seed: u64) -> Vec<Employee> {
    let mut rng = Rng::new(seed ^ 0xe1);
    (0..n).map(|i| employee(i, &mut rng)).collect()
}

impl Employee {
    /// The record as a JSON object.
    pub fn json(&self) -> Json {
        json!({
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "department": self.department,
            "salary": self.salary,
            "rating": self.rating,
            "active": self.active,
            "city": self.city,
        })
    }

    /// The record as reference-crate row values, in [`EMPLOYEE_FIELDS`] order.
    pub fn oracle_row(&self) -> Vec<gcf_oracle::stream_generic::GcfValue> {
        use gcf_oracle::stream_generic::GcfValue;
        vec![
            GcfValue::Int(self.id),
            GcfValue::Str(self.name.clone()),
            GcfValue::Str(self.email.clone()),
            GcfValue::Str(self.department.into()),
            GcfValue::Int(self.salary),
            GcfValue::Float(self.rating),
            GcfValue::Bool(self.active),
            GcfValue::Str(self.city.into()),
        ]
    }
}

/// An employee as a caller's own serde type (owned strings, as a database
/// row or a parsed request hands them over): the typed workload of
/// `generic::to_string` and `from_str` (feature `serde`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EmployeeRecord {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub department: String,
    pub salary: i64,
    pub rating: f64,
    pub active: bool,
    pub city: String,
}

/// [`EmployeeRecord`] borrowing its strings from the text it is read from
/// (`&'a str` fields, as a zero-copy reader declares them): the decode
/// that allocates nothing per field.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct EmployeeRecordRef<'a> {
    pub id: i64,
    pub name: &'a str,
    pub email: &'a str,
    pub department: &'a str,
    pub salary: i64,
    pub rating: f64,
    pub active: bool,
    pub city: &'a str,
}

impl EmployeeRecordRef<'_> {
    /// The same record with owned strings.
    pub fn to_owned_record(&self) -> EmployeeRecord {
        EmployeeRecord {
            id: self.id,
            name: self.name.into(),
            email: self.email.into(),
            department: self.department.into(),
            salary: self.salary,
            rating: self.rating,
            active: self.active,
            city: self.city.into(),
        }
    }
}

impl Employee {
    /// The record as its own serde type.
    pub fn record(&self) -> EmployeeRecord {
        EmployeeRecord {
            id: self.id,
            name: self.name.clone(),
            email: self.email.clone(),
            department: self.department.into(),
            salary: self.salary,
            rating: self.rating,
            active: self.active,
            city: self.city.into(),
        }
    }
}

/// `n` employees as their own serde type.
pub fn employee_records(n: usize, seed: u64) -> Vec<EmployeeRecord> {
    employees(n, seed).iter().map(Employee::record).collect()
}

/// The generic workloads, each as one JSON document.
pub mod generic {
    use super::*;

    /// `{"employees": [100,000 flat records]}`.
    pub fn employees_json(n: usize, seed: u64) -> Json {
        let rows: Vec<Json> = employees(n, seed).iter().map(Employee::json).collect();
        json!({ "employees": rows })
    }

    /// `{"orders": [n nested orders]}`: a customer object, a tag list and 1-4 line items.
    pub fn orders_json(n: usize, seed: u64) -> Json {
        const TAGS: &[&str] = &["gift", "priority", "fragile", "bulk", "repeat", "promo"];
        const STATUS: &[&str] = &["pending", "shipped", "delivered", "returned"];
        const TIERS: &[&str] = &["free", "pro", "enterprise"];
        let mut rng = Rng::new(seed ^ 0x0d);
        let orders: Vec<Json> = (0..n)
            .map(|i| {
                let items: Vec<Json> = (0..1 + rng.below(4))
                    .map(|_| {
                        json!({
                            "sku": format!("SKU-{:05}", rng.below(100_000)),
                            "qty": 1 + rng.below(9) as i64,
                            "price": (rng.below(100_000) as f64) / 100.0,
                        })
                    })
                    .collect();
                let tags: Vec<Json> = (0..rng.below(4))
                    .map(|_| Json::from(rng.pick(TAGS)))
                    .collect();
                json!({
                    "id": format!("ord-{:07}", i),
                    "customer": {
                        "id": 1 + rng.below(50_000) as i64,
                        "name": format!("{} {}", rng.pick(FIRST), rng.pick(LAST)),
                        "tier": rng.pick(TIERS),
                        "city": rng.pick(CITIES),
                    },
                    "status": rng.pick(STATUS),
                    "tags": tags,
                    "items": items,
                    "total": (rng.below(1_000_000) as f64) / 100.0,
                })
            })
            .collect();
        json!({ "orders": orders })
    }

    /// `{"users": {"user_00001": {...}, ...}}`: a keyed map of uniform members.
    pub fn keyed_json(n: usize, seed: u64) -> Json {
        const ROLES: &[&str] = &["admin", "editor", "viewer", "owner"];
        let mut rng = Rng::new(seed ^ 0x4e);
        let mut users = serde_json::Map::new();
        for i in 0..n {
            users.insert(
                format!("user_{:05}", i + 1),
                json!({
                    "name": format!("{} {}", rng.pick(FIRST), rng.pick(LAST)),
                    "role": rng.pick(ROLES),
                    "score": (rng.below(10_000) as f64) / 100.0,
                    "logins": rng.below(5_000) as i64,
                    "active": rng.below(5) != 0,
                }),
            );
        }
        json!({ "users": users })
    }

    /// `n` small objects of the shape a tool call returns one at a time (an
    /// issue: integers, strings, booleans, a null, a float, a nested
    /// object, a list of two records), each encoded or decoded by its own
    /// call. Most of their members are `key=value` lines, which the
    /// workloads of [`all`] hardly have. Not in [`all`]: the criterion
    /// benches time whole documents.
    pub fn tool_results_json(n: usize, seed: u64) -> Vec<Json> {
        const STATES: &[&str] = &["open", "closed"];
        const LABELS: &[&str] = &["bug", "decoder", "encoder", "docs", "perf"];
        let mut rng = Rng::new(seed ^ 0x7e);
        (0..n)
            .map(|i| {
                json!({
                    "id": 4_000 + i as i64,
                    "number": 1 + rng.below(900) as i64,
                    "title": format!("{} fails on {} input", rng.pick(METHODS), rng.pick(TYPES)),
                    "state": rng.pick(STATES),
                    "locked": rng.below(10) == 0,
                    "comments": rng.below(40) as i64,
                    "created_at": format!("2026-11-{:02}T10:{:02}:00Z", 1 + rng.below(28), rng.below(60)),
                    "user": {
                        "login": format!("{}{}", rng.pick(FIRST).to_lowercase(), rng.below(100)),
                        "id": 10_000 + rng.below(900_000) as i64,
                        "site_admin": false,
                    },
                    "labels": [
                        { "name": rng.pick(LABELS), "color": "d73a4a" },
                        { "name": rng.pick(LABELS), "color": "0e8a16" },
                    ],
                    "assignee": null,
                    "score": (rng.below(10_000) as f64) / 100.0,
                })
            })
            .collect()
    }

    /// The three generic workloads: `(name, JSON)`.
    pub fn all(seed: u64) -> Vec<(&'static str, Json)> {
        vec![
            ("employees_100k", employees_json(100_000, seed)),
            ("orders_10k", orders_json(10_000, seed)),
            ("keyed_5k", keyed_json(5_000, seed)),
        ]
    }

    /// A JSON document as a gcf-core [`Value`] (integers stay integers).
    pub fn to_value(json: &Json) -> Value {
        match json {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => Value::from(s.as_str()),
            Json::Array(a) => Value::Array(a.iter().map(to_value).collect()),
            Json::Object(o) => {
                let mut map = Map::with_capacity(o.len());
                for (k, v) in o {
                    map.push_unique(k.as_str(), to_value(v));
                }
                Value::Object(map)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_records_encode_like_the_crate_through_serde_json_and_read_back() {
        let rows = employee_records(300, SEED);
        let text = gcf_core::generic::to_string(&rows).unwrap();
        let crate_text = gcf_oracle::encode_generic(&serde_json::to_value(&rows).unwrap()).unwrap();
        assert_eq!(text, crate_text);
        let back: Vec<EmployeeRecord> = gcf_core::generic::from_str(&text).unwrap();
        assert_eq!(back, rows);
        let via_crate: Vec<EmployeeRecord> =
            serde_json::from_value(gcf_oracle::decode_generic(&text).unwrap()).unwrap();
        assert_eq!(via_crate, rows);
    }

    #[test]
    fn generator_is_deterministic() {
        assert_eq!(graph(1_000, SEED), graph(1_000, SEED));
        assert_ne!(graph(1_000, SEED), graph(1_000, SEED + 1));
        assert_eq!(employees(500, SEED), employees(500, SEED));
        assert_eq!(
            generic::orders_json(200, SEED),
            generic::orders_json(200, SEED)
        );
        let first = &graph(100, SEED).symbols[0];
        assert!(first.qualified_name.starts_with("github.com/"));
    }

    #[test]
    fn graph_shape_is_as_specified() {
        let w = graph(10_000, SEED);
        let names: std::collections::HashSet<_> =
            w.symbols.iter().map(|s| &s.qualified_name).collect();
        assert_eq!(names.len(), w.symbols.len(), "qualified names are unique");
        let per_symbol = w.edges.len() as f64 / w.symbols.len() as f64;
        assert!(
            (2.8..3.2).contains(&per_symbol),
            "{per_symbol} edges per symbol"
        );
        assert!(w
            .symbols
            .iter()
            .all(|s| (0.0..1.0).contains(&s.score) && s.distance <= 3));
        assert!((0..4).all(|d| w.symbols.iter().any(|s| s.distance == d)));
    }

    /// The headline workloads, owned and borrowed, at every benchmarked
    /// size but the largest (the bench itself checks that one before timing).
    #[test]
    fn realistic_graph_encodes_like_the_reference_crate_at_every_size() {
        for n in GRAPH_SIZES.into_iter().filter(|&n| n <= 10_000) {
            let w = realistic_graph(n, SEED);
            let owned = w.owned_payload();
            let theirs = gcf_oracle::encode(&oracle_from_owned(&owned));
            assert_eq!(oracle_from_owned(&owned), w.oracle_payload(), "{n}");
            let ours = gcf_core::graph::encode(&owned).unwrap();
            assert_eq!(ours, theirs, "owned, {n} symbols");
            assert_eq!(
                gcf_core::graph::encode(&w.payload()).unwrap(),
                theirs,
                "borrowed, {n} symbols"
            );
            // A reused encoder gives the same bytes call after call.
            let mut encoder = gcf_core::graph::Encoder::new();
            for _ in 0..2 {
                assert_eq!(encoder.encode(&owned).unwrap(), theirs, "reused, {n}");
            }
            let back = gcf_core::graph::decode(&ours).unwrap();
            let crate_back = gcf_oracle::decode(&ours).unwrap();
            assert_eq!(back.symbols.len(), crate_back.symbols.len());
            assert_eq!(back.edges.len(), crate_back.edges.len());
            for (a, b) in back.edges.iter().zip(&crate_back.edges) {
                assert_eq!((&a.source, &a.target), (&b.source, &b.target));
            }
            // Four-decimal scores and shuffled symbols, as advertised.
            assert!(owned
                .symbols
                .iter()
                .all(|s| (s.score * 10_000.0).round() / 10_000.0 == s.score));
            let generated = graph(n, SEED);
            assert!(owned
                .symbols
                .iter()
                .zip(&generated.symbols)
                .any(|(a, b)| a.qualified_name != b.qualified_name));
        }
    }

    #[test]
    fn our_graph_encoding_equals_the_reference_crate() {
        for n in [100, 1_000] {
            let w = graph(n, SEED);
            let ours = gcf_core::graph::encode(&w.payload()).unwrap();
            let theirs = gcf_oracle::encode(&w.oracle_payload());
            assert_eq!(ours, theirs, "{n} symbols");
            let back = gcf_core::graph::decode(&ours).unwrap();
            assert_eq!(back.symbols.len(), n);
            assert_eq!(back.edges.len(), w.edges.len());
        }
    }

    #[test]
    fn our_generic_encoding_equals_the_reference_crate() {
        for (name, json) in [
            ("employees", generic::employees_json(300, SEED)),
            ("orders", generic::orders_json(100, SEED)),
            ("keyed", generic::keyed_json(100, SEED)),
        ] {
            let value = gcf_core::generic::from_json(&json).unwrap();
            assert_eq!(value, generic::to_value(&json), "{name}");
            let ours = gcf_core::generic::encode(&value).unwrap();
            let theirs = gcf_oracle::encode_generic(&json).unwrap();
            assert_eq!(ours, theirs, "{name}");
            assert_eq!(gcf_core::generic::decode(&ours).unwrap(), value, "{name}");
        }
    }

    #[test]
    fn generic_workloads_convert_to_values() {
        let json = generic::keyed_json(10, SEED);
        let value = generic::to_value(&json);
        let users = value.as_object().unwrap().get("users").unwrap();
        assert_eq!(users.as_object().unwrap().len(), 10);
    }
}
