//! The command line, as clap derive types. Every subcommand's `--help` ends
//! with a runnable example.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Converts between JSON and GCF (Graph Compact Format, spec 3.6.0), streams
/// JSON Lines into GCF, computes deltas and pack roots, and validates payloads.
#[derive(Debug, Parser)]
#[command(name = "gcf", version, propagate_version = true)]
#[command(
    after_help = "Errors are one line on stderr, `error[<category>]: <message> (line L, column C)`; \
exit code 1 for data and I/O errors, 2 for usage errors."
)]
pub struct Cli {
    /// Write the result to FILE instead of stdout (atomically: a temporary
    /// file beside FILE is renamed over it only on success).
    #[arg(long, short, global = true, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Encode a graph payload (JSON) as GCF.
    ///
    /// The JSON uses the conformance fixtures' camelCase names: tool,
    /// tokenBudget, tokensUsed, packRoot, symbols[{qualifiedName, kind, score,
    /// provenance, distance}], edges[{source, target, edgeType, status}],
    /// locations[{qualifiedName, file, line, column, endLine, endColumn}].
    #[command(
        after_help = "Example:\n  gcf encode examples/codegraph.json --output codegraph.gcf"
    )]
    Encode {
        /// Graph payload JSON; stdin when absent or `-`.
        file: Option<PathBuf>,
    },

    /// Decode a GCF graph payload into pretty JSON.
    #[command(after_help = "Example:\n  gcf encode examples/codegraph.json | gcf decode")]
    Decode {
        /// GCF graph text; stdin when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },

    /// Encode any JSON value with the generic profile.
    ///
    /// Key order and integers are kept exactly as written in the input. A
    /// table column holding the same value in every row is declared once
    /// (`{id,type=file}`), as the other GCF implementations write it.
    #[command(
        after_help = "Examples:\n  gcf encode-generic examples/orders.json\n  \
                      gcf encode-generic --no-constant-columns examples/orders.json\n  \
                      gcf encode-generic --no-flatten examples/orders.json\n  \
                      gcf encode-generic --group-by id,status issues.json"
    )]
    EncodeGeneric {
        /// Any JSON document; stdin when absent or `-`.
        file: Option<PathBuf>,
        /// Repeat a column's value in every row even when it is the same in
        /// all of them (for decoders that predate constant columns).
        #[arg(long)]
        no_constant_columns: bool,
        /// Write a table field whose objects share one shape as an inline
        /// schema or an attachment, not as `"a>b"` path columns (as the
        /// other implementations' `noFlatten`/`NoFlatten` options do).
        #[arg(long)]
        no_flatten: bool,
        /// Write an array of flat records as a value-grouped table: KEY is
        /// the unique identity field, GROUP the field whose value clusters
        /// the records (split at the first comma).
        #[arg(
            long,
            value_name = "KEY,GROUP",
            value_parser = parse_group_by,
            conflicts_with = "no_constant_columns"
        )]
        group_by: Option<(String, String)>,
    },

    /// Decode a GCF generic payload into JSON (compact unless --pretty).
    #[command(
        after_help = "Example:\n  gcf encode-generic examples/orders.json | gcf decode-generic --pretty"
    )]
    DecodeGeneric {
        /// GCF generic text; stdin when absent or `-`.
        file: Option<PathBuf>,
        /// Indent the JSON.
        #[arg(long)]
        pretty: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },

    /// Encode JSON Lines as a streaming payload, in constant memory.
    ///
    /// Graph profile (the default): each line is a symbol (an object with
    /// `qualifiedName`), an edge (`source`/`target` names, or numeric
    /// `sourceId`/`targetId`, the 0-based order of the symbol lines), or a
    /// location (`file` with `symbolId` or `qualifiedName`). Symbols come
    /// first, then edges, then locations. Edges and locations by id keep
    /// memory constant; naming symbols needs --index-names, which keeps one
    /// copy of every qualified name (memory grows with the symbol count).
    /// Counts go into the `##! summary` trailer.
    ///
    /// Generic profile: each line is a flat JSON object, written as one row
    /// of a `## NAME [?]{fields}` table. The fields are --fields or the first
    /// row's keys; a later row with another key is an error, a row without a
    /// field gets `~` (missing).
    #[command(
        after_help = "Examples:\n  gcf stream examples/stream.jsonl --tool ctx --budget 8000\n  \
gcf stream --profile generic --name employees examples/employees.jsonl"
    )]
    Stream {
        /// JSON Lines; stdin when absent or `-`.
        file: Option<PathBuf>,
        /// Which profile to write.
        #[arg(long, value_enum, default_value_t = Profile::Graph)]
        profile: Profile,
        /// Producing tool, written as `tool=` in the header.
        #[arg(long, default_value = "")]
        tool: String,
        /// Token budget (`budget=`, graph profile).
        #[arg(long, default_value_t = 0)]
        budget: u64,
        /// Tokens used (`tokens=`, graph profile).
        #[arg(long, default_value_t = 0)]
        tokens: u64,
        /// Trailer form (graph profile).
        #[arg(long, value_enum, default_value_t = Trailer::Positional)]
        trailer: Trailer,
        /// Keep a name -> id index so edges and locations may name symbols
        /// by qualified name (graph profile; costs memory per symbol).
        #[arg(long)]
        index_names: bool,
        /// Table name (generic profile).
        #[arg(long, default_value = "rows")]
        name: String,
        /// Comma-separated field names (generic profile); default: the
        /// first row's keys in order.
        #[arg(long, value_delimiter = ',')]
        fields: Option<Vec<String>>,
    },

    /// Answer a consumer holding BASE: `unchanged`, a delta, or the full payload.
    ///
    /// Follows the spec's three-outcome rule (10.3): unchanged when the
    /// echoed root is NEW's pack root, a delta when it is BASE's root and the
    /// delta is under 60% of the full payload, else the full payload with its
    /// pack_root.
    #[command(after_help = "Example:\n  gcf delta --base old.json new.json")]
    Delta {
        /// The snapshot the consumer holds (graph payload or {symbols, edges};
        /// with --generic a keyed set {name, key, fields, rows}).
        #[arg(long, value_name = "BASE.json")]
        base: PathBuf,
        /// The current payload; stdin when absent or `-`.
        new: Option<PathBuf>,
        /// The pack root the consumer echoed (default: BASE's root).
        #[arg(long, value_name = "ROOT")]
        echoed_root: Option<String>,
        /// Keyed sets of the generic profile instead of graphs.
        #[arg(long)]
        generic: bool,
    },

    /// Print the pack root (`sha256:...`) of a graph snapshot.
    #[command(after_help = "Example:\n  gcf pack-root examples/codegraph.json")]
    PackRoot {
        /// Graph payload or snapshot JSON (with --generic a keyed set
        /// {name, key, fields, rows}); stdin when absent or `-`.
        file: Option<PathBuf>,
        /// A generic keyed set instead of a graph.
        #[arg(long)]
        generic: bool,
    },

    /// Check a GCF payload and summarize it; exit 1 with the error if invalid.
    ///
    /// The profile comes from the header; a graph header with `delta=true`
    /// is checked as a delta.
    #[command(after_help = "Example:\n  gcf encode examples/codegraph.json | gcf validate")]
    Validate {
        /// GCF text; stdin when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },

    /// Compare the size of a JSON document with its GCF encoding, or of a GCF
    /// payload with the JSON it decodes to.
    ///
    /// Tokens are counted by a real tokenizer, o200k_base (GPT-4o and later,
    /// what most agents run on) unless `--tokenizer` names another; a
    /// tokenizer splits JSON's punctuation and GCF's text differently, so the
    /// token saving is not the byte saving. `--tokenizer estimate` gives the
    /// tokenizer-free ceil(bytes / 4) that GCF itself writes in `tokens=` and
    /// `savings=` (gcf_core::graph::estimate_tokens). The JSON side is the
    /// input re-serialized compactly, keys in their original order.
    #[command(
        after_help = "Example:\n  gcf stats examples/codegraph.json\n  gcf stats --tokenizer cl100k examples/orders.json\n  gcf encode examples/codegraph.json | gcf stats"
    )]
    Stats {
        /// JSON document or GCF payload (text starting `GCF `); stdin when
        /// absent or `-`.
        file: Option<PathBuf>,
        /// Force a profile (default: graph when the top level has `symbols`).
        #[arg(long, value_enum)]
        profile: Option<Profile>,
        /// How tokens are counted (o200k and cl100k need the default
        /// `tokenizers` feature; without it, estimate).
        #[arg(long, value_enum, default_value_t = Tokenizer::DEFAULT)]
        tokenizer: Tokenizer,
    },
    /// Print the version (as `--version`; the reference SDKs' commands
    /// spell it `gcf version`).
    Version,
}

