//! Decoding a payload whose kind is known only from its header: a graph
//! payload, a graph delta, a generic payload or a generic delta.
//!
//! Tools that accept "any GCF" (a validator, a CLI, a binding's `decode`)
//! use this instead of parsing the header themselves.

use crate::error::{Error, ErrorKind};
use crate::header::{parse_header, read_header, Profile};
use crate::input::{validate_utf8, SourceLine};
use crate::{generic, graph, Limits};

/// What a payload is, by its header (spec §3, §10, §10a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadKind {
    /// `profile=graph`.
    Graph,
    /// `profile=graph delta=true`.
    GraphDelta,
    /// `profile=generic`.
    Generic,
    /// `profile=generic delta=true`.
    GenericDelta,
    /// `unchanged=true` in either profile: a header-only answer (spec §10.3, §10a.4).
    Unchanged,
}

/// A decoded payload of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyPayload {
    /// A graph payload (also `unchanged=true` answers: see [`graph::Payload::unchanged`]).
    Graph(graph::Payload),
    /// A graph delta.
    GraphDelta(graph::Delta),
    /// A generic payload; a keyed full payload (`key=`) decodes with its `@` identity field.
    Generic(generic::Value),
    /// A generic delta.
    GenericDelta(generic::GenericDelta),
    /// A header-only answer: the consumer's snapshot is still current.
    Unchanged {
        /// The profile of the header.
        profile: Profile,
        /// The `pack_root` that still identifies the result.
        pack_root: alloc::string::String,
        /// `symbols=` (graph) or `count=` (generic), when given.
        count: Option<u64>,
    },
}

/// Reads the kind of a payload from its first line.
///
/// ```
/// use gcf_core::{payload_kind, PayloadKind};
/// assert_eq!(payload_kind("GCF profile=graph delta=true base_root=a new_root=b\n")?, PayloadKind::GraphDelta);
/// assert_eq!(payload_kind("GCF profile=generic\n=1\n")?, PayloadKind::Generic);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn payload_kind(input: &str) -> Result<PayloadKind, Error> {
    let first = input.split('\n').next().unwrap_or("");
    let line = SourceLine {
        number: 1,
        text: first.strip_suffix('\r').unwrap_or(first),
    };
    let header = parse_header(&line)?;
    let delta = match header.get("delta") {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(line.error_at(
                ErrorKind::MalformedHeaderField,
                header.column_of(line.text, "delta") - 1,
                alloc::format!(
                    "header field `delta={}` must be true or false",
                    crate::error::excerpt(other)
                ),
            ))
        }
    };
    if header.get("unchanged") == Some("true") {
        return Ok(PayloadKind::Unchanged);
    }
    Ok(match (header.profile, delta) {
        (Profile::Graph, false) => PayloadKind::Graph,
        (Profile::Graph, true) => PayloadKind::GraphDelta,
        (Profile::Generic, false) => PayloadKind::Generic,
        (Profile::Generic, true) => PayloadKind::GenericDelta,
    })
}

/// Decodes any payload with the decoder its header calls for, with default limits.
///
/// ```
/// use gcf_core::{decode_any, AnyPayload};
/// match decode_any("GCF profile=generic\n## [2]{id,name}\n1|Ann\n2|Bob\n")? {
///     AnyPayload::Generic(v) => assert_eq!(v.as_array().map(<[_]>::len), Some(2)),
///     other => panic!("unexpected {other:?}"),
/// }
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_any(input: &str) -> Result<AnyPayload, Error> {
    decode_any_with(input, &Limits::DEFAULT)
}

/// [`decode_any`] with `limits` in place of the defaults, for every kind of
/// payload.
///
/// ```
/// use gcf_core::{decode_any_with, ErrorKind, Limits};
/// let tight = Limits { max_container_len: 1, ..Limits::default() };
/// let err = decode_any_with("GCF profile=generic\n## [2]{id}\n1\n2\n", &tight).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LimitExceeded);
/// assert!(err.line().is_some());
/// ```
pub fn decode_any_with(input: &str, limits: &Limits) -> Result<AnyPayload, Error> {
    Ok(match payload_kind(input)? {
        PayloadKind::Graph => {
            AnyPayload::Graph(graph::Decoder::new().limits(*limits).decode(input)?)
        }
        PayloadKind::GraphDelta => AnyPayload::GraphDelta(graph::decode_delta_with(input, limits)?),
        PayloadKind::Generic => {
            AnyPayload::Generic(generic::Decoder::new().limits(*limits).decode(input)?)
        }
        PayloadKind::GenericDelta => {
            AnyPayload::GenericDelta(generic::decode_delta_with(input, limits)?)
        }
        PayloadKind::Unchanged => unchanged(input, limits)?,
    })
}

