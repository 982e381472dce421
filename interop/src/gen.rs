//! A seeded generator of JSON values for differential tests.
//!
//! [`case`] maps a seed to one value, deterministically (so a failure names
//! its seed and reproduces alone). About two in five values are realistic
//! record sets: file listings, issue lists and database rows whose columns
//! are often constant across the set (the shape constant-column factoring,
//! spec §7.4.7, exists for), keyed maps of records, such sets wrapped in
//! objects or nested sections, and sets with a unique key and a
//! low-cardinality column, which a [`Case`] offers for grouped encoding
//! (spec §7.4.8). The rest are general values: nested objects and arrays,
//! tables with random constant columns, and adversarial scalars and keys
//! (strings that look like numbers, markers, declarations, subheaders).
//!
//! # Domain
//!
//! Only values every party can represent losslessly are generated:
//!
//! * integers within `int64` (the spec's numeric domain, §2.3.2; the
//!   references reject larger ones), doubles that are finite, not `-0.0`
//!   and with at most 15 significant digits in a moderate exponent range
//!   (the references format doubles with their own shortest-form rules);
//! * strings of Unicode scalar values (no lone surrogates, which JSON text
//!   from Rust cannot hold), including control characters, quotes,
//!   backslashes, the structural characters of GCF and non-ASCII text;
//! * object keys unique within their object, in a meaningful order (the
//!   comparison checks key order).
//!
//! Not generated: NaN and infinities (not JSON), integers beyond `int64`,
//! and `-0.0` (canonicalized to `0` by every encoder, so never round-trips).

use serde_json::{Map, Number, Value as Json};

/// splitmix64: small, fast, and good enough to spread seeds.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `items` in a random order (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// One generated value and what it is.
pub struct Case {
    /// The value.
    pub value: Json,
    /// A realistic record set (not a general value).
    pub realistic: bool,
    /// For an array of flat records with a unique key: `(key, group)`
    /// fields for a grouped encoding.
    pub grouping: Option<(String, String)>,
}

/// Strings that collide with GCF syntax or scalar forms in some position.
const HAZARDS: &[&str] = &[
    "",
    " ",
    "  ",
    " x",
    "x ",
    "true",
    "false",
    "null",
    "-",
    "~",
    "^",
    "^{",
    "^{a}",
    "^{abc",
    "^{a,b}",
    "0",
    "1",
    "-1",
    "42",
    "3.14",
    "1e10",
    "-0",
    "01",
    "+1",
    ".5",
    "1.",
    "0x1F",
    "#",
    "# comment",
    "## section",
    "@0",
    "@id",
    ".field",
    "a|b",
    "a,b",
    "a=b",
    "=",
    "|",
    ",",
    "\"",
    "\\",
    "\"quoted\"",
    "\n",
    "\r",
    "\t",
    "a\nb",
    "\u{1}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    "}",
    "{",
    "{a}",
    "{a,b=1}",
    "[2]",
    "[2:]",
    "[?]",
    "[0]",
    "group=dept",
    "group=",
    "dept=Sales [2]",
    "k=v [1]",
    "= [1]",
    "x [1]",
    "a>b",
    ">",
    "a>",
    "é",
    "日本語",
    "naïve café",
    "emoji 🎉",
    "tab\there",
    "back\\slash",
    "say \"hi\"",
];

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "main", "src", "lib", "test", "docs", "config", "server",
    "client", "parser", "encoder", "api", "util", "core", "build", "release", "ok",
];

const KEYS: &[&str] = &[
    "id",
    "name",
    "type",
    "status",
    "kind",
    "path",
    "size",
    "owner",
    "mode",
    "region",
    "email",
    "active",
    "score",
    "level",
    "dept",
    "tags",
    "note",
    "created_at",
    "updated",
    "count",
    "value",
    "label",
    "title",
    "state",
    "priority",
    "x",
    "y",
    "_private",
    "camelCase",
    "a1",
];

const ODD_KEYS: &[&str] = &[
    "a b",
    "a=b",
    "a,b",
    "a|b",
    "",
    "1",
    "-",
    "é",
    "日本",
    "@id",
    "#",
    ".x",
    "}",
    "{",
    "\"q\"",
    "tab\tkey",
    "a>b",
    "x>y>z",
    "true",
    "group",
    "dept=Sales",
];

fn word(rng: &mut Rng) -> String {
    (*rng.pick(WORDS)).to_owned()
}

