//! A program written against the `gcf` 3.1.0 crate's API and nothing else:
//! `bindings-rust/sample` builds it against gcf-compat (one dependency
//! line), `bindings-rust/sample-reference` against the crate itself, and
//! `scripts/test.sh` checks that both print the same bytes.

use std::io::Write;

use gcf::scalar::{format_key, is_bare_key, needs_quote, parse_quoted_string, quote_string};
use gcf::stream_generic::GcfValue;
use gcf::{
    decode, decode_delta, decode_generic, decode_generic_delta, decode_generic_full,
    diff_generic_sets, encode, encode_delta, encode_generic, encode_generic_delta,
    encode_generic_full, encode_generic_grouped, encode_generic_with_options, encode_with_session,
    generic_pack_root, kind_abbrev, pack_root, verify_delta, verify_generic_delta, Components,
    DeltaPayload, Edge, GenericDeltaSession, GenericOptions, GenericSet, GenericStreamEncoder,
    Payload, ReanchorPolicy, Session, StreamEncoder, StreamOptions, Symbol,
};
use serde_json::{json, Map, Value};

fn symbol(name: &str, kind: &str, score: f64, distance: i32) -> Symbol {
    Symbol {
        qualified_name: name.to_string(),
        kind: kind.to_string(),
        score,
        provenance: "lsp_resolved".to_string(),
        distance,
        signature: String::new(),
        components: Components::default(),
    }
}

fn edge(source: &str, target: &str, edge_type: &str) -> Edge {
    Edge {
        source: source.to_string(),
        target: target.to_string(),
        edge_type: edge_type.to_string(),
        status: String::new(),
    }
}

fn records(rows: Value) -> Vec<Map<String, Value>> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect()
}

fn set(rows: Value) -> GenericSet {
    GenericSet {
        name: "orders".to_string(),
        key: "id".to_string(),
        fields: vec!["id".into(), "total".into(), "status".into()],
        rows: records(rows),
    }
}