/// An `unchanged=true` answer: a header and nothing else but comments and blank lines.
fn unchanged(input: &str, limits: &Limits) -> Result<AnyPayload, Error> {
    let mut lines = crate::input::SourceLines::new(input, limits)?;
    let (first, header) = read_header(&mut lines)?;
    while let Some(line) = lines.next() {
        let line = line?;
        if !(line.is_blank() || line.is_comment()) {
            // A tab-indented line is that error first (spec §4.1).
            line.indentation()?;
            return Err(line.error_at(
                ErrorKind::InvalidSyntax,
                0,
                "an unchanged=true answer carries no body",
            ));
        }
    }
    let key = if header.profile == Profile::Graph {
        "symbols"
    } else {
        "count"
    };
    Ok(AnyPayload::Unchanged {
        profile: header.profile,
        pack_root: alloc::string::String::from(header.get("pack_root").unwrap_or("")),
        count: crate::header::parse_count(&first, &header, key)?,
    })
}

/// Validates UTF-8 (reporting the line and column of a bad byte), then [`decode_any`].
pub fn decode_any_bytes(input: &[u8]) -> Result<AnyPayload, Error> {
    decode_any(validate_utf8(input)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatches_on_the_header() {
        assert!(matches!(
            decode_any("GCF profile=graph symbols=0\n").unwrap(),
            AnyPayload::Graph(_)
        ));
        assert!(matches!(
            decode_any("GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn a\n")
                .unwrap(),
            AnyPayload::GraphDelta(_)
        ));
        assert!(matches!(
            decode_any("GCF profile=generic\n=1\n").unwrap(),
            AnyPayload::Generic(_)
        ));
        let generic_delta =
            "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## removed [1]{@id}\n7\n";
        assert!(matches!(
            decode_any(generic_delta).unwrap(),
            AnyPayload::GenericDelta(_)
        ));
        let keyed_full =
            "GCF profile=generic pack_root=sha256:a key=id\n## orders [1]{@id,total}\n7|9.5\n";
        assert!(matches!(
            decode_any(keyed_full).unwrap(),
            AnyPayload::Generic(_)
        ));
        let mismatch =
            "GCF profile=generic pack_root=sha256:a key=sku\n## orders [1]{@id,total}\n7|9.5\n";
        assert_eq!(
            decode_any(mismatch).unwrap_err().kind(),
            ErrorKind::InvalidSyntax
        );
        assert_eq!(
            decode_any("GCF profile=graph delta=maybe\n")
                .unwrap_err()
                .kind(),
            ErrorKind::MalformedHeaderField
        );
        assert_eq!(
            decode_any_bytes(b"GCF profile=generic\nv=\xff\n")
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidUtf8
        );
        assert_eq!(
            decode_any("nope").unwrap_err().kind(),
            ErrorKind::MissingHeader
        );
    }

    #[test]
    fn every_kind_takes_the_limits_given() {
        let kinds = [
            "GCF profile=graph tool=t\n## targets\n@0 fn a.B 0.50 lsp\n@1 fn a.C 0.50 lsp\n",
            "GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn a\nfn b\n",
            "GCF profile=generic\n## [2]{id}\n1\n2\n",
            "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## removed [2]{@id}\n7\n8\n",
            "GCF profile=graph unchanged=true pack_root=sha256:a symbols=3\n",
        ];
        for text in kinds {
            assert!(decode_any_with(text, &Limits::DEFAULT).is_ok(), "{text}");
            // Every decoder starts by checking the input's length.
            let short = Limits {
                max_input_len: text.len() - 1,
                ..Limits::DEFAULT
            };
            let err = decode_any_with(text, &short).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{text}");
            let exact = Limits {
                max_input_len: text.len(),
                ..Limits::DEFAULT
            };
            assert!(decode_any_with(text, &exact).is_ok(), "{text}");
        }
        // Past the input length, each kind's own decoder takes the limits.
        let one = Limits {
            max_container_len: 1,
            ..Limits::DEFAULT
        };
        for text in &kinds[..4] {
            let err = decode_any_with(text, &one).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{text}: {err}");
        }
    }
}
