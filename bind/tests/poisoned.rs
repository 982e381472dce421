//! A stream poisoned by a failing sink, from Rust: the same steps and the
//! same answers as the C test (`ffi-c/tests/c/test_gcf.c`,
//! `test_poisoned_streams_agree`) and the Go test (`TestPoisonedStreamsAgree`),
//! for both profiles, with the host's error kept by a `HostSink`.

use std::cell::Cell;

use gcf_bind::Failure;
use gcf_core::generic::{self, Cell as Row};
use gcf_core::graph::{self, Symbol};
use gcf_core::{Error, HostSink};

fn poisoned(e: Error) {
    let f = Failure::from(e);
    assert_eq!(
        (f.class.name(), f.category),
        ("state", "invalid_state"),
        "{f}"
    );
    assert!(
        f.message.contains("earlier write to the sink failed"),
        "{f}"
    );
}

#[test]
fn graph_and_generic_streams_poison_alike() {
    let calls = Cell::new(0);
    let refuse = |_: &[u8]| {
        calls.set(calls.get() + 1);
        Err::<(), _>(42)
    };
    let mut g = graph::StreamWriter::new(HostSink::new(refuse), Default::default()).unwrap();
    let e = g
        .write_symbol(&Symbol::new("has space", "function", 0.5, "x", 0))
        .unwrap_err();
    assert_eq!(Failure::from(e).class.name(), "input");
    g.write_symbol(&Symbol::new("pkg.A", "function", 0.5, "x", 0))
        .unwrap();
    assert_eq!(calls.get(), 0);
    let e = Failure::from(g.flush().unwrap_err());
    assert_eq!((e.class.name(), e.category), ("sink", "sink"));
    assert_eq!(g.get_ref().error(), Some(&42));
    assert_eq!(calls.get(), 1);
    poisoned(
        g.write_symbol(&Symbol::new("pkg.B", "function", 0.5, "x", 0))
            .unwrap_err(),
    );
    poisoned(g.write_edge(0, 0, "calls", "").unwrap_err());
    poisoned(g.write_location(0, "f.go", 1, 1, None).unwrap_err());
    poisoned(g.flush().unwrap_err());
    poisoned(g.finish().err().unwrap());
    assert_eq!(calls.get(), 1);

    calls.set(0);
    let mut w = generic::StreamWriter::new(HostSink::new(refuse), Default::default()).unwrap();
    w.begin_table(None, &["a"]).unwrap();
    let e = Failure::from(w.row(&[Row::Int(1), Row::Int(2)]).unwrap_err());
    assert_eq!(
        (e.class.name(), e.category),
        ("syntax", "row_width_mismatch")
    );
    w.row(&[Row::Int(1)]).unwrap();
    assert_eq!(calls.get(), 0);
    let e = Failure::from(w.flush().unwrap_err());
    assert_eq!((e.class.name(), e.category), ("sink", "sink"));
    assert_eq!(w.get_ref().error(), Some(&42));
    poisoned(w.row(&[Row::Int(1)]).unwrap_err());
    poisoned(w.end_table().unwrap_err());
    poisoned(w.flush().unwrap_err());
    poisoned(w.finish().err().unwrap());
    assert_eq!(calls.get(), 1);
}