/// The decode limits (spec §12) of the commands that read GCF. Input past
/// one fails with `limit_exceeded` at its line; an impossible value (a depth
/// outside 1-128, a count of 0) is a usage error (exit 2).
#[derive(Debug, Clone, Copy, Default, Args)]
#[command(next_help_heading = "Limits (spec §12; each defaults to the core's)")]
pub struct LimitArgs {
    /// Nesting depth of objects and arrays, 1 to 128 [default: 128].
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u64>,
    /// Elements of one array or object, rows of a table, symbols or edges of a graph [default: 100000000].
    #[arg(long, value_name = "N")]
    pub max_container_len: Option<u64>,
    /// Bytes in one line [default: 67108864].
    #[arg(long, value_name = "BYTES")]
    pub max_line_len: Option<u64>,
    /// Fields in one field declaration, a table header or an inline schema [default: 65536].
    #[arg(long, value_name = "N")]
    pub max_fields: Option<u64>,
    /// Bytes of input [default: no limit].
    #[arg(long, value_name = "BYTES")]
    pub max_input_len: Option<u64>,
    /// Bytes of values written once and decoded into every row (constant columns, groups), fixed part [default: 67108864].
    #[arg(long, value_name = "BYTES")]
    pub max_expansion: Option<u64>,
    /// The same, per byte of input [default: 64].
    #[arg(long, value_name = "N")]
    pub max_expansion_ratio: Option<u64>,
}