/// A string: a word, a phrase, a hazard, or random characters.
pub fn string(rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=2 => word(rng),
        3 => format!("{} {}", word(rng), word(rng)),
        4..=5 => (*rng.pick(HAZARDS)).to_owned(),
        6 => format!("{}{}", word(rng), rng.pick(HAZARDS)),
        _ => {
            const CHARS: &[char] = &[
                'a', 'b', 'z', 'Q', '0', '9', ' ', '|', ',', '=', '"', '\\', '#', '@', '\n', '\t',
                '~', '^', '+', '-', '.', '>', '{', '}', '[', ']', ':', 'é', '日', '\u{1}', '🎉',
            ];
            let n = rng.below(12);
            (0..n).map(|_| *rng.pick(CHARS)).collect()
        }
    }
}

fn key(rng: &mut Rng) -> String {
    if rng.chance(85) {
        (*rng.pick(KEYS)).to_owned()
    } else {
        (*rng.pick(ODD_KEYS)).to_owned()
    }
}

/// A finite double with at most 15 significant digits, never `-0.0`.
pub fn double(rng: &mut Rng) -> f64 {
    let mantissa = (rng.next_u64() % 1_000_000_000_000_000) as f64;
    let digits = rng.below(16) as i32;
    let exp = rng.below(31) as i32 - 15;
    let scaled = (mantissa / 10f64.powi(15 - digits.min(15))).trunc();
    let v = scaled * 10f64.powi(exp);
    let v = if rng.chance(30) { -v } else { v };
    if v == 0.0 || !v.is_finite() {
        0.5
    } else {
        // Round-trip through the shortest text so the value is exactly what
        // every party reads back from JSON.
        format!("{v}").parse().unwrap_or(0.5)
    }
}

fn number_f(v: f64) -> Json {
    Number::from_f64(v).map_or(Json::Null, Json::Number)
}

/// A scalar of any type.
pub fn scalar(rng: &mut Rng) -> Json {
    match rng.below(20) {
        0..=2 => Json::Null,
        3..=4 => Json::Bool(rng.chance(50)),
        5..=8 => Json::from(match rng.below(10) {
            0 => i64::MAX,
            1 => i64::MIN,
            2 => rng.next_u64() as i64,
            3 => (rng.next_u64() % (1 << 53)) as i64,
            _ => rng.below(2000) as i64 - 1000,
        }),
        9..=11 => number_f(double(rng)),
        _ => Json::String(string(rng)),
    }
}

/// A general value at nesting `depth`.
pub fn value(rng: &mut Rng, depth: usize) -> Json {
    if depth >= 4 || rng.chance(35) {
        return scalar(rng);
    }
    match rng.below(6) {
        0 => Json::Array((0..rng.below(6)).map(|_| scalar(rng)).collect()),
        1 | 2 => table(rng, depth),
        3 => Json::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => object(rng, depth),
    }
}

fn object(rng: &mut Rng, depth: usize) -> Json {
    let mut map = Map::new();
    for _ in 0..rng.below(6) {
        let k = key(rng);
        if !map.contains_key(&k) {
            map.insert(k, value(rng, depth + 1));
        }
    }
    Json::Object(map)
}

/// An array of objects over one field list, some columns constant, some
/// cells absent, some nested.
fn table(rng: &mut Rng, depth: usize) -> Json {
    let mut fields: Vec<String> = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let k = key(rng);
        if !fields.contains(&k) {
            fields.push(k);
        }
    }
    let constant: Vec<Option<Json>> = fields
        .iter()
        .map(|_| rng.chance(40).then(|| scalar(rng)))
        .collect();
    let rows = rng.below(7);
    let mut out = Vec::with_capacity(rows);
    for _ in 0..rows {
        let mut map = Map::new();
        for (f, c) in fields.iter().zip(&constant) {
            if rng.chance(5) {
                continue;
            }
            let v = match c {
                Some(c) => c.clone(),
                None if depth < 3 && rng.chance(10) => value(rng, depth + 2),
                None => scalar(rng),
            };
            map.insert(f.clone(), v);
        }
        out.push(Json::Object(map));
    }
    Json::Array(out)
}

