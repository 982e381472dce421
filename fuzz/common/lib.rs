//! Shared pieces of the fuzz targets: a byte reader that turns fuzz input
//! into structured choices (values, payloads, call sequences), and the
//! comparison of decoder results by value or by error kind and position.

use gcf_core::generic::{Map, Value};
use gcf_core::graph::{Edge, Payload, Symbol};

/// Reads choices from the fuzz input; past its end every choice is 0.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A choice in `0..n`.
    pub fn pick(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0, |acc, _| acc << 8 | u64::from(self.byte()))
    }

    /// A short string, biased to GCF's structural characters.
    pub fn text(&mut self) -> String {
        const ALPHABET: &[&str] = &[
            "a", "b", "Z", "_", "0", "7", " ", "|", ",", "=", ">", "\"", "\\", "#", "@", "~", "^",
            "[", "]", "{", "}", ":", "-", ".", "\t", "\n", "é", "名", "\u{a0}", "\u{7f}", "\0",
            "true", "null", "1e5", "-0",
        ];
        let len = self.pick(9);
        (0..len)
            .map(|_| ALPHABET[self.pick(ALPHABET.len())])
            .collect()
    }

    /// A token for graph fields: usually a valid one, sometimes not.
    pub fn token(&mut self) -> String {
        if self.pick(8) == 0 {
            return self.text();
        }
        const TOKENS: &[&str] = &[
            "pkg.A", "pkg.B", "x", "a.b.c", "calls", "lsp", "ௗq", "fn", "function", "widget",
        ];
        let mut t = String::from(TOKENS[self.pick(TOKENS.len())]);
        if self.pick(3) == 0 {
            t.push_str(&self.pick(50).to_string());
        }
        t
    }

    pub fn float(&mut self) -> f64 {
        match self.pick(6) {
            0 => f64::from_bits(self.u64()),
            1 => self.pick(2000) as f64 / 8.0 - 100.0,
            2 => (self.u64() >> 11) as f64 / (1u64 << 53) as f64,
            3 => 2f64.powi(self.pick(1100) as i32 - 50),
            _ => self.pick(100) as f64 / 100.0,
        }
    }

    /// A JSON value of at most `depth` levels.
    pub fn value(&mut self, depth: usize) -> Value {
        let kinds = if depth == 0 { 5 } else { 8 };
        match self.pick(kinds) {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => Value::Int(match self.pick(4) {
                0 => self.u64() as i64,
                _ => self.pick(300) as i64 - 100,
            }),
            3 => {
                let f = self.float();
                if f.is_finite() {
                    Value::Float(f)
                } else {
                    Value::Null
                }
            }
            4 => Value::from(self.text()),
            5 | 6 => {
                let n = self.pick(5);
                let mut m = Map::new();
                for _ in 0..n {
                    let key = if self.pick(3) == 0 {
                        self.text()
                    } else {
                        ["id", "a", "b", "a>b", "key", "_key", "x y"][self.pick(7)].to_string()
                    };
                    let v = self.value(depth - 1);
                    m.insert(key.as_str(), v);
                }
                Value::Object(m)
            }
            _ => {
                let n = self.pick(5);
                Value::Array((0..n).map(|_| self.value(depth - 1)).collect())
            }
        }
    }

    /// A graph payload: symbols, edges between them (or dangling), locations.
    pub fn payload(&mut self) -> Payload<String> {
        let n = self.pick(12);
        let symbols: Vec<Symbol<String>> = (0..n)
            .map(|_| {
                let kind = self.token();
                let name = self.token();
                let score = self.float();
                let prov = self.token();
                Symbol::new(name, kind, score, prov, self.pick(6) as u32)
            })
            .collect();
        let edges = (0..self.pick(12))
            .map(|_| {
                let name = |b: &mut Self| {
                    if n > 0 && b.pick(8) != 0 {
                        symbols[b.pick(n)].qualified_name.clone()
                    } else {
                        b.token()
                    }
                };
                let source = name(self);
                let target = name(self);
                let mut e = Edge::new(source, target, self.token());
                e.status = ["", "added", "removed", "x"][self.pick(4)].to_string();
                e
            })
            .collect();
        Payload {
            tool: if self.pick(4) == 0 {
                String::new()
            } else {
                self.token()
            },
            token_budget: self.pick(3) as u64 * 100,
            tokens_used: self.pick(3) as u64 * 10,
            symbols,
            edges,
            ..Payload::default()
        }
    }
}

/// An error as the decoders must agree on it.
pub fn position(e: &gcf_core::Error) -> (gcf_core::ErrorKind, Option<usize>, Option<usize>) {
    (e.kind(), e.line(), e.column())
}

/// Structural equality of the JSON data model (spec §1.1):
/// [`Value::structurally_eq`], as the property tests compare.
pub fn same_value(a: &Value, b: &Value) -> bool {
    a.structurally_eq(b)
}
