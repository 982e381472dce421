//! Options of the core's streaming writers and delta sessions as JSON, with
//! the same camelCase names in every binding:
//!
//! - graph stream: `{"tool", "tokenBudget", "tokensUsed", "trailer":
//!   "positional" | "labeled" | "legacy", "labeledTrailerCounts", "indexNames"}`
//!   (`labeledTrailerCounts: true` is the fixtures' and gcf-go's spelling of
//!   `trailer: "labeled"`);
//! - generic stream: `{"tool", "bufferCapacity"}`;
//! - re-anchor policy: `{"mode": "fixedN" | "sizeGuard", "n"}`.
//!
//! Every member is optional; an unknown member is ignored, an unknown
//! trailer or mode is a class `json`, category `invalid_input` failure.

use std::borrow::Cow;

use gcf_core::generic::ReanchorPolicy;
use gcf_core::graph::TrailerForm;
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

#[cfg(test)]
mod tests {
    use super::*;

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
