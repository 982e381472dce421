//! The FFI layer called from Rust the way C calls it.

use core::ffi::{c_int, c_void, CStr};
use core::ptr;

use crate::error::boundary;
use crate::*;

mod generic;
mod limits;

/// Calls an export that fills a `gcf_buf`, returning the status, the text and
/// the error (category, line, column, message).
/// An error's category, line, column and message.
type Detail = (String, u64, u64, String);

fn call(
    f: impl FnOnce(*mut gcf_buf, *mut *mut gcf_error) -> gcf_status,
) -> (gcf_status, String, Option<Detail>) {
    let (status, bytes, detail) = call_bytes(f);
    (status, String::from_utf8(bytes).unwrap(), detail)
}

/// [`call`] of an export whose output is binary (the packed decoders).
fn call_bytes(
    f: impl FnOnce(*mut gcf_buf, *mut *mut gcf_error) -> gcf_status,
) -> (gcf_status, Vec<u8>, Option<Detail>) {
    let mut out = gcf_buf {
        ptr: ptr::dangling_mut::<u8>(),
        len: 99,
    };
    let mut err: *mut gcf_error = ptr::dangling_mut::<gcf_error>();
    let status = f(&mut out, &mut err);
    let text = if out.ptr.is_null() {
        assert_eq!(out.len, 0);
        Vec::new()
    } else {
        // SAFETY: the library filled `out`.
        let bytes = unsafe { core::slice::from_raw_parts(out.ptr, out.len + 1) };
        assert_eq!(bytes[out.len], 0, "output is NUL-terminated");
        bytes[..out.len].to_vec()
    };
    // SAFETY: `out` came from the library.
    unsafe { gcf_buf_free(&mut out) };
    assert!(out.ptr.is_null());
    let detail = if err.is_null() {
        None
    } else {
        // SAFETY: `err` is a live error from the library.
        unsafe {
            let d = (
                CStr::from_ptr(gcf_error_category(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
                gcf_error_line(err),
                gcf_error_column(err),
                CStr::from_ptr(gcf_error_message(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
            assert_eq!(gcf_error_status(err), status);
            gcf_error_free(err);
            Some(d)
        }
    };
    assert_eq!(status == gcf_status::GCF_STATUS_OK, detail.is_none());
    (status, text, detail)
}

/// The graph delta `gcf_graph_delta` answers a consumer holding snapshot
/// `held` (which it echoes the root of) when the payload is `current`;
/// fails unless the answer is a delta.
fn graph_delta_between(held: &str, current: &str) -> String {
    let (_, held_root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(held.as_ptr(), held.len(), o, e) });
    let mut outcome = gcf_outcome::GCF_OUTCOME_NONE;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, delta, _) = call(|o, e| unsafe {
        gcf_graph_delta(
            held.as_ptr(),
            held.len(),
            current.as_ptr(),
            current.len(),
            held_root.as_ptr(),
            held_root.len(),
            &mut outcome,
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_DELTA, "{delta}");
    delta
}

const PAYLOAD: &str = r#"{"tool":"ctx","symbols":[
  {"qualifiedName":"pkg.Auth","kind":"function","score":0.78,"provenance":"lsp_resolved","distance":0},
  {"qualifiedName":"pkg.Server","kind":"function","score":0.54,"provenance":"lsp_resolved","distance":1}],
  "edges":[{"source":"pkg.Server","target":"pkg.Auth","edgeType":"calls"}]}"#;

const TEXT: &str = "GCF profile=graph tool=ctx symbols=2 edges=1\n## targets\n@0 fn pkg.Auth 0.78 lsp_resolved\n## related\n@1 fn pkg.Server 0.54 lsp_resolved\n## edges [1]\n@0<@1 calls\n";

#[test]
fn encode_and_decode_round_trip() {
    // SAFETY (all unsafe calls in these tests): arguments are valid slices and out-params.
    let (status, text, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_encode(PAYLOAD.as_ptr(), PAYLOAD.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(text.starts_with("GCF profile=graph tool=ctx"), "{text}");
    let (status, json, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_decode(text.as_ptr(), text.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["symbols"][1]["qualifiedName"], "pkg.Server");
    assert_eq!(v["edges"][0]["edgeType"], "calls");
}

#[test]
fn errors_carry_category_and_position() {
    let bad = "GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n";
    let (status, text, err) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_decode(bad.as_ptr(), bad.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert!(text.is_empty());
    let (category, line, _, _) = err.unwrap();
    assert_eq!(category, "invalid_symbol_id");
    assert_eq!(line, 3);

    let bytes = b"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n";
    let (status, _, err) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_decode(bytes.as_ptr(), bytes.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    let (category, line, column, _) = err.unwrap();
    assert_eq!((category.as_str(), line), ("invalid_utf8", 3));
    assert!(column > 0);

    let json = "{\"symbols\": [}";
    let (status, _, err) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_encode(json.as_ptr(), json.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_JSON_ERROR);
    let (category, line, column, _) = err.unwrap();
    // Malformed JSON is category `json`, as in the CLI (one error model).
    assert_eq!((category.as_str(), line, column), ("json", 1, 14));

    let json = r#"{"symbols":[{"qualifiedName":"has space","kind":"function","score":0.5,"provenance":"x","distance":0}]}"#;
    let (status, _, err) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_encode(json.as_ptr(), json.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "invalid_input");

    let json = b"{\"tool\":\"\xff\"}";
    let (status, _, err) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_encode(json.as_ptr(), json.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(err.unwrap().0, "invalid_utf8");
}

#[test]
fn null_arguments_are_errors() {
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe { gcf_graph_encode(ptr::null(), 5, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(err.unwrap().0, "invalid_input");
    // NULL with length 0 is an empty input: a JSON error, not a crash.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, _) = call(|o, e| unsafe { gcf_graph_encode(ptr::null(), 0, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_JSON_ERROR);
    let mut err = ptr::null_mut();
    // SAFETY: a NULL out-param is what is being tested.
    let status =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        unsafe { gcf_graph_encode(PAYLOAD.as_ptr(), PAYLOAD.len(), ptr::null_mut(), &mut err) };
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    // SAFETY: err is live; NULL accessors are allowed.
    unsafe {
        gcf_error_free(err);
        assert_eq!(gcf_error_line(ptr::null()), 0);
        assert_eq!(
            CStr::from_ptr(gcf_error_category(ptr::null())).to_bytes(),
            b""
        );
        gcf_error_free(ptr::null_mut());
        gcf_buf_free(ptr::null_mut());
        gcf_graph_stream_free(ptr::null_mut());
        gcf_graph_session_free(ptr::null_mut());
    }
    // A NULL err pointer is allowed: only the status is reported.
    let mut empty = gcf_buf::EMPTY;
    // SAFETY: valid input, NULL err.
    let status =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        unsafe { gcf_graph_decode(b"nope".as_ptr(), 4, &mut empty, ptr::null_mut()) };
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
}

#[test]
fn panics_become_a_status() {
    let mut err = ptr::null_mut();
    // SAFETY: err is writable.
    let status = unsafe { boundary(&mut err, || panic!("boom")) };
    assert_eq!(status, gcf_status::GCF_STATUS_PANIC);
    // SAFETY: err is live.
    unsafe {
        assert_eq!(CStr::from_ptr(gcf_error_category(err)).to_bytes(), b"panic");
        let msg = CStr::from_ptr(gcf_error_message(err)).to_str().unwrap();
        assert!(msg.contains("boom"), "{msg}");
        gcf_error_free(err);
    }
}

#[test]
fn pack_root_delta_and_session() {
    let (status, root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(PAYLOAD.as_ptr(), PAYLOAD.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(root.starts_with("sha256:") && root.len() == 71, "{root}");

    let mut outcome = gcf_outcome::GCF_OUTCOME_NONE;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, text, _) = call(|o, e| unsafe {
        gcf_graph_delta(
            ptr::null(),
            0,
            PAYLOAD.as_ptr(),
            PAYLOAD.len(),
            ptr::null(),
            0,
            &mut outcome,
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_FULL);
    assert!(text.contains(&format!("pack_root={root}")), "{text}");
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, text, _) = call(|o, e| unsafe {
        gcf_graph_delta(
            ptr::null(),
            0,
            PAYLOAD.as_ptr(),
            PAYLOAD.len(),
            root.as_ptr(),
            root.len(),
            &mut outcome,
            o,
            e,
        )
    });
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_UNCHANGED);
    assert!(text.contains("unchanged=true"), "{text}");

    // A base with one more symbol: the answer is a delta that removes it.
    let mut many = String::from(r#"{"symbols":["#);
    for i in 0..40 {
        many.push_str(&format!(
            r#"{{"qualifiedName":"pkg.F{i}","kind":"function","score":0.5,"provenance":"lsp","distance":0}},"#
        ));
    }
    let current = format!("{}]}}", many.trim_end_matches(','));
    let held = format!(
        r#"{}{{"qualifiedName":"pkg.Gone","kind":"function","score":0.5,"provenance":"lsp","distance":0}}]}}"#,
        many
    );
    let delta = graph_delta_between(&held, &current);
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, applied, _) = call(|o, e| unsafe {
        gcf_graph_apply_delta(held.as_ptr(), held.len(), delta.as_ptr(), delta.len(), o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let (_, applied_root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(applied.as_ptr(), applied.len(), o, e) });
    let (_, current_root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(current.as_ptr(), current.len(), o, e) });
    assert_eq!(applied_root, current_root);
    // Applying to the wrong base fails with root_mismatch.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_graph_apply_delta(
            current.as_ptr(),
            current.len(),
            delta.as_ptr(),
            delta.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    // At the root's value in the delta's header.
    let column = delta.find(" base_root=").unwrap() + " base_root=".len() + 1;
    let (category, line, at, _) = err.unwrap();
    assert_eq!(
        (category.as_str(), line, at),
        ("base_mismatch", 1, column as u64)
    );

    let delta_json = r#"{"tool":"ctx","baseRoot":"aaa111","newRoot":"bbb222","removed":[{"kind":"function","qualifiedName":"pkg.Old"}]}"#;
    let (status, text, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_encode_delta(delta_json.as_ptr(), delta_json.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(text, "GCF profile=graph tool=ctx delta=true base_root=aaa111 new_root=bbb222 tokens=0 savings=0%\n## removed\nfn pkg.Old\n");

    let mut session = ptr::null_mut();
    // SAFETY: out-params are valid; the session is freed once.
    unsafe {
        assert_eq!(
            gcf_graph_session_new(&mut session, ptr::null_mut()),
            gcf_status::GCF_STATUS_OK
        );
        let (_, first, _) =
            call(|o, e| gcf_graph_session_encode(session, PAYLOAD.as_ptr(), PAYLOAD.len(), o, e));
        let (_, second, _) =
            call(|o, e| gcf_graph_session_encode(session, PAYLOAD.as_ptr(), PAYLOAD.len(), o, e));
        assert_eq!(
            first,
            TEXT.replace("edges=1\n", "edges=1 session=true\n"),
            "{first}"
        );
        assert!(second.contains("previously transmitted"), "{second}");
        gcf_graph_session_free(session);

        // The consumer side resolves the second payload's bare references
        // once it has seen the first, and refuses them otherwise.
        let mut decoder = ptr::null_mut();
        assert_eq!(
            gcf_graph_session_decoder_new(ptr::null(), 0, &mut decoder, ptr::null_mut()),
            gcf_status::GCF_STATUS_OK
        );
        let (status, _, _) = call(|o, e| {
            gcf_graph_session_decoder_decode(decoder, first.as_ptr(), first.len(), o, e)
        });
        assert_eq!(status, gcf_status::GCF_STATUS_OK);
        let (status, json, _) = call(|o, e| {
            gcf_graph_session_decoder_decode(decoder, second.as_ptr(), second.len(), o, e)
        });
        assert_eq!(status, gcf_status::GCF_STATUS_OK);
        assert!(json.contains(r#""qualifiedName":"pkg.Server""#), "{json}");
        assert_eq!(gcf_graph_session_decoder_len(decoder), 2);
        gcf_graph_session_decoder_reset(decoder);
        let (status, _, err) = call(|o, e| {
            gcf_graph_session_decoder_decode(decoder, second.as_ptr(), second.len(), o, e)
        });
        assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
        assert_eq!(err.unwrap().0, "unknown_edge_reference");
        gcf_graph_session_decoder_free(decoder);
    }
}

struct Collected {
    bytes: Vec<u8>,
    calls: usize,
    fail_after: usize,
}

impl Collected {
    /// A sink that takes every write.
    fn unlimited() -> Collected {
        Collected {
            bytes: Vec::new(),
            calls: 0,
            fail_after: usize::MAX,
        }
    }
}

unsafe extern "C" fn collect(user_data: *mut c_void, bytes: *const u8, len: usize) -> c_int {
    // SAFETY: user_data is the `Collected` the test passed; bytes has len bytes.
    let c = unsafe { &mut *user_data.cast::<Collected>() };
    c.calls += 1;
    if c.calls > c.fail_after {
        return 7;
    }
    // SAFETY: as above.
    c.bytes
        // SAFETY: the arguments are live Rust slices and valid out-params.
        .extend_from_slice(unsafe { core::slice::from_raw_parts(bytes, len) });
    0
}

fn status_of(f: impl FnOnce(*mut *mut gcf_error) -> gcf_status) -> (gcf_status, Option<String>) {
    let mut err = ptr::null_mut();
    let status = f(&mut err);
    if err.is_null() {
        return (status, None);
    }
    // SAFETY: err is live.
    unsafe {
        let cat = CStr::from_ptr(gcf_error_category(err))
            .to_str()
            .unwrap()
            .to_string();
        gcf_error_free(err);
        (status, Some(cat))
    }
}

/// `gcf_graph_stream_new` writing into `sink`: its status and error category.
///
/// # Safety
///
/// `options` is NULL or valid; `sink` outlives the stream made.
unsafe fn new_stream(
    sink: &mut Collected,
    options: *const gcf_graph_stream_options,
    stream: &mut *mut gcf_graph_stream,
) -> (gcf_status, Option<String>) {
    // SAFETY: per this function's contract.
    status_of(|e| unsafe {
        gcf_graph_stream_new(
            Some(collect),
            (sink as *mut Collected).cast(),
            options,
            stream,
            e,
        )
    })
}

/// Every field of `gcf_graph_stream_options` at its default.
const NO_OPTIONS: gcf_graph_stream_options = gcf_graph_stream_options {
    tool: ptr::null(),
    tool_len: 0,
    token_budget: 0,
    tokens_used: 0,
    trailer: GCF_TRAILER_POSITIONAL,
    index_names: false,
    pack_root: ptr::null(),
    pack_root_len: 0,
    session: false,
};

/// A pack root that would break the header line fails the stream's creation
/// with `invalid_input`, and the callback never sees a byte; an empty one
/// writes no `pack_root=`.
#[test]
fn stream_pack_root_is_checked_before_anything_is_written() {
    for (root, status, header) in [
        ("sha256:a b", gcf_status::GCF_STATUS_DATA_ERROR, None),
        ("caf\u{e9}", gcf_status::GCF_STATUS_DATA_ERROR, None),
        (
            "",
            gcf_status::GCF_STATUS_OK,
            Some("GCF profile=graph tool=\n"),
        ),
    ] {
        let mut sink = Collected::unlimited();
        let options = gcf_graph_stream_options {
            pack_root: root.as_ptr(),
            pack_root_len: root.len(),
            ..NO_OPTIONS
        };
        let mut stream = ptr::null_mut();
        // SAFETY: all pointers are valid for the calls; the stream is freed once.
        unsafe {
            let (s, category) = new_stream(&mut sink, &options, &mut stream);
            assert_eq!(s, status, "{root:?}");
            if let Some(header) = header {
                let (s, _) = status_of(|e| gcf_graph_stream_finish(stream, e));
                assert_eq!(s, gcf_status::GCF_STATUS_OK);
                gcf_graph_stream_free(stream);
                assert!(String::from_utf8_lossy(&sink.bytes).starts_with(header));
            } else {
                assert_eq!(category.as_deref(), Some("invalid_input"));
                assert!(stream.is_null());
                assert!(sink.bytes.is_empty());
            }
        }
    }
}

/// A bare reference through the C ABI: the next id, counted in its group,
/// named by edges through the index.
#[test]
fn stream_writes_bare_references() {
    let mut sink = Collected::unlimited();
    let root = "sha256:ab";
    let options = gcf_graph_stream_options {
        tool: ptr::null(),
        tool_len: 0,
        token_budget: 0,
        tokens_used: 0,
        trailer: GCF_TRAILER_POSITIONAL,
        index_names: true,
        pack_root: root.as_ptr(),
        pack_root_len: root.len(),
        session: true,
    };
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = new_stream(&mut sink, &options, &mut stream);
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let mut ids = [99u64; 2];
        for (name, id) in [b"a.A".as_slice(), b"a.B"].into_iter().zip(&mut ids) {
            let (s, _) = status_of(|e| {
                gcf_graph_stream_write_bare_ref(stream, name.as_ptr(), name.len(), 2, id, e)
            });
            assert_eq!(s, gcf_status::GCF_STATUS_OK);
        }
        assert_eq!(ids, [0, 1]);
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_edge_by_name(
                stream,
                b"a.A".as_ptr(),
                3,
                b"a.B".as_ptr(),
                3,
                b"calls".as_ptr(),
                5,
                ptr::null(),
                0,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, cat) = status_of(|e| {
            gcf_graph_stream_write_bare_ref(stream, ptr::null(), 0, 2, ptr::null_mut(), e)
        });
        assert_eq!(
            (s, cat.as_deref()),
            (gcf_status::GCF_STATUS_INVALID_STATE, Some("invalid_state"))
        );
        let (s, _) = status_of(|e| gcf_graph_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        gcf_graph_stream_free(stream);
    }
    assert_eq!(
        String::from_utf8(sink.bytes).unwrap(),
        "GCF profile=graph tool= pack_root=sha256:ab session=true\n## extended\n@0  # previously transmitted\n@1  # previously transmitted\n\
         ## edges [?]\n@1<@0 calls\n##! summary symbols=2 edges=1 counts=2,1\n"
    );
}

#[test]
fn stream_writes_through_the_callback() {
    let mut sink = Collected::unlimited();
    let tool = "ctx";
    let options = gcf_graph_stream_options {
        tool: tool.as_ptr(),
        tool_len: tool.len(),
        token_budget: 0,
        tokens_used: 0,
        trailer: GCF_TRAILER_POSITIONAL,
        index_names: true,
        ..NO_OPTIONS
    };
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = new_stream(&mut sink, &options, &mut stream);
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let mut id = 99;
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_symbol(
                stream,
                b"pkg.Auth".as_ptr(),
                8,
                b"function".as_ptr(),
                8,
                0.95,
                b"lsp".as_ptr(),
                3,
                0,
                &mut id,
                e,
            )
        });
        assert_eq!((s, id), (gcf_status::GCF_STATUS_OK, 0));
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_symbol(
                stream,
                b"pkg.Server".as_ptr(),
                10,
                b"function".as_ptr(),
                8,
                0.6,
                b"lsp".as_ptr(),
                3,
                1,
                &mut id,
                e,
            )
        });
        assert_eq!((s, id), (gcf_status::GCF_STATUS_OK, 1));
        let (s, cat) = status_of(|e| {
            gcf_graph_stream_write_edge(stream, 1, 5, b"calls".as_ptr(), 5, ptr::null(), 0, e)
        });
        assert_eq!(
            (s, cat.as_deref()),
            (
                gcf_status::GCF_STATUS_DATA_ERROR,
                Some("unknown_edge_reference")
            )
        );
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_edge(stream, 1, 0, b"calls".as_ptr(), 5, ptr::null(), 0, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_edge_by_name(
                stream,
                b"pkg.Auth".as_ptr(),
                8,
                b"pkg.Server".as_ptr(),
                10,
                b"imports".as_ptr(),
                7,
                b"added".as_ptr(),
                5,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, cat) = status_of(|e| {
            gcf_graph_stream_write_symbol(
                stream,
                b"x".as_ptr(),
                1,
                b"function".as_ptr(),
                8,
                0.5,
                b"lsp".as_ptr(),
                3,
                1,
                ptr::null_mut(),
                e,
            )
        });
        assert_eq!(
            (s, cat.as_deref()),
            (gcf_status::GCF_STATUS_INVALID_STATE, Some("invalid_state"))
        );
        let (s, _) = status_of(|e| gcf_graph_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| gcf_graph_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_STATE);
        gcf_graph_stream_free(stream);
    }
    assert_eq!(
        String::from_utf8(sink.bytes).unwrap(),
        "GCF profile=graph tool=ctx\n## targets\n@0 fn pkg.Auth 0.95 lsp\n## related\n@1 fn pkg.Server 0.60 lsp\n\
         ## edges [?]\n@0<@1 calls\n@1<@0 imports added\n##! summary symbols=2 edges=2 counts=1,1,2\n"
    );
}

#[test]
fn failing_callback_stops_the_stream() {
    let mut sink = Collected {
        bytes: Vec::new(),
        calls: 0,
        fail_after: 0,
    };
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = new_stream(&mut sink, ptr::null(), &mut stream);
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let mut failure = None;
        for i in 0..10_000u32 {
            let mut err = ptr::null_mut();
            let s = gcf_graph_stream_write_symbol(
                stream,
                b"pkg.Name".as_ptr(),
                8,
                b"function".as_ptr(),
                8,
                0.5,
                b"lsp".as_ptr(),
                3,
                i / 100,
                ptr::null_mut(),
                &mut err,
            );
            if s != gcf_status::GCF_STATUS_OK {
                let msg = CStr::from_ptr(gcf_error_message(err))
                    .to_str()
                    .unwrap()
                    .to_string();
                failure = Some((
                    s,
                    CStr::from_ptr(gcf_error_category(err))
                        .to_str()
                        .unwrap()
                        .to_string(),
                    msg,
                ));
                gcf_error_free(err);
                break;
            }
        }
        let (s, cat, msg) = failure.expect("the callback refusal must surface");
        assert_eq!(
            (s, cat.as_str()),
            (gcf_status::GCF_STATUS_SINK_ERROR, "sink")
        );
        assert!(msg.contains("returned 7"), "{msg}");
        let (s, _) = status_of(|e| gcf_graph_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_STATE);
        gcf_graph_stream_free(stream);

        let (s, _) =
            status_of(|e| gcf_graph_stream_new(None, ptr::null_mut(), ptr::null(), &mut stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        assert!(stream.is_null());
        let bad = gcf_graph_stream_options {
            trailer: 9,
            ..NO_OPTIONS
        };
        let (s, _) = status_of(|e| {
            gcf_graph_stream_new(Some(collect), ptr::null_mut(), &bad, &mut stream, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        let (s, _) = status_of(|e| {
            gcf_graph_stream_write_edge(ptr::null_mut(), 0, 0, b"x".as_ptr(), 1, ptr::null(), 0, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    }
}

#[test]
fn version_is_static_text() {
    // SAFETY: gcf_version returns a static C string.
    let v = unsafe { CStr::from_ptr(gcf_version()) }.to_str().unwrap();
    assert_eq!(
        v,
        format!("{} (spec {})", gcf_core::VERSION, gcf_core::SPEC_VERSION)
    );
}

fn cstr(s: &str) -> gcf_str {
    gcf_str {
        ptr: s.as_ptr().cast(),
        len: s.len(),
    }
}

/// The struct path gives what the JSON path gives, and checks its strings.
#[test]
fn payload_structs_encode_like_json() {
    let names = ["pkg.Auth", "pkg.Server", "pkg.Db"];
    let symbols: Vec<gcf_symbol> = names
        .iter()
        .enumerate()
        .map(|(i, n)| gcf_symbol {
            qualified_name: cstr(n),
            kind: cstr("function"),
            score: 0.25 * i as f64,
            provenance: cstr("lsp"),
            distance: i as u32 / 2,
        })
        .collect();
    let edges = [gcf_edge {
        source: cstr("pkg.Server"),
        target: cstr("pkg.Auth"),
        edge_type: cstr("calls"),
        status: cstr(""),
    }];
    let locations = [gcf_location {
        qualified_name: cstr("pkg.Db"),
        file: cstr("db.go"),
        line: 3,
        column: 1,
        end_line: 9,
        end_column: 2,
    }];
    let mut payload = gcf_graph_payload {
        tool: cstr("ctx"),
        token_budget: 100,
        tokens_used: 0,
        pack_root: gcf_str {
            ptr: ptr::null(),
            len: 0,
        },
        symbols: symbols.as_ptr(),
        symbol_count: symbols.len(),
        edges: edges.as_ptr(),
        edge_count: 1,
        locations: locations.as_ptr(),
        location_count: 1,
    };
    // SAFETY: every pointer of `payload` is a live slice of its length.
    let (status, text, _) = call(|o, e| unsafe { gcf_graph_encode_payload(&payload, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let json = r#"{"tool":"ctx","tokenBudget":100,"symbols":[
        {"qualifiedName":"pkg.Auth","kind":"function","score":0,"provenance":"lsp","distance":0},
        {"qualifiedName":"pkg.Server","kind":"function","score":0.25,"provenance":"lsp","distance":0},
        {"qualifiedName":"pkg.Db","kind":"function","score":0.5,"provenance":"lsp","distance":1}],
        "edges":[{"source":"pkg.Server","target":"pkg.Auth","edgeType":"calls"}],
        "locations":[{"qualifiedName":"pkg.Db","file":"db.go","line":3,"column":1,"endLine":9,"endColumn":2}]}"#;
    // SAFETY: a live Rust slice and valid out-params.
    let (_, via_json, _) =
        call(|o, e| unsafe { gcf_graph_encode(json.as_ptr(), json.len(), o, e) });
    assert_eq!(text, via_json);
    assert!(text.contains("## loc"), "{text}");

    let bad = [0xffu8];
    let mut bad_symbols = symbols.clone();
    bad_symbols[1].kind = gcf_str {
        ptr: bad.as_ptr().cast(),
        len: 1,
    };
    payload.symbols = bad_symbols.as_ptr();
    // SAFETY: as above.
    let (status, _, err) = call(|o, e| unsafe { gcf_graph_encode_payload(&payload, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(err.unwrap().0, "invalid_utf8");
    payload.symbols = ptr::null();
    // SAFETY: a NULL array with a count is what is tested; it is refused unread.
    let (status, _, _) = call(|o, e| unsafe { gcf_graph_encode_payload(&payload, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    // SAFETY: a NULL payload is what is tested.
    let (status, _, _) = call(|o, e| unsafe { gcf_graph_encode_payload(ptr::null(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
}

#[test]
fn conformance_fixtures_run_through_the_abi() {
    let fixture =
        r#"{"operation":"encode","input":{"id":7},"expected":"GCF profile=generic\nid=7\n"}"#;
    // SAFETY: a live Rust slice and valid out-params.
    let (status, verdict, _) =
        call(|o, e| unsafe { gcf_conformance_run(fixture.as_ptr(), fixture.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(verdict, r#"{"operation":"encode","status":"pass"}"#);
    let wrong = r#"{"operation":"encode","input":{"id":7},"expected":"x"}"#;
    // SAFETY: as above.
    let (_, verdict, _) =
        call(|o, e| unsafe { gcf_conformance_run(wrong.as_ptr(), wrong.len(), o, e) });
    assert!(verdict.contains(r#""status":"fail""#), "{verdict}");
}

/// The exports gcf-go's drop-in (bindings-go/gcfgo) needs: delta decoders, the
/// keyed-set diff, grouped encode and encode without constant-column factoring.
#[test]
fn gcf_go_drop_in_exports() {
    let text = |s: &str| (s.as_ptr(), s.len());
    let graph = "GCF profile=graph tool=t delta=true base_root=sha256:a new_root=sha256:b\n## added\n@0 fn pkg.A 0.50 lsp 1\n";
    let (p, n) = text(graph);
    // SAFETY: valid pointers and lengths for the call.
    let (status, json, _) = call(|o, e| unsafe { gcf_graph_decode_delta(p, n, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(
        json.contains(r#""kind":"function""#) && json.contains(r#""baseRoot":"sha256:a""#),
        "{json}"
    );
    let (p, n) = text("GCF profile=graph tool=t\n");
    // SAFETY: as above.
    let (status, _, err) = call(|o, e| unsafe { gcf_graph_decode_delta(p, n, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR, "{err:?}");

    let generic = "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n## removed [1]{@id}\n3\n";
    let (p, n) = text(generic);
    // SAFETY: as above.
    let (status, json, _) = call(|o, e| unsafe { gcf_generic_decode_delta(p, n, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(json.contains(r#""removed":[3]"#), "{json}");

    let base = r#"{"key":"id","fields":["id","v"],"rows":[{"id":1,"v":"a"},{"id":2,"v":"b"}]}"#;
    let next = r#"{"key":"id","fields":["id","v"],"rows":[{"id":1,"v":"z"}]}"#;
    let other = r#"{"key":"id","fields":["id"],"rows":[]}"#;
    let ((b, bn), (x, xn), (y, yn)) = (text(base), text(next), text(other));
    // SAFETY: as above.
    let (status, json, _) = call(|o, e| unsafe { gcf_generic_diff(b, bn, x, xn, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(
        json.contains(r#""removed":[2]"#) && json.contains(r#""changed":[{"id":1,"v":"z"}]"#),
        "{json}"
    );
    // SAFETY: as above.
    let (status, json, _) = call(|o, e| unsafe { gcf_generic_diff(b, bn, y, yn, o, e) });
    assert_eq!((status, json.as_str()), (gcf_status::GCF_STATUS_OK, "null"));

    let files = r#"[{"path":"a.rs","kind":"src"},{"path":"b.md","kind":"doc"},{"path":"c.rs","kind":"src"}]"#;
    let ((f, fn_), (k, kn), (g, gn)) = (text(files), text("path"), text("kind"));
    // SAFETY: as above.
    let (status, out, _) =
        call(|o, e| unsafe { gcf_generic_encode_grouped(f, fn_, k, kn, g, gn, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(out.contains("group=kind"), "{out}");
    // SAFETY: as above.
    let (status, _, _) =
        call(|o, e| unsafe { gcf_generic_encode_grouped(f, fn_, g, gn, k, kn, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);

    let rows = r#"[{"a":1,"t":"x"},{"a":2,"t":"x"}]"#;
    let (r, rn) = text(rows);
    // SAFETY: as above.
    let (_, plain, _) = call(|o, e| unsafe {
        gcf_generic_encode_flags(r, rn, GCF_GENERIC_NO_CONSTANT_COLUMNS, o, e)
    });
    assert_eq!(plain, "GCF profile=generic\n## [2]{a,t}\n1|x\n2|x\n");
    // SAFETY: as above.
    let (_, factored, _) = call(|o, e| unsafe { gcf_generic_encode_flags(r, rn, 0, o, e) });
    assert_eq!(factored, "GCF profile=generic\n## [2]{a,t=x}\n1\n2\n");

    // GCF_GENERIC_NO_FLATTEN: attachments, as 2.5.2's and gcf-go's
    // `noFlatten`/`NoFlatten` write them (bytes from 2.5.2).
    let rows =
        r#"[{"id":1,"owner":{"name":"x","team":"a"}},{"id":2,"owner":{"name":"y","team":"b"}}]"#;
    let (r, rn) = text(rows);
    for (flags, want) in [
        (0, "GCF profile=generic\n## [2]{id,\"owner>name\",\"owner>team\"}\n1|x|a\n2|y|b\n"),
        (
            GCF_GENERIC_NO_FLATTEN,
            "GCF profile=generic\n## [2]{id,owner}\n@0 1|^\n.owner {}\n    name=x\n    team=a\n@1 2|^\n.owner {}\n    name=y\n    team=b\n",
        ),
    ] {
        // SAFETY: as above.
        let (status, got, _) = call(|o, e| unsafe { gcf_generic_encode_flags(r, rn, flags, o, e) });
        assert_eq!((status, got.as_str()), (gcf_status::GCF_STATUS_OK, want));
    }
}

/// Reads [`gcf_graph_decode_packed`]'s result the way a host does.
fn packed_decode(input: &[u8]) -> Result<Vec<u64>, (gcf_status, Detail)> {
    let mut out = gcf_buf::EMPTY;
    let mut err: *mut gcf_error = ptr::null_mut();
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let status =
        unsafe { gcf_graph_decode_packed(input.as_ptr(), input.len(), &mut out, &mut err) };
    if status != gcf_status::GCF_STATUS_OK {
        assert!(out.ptr.is_null());
        // SAFETY: `err` is a live error from the library.
        let detail = unsafe {
            let d = (
                CStr::from_ptr(gcf_error_category(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
                gcf_error_line(err),
                gcf_error_column(err),
                CStr::from_ptr(gcf_error_message(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
            gcf_error_free(err);
            d
        };
        return Err((status, detail));
    }
    // SAFETY: the library filled `out` with `len` bytes.
    let bytes = unsafe { core::slice::from_raw_parts(out.ptr, out.len) }.to_vec();
    // SAFETY: `out` came from the library.
    unsafe { gcf_buf_free(&mut out) };
    // The arena is bytes, not words: keep it as its own tail below.
    let mut words: Vec<u64> = bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    words.push(bytes.len() as u64);
    Ok(words)
}

#[test]
fn decode_packed_describes_the_payload() {
    let input = "GCF profile=graph tool=ctx budget=500 symbols=2 edges=1\n## targets\n@0 fn pkg.Auth 0.78 lsp\n\
                 ## related\n@1 widget pkg.Server 0.54 lsp\n## edges [1]\n@0<@1 calls +\n\
                 ## loc [?]\n@1 \"a b\\\".go\" 3 4 5 6\n";
    let w = packed_decode(input.as_bytes()).unwrap();
    let raw = {
        let mut out = gcf_buf::EMPTY;
        // SAFETY: as above.
        let s = unsafe {
            gcf_graph_decode_packed(input.as_ptr(), input.len(), &mut out, ptr::null_mut())
        };
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        // SAFETY: filled by the library.
        let v = unsafe { core::slice::from_raw_parts(out.ptr, out.len) }.to_vec();
        // SAFETY: `out` came from the library.
        unsafe { gcf_buf_free(&mut out) };
        v
    };
    assert_eq!(w[0], GCF_PACKED_VERSION);
    assert_eq!((w[1], w[2], w[3]), (0, 500, 0));
    let (arena_at, arena_len) = (w[11] as usize, w[12] as usize);
    assert_eq!(arena_at + arena_len, raw.len());
    let arena = &raw[arena_at..];
    let text = |off: u64, len: u64| -> &str {
        let (src, off) = if off & GCF_PACKED_ARENA != 0 {
            (arena, (off & !GCF_PACKED_ARENA) as usize)
        } else {
            (input.as_bytes(), off as usize)
        };
        core::str::from_utf8(&src[off..off + len as usize]).unwrap()
    };
    assert_eq!(text(w[4], w[5]), "ctx");
    assert_eq!(
        w[4] & GCF_PACKED_ARENA,
        0,
        "the tool is borrowed from the input"
    );
    assert_eq!((w[6], w[7]), (0, 0), "no pack root");
    assert_eq!((w[8], w[9], w[10]), (2, 1, 1));
    let sym = |i: usize| &w[13 + 8 * i..13 + 8 * i + 8];
    assert_eq!(text(sym(0)[0], sym(0)[1]), "pkg.Auth");
    assert_eq!(text(sym(0)[2], sym(0)[3]), "function");
    assert_ne!(
        sym(0)[2] & GCF_PACKED_ARENA,
        0,
        "an expanded kind lies in the arena"
    );
    assert_eq!(text(sym(0)[4], sym(0)[5]), "lsp");
    assert_eq!(f64::from_bits(sym(0)[6]), 0.78);
    assert_eq!(sym(0)[7], 0);
    assert_eq!(text(sym(1)[2], sym(1)[3]), "widget");
    assert_eq!(sym(1)[7], 1);
    let edge = &w[13 + 16..13 + 24];
    assert_eq!(text(edge[0], edge[1]), "pkg.Server");
    assert_eq!(text(edge[2], edge[3]), "pkg.Auth");
    assert_eq!(text(edge[4], edge[5]), "calls");
    assert_eq!(text(edge[6], edge[7]), "+");
    let loc = &w[13 + 24..13 + 32];
    assert_eq!(text(loc[0], loc[1]), "pkg.Server");
    assert_eq!(text(loc[2], loc[3]), "a b\".go");
    assert_eq!(&loc[4..8], &[3, 4, 5, 6]);
    assert_eq!(arena_at, (13 + 32) * 8);

    // The same errors as gcf_graph_decode, malformed UTF-8 included.
    for bad in [
        &b"GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n"[..],
        &b"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n"[..],
    ] {
        let (status, detail) = packed_decode(bad).unwrap_err();
        let (json_status, _, json_detail) =
            // SAFETY: the arguments are live Rust slices and valid out-params.
            call(|o, e| unsafe { gcf_graph_decode(bad.as_ptr(), bad.len(), o, e) });
        assert_eq!((status, Some(detail)), (json_status, json_detail));
    }
}

#[test]
fn generic_decode_packed_describes_the_value() {
    let input = "GCF profile=generic\na=1\nb=x\nc[2]: 2.5,true\nd=-\n";
    let mut out = gcf_buf::EMPTY;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let status = unsafe {
        gcf_generic_decode_packed(input.as_ptr(), input.len(), &mut out, ptr::null_mut())
    };
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    // SAFETY: filled by the library.
    let got = unsafe { core::slice::from_raw_parts(out.ptr, out.len) }.to_vec();
    // SAFETY: `out` came from the library.
    unsafe { gcf_buf_free(&mut out) };
    let mut want = vec![GCF_GENERIC_PACKED_VERSION, 7, 4];
    want.extend_from_slice(&[1, b'a', 3]);
    want.extend_from_slice(&1i64.to_le_bytes());
    want.extend_from_slice(&[1, b'b', 5, 1, b'x']);
    want.extend_from_slice(&[1, b'c', 6, 2, 4]);
    want.extend_from_slice(&2.5f64.to_bits().to_le_bytes());
    want.extend_from_slice(&[2, 1, b'd', 0]);
    assert_eq!(got, want);

    // The same errors as gcf_generic_decode.
    let bad = b"GCF profile=generic\n## [2]{a}\n1\n";
    let (status, _, detail) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_generic_decode_packed(bad.as_ptr(), bad.len(), o, e) });
    let (json_status, _, json_detail) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_generic_decode(bad.as_ptr(), bad.len(), o, e) });
    assert_ne!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!((status, detail), (json_status, json_detail));
}

#[test]
fn generic_encode_packed_matches_the_json_form() {
    // {"b": [1, 2.5, "x", null, true], "a": false}
    let mut packed = vec![7, 2, 1, b'b', 6, 5, 3];
    packed.extend_from_slice(&1i64.to_le_bytes());
    packed.push(4);
    packed.extend_from_slice(&2.5f64.to_bits().to_le_bytes());
    packed.extend_from_slice(&[5, 1, b'x', 0, 2, 1, b'a', 1]);
    let json = r#"{"b":[1,2.5,"x",null,true],"a":false}"#;
    for flags in [
        0,
        GCF_GENERIC_NO_CONSTANT_COLUMNS,
        GCF_GENERIC_NO_FLATTEN,
        GCF_GENERIC_NO_CONSTANT_COLUMNS | GCF_GENERIC_NO_FLATTEN,
    ] {
        let (status, got, _) =
            // SAFETY: the arguments are live Rust slices and valid out-params.
            call(|o, e| unsafe { gcf_generic_encode_packed(packed.as_ptr(), packed.len(), flags, o, e) });
        assert_eq!(status, gcf_status::GCF_STATUS_OK);
        let (_, want, _) =
            // SAFETY: the arguments are live Rust slices and valid out-params.
            call(|o, e| unsafe { gcf_generic_encode_flags(json.as_ptr(), json.len(), flags, o, e) });
        assert_eq!(got, want);
    }
    // A repeated key keeps its first position and its last value.
    let dup = [7, 2, 1, b'k', 3, 1, 0, 0, 0, 0, 0, 0, 0, 1, b'k', 2];
    let (_, got, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_generic_encode_packed(dup.as_ptr(), dup.len(), 0, o, e) });
    assert_eq!(got, "GCF profile=generic\nk=true\n");
    // Malformed forms are argument errors, never reads past the end.
    for bad in [
        &[][..],
        &[9],
        &[3, 1],
        &[6, 5, 0],
        &[5, 2, b'a'],
        &[5, 1, 0xff],
        &[0, 0],
        &[4, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f],
    ] {
        let (status, _, detail) =
            // SAFETY: the arguments are live Rust slices and valid out-params.
            call(|o, e| unsafe { gcf_generic_encode_packed(bad.as_ptr(), bad.len(), 0, o, e) });
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT, "{bad:?}");
        assert!(detail.is_some());
    }
    let deep: Vec<u8> = [6u8, 1].repeat(10_000).into_iter().chain([0]).collect();
    let (_, _, detail) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_generic_encode_packed(deep.as_ptr(), deep.len(), 0, o, e) });
    assert_eq!(detail.unwrap().0, "limit_exceeded");
}

#[test]
fn encode_payload_in_checks_the_text_once() {
    let text = "pkg.Authpkg.Serverfunctionlspcallsé";
    let at = |off: usize, len: usize| gcf_str {
        ptr: text[off..].as_ptr().cast(),
        len,
    };
    let symbols = [
        gcf_symbol {
            qualified_name: at(0, 8),
            kind: at(18, 8),
            score: 0.78,
            provenance: at(26, 3),
            distance: 0,
        },
        gcf_symbol {
            qualified_name: at(8, 10),
            kind: at(18, 8),
            score: 0.54,
            provenance: at(26, 3),
            distance: 1,
        },
    ];
    let edges = [gcf_edge {
        source: at(8, 10),
        target: at(0, 8),
        edge_type: at(29, 5),
        status: gcf_str {
            ptr: ptr::null(),
            len: 0,
        },
    }];
    let mut p = gcf_graph_payload {
        tool: gcf_str {
            ptr: ptr::null(),
            len: 0,
        },
        token_budget: 0,
        tokens_used: 0,
        pack_root: gcf_str {
            ptr: ptr::null(),
            len: 0,
        },
        symbols: symbols.as_ptr(),
        symbol_count: 2,
        edges: edges.as_ptr(),
        edge_count: 1,
        locations: ptr::null(),
        location_count: 0,
    };
    let (status, got, _) =
        // SAFETY: `p` and `text` are live; every string lies in `text`.
        call(|o, e| unsafe { gcf_graph_encode_payload_in(&p, text.as_ptr(), text.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let (_, want, _) =
        // SAFETY: as above.
        call(|o, e| unsafe { gcf_graph_encode_payload(&p, o, e) });
    assert_eq!(got, want);
    assert!(got.contains("@1 fn pkg.Server 0.54 lsp"), "{got}");

    // A string inside a character, or outside the text, is refused.
    let mut bad = symbols;
    // One byte from the second byte of `é` (bytes 34 and 35).
    bad[0].qualified_name = gcf_str {
        ptr: text[34..].as_ptr().wrapping_add(1).cast(),
        len: 1,
    };
    p.symbols = bad.as_ptr();
    let (status, _, detail) =
        // SAFETY: as above; the string's place is what is checked.
        call(|o, e| unsafe { gcf_graph_encode_payload_in(&p, text.as_ptr(), text.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(detail.unwrap().0, "invalid_input");
    let other = String::from("pkg.Elsewhere");
    bad[0].qualified_name = gcf_str {
        ptr: other.as_ptr().cast(),
        len: other.len(),
    };
    p.symbols = bad.as_ptr();
    let (status, _, _) =
        // SAFETY: as above.
        call(|o, e| unsafe { gcf_graph_encode_payload_in(&p, text.as_ptr(), text.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    // Text that is not UTF-8 is refused before any string is read.
    let bytes = b"pkg.A\xff";
    let (status, _, detail) =
        // SAFETY: `bytes` is live; the payload's strings are never read.
        call(|o, e| unsafe { gcf_graph_encode_payload_in(&p, bytes.as_ptr(), bytes.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(detail.unwrap().0, "invalid_utf8");
}
