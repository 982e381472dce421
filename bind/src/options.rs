//! Options of the core's streaming writers and delta sessions as JSON, with
//! the same camelCase names in every binding:
//!
//! - graph stream: `{"tool", "tokenBudget", "tokensUsed", "trailer":
//!   "positional" | "labeled" | "legacy", "labeledTrailerCounts", "indexNames"}`
//!   (`labeledTrailerCounts: true` is the fixtures' and gcf-go's spelling of
//!   `trailer: "labeled"`);
//! - generic stream: `{"tool", "bufferCapacity"}`;
//! - re-anchor policy: `{"mode": "fixedN" | "sizeGuard", "n"}`;
//! - decode limits (spec §12): `{"maxDepth", "maxContainerLen", "maxLineLen",
//!   "maxFields", "maxInputLen", "maxExpansion", "maxExpansionRatio"}`.
//!
//! Every member is optional; an unknown member is ignored, an unknown
//! trailer or mode is a class `json`, category `invalid_input` failure.
//! Decode limits are stricter, as a misspelt limit would silently be no
//! limit: an unknown member, a value of the wrong type or out of range is a
//! `usage` failure.

use std::borrow::Cow;

use gcf_core::generic::ReanchorPolicy;
use gcf_core::generic::Value;
use gcf_core::graph::TrailerForm;
use gcf_core::Limits;
use serde::Deserialize;

use crate::failure::Failure;
use crate::value::read_object;

/// The graph stream writer's options, borrowing the tool name from the JSON.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphStreamOptions<'a> {
    /// `tool=`; empty to omit.
    #[serde(borrow, default)]
    pub tool: Cow<'a, str>,
    /// `budget=`; 0 to omit.
    #[serde(default)]
    pub token_budget: u64,
    /// `tokens=`; 0 to omit.
    #[serde(default)]
    pub tokens_used: u64,
    /// `positional` (the default), `labeled` or `legacy`.
    #[serde(default)]
    pub trailer: Option<Cow<'a, str>>,
    /// `true` means `trailer: "labeled"`.
    #[serde(default)]
    pub labeled_trailer_counts: bool,
    /// Keep a name index so edges and locations may name their symbols.
    #[serde(default)]
    pub index_names: bool,
    /// `pack_root=`; empty to omit (the core writer refuses a value that
    /// would break the header line).
    #[serde(borrow, default)]
    pub pack_root: Cow<'a, str>,
    /// Writes `session=true`.
    #[serde(default)]
    pub session: bool,
}

impl<'a> GraphStreamOptions<'a> {
    /// Reads the options from JSON text.
    ///
    /// ```
    /// let o = gcf_bind::options::GraphStreamOptions::from_slice(br#"{"tool": "ctx", "trailer": "labeled"}"#)?;
    /// let core = o.to_core()?;
    /// assert_eq!((core.tool, core.trailer), ("ctx", gcf_core::graph::TrailerForm::Labeled));
    /// # Ok::<(), gcf_bind::Failure>(())
    /// ```
    pub fn from_slice(json: &'a [u8]) -> Result<Self, Failure> {
        read_object(json, "graph stream options")
    }

    /// The core writer's options.
    pub fn to_core(&self) -> Result<gcf_core::graph::StreamOptions<'_>, Failure> {
        let trailer = match (self.trailer.as_deref(), self.labeled_trailer_counts) {
            (None | Some("positional"), false) => TrailerForm::Positional,
            (None | Some("labeled"), true) | (Some("labeled"), false) => TrailerForm::Labeled,
            (Some("legacy"), false) => TrailerForm::Legacy,
            (Some(other), _) => {
                return Err(Failure::shape(format!(
                    "`trailer` must be positional, labeled or legacy, not `{other}`{}",
                    if self.labeled_trailer_counts {
                        " with labeledTrailerCounts"
                    } else {
                        ""
                    }
                )))
            }
        };
        Ok(gcf_core::graph::StreamOptions {
            tool: &self.tool,
            token_budget: self.token_budget,
            tokens_used: self.tokens_used,
            trailer,
            index_names: self.index_names,
            pack_root: &self.pack_root,
            session: self.session,
        })
    }
}