impl LimitArgs {
    /// The core's limits, checked as every binding checks them.
    pub fn to_core(self) -> Result<gcf_core::Limits, gcf_bind::Failure> {
        gcf_bind::options::DecodeLimits {
            max_depth: self.max_depth,
            max_container_len: self.max_container_len,
            max_line_len: self.max_line_len,
            max_fields: self.max_fields,
            max_input_len: self.max_input_len,
            max_expansion: self.max_expansion,
            max_expansion_ratio: self.max_expansion_ratio,
        }
        .to_core(gcf_bind::options::LimitNames::Flag)
    }
}

/// The two GCF profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// Code graphs.
    Graph,
    /// Any JSON.
    Generic,
}

/// How `gcf stats` counts tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Tokenizer {
    /// o200k_base: GPT-4o, GPT-4.1, o-series and later.
    #[value(name = "o200k")]
    O200k,
    /// cl100k_base: GPT-4 and GPT-3.5.
    #[value(name = "cl100k")]
    Cl100k,
    /// ceil(bytes / 4), the estimate GCF headers use.
    Estimate,
}

impl Tokenizer {
    /// o200k_base when the vocabularies are built in.
    #[cfg(feature = "tokenizers")]
    pub const DEFAULT: Tokenizer = Tokenizer::O200k;
    #[cfg(not(feature = "tokenizers"))]
    pub const DEFAULT: Tokenizer = Tokenizer::Estimate;
}

/// The streaming trailer forms (spec 8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Trailer {
    /// `##! summary symbols=N edges=M counts=a,b,m`.
    Positional,
    /// `##! summary ... counts=targets:a,related:b,edges:m`.
    Labeled,
    /// `## _summary ... sections=...`, the first drafts' form.
    Legacy,
}

/// `KEY,GROUP` for `--group-by`: split at the first comma, both non-empty.
fn parse_group_by(s: &str) -> Result<(String, String), String> {
    match s.split_once(',') {
        Some((key, group)) if !key.is_empty() && !group.is_empty() => {
            Ok((key.to_owned(), group.to_owned()))
        }
        _ => Err("expected KEY,GROUP (two field names separated by a comma)".to_owned()),
    }
}