fn main() {
    let mut out = std::io::stdout().lock();

    // Graph payloads.
    let payload = Payload {
        tool: "context_for_task".to_string(),
        token_budget: 5000,
        tokens_used: 1847,
        pack_root: String::new(),
        symbols: vec![
            symbol("pkg.AuthMiddleware", "function", 0.78, 0),
            // In emission order (distance, then score), where the crate's
            // session writes what gcf-core's does (README).
            symbol("pkg.Config", "interface", 0.9, 1),
            symbol("pkg.Server", "type", 0.5412, 1),
        ],
        edges: vec![
            edge("pkg.Server", "pkg.AuthMiddleware", "calls"),
            edge("pkg.Server", "pkg.Config", "references"),
        ],
    };
    let text = encode(&payload);
    writeln!(out, "{text}").unwrap();
    let back = decode(&text).expect("decodes");
    writeln!(
        out,
        "{} symbols, first kind {}",
        back.symbols.len(),
        back.symbols[0].kind
    )
    .unwrap();
    writeln!(out, "{:?}", decode("not gcf").map_err(|e| e.to_string())).unwrap();
    writeln!(out, "{}", kind_abbrev("interface")).unwrap();

    // Sessions.
    let session = Session::new();
    writeln!(out, "{}", encode_with_session(&payload, &session)).unwrap();
    writeln!(out, "{}", encode_with_session(&payload, &session)).unwrap();
    writeln!(out, "{:?} {}", session.get_id("pkg.Config"), session.size()).unwrap();

    // Graph deltas.
    let root = pack_root(&payload.symbols, &payload.edges);
    let mut next = payload.clone();
    next.symbols.push(symbol("pkg.Cache", "type", 0.33, 2));
    let new_root = pack_root(&next.symbols, &next.edges);
    let delta = DeltaPayload {
        tool: "context_for_task".to_string(),
        base_root: root.clone(),
        new_root: new_root.clone(),
        removed: vec![],
        added: vec![symbol("pkg.Cache", "type", 0.33, 2)],
        removed_edges: vec![],
        added_edges: vec![],
        delta_tokens: 12,
        full_tokens: 80,
    };
    let wire = encode_delta(&delta);
    writeln!(out, "{root}\n{wire}").unwrap();
    let d = decode_delta(&wire).expect("delta decodes");
    let verified = verify_delta(
        &payload.symbols,
        &payload.edges,
        &d.removed,
        &d.added,
        &d.removed_edges,
        &d.added_edges,
        &d.new_root,
    );
    writeln!(out, "verified: {}", verified.is_ok()).unwrap();
    // The applied snapshot holds the caller's symbols, signatures included
    // (the crate's order comes from a hash map: sorted here).
    let mut base = payload.symbols.clone();
    base[0].signature = "fn serve(req: Request)".to_string();
    let (mut applied, _) = verify_delta(
        &base,
        &payload.edges,
        &[],
        &delta.added,
        &[],
        &[],
        &new_root,
    )
    .expect("applies");
    applied.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
    for s in &applied {
        writeln!(out, "{} {:?}", s.qualified_name, s.signature).unwrap();
    }

    // Sessions: `record` checks nothing, and later ids follow it.
    let recorded = Session::new();
    recorded.record(&[symbol("two words", "", 0.5, 0)]);
    let next_payload = Payload {
        symbols: vec![symbol("pkg.Next", "function", 0.5, 0)],
        edges: vec![],
        ..payload.clone()
    };
    writeln!(out, "{}", encode_with_session(&next_payload, &recorded)).unwrap();
    writeln!(
        out,
        "{:?} {}",
        recorded.get_id("pkg.Next"),
        recorded.next_id()
    )
    .unwrap();

    // The program's own serde_json reads numbers as the crate leaves it: a
    // dependency's features would reach it (`1.50` would not equal `1.5`).
    let parsed: Value = serde_json::from_str("[1.50, 100000000000000000000]").unwrap();
    writeln!(
        out,
        "{} {:?}",
        parsed[0] == json!(1.5),
        encode_generic(&parsed)
    )
    .unwrap();

    // Streaming.
    let mut streamed = Vec::new();
    {
        let stream = StreamEncoder::new(&mut streamed, "ctx", StreamOptions::default());
        for s in &payload.symbols {
            stream.write_symbol(s);
        }
        for e in &payload.edges {
            stream.write_edge(e);
        }
        stream.close();
        writeln!(out, "{} {}", stream.symbol_count(), stream.edge_count()).unwrap();
    }
    writeln!(out, "{}", String::from_utf8(streamed).unwrap()).unwrap();

    // Generic values.
    let orders = json!({
        "orders": [
            {"id": 1, "total": 59.98, "status": "shipped", "region": "eu"},
            {"id": 2, "total": 29.99, "status": "pending", "region": "eu"},
            {"id": 3, "total": 129.5, "status": "shipped", "region": "eu"}
        ],
        "note": "a \"quoted\" string",
        "customer": {"name": "Ann", "tier": "gold"}
    });
    let text = encode_generic(&orders).expect("encodes");
    writeln!(out, "{text}").unwrap();
    writeln!(out, "{}", decode_generic(&text).expect("decodes") == orders).unwrap();
    let opts = GenericOptions { no_flatten: true };
    writeln!(
        out,
        "{}",
        encode_generic_with_options(&orders, &opts).unwrap()
    )
    .unwrap();
    writeln!(
        out,
        "{}",
        encode_generic_grouped(&orders["orders"], "id", "status").unwrap()
    )
    .unwrap();
    writeln!(
        out,
        "{:?}",
        decode_generic("GCF profile=generic\n## [2]{a}\n1\n").is_err()
    )
    .unwrap();

    // Generic deltas and their session.
    let base = set(json!([
        {"id": 1, "total": 59.98, "status": "shipped"},
        {"id": 2, "total": 29.99, "status": "pending"}
    ]));
    let newer = set(json!([
        {"id": 2, "total": 29.99, "status": "shipped"},
        {"id": 3, "total": 75, "status": "pending"}
    ]));
    let full = encode_generic_full(&base, "orders_query");
    writeln!(out, "{full}").unwrap();
    let (held, held_root) = decode_generic_full(&full).expect("full payload decodes");
    writeln!(out, "{} rows, {held_root}", held.rows.len()).unwrap();
    let diff = diff_generic_sets(&base, &newer).expect("diffs");
    let wire = encode_generic_delta(&diff);
    writeln!(out, "{wire}").unwrap();
    let decoded = decode_generic_delta(&wire).expect("delta decodes");
    let applied = verify_generic_delta(&base, &decoded, &decoded.new_root).expect("applies");
    writeln!(
        out,
        "{}",
        generic_pack_root(&applied) == generic_pack_root(&newer)
    )
    .unwrap();
    let mut session = GenericDeltaSession::new(
        base.clone(),
        "orders_query".to_string(),
        ReanchorPolicy::fixed_n(2),
    );
    for turn in [newer.clone(), base.clone(), newer] {
        let (wire, full) = session.next(turn).expect("turn");
        writeln!(out, "{} {full}\n{wire}", session.turn()).unwrap();
    }

    // A generic stream.
    let mut rows = Vec::new();
    {
        let stream = GenericStreamEncoder::new(&mut rows);
        stream.write_kv("query", &GcfValue::from("open orders"));
        stream.begin_array("orders", &["id", "total", "status"]);
        stream.write_row(&[
            GcfValue::from(1),
            GcfValue::from(59.98),
            GcfValue::from("shipped"),
        ]);
        stream.write_row(&[GcfValue::from(2), GcfValue::Null, GcfValue::from("a|b")]);
        stream.end_array();
        stream.close().expect("closes");
    }
    writeln!(out, "{}", String::from_utf8(rows).unwrap()).unwrap();

    // Scalar helpers.
    for s in ["plain", "two words", "", "true", "-", "a|b", "é"] {
        writeln!(
            out,
            "{s:?}: {} {} {} {}",
            needs_quote(s),
            quote_string(s),
            format_key(s),
            is_bare_key(s)
        )
        .unwrap();
    }
    writeln!(out, "{:?}", parse_quoted_string("\"a\\\"b\"")).unwrap();
}