/// The generic stream writer's options.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericStreamOptions {
    /// `tool=`; absent or empty to omit.
    #[serde(default)]
    pub tool: Option<String>,
    /// Bytes gathered before the sink is called (default 8 KiB, 0 for none).
    #[serde(default)]
    pub buffer_capacity: Option<usize>,
}

impl GenericStreamOptions {
    /// Reads the options from JSON text.
    pub fn from_slice(json: &[u8]) -> Result<Self, Failure> {
        read_object(json, "generic stream options")
    }

    /// The core writer's options.
    pub fn to_core(&self) -> gcf_core::generic::StreamOptions<'_> {
        let mut o = gcf_core::generic::StreamOptions::new();
        if let Some(tool) = self.tool.as_deref() {
            o = o.tool(tool);
        }
        if let Some(bytes) = self.buffer_capacity {
            o = o.buffer_capacity(bytes);
        }
        o
    }
}

#[derive(Deserialize)]
struct PolicyIn<'a> {
    #[serde(borrow)]
    mode: Cow<'a, str>,
    #[serde(default)]
    n: usize,
}

/// A generic delta session's re-anchor policy from `{"mode", "n"}`.
///
/// ```
/// use gcf_core::generic::ReanchorPolicy;
/// assert_eq!(gcf_bind::options::reanchor_policy(br#"{"mode": "fixedN", "n": 3}"#)?, ReanchorPolicy::FixedN(3));
/// assert_eq!(gcf_bind::options::reanchor_policy(br#"{"mode": "sizeGuard"}"#)?, ReanchorPolicy::SizeGuard);
/// assert!(gcf_bind::options::reanchor_policy(br#"{"mode": "often"}"#).is_err());
/// # Ok::<(), gcf_bind::Failure>(())
/// ```
pub fn reanchor_policy(json: &[u8]) -> Result<ReanchorPolicy, Failure> {
    let p: PolicyIn = read_object(json, "a re-anchor policy")?;
    match p.mode.as_ref() {
        "fixedN" => Ok(ReanchorPolicy::FixedN(p.n)),
        "sizeGuard" => Ok(ReanchorPolicy::SizeGuard),
        other => Err(Failure::shape(format!(
            "`mode` must be fixedN or sizeGuard, not `{other}`"
        ))),
    }
}

/// The decode limits (spec §12) a caller sets, each member absent for the
/// core's default ([`Limits::default`]).
///
/// A host builds it from its own option names (the JS layer's `limits`
/// object, Python's `gcf.Limits`, the CLI's `--max-*` flags) or from JSON
/// ([`DecodeLimits::from_str`]), and [`DecodeLimits::to_core`] checks
/// every value in one place, so each surface accepts and refuses the same
/// limits with the same message.
///
/// `maxDepth` may be lowered but not raised past the default (128): the
/// decoders recurse once per level, and the bindings' smallest stack (the
/// WebAssembly module's 1 MiB, a browser main thread's) is proven to hold
/// the default, not more. The other limits may be raised or lowered; a
/// value beyond the address space means no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeLimits {
    /// [`Limits::max_depth`], from 1 to 128.
    pub max_depth: Option<u64>,
    /// [`Limits::max_container_len`], at least 1.
    pub max_container_len: Option<u64>,
    /// [`Limits::max_line_len`], at least 1.
    pub max_line_len: Option<u64>,
    /// [`Limits::max_fields`], at least 1.
    pub max_fields: Option<u64>,
    /// [`Limits::max_input_len`] in bytes, at least 1.
    pub max_input_len: Option<u64>,
    /// [`Limits::max_expansion`] in bytes; 0 allows no repeated values
    /// beyond the ratio's share.
    pub max_expansion: Option<u64>,
    /// [`Limits::max_expansion_ratio`]; 0 for none beyond the fixed part.
    pub max_expansion_ratio: Option<u64>,
}

