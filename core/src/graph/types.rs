//! Graph payload types.
//!
//! Each type is generic over its string type `S`: build them with `&str`
//! fields borrowed from your own data to encode without copying a byte, and
//! receive them with `String` fields from the decoder. Anything that is
//! `AsRef<str>` works (`Cow<str>`, `Box<str>`, `Arc<str>`).

use alloc::string::String;
use alloc::vec::Vec;

/// A code symbol: a node of the graph (spec §5).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Symbol<S = String> {
    /// Fully qualified name, e.g. `github.com/org/repo/pkg.Server.Handle`. No whitespace.
    pub qualified_name: S,
    /// Kind in full form (`function`, `type`, ...); written abbreviated, unknown kinds verbatim.
    pub kind: S,
    /// Relevance score; written with exactly two decimals, rounded half-to-even.
    pub score: f64,
    /// Discovery method (`lsp_resolved`, `ast_inferred`, ...). No whitespace.
    pub provenance: S,
    /// Hops from the query's targets: 0 `targets`, 1 `related`, 2 `extended`, N `distance_N`.
    pub distance: u32,
}

impl<S> Symbol<S> {
    /// A symbol from its five fields.
    pub fn new(qualified_name: S, kind: S, score: f64, provenance: S, distance: u32) -> Self {
        Symbol {
            qualified_name,
            kind,
            score,
            provenance,
            distance,
        }
    }
}

/// A relationship between two symbols, named by qualified name (spec §6).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Edge<S = String> {
    /// Qualified name of the symbol the edge comes from (`@4` in `@0<@4 calls`).
    pub source: S,
    /// Qualified name of the symbol the edge points to.
    pub target: S,
    /// Relationship type: `calls`, `imports`, `implements`, ... No whitespace.
    pub edge_type: S,
    /// Optional status for diff payloads (`added`, `removed`); empty for none.
    /// `unchanged` is treated as none.
    pub status: S,
}

impl<S: Default> Edge<S> {
    /// An edge without a status.
    pub fn new(source: S, target: S, edge_type: S) -> Self {
        Edge {
            source,
            target,
            edge_type,
            status: S::default(),
        }
    }
}

/// Where a symbol is defined (spec §6b); never part of identity or the pack root.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Location<S = String> {
    /// Qualified name of a symbol in the same payload.
    pub qualified_name: S,
    /// Source file path; written quoted when it has whitespace or non-ASCII text.
    pub file: S,
    /// 1-based line of the definition.
    pub line: u32,
    /// 1-based column of the definition.
    pub column: u32,
    /// Optional 1-based end `(line, column)` of the symbol's range.
    pub end: Option<(u32, u32)>,
}

/// A bare session reference found by the decoder: `@7  # previously transmitted` (spec §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The session-scoped id.
    pub id: u64,
    /// The distance group the reference appeared in.
    pub distance: u32,
}

/// A graph payload.
///
/// The encoder reads `tool`, `token_budget`, `tokens_used`, `pack_root`,
/// `symbols`, `edges` and `locations`. The decoder also fills `session`,
/// `unchanged` and `references`, which describe the payload it read; to
/// *write* bare references use a [`Session`](crate::graph::Session) (or
/// [`StreamWriter::write_bare_ref`](crate::graph::StreamWriter::write_bare_ref)).
#[derive(Debug, Clone, PartialEq)]
pub struct Payload<S = String> {
    /// Producing tool (`tool=`, written empty too, as the reference SDKs write it).
    pub tool: S,
    /// Token budget requested by the consumer; omitted when zero.
    pub token_budget: u64,
    /// Tokens used by this payload; omitted when zero.
    pub tokens_used: u64,
    /// Content-addressed identity (`sha256:...`), written as `pack_root=` when non-empty.
    pub pack_root: S,
    /// The nodes.
    pub symbols: Vec<Symbol<S>>,
    /// The relationships; edges naming unknown symbols are not written.
    pub edges: Vec<Edge<S>>,
    /// Optional source positions, written as a `## loc` section (spec §6b).
    pub locations: Vec<Location<S>>,
    /// Decoded: the header said `session=true`.
    pub session: bool,
    /// Decoded: the header said `unchanged=true` (a header-only answer, spec §10.3).
    pub unchanged: bool,
    /// Decoded: bare session references, in order.
    pub references: Vec<Reference>,
}

