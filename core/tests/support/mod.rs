//! Deterministic generators shared by the integration tests.
#![allow(dead_code)]

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