fn record_set(rng: &mut Rng) -> (Vec<Json>, &'static str, &'static str) {
    let n = 1 + rng.below(30);
    match rng.below(3) {
        0 => {
            let owner = if rng.chance(80) { "root" } else { "ci bot" };
            let mode = *rng.pick(&["0644", "0755", "0600"]);
            let varied_mode = rng.chance(25);
            let rows = (0..n)
                .map(|i| {
                    let kind = if rng.chance(20) { "dir" } else { "file" };
                    let mut m = Map::new();
                    m.insert(
                        "path".into(),
                        Json::String(format!("src/{}/f{i}.rs", word(rng))),
                    );
                    m.insert("kind".into(), Json::String(kind.into()));
                    m.insert("size".into(), Json::from(rng.below(100_000) as i64));
                    let this_mode = if varied_mode {
                        *rng.pick(&["0644", "0755"])
                    } else {
                        mode
                    };
                    m.insert("mode".into(), Json::String(this_mode.into()));
                    m.insert("owner".into(), Json::String(owner.into()));
                    if rng.chance(85) {
                        m.insert(
                            "lang".into(),
                            Json::String((*rng.pick(&["rust", "go", "md"])).into()),
                        );
                    }
                    Json::Object(m)
                })
                .collect();
            (rows, "path", "kind")
        }
        1 => {
            let repo = format!("org/{}", word(rng));
            let rows = (0..n)
                .map(|i| {
                    let mut m = Map::new();
                    m.insert("id".into(), Json::from(1000 + i as i64));
                    m.insert("title".into(), Json::String(string(rng)));
                    m.insert(
                        "state".into(),
                        Json::String((*rng.pick(&["open", "closed", "triaged"])).into()),
                    );
                    m.insert("repo".into(), Json::String(repo.clone()));
                    m.insert(
                        "assignee".into(),
                        if rng.chance(40) {
                            Json::Null
                        } else {
                            Json::String(word(rng))
                        },
                    );
                    m.insert("priority".into(), Json::from(rng.below(4) as i64));
                    if rng.chance(15) {
                        let labels = (0..rng.below(3)).map(|_| Json::String(word(rng))).collect();
                        m.insert("labels".into(), Json::Array(labels));
                    }
                    Json::Object(m)
                })
                .collect();
            (rows, "id", "state")
        }
        _ => {
            let region = if rng.chance(70) {
                Some(*rng.pick(&["us-east-1", "eu-west-1"]))
            } else {
                None
            };
            let rows = (0..n)
                .map(|i| {
                    let mut m = Map::new();
                    m.insert("id".into(), Json::String(format!("u{i:04}")));
                    m.insert(
                        "name".into(),
                        Json::String(format!("{} {}", word(rng), word(rng))),
                    );
                    m.insert(
                        "email".into(),
                        Json::String(format!("{}{i}@example.com", word(rng))),
                    );
                    m.insert("active".into(), Json::Bool(true));
                    let r = region
                        .unwrap_or_else(|| *rng.pick(&["us-east-1", "eu-west-1", "ap-south-1"]));
                    m.insert("region".into(), Json::String(r.into()));
                    m.insert(
                        "dept".into(),
                        Json::String((*rng.pick(&["Sales", "R&D", "Ops, EU"])).into()),
                    );
                    m.insert("score".into(), number_f(double(rng)));
                    m.insert("deleted_at".into(), Json::Null);
                    Json::Object(m)
                })
                .collect();
            (rows, "id", "dept")
        }
    }
}

/// The value for `seed`.
pub fn case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    if !rng.chance(40) {
        return Case {
            value: value(&mut rng, 0),
            realistic: false,
            grouping: None,
        };
    }
    let (rows, key, group) = record_set(&mut rng);
    let value = match rng.below(6) {
        // A keyed map of the records, by their key.
        0 => {
            let mut m = Map::new();
            for row in rows {
                let mut row = row;
                let k = row.as_object_mut().and_then(|o| o.shift_remove(key));
                let k = match k {
                    Some(Json::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => continue,
                };
                m.insert(k, row);
            }
            Json::Object(m)
        }
        // Wrapped in an object, or in a nested section.
        1 => {
            let mut m = Map::new();
            m.insert("total".into(), Json::from(rows.len() as i64));
            m.insert("items".into(), Json::Array(rows));
            Json::Object(m)
        }
        2 => {
            let mut inner = Map::new();
            inner.insert("rows".into(), Json::Array(rows));
            let mut m = Map::new();
            m.insert("data".into(), Json::Object(inner));
            Json::Object(m)
        }
        _ => {
            let grouping = Some((key.to_owned(), group.to_owned()));
            return Case {
                value: Json::Array(rows),
                realistic: true,
                grouping,
            };
        }
    };
    Case {
        value,
        realistic: true,
        grouping: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_deterministic_and_mixed() {
        let a: Vec<String> = (0..200).map(|s| case(s).value.to_string()).collect();
        let b: Vec<String> = (0..200).map(|s| case(s).value.to_string()).collect();
        assert_eq!(a, b);
        let realistic = (0..3000).filter(|&s| case(s).realistic).count();
        assert!(realistic > 1000, "{realistic} of 3000");
    }

    #[test]
    fn doubles_stay_in_the_domain() {
        let mut rng = Rng::new(7);
        for _ in 0..10_000 {
            let d = double(&mut rng);
            assert!(d.is_finite() && d != 0.0);
            assert_eq!(format!("{d}").parse::<f64>().unwrap(), d);
        }
    }
}