impl<S: Default> Default for Payload<S> {
    fn default() -> Self {
        Payload {
            tool: S::default(),
            token_budget: 0,
            tokens_used: 0,
            pack_root: S::default(),
            symbols: Vec::new(),
            edges: Vec::new(),
            locations: Vec::new(),
            session: false,
            unchanged: false,
            references: Vec::new(),
        }
    }
}

fn own<S: AsRef<str>>(s: &S) -> String {
    String::from(s.as_ref())
}

impl<S: AsRef<str>> Symbol<S> {
    /// A copy with owned strings.
    pub fn to_owned_symbol(&self) -> Symbol {
        Symbol {
            qualified_name: own(&self.qualified_name),
            kind: own(&self.kind),
            score: self.score,
            provenance: own(&self.provenance),
            distance: self.distance,
        }
    }

    /// A view borrowing this symbol's strings.
    pub fn as_borrowed(&self) -> Symbol<&str> {
        Symbol {
            qualified_name: self.qualified_name.as_ref(),
            kind: self.kind.as_ref(),
            score: self.score,
            provenance: self.provenance.as_ref(),
            distance: self.distance,
        }
    }
}

impl<S: AsRef<str>> Edge<S> {
    /// A copy with owned strings.
    pub fn to_owned_edge(&self) -> Edge {
        Edge {
            source: own(&self.source),
            target: own(&self.target),
            edge_type: own(&self.edge_type),
            status: own(&self.status),
        }
    }

    /// A view borrowing this edge's strings.
    pub fn as_borrowed(&self) -> Edge<&str> {
        Edge {
            source: self.source.as_ref(),
            target: self.target.as_ref(),
            edge_type: self.edge_type.as_ref(),
            status: self.status.as_ref(),
        }
    }
}

impl<S: AsRef<str>> Location<S> {
    /// A copy with owned strings.
    pub fn to_owned_location(&self) -> Location {
        Location {
            qualified_name: own(&self.qualified_name),
            file: own(&self.file),
            line: self.line,
            column: self.column,
            end: self.end,
        }
    }

    /// A view borrowing this location's strings.
    pub fn as_borrowed(&self) -> Location<&str> {
        Location {
            qualified_name: self.qualified_name.as_ref(),
            file: self.file.as_ref(),
            line: self.line,
            column: self.column,
            end: self.end,
        }
    }
}

impl<S: AsRef<str>> Payload<S> {
    /// A copy with owned strings.
    pub fn to_owned_payload(&self) -> Payload {
        Payload {
            tool: own(&self.tool),
            token_budget: self.token_budget,
            tokens_used: self.tokens_used,
            pack_root: own(&self.pack_root),
            symbols: self.symbols.iter().map(Symbol::to_owned_symbol).collect(),
            edges: self.edges.iter().map(Edge::to_owned_edge).collect(),
            locations: self
                .locations
                .iter()
                .map(Location::to_owned_location)
                .collect(),
            session: self.session,
            unchanged: self.unchanged,
            references: self.references.clone(),
        }
    }

    /// A view borrowing this payload's strings: one `Payload<&str>` for
    /// callers that hold several string types and want one instantiation
    /// of the encoder (each is a whole copy of it in a WebAssembly module).
    ///
    /// ```
    /// use gcf_core::graph::{Payload, Symbol};
    /// let owned: Payload = Payload {
    ///     tool: "t".to_string(),
    ///     symbols: vec![Symbol::new("a.B".into(), "function".into(), 0.5, "x".into(), 0)],
    ///     ..Payload::default()
    /// };
    /// let view = owned.as_borrowed();
    /// assert_eq!(gcf_core::graph::encode(&view)?, gcf_core::graph::encode(&owned)?);
    /// # Ok::<(), gcf_core::Error>(())
    /// ```
    pub fn as_borrowed(&self) -> Payload<&str> {
        Payload {
            tool: self.tool.as_ref(),
            token_budget: self.token_budget,
            tokens_used: self.tokens_used,
            pack_root: self.pack_root.as_ref(),
            symbols: self.symbols.iter().map(Symbol::as_borrowed).collect(),
            edges: self.edges.iter().map(Edge::as_borrowed).collect(),
            locations: self.locations.iter().map(Location::as_borrowed).collect(),
            session: self.session,
            unchanged: self.unchanged,
            references: self.references.clone(),
        }
    }
}