/// The JSON names of [`DecodeLimits`]' members, in its order.
pub const DECODE_LIMIT_NAMES: [&str; 7] = [
    "maxDepth",
    "maxContainerLen",
    "maxLineLen",
    "maxFields",
    "maxInputLen",
    "maxExpansion",
    "maxExpansionRatio",
];

/// How a failure names a limit: as the surface the caller wrote it in
/// spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitNames {
    /// `maxDepth`: JSON and JavaScript.
    Camel,
    /// `max_depth`: Python's keywords and the C struct's fields (which Go
    /// fills from its own `MaxDepth`).
    Snake,
    /// `--max-depth`: the command line.
    Flag,
}

impl LimitNames {
    /// `name` (one of [`DECODE_LIMIT_NAMES`]) in this spelling.
    pub fn show(self, name: &str) -> String {
        let snake = |sep: char| {
            let mut out = String::with_capacity(name.len() + 4);
            for c in name.chars() {
                if c.is_ascii_uppercase() {
                    out.push(sep);
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.push(c);
                }
            }
            out
        };
        match self {
            LimitNames::Camel => name.to_owned(),
            LimitNames::Snake => snake('_'),
            LimitNames::Flag => format!("--{}", snake('-')),
        }
    }
}

impl DecodeLimits {
    /// Reads the limits from a JSON object of the camelCase names
    /// ([`DECODE_LIMIT_NAMES`]); any failure is `usage`, and so is an
    /// unknown member, since a misspelt limit would silently be none.
    ///
    /// The object is read by the generic value reader every binding has
    /// already, not by a serde model of its own: limits are a handful of
    /// numbers, read once a call.
    ///
    /// ```
    /// use gcf_bind::options::LimitNames;
    /// let l = gcf_bind::options::DecodeLimits::from_str(r#"{"maxDepth": 16, "maxInputLen": 1048576}"#, LimitNames::Camel)?.to_core(LimitNames::Camel)?;
    /// assert_eq!((l.max_depth, l.max_input_len), (16, 1 << 20));
    /// assert_eq!(l.max_fields, gcf_core::Limits::default().max_fields);
    /// assert_eq!(gcf_bind::options::DecodeLimits::from_str(r#"{"maxDepht": 16}"#, LimitNames::Camel).unwrap_err().category, "usage");
    /// # Ok::<(), gcf_bind::Failure>(())
    /// ```
    #[allow(clippy::should_implement_trait)] // a `Failure`, not `FromStr`'s error
    pub fn from_str(json: &str, names: LimitNames) -> Result<Self, Failure> {
        // `str`, not bytes: a binding that reads only host strings then
        // compiles no byte reader (14 KB of the WebAssembly module).
        let value = crate::value::from_str(json).map_err(|f| {
            let mut u = Failure::usage(format!("limits: {}", f.message));
            (u.line, u.column) = (f.line, f.column);
            u
        })?;
        let Value::Object(members) = value else {
            return Err(Failure::usage(format!(
                "limits must be an object, not {}",
                kind_of(&value)
            )));
        };
        let mut limits = DecodeLimits::default();
        for (name, v) in members.iter() {
            let n = match *v {
                Value::Int(n) => u64::try_from(n).ok(),
                // Past i64: a count no input reaches.
                Value::Float(f) if f >= i64::MAX as f64 => Some(u64::MAX),
                _ => None,
            }
            .ok_or_else(|| {
                Failure::usage(format!(
                    "limits: {} must be a whole number, not {}",
                    names.show(name),
                    kind_of(v)
                ))
            })?;
            *limits.member(name)? = Some(n);
        }
        Ok(limits)
    }

