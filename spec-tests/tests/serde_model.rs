//! The serde model of `gcf-bind` reads every JSON input of the conformance
//! suite exactly as the core's `serde_json::Value` walkers do (the walkers
//! are the oracle here: they predate the serde model and pass every
//! fixture), and what it writes reads back to the same value.

use gcf_bind::{generic as bg, graph as bgr, value as bv};
use gcf_core::{generic as g, graph};
use serde_json::Value as Json;

#[derive(Default)]
struct Counts {
    values: usize,
    payloads: usize,
    keyed_sets: usize,
    deltas: usize,
}

fn text(v: &Json) -> String {
    // The workspace's serde_json keeps number literals as written.
    serde_json::to_string(v).unwrap()
}

fn check_value(v: &Json, at: &str, n: &mut Counts) {
    let t = text(v);
    let ours = bv::from_slice(t.as_bytes());
    match (ours, g::from_json(v)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{at}: value differs");
            let back = serde_json::to_vec(&bv::Json(&a)).unwrap();
            assert_eq!(bv::from_slice(&back).unwrap(), a, "{at}: value round trip");
        }
        (Err(a), Err(b)) => assert_eq!(a.category, b.kind().name(), "{at}"),
        (a, b) => panic!("{at}: serde model {a:?}, walker {b:?}"),
    }
    n.values += 1;
    let Some(o) = v.as_object() else { return };
    if o.get("symbols").is_some_and(Json::is_array) && !o.contains_key("rows") {
        let p = bgr::payload_from_slice(t.as_bytes())
            .unwrap()
            .to_owned_payload();
        assert_eq!(p, graph::payload_from_json(v).unwrap(), "{at}: payload");
        let back = serde_json::to_vec(&bgr::PayloadJson(&p)).unwrap();
        assert_eq!(
            bgr::payload_from_slice(&back).unwrap().to_owned_payload(),
            p
        );
        let s = bgr::owned_snapshot(&bgr::snapshot_from_slice(t.as_bytes()).unwrap());
        assert_eq!(s, graph::snapshot_from_json(v).unwrap(), "{at}: snapshot");
        n.payloads += 1;
    }
    if o.contains_key("key") && o.get("rows").is_some_and(Json::is_array) {
        let set = bg::keyed_set_from_slice(t.as_bytes()).unwrap();
        assert_eq!(set, g::keyed_set_from_json(v).unwrap(), "{at}: keyed set");
        let back = serde_json::to_vec(&bg::KeyedSetJson(&set)).unwrap();
        assert_eq!(bg::keyed_set_from_slice(&back).unwrap(), set);
        n.keyed_sets += 1;
    }
    if o.contains_key("baseRoot") && o.contains_key("key") {
        let d = bg::generic_delta_from_slice(t.as_bytes()).unwrap();
        assert_eq!(
            d,
            g::generic_delta_from_json(v).unwrap(),
            "{at}: generic delta"
        );
        let back = serde_json::to_vec(&bg::GenericDeltaJson(&d)).unwrap();
        assert_eq!(bg::generic_delta_from_slice(&back).unwrap(), d);
        n.deltas += 1;
    } else if o.contains_key("baseRoot") || o.contains_key("removedEdges") {
        let d = bgr::delta_from_slice(t.as_bytes()).unwrap();
        let walker = graph::delta_from_json(v).unwrap();
        let back = serde_json::to_vec(&bgr::DeltaJson(&d)).unwrap();
        assert_eq!(
            back,
            serde_json::to_vec(&bgr::DeltaJson(&walker)).unwrap(),
            "{at}: delta"
        );
        n.deltas += 1;
    }
}

fn walk(v: &Json, at: &str, n: &mut Counts) {
    if v.is_object() || v.is_array() {
        check_value(v, at, n);
    }
    match v {
        Json::Object(o) => o.iter().for_each(|(k, x)| walk(x, &format!("{at}.{k}"), n)),
        Json::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| walk(x, &format!("{at}[{i}]"), n)),
        _ => {}
    }
}

#[test]
fn the_serde_model_reads_every_conformance_input_like_the_walkers() {
    let dir = gcf_spec_tests::conformance_dir();
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
    }
    let mut n = Counts::default();
    for path in &files {
        let fixture: Json = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let at = path.display().to_string();
        for key in [
            "input",
            "expected",
            "base_snapshot",
            "expected_snapshot",
            "calls",
        ] {
            if let Some(v) = fixture.get(key) {
                walk(v, &format!("{at}:{key}"), &mut n);
            }
        }
    }
    assert!(files.len() >= 281, "{} fixtures", files.len());
    // Every kind of input was met, so none of the checks above is vacuous.
    assert!(
        n.values > 300 && n.payloads >= 20 && n.keyed_sets >= 15 && n.deltas >= 5,
        "values {} payloads {} keyed sets {} deltas {}",
        n.values,
        n.payloads,
        n.keyed_sets,
        n.deltas
    );
}
