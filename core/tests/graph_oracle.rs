//! Differential test against the crates.io `gcf` 3.1.0 crate (an oracle only):
//! on generated payloads our graph output must be byte-identical, except for
//! the differences below, each required by the spec.
//!
//! 1. Empty `tool`: the crate writes `tool=` with an empty value; spec §3.1
//!    makes `tool` optional (v3.1) and §4 requires `header-value = 1*(%x21-7E)`,
//!    so an empty tool is omitted. Normalized by only generating non-empty tools.
//! 2. `## loc` sections (spec §6b, v3.6.0) postdate the crate: not generated.
//! 3. The crate keys edges by qualified name alone and lets the last duplicate
//!    win; we do the same, so duplicates are not normalized away.

mod support;

use gcf_core::graph::{self, Payload};
use gcf_oracle as oracle;
use support::{cases, graph_payload, Rng};

fn to_oracle(p: &Payload) -> oracle::types::Payload {
    oracle::types::Payload {
        tool: p.tool.clone(),
        tokens_used: p.tokens_used as i64,
        token_budget: p.token_budget as i64,
        pack_root: p.pack_root.clone(),
        symbols: p
            .symbols
            .iter()
            .map(|s| oracle::types::Symbol {
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
            .map(|e| oracle::types::Edge {
                source: e.source.clone(),
                target: e.target.clone(),
                edge_type: e.edge_type.clone(),
                status: e.status.clone(),
            })
            .collect(),
    }
}

#[test]
fn encode_is_byte_identical_to_the_reference_crate() {
    for seed in 0..cases(2_000) as u64 {
        let mut rng = Rng::new(seed ^ 0x0AC1E);
        let mut p = graph_payload(&mut rng, 40);
        p.locations.clear();
        if p.tool.is_empty() {
            p.tool = "tool".into();
        }
        if rng.chance(20) {
            p.pack_root = "sha256:abc".into();
        }
        let ours = graph::encode(&p).unwrap();
        let theirs = oracle::encode(&to_oracle(&p));
        assert_eq!(ours, theirs, "seed {seed}");
    }
}

#[test]
fn pack_roots_agree_with_the_reference_crate() {
    for seed in 0..cases(500) as u64 {
        let mut rng = Rng::new(seed ^ 0x9AC4);
        let p = graph_payload(&mut rng, 30);
        let ours = graph::pack_root(&p.symbols, &p.edges).unwrap();
        let o = to_oracle(&p);
        assert_eq!(
            ours,
            oracle::packroot::pack_root(&o.symbols, &o.edges),
            "seed {seed}"
        );
    }
}

#[test]
fn we_decode_what_the_reference_crate_encodes() {
    for seed in 0..cases(1_000) as u64 {
        let mut rng = Rng::new(seed ^ 0xDEC0);
        let mut p = graph_payload(&mut rng, 30);
        p.locations.clear();
        p.tool = "t".into();
        let text = oracle::encode(&to_oracle(&p));
        let back = graph::decode(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        // When every edge named an unknown symbol, both encoders write an empty
        // `## edges [0]` section; decoded, it is simply no edges.
        let text = text.strip_suffix("## edges [0]\n").unwrap_or(&text);
        assert_eq!(graph::encode(&back).unwrap(), text, "seed {seed}");
    }
}