    /// The member JSON calls `name`: [`DECODE_LIMIT_NAMES`] in order.
    fn member(&mut self, name: &str) -> Result<&mut Option<u64>, Failure> {
        let members = [
            &mut self.max_depth,
            &mut self.max_container_len,
            &mut self.max_line_len,
            &mut self.max_fields,
            &mut self.max_input_len,
            &mut self.max_expansion,
            &mut self.max_expansion_ratio,
        ];
        DECODE_LIMIT_NAMES
            .iter()
            .zip(members)
            .find_map(|(&n, m)| (n == name).then_some(m))
            .ok_or_else(|| {
                Failure::usage(format!(
                    "limits: unknown limit `{name}` (the limits are {})",
                    DECODE_LIMIT_NAMES.join(", ")
                ))
            })
    }

    /// The core's limits, each value checked; a failure names the limit as
    /// `names` spells it.
    pub fn to_core(&self, names: LimitNames) -> Result<Limits, Failure> {
        let at_least = |v, min, name, default| at_least(v, min, &names.show(name), default);
        let d = Limits::DEFAULT;
        let max_depth = match self.max_depth {
            None => d.max_depth,
            Some(n @ 1..=MAX_DEPTH_CEILING) => n as usize,
            Some(n) => {
                return Err(Failure::usage(format!(
                    "limits: {} must be from 1 to {MAX_DEPTH_CEILING}, not {n}",
                    names.show("maxDepth")
                )))
            }
        };
        Ok(Limits {
            max_depth,
            max_container_len: at_least(
                self.max_container_len,
                1,
                "maxContainerLen",
                d.max_container_len,
            )?,
            max_line_len: at_least(self.max_line_len, 1, "maxLineLen", d.max_line_len)?,
            max_fields: at_least(self.max_fields, 1, "maxFields", d.max_fields)?,
            max_input_len: at_least(self.max_input_len, 1, "maxInputLen", d.max_input_len)?,
            max_expansion: at_least(self.max_expansion, 0, "maxExpansion", d.max_expansion)?,
            max_expansion_ratio: at_least(
                self.max_expansion_ratio,
                0,
                "maxExpansionRatio",
                d.max_expansion_ratio,
            )?,
        })
    }
}

/// The deepest `maxDepth` a binding accepts: the core's default, which the
/// smallest stack a binding runs on is tested to hold.
pub const MAX_DEPTH_CEILING: u64 = Limits::DEFAULT.max_depth as u64;

/// How a refused limit is described: the number itself, or its JSON kind.
fn kind_of(v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn at_least(v: Option<u64>, min: u64, name: &str, default: usize) -> Result<usize, Failure> {
    match v {
        None => Ok(default),
        Some(n) if n < min => Err(Failure::usage(format!(
            "limits: {name} must be at least {min}, not {n}"
        ))),
        // Beyond the address space no input can reach the limit.
        Some(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_limits_check_every_value() {
        let read = |t: &str| {
            DecodeLimits::from_str(t, LimitNames::Camel).and_then(|l| l.to_core(LimitNames::Camel))
        };
        assert_eq!(read("{}").unwrap(), Limits::default());
        let all = read(
            r#"{"maxDepth": 3, "maxContainerLen": 4, "maxLineLen": 5, "maxFields": 6,
                "maxInputLen": 7, "maxExpansion": 0, "maxExpansionRatio": 0}"#,
        )
        .unwrap();
        assert_eq!(
            all,
            Limits {
                max_depth: 3,
                max_container_len: 4,
                max_line_len: 5,
                max_fields: 6,
                max_input_len: 7,
                max_expansion: 0,
                max_expansion_ratio: 0,
            }
        );
        let huge = |json: &str| read(json).unwrap().max_input_len;
        assert_eq!(huge(r#"{"maxInputLen": 1e300}"#), usize::MAX);
        assert_eq!(
            huge(r#"{"maxInputLen": 9223372036854775807}"#),
            usize::try_from(i64::MAX).unwrap_or(usize::MAX)
        );
        assert_eq!(read(r#"{"maxDepth": 128}"#).unwrap().max_depth, 128);
        for (bad, says) in [
            (
                r#"{"maxDepth": 0}"#,
                "limits: maxDepth must be from 1 to 128, not 0",
            ),
            (
                r#"{"maxDepth": 129}"#,
                "limits: maxDepth must be from 1 to 128, not 129",
            ),
            (
                r#"{"maxFields": 0}"#,
                "limits: maxFields must be at least 1, not 0",
            ),
            (r#"{"maxDepht": 3}"#, "limits: unknown limit `maxDepht` (the limits are maxDepth, maxContainerLen, maxLineLen, maxFields, maxInputLen, maxExpansion, maxExpansionRatio)"),
            (r#"{"maxDepth": -1}"#, "limits: maxDepth must be a whole number, not -1"),
            (r#"{"maxDepth": 1.5}"#, "limits: maxDepth must be a whole number, not 1.5"),
            (r#"{"maxDepth": "3"}"#, "limits: maxDepth must be a whole number, not a string"),
            (r#"{"maxDepth": null}"#, "limits: maxDepth must be a whole number, not null"),
            ("[]", "limits must be an object, not an array"),
            ("{", "limits: "),
            (
                r#"{"maxInputLen": 18446744073709551615}"#,
                "limits: maxInputLen: integer 18446744073709551615 is outside the int64 range",
            ),
        ] {
            let f = read(bad).unwrap_err();
            assert_eq!(f.category, "usage", "{bad}: {f}");
            assert!(f.message.starts_with(says), "{bad}: {}", f.message);
        }
    }

    #[test]
    fn each_surface_sees_its_own_names() {
        let deep = DecodeLimits {
            max_depth: Some(0),
            ..DecodeLimits::default()
        };
        let said = |names| deep.to_core(names).unwrap_err().message;
        assert_eq!(
            said(LimitNames::Camel),
            "limits: maxDepth must be from 1 to 128, not 0"
        );
        assert_eq!(
            said(LimitNames::Snake),
            "limits: max_depth must be from 1 to 128, not 0"
        );
        assert_eq!(
            said(LimitNames::Flag),
            "limits: --max-depth must be from 1 to 128, not 0"
        );
        let ratio = DecodeLimits::from_str(r#"{"maxExpansionRatio": -2}"#, LimitNames::Snake);
        assert_eq!(
            ratio.unwrap_err().message,
            "limits: max_expansion_ratio must be a whole number, not -2"
        );
    }

    #[test]
    fn graph_options_read_both_spellings_of_the_trailer() {
        let read = |t: &str| {
            GraphStreamOptions::from_slice(t.as_bytes()).and_then(|o| {
                o.to_core()
                    .map(|c| (c.trailer, c.index_names, c.token_budget))
            })
        };
        assert_eq!(read("{}").unwrap(), (TrailerForm::Positional, false, 0));
        assert_eq!(
            read(r#"{"labeledTrailerCounts": true, "indexNames": true, "tokenBudget": 9}"#)
                .unwrap(),
            (TrailerForm::Labeled, true, 9)
        );
        assert_eq!(
            read(r#"{"trailer": "legacy"}"#).unwrap().0,
            TrailerForm::Legacy
        );
        let o = GraphStreamOptions::from_slice(br#"{"packRoot": "sha256:ab", "session": true}"#)
            .unwrap();
        let core = o.to_core().unwrap();
        assert_eq!((core.pack_root, core.session), ("sha256:ab", true));
        for bad in [
            r#"{"trailer": "loud"}"#,
            r#"{"trailer": "legacy", "labeledTrailerCounts": true}"#,
            "[]",
        ] {
            let f = read(bad).unwrap_err();
            assert_eq!(
                (f.class.name(), f.category),
                ("json", "invalid_input"),
                "{bad}: {f}"
            );
        }
        let g = GenericStreamOptions::from_slice(br#"{"tool": "t", "bufferCapacity": 0}"#).unwrap();
        let core = g.to_core();
        assert_eq!((core.tool, core.buffer_capacity), ("t", 0));
    }
}
