//! The FFI layer called from Rust the way C calls it.

use core::ffi::{c_int, c_void, CStr};
use core::ptr;

use crate::error::boundary;
use crate::*;

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
    let (_, held_root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(held.as_ptr(), held.len(), o, e) });
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
    assert_eq!(err.unwrap().0, "root_mismatch");

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
    }
}

struct Collected {
    bytes: Vec<u8>,
    calls: usize,
    fail_after: usize,
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

/// A bare reference through the C ABI: the next id, counted in its group,
/// named by edges through the index.
#[test]
fn stream_writes_bare_references() {
    let mut sink = Collected {
        bytes: Vec::new(),
        calls: 0,
        fail_after: usize::MAX,
    };
    let options = gcf_graph_stream_options {
        tool: ptr::null(),
        tool_len: 0,
        token_budget: 0,
        tokens_used: 0,
        trailer: GCF_TRAILER_POSITIONAL,
        index_names: true,
    };
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = status_of(|e| {
            gcf_graph_stream_new(
                Some(collect),
                (&mut sink as *mut Collected).cast(),
                &options,
                &mut stream,
                e,
            )
        });
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
        "GCF profile=graph\n## extended\n@0  # previously transmitted\n@1  # previously transmitted\n\
         ## edges [?]\n@1<@0 calls\n##! summary symbols=2 edges=1 counts=2,1\n"
    );
}

#[test]
fn stream_writes_through_the_callback() {
    let mut sink = Collected {
        bytes: Vec::new(),
        calls: 0,
        fail_after: usize::MAX,
    };
    let tool = "ctx";
    let options = gcf_graph_stream_options {
        tool: tool.as_ptr(),
        tool_len: tool.len(),
        token_budget: 0,
        tokens_used: 0,
        trailer: GCF_TRAILER_POSITIONAL,
        index_names: true,
    };
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = status_of(|e| {
            gcf_graph_stream_new(
                Some(collect),
                (&mut sink as *mut Collected).cast(),
                &options,
                &mut stream,
                e,
            )
        });
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
        let (s, _) = status_of(|e| {
            gcf_graph_stream_new(
                Some(collect),
                (&mut sink as *mut Collected).cast(),
                ptr::null(),
                &mut stream,
                e,
            )
        });
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
            tool: ptr::null(),
            tool_len: 0,
            token_budget: 0,
            tokens_used: 0,
            trailer: 9,
            index_names: false,
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

#[test]
fn generic_constant_columns_and_groups() {
    let rows = r#"[{"id":1,"t":"f","s":"a"},{"id":2,"t":"f","s":"b"}]"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, text, _) =
        call(|o, e| unsafe { gcf_generic_encode(rows.as_ptr(), rows.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(text, "GCF profile=generic\n## [2]{id,t=f,s}\n1|a\n2|b\n");
    for (flags, expected) in [
        (0, "GCF profile=generic\n## [2]{id,t=f,s}\n1|a\n2|b\n"),
        (
            GCF_GENERIC_NO_CONSTANT_COLUMNS,
            "GCF profile=generic\n## [2]{id,t,s}\n1|f|a\n2|f|b\n",
        ),
    ] {
        // SAFETY: as above.
        let (status, text, _) = call(|o, e| unsafe {
            gcf_generic_encode_flags(rows.as_ptr(), rows.len(), flags, o, e)
        });
        assert_eq!(
            (status, text.as_str()),
            (gcf_status::GCF_STATUS_OK, expected)
        );
    }
    // SAFETY: as above.
    let (status, _, err) =
        call(|o, e| unsafe { gcf_generic_encode_flags(rows.as_ptr(), rows.len(), 6, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    assert_eq!(err.unwrap().0, "invalid_input");

    let (key, group) = ("id", "s");
    // SAFETY: as above.
    let (status, text, _) = call(|o, e| unsafe {
        gcf_generic_encode_grouped(
            rows.as_ptr(),
            rows.len(),
            key.as_ptr(),
            key.len(),
            group.as_ptr(),
            group.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(
        text,
        "GCF profile=generic\n## [2]{@id,t=f,s} group=s\ns=a [1]\n1\ns=b [1]\n2\n"
    );
    // Not groupable (`t` repeats): a data error.
    // SAFETY: as above.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_encode_grouped(
            rows.as_ptr(),
            rows.len(),
            "t".as_ptr(),
            1,
            group.as_ptr(),
            group.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "invalid_input");
    // SAFETY: a NULL key with a length is an argument error, never a read.
    let (status, _, _) = call(|o, e| unsafe {
        gcf_generic_encode_grouped(
            rows.as_ptr(),
            rows.len(),
            ptr::null(),
            2,
            group.as_ptr(),
            1,
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
}

#[test]
fn generic_encode_decode_and_pack_root() {
    let json = r#"{"name":"Alice","tags":["a","b"],"id":9223372036854775807}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, text, _) =
        call(|o, e| unsafe { gcf_generic_encode(json.as_ptr(), json.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(text.starts_with("GCF profile=generic\n"), "{text}");
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, back, _) =
        call(|o, e| unsafe { gcf_generic_decode(text.as_ptr(), text.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(back, json);

    let big = "18446744073709551615";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) =
        call(|o, e| unsafe { gcf_generic_encode(big.as_ptr(), big.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "out_of_range");

    let bad = "GCF profile=generic\nname=Alice\nname=Bob\n";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) =
        call(|o, e| unsafe { gcf_generic_decode(bad.as_ptr(), bad.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    let (category, line, _, _) = err.unwrap();
    assert_eq!((category.as_str(), line), ("duplicate_key", 3));

    let set =
        r#"{"key":"id","fields":["id","total"],"rows":[{"id":1,"total":2.5},{"id":2,"total":3}]}"#;
    let swapped =
        r#"{"key":"id","fields":["id","total"],"rows":[{"id":2,"total":3},{"id":1,"total":2.5}]}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, a, _) =
        call(|o, e| unsafe { gcf_generic_pack_root(set.as_ptr(), set.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, b, _) =
        call(|o, e| unsafe { gcf_generic_pack_root(swapped.as_ptr(), swapped.len(), o, e) });
    assert_eq!(a, b);
    assert!(a.starts_with("sha256:"));
    let wrong = r#"{"fields":["id"],"rows":[]}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, _) =
        call(|o, e| unsafe { gcf_generic_pack_root(wrong.as_ptr(), wrong.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_JSON_ERROR);
}

fn cell(kind: u32) -> gcf_cell {
    gcf_cell {
        kind,
        int_value: 0,
        float_value: 0.0,
        str_ptr: ptr::null(),
        str_len: 0,
    }
}

#[test]
fn generic_stream_writes_typed_cells() {
    let mut sink = Collected {
        bytes: Vec::new(),
        calls: 0,
        fail_after: usize::MAX,
    };
    let fields = ["id", "name", "ok", "score", "note"].map(|f| gcf_str {
        ptr: f.as_ptr().cast(),
        len: f.len(),
    });
    let mut stream = ptr::null_mut();
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let (s, _) = status_of(|e| {
            gcf_generic_stream_new(
                Some(collect),
                (&mut sink as *mut Collected).cast(),
                ptr::null(),
                &mut stream,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| {
            gcf_generic_stream_begin_table(
                stream,
                b"rows".as_ptr(),
                4,
                fields.as_ptr(),
                fields.len(),
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let name = "Alice Smith";
        let row = [
            gcf_cell {
                int_value: 1,
                ..cell(GCF_CELL_INT)
            },
            gcf_cell {
                str_ptr: name.as_ptr().cast(),
                str_len: name.len(),
                ..cell(GCF_CELL_STR)
            },
            gcf_cell {
                int_value: 1,
                ..cell(GCF_CELL_BOOL)
            },
            gcf_cell {
                float_value: 2.5,
                ..cell(GCF_CELL_FLOAT)
            },
            cell(GCF_CELL_MISSING),
        ];
        let (s, _) = status_of(|e| gcf_generic_stream_row(stream, row.as_ptr(), row.len(), e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let short = [cell(GCF_CELL_NULL)];
        let (s, cat) = status_of(|e| gcf_generic_stream_row(stream, short.as_ptr(), 1, e));
        assert_eq!(
            (s, cat.as_deref()),
            (
                gcf_status::GCF_STATUS_DATA_ERROR,
                Some("row_width_mismatch")
            )
        );
        let bogus = [gcf_cell {
            kind: 42,
            ..cell(0)
        }];
        let (s, _) = status_of(|e| gcf_generic_stream_row(stream, bogus.as_ptr(), 1, e));
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        let (s, _) = status_of(|e| gcf_generic_stream_end_table(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| gcf_generic_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        gcf_generic_stream_free(stream);
    }
    let text = String::from_utf8(sink.bytes).unwrap();
    assert_eq!(
        text,
        "GCF profile=generic\n## rows [?]{id,name,ok,score,note}\n1|Alice Smith|true|2.5|~\n##! summary counts=1\n"
    );
}

const ORDERS: &str = r#"{"name":"orders","key":"id","fields":["id","total","status","customer"],"rows":[
  {"id":1001,"total":59.98,"status":"shipped","customer":"Alice"},
  {"id":1002,"total":29.99,"status":"pending","customer":"Bob"},
  {"id":1003,"total":129.5,"status":"shipped","customer":"Carol"}]}"#;

const ORDERS_ROOT: &str = "sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c";

/// `ORDERS` with order 1002 shipped.
fn orders_shipped() -> String {
    ORDERS.replace(
        r#""pending","customer":"Bob""#,
        r#""shipped","customer":"Bob""#,
    )
}

#[test]
fn generic_full_delta_and_apply() {
    let tool = "orders_query";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, full, _) = call(|o, e| unsafe {
        gcf_generic_encode_full(
            ORDERS.as_ptr(),
            ORDERS.len(),
            tool.as_ptr(),
            tool.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert_eq!(
        full,
        format!(
            "GCF profile=generic tool=orders_query pack_root={ORDERS_ROOT} key=id\n\
             ## orders [3]{{@id,total,status,customer}}\n1001|59.98|shipped|Alice\n\
             1002|29.99|pending|Bob\n1003|129.5|shipped|Carol\n"
        )
    );
    // No tool: NULL and empty both omit it.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, untitled, _) = call(|o, e| unsafe {
        gcf_generic_encode_full(ORDERS.as_ptr(), ORDERS.len(), ptr::null(), 0, o, e)
    });
    assert!(
        untitled.starts_with("GCF profile=generic pack_root="),
        "{untitled}"
    );

    let delta = r#"{"tool":"orders_query","key":"id","fields":["id","total","status","customer"],
      "baseRoot":"sha256:457e7c31e62e070a039b5cde9ea3edff6330e5913874e1165afddbcf6798eb7c",
      "newRoot":"sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05",
      "added":[{"id":1004,"total":75.00,"status":"pending","customer":"Dave"}],
      "changed":[{"id":1002,"total":29.99,"status":"shipped","customer":"Bob"}],
      "removed":[1001],"deltaTokens":30,"fullTokens":160}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, wire, _) =
        call(|o, e| unsafe { gcf_generic_encode_delta(delta.as_ptr(), delta.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    assert!(wire.ends_with(
        " key=id savings=81%\n## added [1]{@id,total,status,customer}\n1004|75|pending|Dave\n\
         ## changed [1]{@id,total,status,customer}\n1002|29.99|shipped|Bob\n## removed [1]{@id}\n1001\n"
    ), "{wire}");

    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, applied, _) = call(|o, e| unsafe {
        gcf_generic_apply_delta(
            ORDERS.as_ptr(),
            ORDERS.len(),
            wire.as_ptr(),
            wire.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let v: serde_json::Value = serde_json::from_str(&applied).unwrap();
    assert_eq!(
        (v["name"].as_str(), v["key"].as_str()),
        (Some("orders"), Some("id"))
    );
    let mut ids: Vec<i64> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [1002, 1003, 1004]);
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, root, _) =
        call(|o, e| unsafe { gcf_generic_pack_root(applied.as_ptr(), applied.len(), o, e) });
    assert_eq!(
        root,
        "sha256:ebe554601676e61cd522a5dc13d78499fd20e730353eb3e0b18c7fdc088f0f05"
    );

    // The same delta against the result: its base root no longer matches.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, out, err) = call(|o, e| unsafe {
        gcf_generic_apply_delta(
            applied.as_ptr(),
            applied.len(),
            wire.as_ptr(),
            wire.len(),
            o,
            e,
        )
    });
    assert_eq!(
        (status, out.as_str()),
        (gcf_status::GCF_STATUS_DATA_ERROR, "")
    );
    assert_eq!(err.unwrap().0, "root_mismatch");
    // A surplus row: count_mismatch with its line.
    let surplus = wire.replace(
        "1004|75|pending|Dave\n",
        "1004|75|pending|Dave\n1005|1|x|y\n",
    );
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_apply_delta(
            ORDERS.as_ptr(),
            ORDERS.len(),
            surplus.as_ptr(),
            surplus.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    let (category, line, _, _) = err.unwrap();
    assert_eq!(category, "count_mismatch");
    assert!(line >= 2, "line {line}");
    // Not UTF-8 in the delta: a data error with a position.
    let bad = b"GCF profile=generic delta=true\n## added [1]{@id}\n\xff\n";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_apply_delta(ORDERS.as_ptr(), ORDERS.len(), bad.as_ptr(), bad.len(), o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "invalid_utf8");
}

#[test]
fn generic_delta_argument_errors() {
    let bad_json = "{\"key\":";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_encode_full(bad_json.as_ptr(), bad_json.len(), ptr::null(), 0, o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_JSON_ERROR);
    assert_eq!(err.unwrap().0, "json");
    let no_key = r#"{"rows":[]}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_apply_delta(no_key.as_ptr(), no_key.len(), ptr::null(), 0, o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_JSON_ERROR);
    assert!(err.unwrap().3.starts_with("base: "));
    let big = r#"{"key":"id","baseRoot":"a","newRoot":"b","removed":[18446744073709551615]}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) =
        call(|o, e| unsafe { gcf_generic_encode_delta(big.as_ptr(), big.len(), o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "out_of_range");
    let spaced = "has space";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_encode_full(
            ORDERS.as_ptr(),
            ORDERS.len(),
            spaced.as_ptr(),
            spaced.len(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    assert_eq!(err.unwrap().0, "invalid_input");
    // NULL with a length, and a NULL output.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, _) = call(|o, e| unsafe { gcf_generic_encode_delta(ptr::null(), 4, o, e) });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    // SAFETY: NULL `out` is what is tested; the other arguments are valid.
    let status = unsafe {
        gcf_generic_encode_full(
            ORDERS.as_ptr(),
            ORDERS.len(),
            ptr::null(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
}

#[test]
fn generic_respond_chooses_three_outcomes() {
    let respond = |held: Option<&str>, current: &str| {
        let mut outcome = gcf_outcome::GCF_OUTCOME_DELTA;
        let (held_ptr, held_len) = held.map_or((ptr::null(), 0), |h| (h.as_ptr(), h.len()));
        let tool = "orders_query";
        // SAFETY: the arguments are live Rust slices and valid out-params.
        let (status, text, err) = call(|o, e| unsafe {
            gcf_generic_delta(
                held_ptr,
                held_len,
                current.as_ptr(),
                current.len(),
                tool.as_ptr(),
                tool.len(),
                &mut outcome,
                o,
                e,
            )
        });
        (status, outcome, text, err)
    };
    let (status, outcome, text, _) = respond(None, ORDERS);
    assert_eq!(
        (status, outcome),
        (gcf_status::GCF_STATUS_OK, gcf_outcome::GCF_OUTCOME_FULL)
    );
    assert!(
        text.contains(&format!("pack_root={ORDERS_ROOT} key=id\n")),
        "{text}"
    );
    // An empty held argument means "none", like NULL.
    let (_, outcome, _, _) = respond(Some(""), ORDERS);
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_FULL);
    let (_, outcome, text, _) = respond(Some(ORDERS), ORDERS);
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_UNCHANGED);
    assert_eq!(
        text,
        format!("GCF profile=generic tool=orders_query unchanged=true pack_root={ORDERS_ROOT} count=3\n")
    );
    // Three rows: even a one-row delta is not under 60% of the full payload.
    let (_, outcome, _, _) = respond(Some(ORDERS), &orders_shipped());
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_FULL);
    // Forty rows: one changed row is.
    let many = |status_of_7: &str| {
        let rows: Vec<String> = (0..40)
            .map(|i| {
                let status = if i == 7 { status_of_7 } else { "open" };
                format!(r#"{{"id":{i},"status":"{status}"}}"#)
            })
            .collect();
        format!(
            r#"{{"key":"id","fields":["id","status"],"rows":[{}]}}"#,
            rows.join(",")
        )
    };
    let (_, outcome, text, _) = respond(Some(&many("open")), &many("shipped"));
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_DELTA, "{text}");
    assert!(
        text.ends_with("## changed [1]{@id,status}\n7|shipped\n"),
        "{text}"
    );
    // A schema change needs a full payload.
    let reshaped = ORDERS.replace(r#""customer"]"#, r#""customer","note"]"#);
    let (_, outcome, _, _) = respond(Some(ORDERS), &reshaped);
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_FULL);
    // Errors leave the outcome at NONE.
    let (status, outcome, _, err) = respond(Some("[1"), ORDERS);
    assert_eq!(
        (status, outcome),
        (
            gcf_status::GCF_STATUS_JSON_ERROR,
            gcf_outcome::GCF_OUTCOME_NONE
        )
    );
    assert!(err.unwrap().3.starts_with("held: "));
    // SAFETY: NULL `outcome` is what is tested; the other arguments are valid.
    let (status, _, _) = call(|o, e| unsafe {
        gcf_generic_delta(
            ptr::null(),
            0,
            ORDERS.as_ptr(),
            ORDERS.len(),
            ptr::null(),
            0,
            ptr::null_mut(),
            o,
            e,
        )
    });
    assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
}

#[test]
fn generic_delta_session_reanchors() {
    let mut session = ptr::null_mut();
    let tool = "orders_query";
    // SAFETY: out-params are valid; the session is used by this thread only and freed once.
    unsafe {
        assert_eq!(
            gcf_generic_delta_session_new(
                ORDERS.as_ptr(),
                ORDERS.len(),
                tool.as_ptr(),
                tool.len(),
                GCF_REANCHOR_FIXED_N,
                2,
                &mut session,
                ptr::null_mut(),
            ),
            gcf_status::GCF_STATUS_OK
        );
        let (status, first, _) = call(|o, e| gcf_generic_delta_session_initial_full(session, o, e));
        assert_eq!(status, gcf_status::GCF_STATUS_OK);
        assert!(first.starts_with("GCF profile=generic tool=orders_query pack_root="));
        let shipped = orders_shipped();
        let mut is_full = true;
        let (status, wire, _) = call(|o, e| {
            gcf_generic_delta_session_next(
                session,
                shipped.as_ptr(),
                shipped.len(),
                o,
                &mut is_full,
                e,
            )
        });
        assert_eq!(status, gcf_status::GCF_STATUS_OK);
        assert!(
            !is_full && wire.contains(&format!("delta=true base_root={ORDERS_ROOT} ")),
            "{wire}"
        );
        // A bad update fails and leaves the session where it was.
        let bad = r#"{"key":"id","rows":[{"id":18446744073709551616}]}"#;
        let (status, _, err) = call(|o, e| {
            gcf_generic_delta_session_next(session, bad.as_ptr(), bad.len(), o, &mut is_full, e)
        });
        assert_eq!(
            (status, err.unwrap().0.as_str()),
            (gcf_status::GCF_STATUS_DATA_ERROR, "out_of_range")
        );
        assert!(!is_full);
        // The second turn re-anchors with n = 2.
        let (_, wire, _) = call(|o, e| {
            gcf_generic_delta_session_next(
                session,
                ORDERS.as_ptr(),
                ORDERS.len(),
                o,
                &mut is_full,
                e,
            )
        });
        assert!(is_full);
        assert_eq!(wire, first);
        let (status, _, _) = call(|o, e| {
            gcf_generic_delta_session_next(
                session,
                ORDERS.as_ptr(),
                ORDERS.len(),
                o,
                ptr::null_mut(),
                e,
            )
        });
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        gcf_generic_delta_session_free(session);
        gcf_generic_delta_session_free(ptr::null_mut());

        // Argument errors: a policy out of range, NULL session and out.
        let mut other = ptr::null_mut();
        let (status, cat) = status_of(|e| {
            gcf_generic_delta_session_new(
                ORDERS.as_ptr(),
                ORDERS.len(),
                ptr::null(),
                0,
                7,
                0,
                &mut other,
                e,
            )
        });
        assert_eq!(
            (status, cat.as_deref()),
            (
                gcf_status::GCF_STATUS_INVALID_ARGUMENT,
                Some("invalid_input")
            )
        );
        assert!(other.is_null());
        let (status, _) = status_of(|e| {
            gcf_generic_delta_session_new(
                ORDERS.as_ptr(),
                ORDERS.len(),
                ptr::null(),
                0,
                GCF_REANCHOR_SIZE_GUARD,
                0,
                ptr::null_mut(),
                e,
            )
        });
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        let (status, _, _) = call(|o, e| gcf_generic_delta_session_initial_full(ptr::null(), o, e));
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
    }
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
    for flags in [0, GCF_GENERIC_NO_CONSTANT_COLUMNS] {
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

#[test]
fn decoders_take_the_callers_limits() {
    type Decode = unsafe extern "C" fn(
        *const u8,
        usize,
        *const gcf_limits,
        *mut gcf_buf,
        *mut *mut gcf_error,
    ) -> gcf_status;
    let generic_text = "GCF profile=generic\n## rows [3]{id,name}\n1|a\n2|b\n3|c\n";
    let decoders: [(&str, Decode, &str); 4] = [
        ("graph", gcf_graph_decode_with_limits, TEXT),
        ("graph packed", gcf_graph_decode_packed_with_limits, TEXT),
        ("generic", gcf_generic_decode_with_limits, generic_text),
        (
            "generic packed",
            gcf_generic_decode_packed_with_limits,
            generic_text,
        ),
    ];
    let run = |decode: Decode, text: &str, limits: *const gcf_limits| {
        // SAFETY: live slices, a NULL or live `gcf_limits`, valid out-params.
        call_bytes(|o, e| unsafe { decode(text.as_ptr(), text.len(), limits, o, e) })
    };
    for (name, decode, text) in decoders {
        // NULL and zero-initialised limits are the defaults.
        let (status, whole, _) = run(decode, text, ptr::null());
        assert_eq!(status, gcf_status::GCF_STATUS_OK, "{name}");
        let zero = gcf_limits::default();
        assert_eq!(run(decode, text, &zero).1, whole, "{name}");
        // Limits the input passes change nothing.
        let exact = gcf_limits {
            max_input_len: text.len() as u64,
            max_container_len: 3,
            ..gcf_limits::default()
        };
        assert_eq!(run(decode, text, &exact).1, whole, "{name}");
        // Past one: a data error at its line.
        let short = gcf_limits {
            max_container_len: 1,
            ..gcf_limits::default()
        };
        let (status, out, err) = run(decode, text, &short);
        assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR, "{name}");
        assert!(out.is_empty());
        let (category, line, _, _) = err.unwrap();
        assert_eq!(category, "limit_exceeded", "{name}");
        assert!(line > 1, "{name}");
        // No decoder can take it: a usage error, named as C spells it.
        let deep = gcf_limits {
            max_depth: 129,
            ..gcf_limits::default()
        };
        let (status, _, err) = run(decode, text, &deep);
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT, "{name}");
        let (category, _, _, message) = err.unwrap();
        assert_eq!(category, "usage");
        assert_eq!(message, "limits: max_depth must be from 1 to 128, not 129");
    }
}

/// The delta decoders take limits too: a delta is input from another
/// process like any payload. Each delta here has two lines in one section,
/// so `max_container_len: 1` stops it at its second.
#[test]
fn delta_decoders_take_the_callers_limits() {
    let symbol = |name: &str| {
        format!(
            r#"{{"qualifiedName":"{name}","kind":"function","score":0.5,"provenance":"lsp","distance":0}}"#
        )
    };
    let kept: Vec<String> = (0..40).map(|i| symbol(&format!("pkg.F{i}"))).collect();
    let current = format!(r#"{{"symbols":[{}]}}"#, kept.join(","));
    let held = format!(
        r#"{{"symbols":[{},{},{}]}}"#,
        kept.join(","),
        symbol("pkg.Gone1"),
        symbol("pkg.Gone2")
    );
    let (_, held_root, _) =
        // SAFETY: the arguments are live Rust slices and valid out-params.
        call(|o, e| unsafe { gcf_graph_pack_root(held.as_ptr(), held.len(), o, e) });
    let mut outcome = gcf_outcome::GCF_OUTCOME_NONE;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, graph_delta, _) = call(|o, e| unsafe {
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
    assert_eq!(outcome, gcf_outcome::GCF_OUTCOME_DELTA, "{graph_delta}");
    assert_eq!(
        graph_delta.matches("\nfn pkg.Gone").count(),
        2,
        "{graph_delta}"
    );

    let base = r#"{"key":"id","fields":["id","v"],"rows":[{"id":1,"v":"a"},{"id":2,"v":"b"},{"id":3,"v":"c"}]}"#;
    let next = r#"{"key":"id","fields":["id","v"],"rows":[{"id":1,"v":"a"}]}"#;
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (_, diff, _) = call(|o, e| unsafe {
        gcf_generic_diff(base.as_ptr(), base.len(), next.as_ptr(), next.len(), o, e)
    });
    // SAFETY: as above.
    let (_, generic_delta, _) =
        call(|o, e| unsafe { gcf_generic_encode_delta(diff.as_ptr(), diff.len(), o, e) });
    assert!(
        generic_delta.ends_with("## removed [2]{@id}\n2\n3\n"),
        "{generic_delta}"
    );

    type Decode = unsafe extern "C" fn(
        *const u8,
        usize,
        *const gcf_limits,
        *mut gcf_buf,
        *mut *mut gcf_error,
    ) -> gcf_status;
    type Apply = unsafe extern "C" fn(
        *const u8,
        usize,
        *const u8,
        usize,
        *const gcf_limits,
        *mut gcf_buf,
        *mut *mut gcf_error,
    ) -> gcf_status;
    let decode = |f: Decode, text: &str, l: *const gcf_limits| {
        // SAFETY: a live slice, a NULL or live `gcf_limits`, valid out-params.
        call(|o, e| unsafe { f(text.as_ptr(), text.len(), l, o, e) })
    };
    let apply = |f: Apply, base: &str, text: &str, l: *const gcf_limits| {
        // SAFETY: as above.
        call(|o, e| unsafe {
            f(
                base.as_ptr(),
                base.len(),
                text.as_ptr(),
                text.len(),
                l,
                o,
                e,
            )
        })
    };
    let (gd, ed) = (graph_delta.as_str(), generic_delta.as_str());
    let run = |which: usize, l: *const gcf_limits| match which {
        0 => decode(gcf_graph_decode_delta_with_limits, gd, l),
        1 => apply(gcf_graph_apply_delta_with_limits, &held, gd, l),
        2 => decode(gcf_generic_decode_delta_with_limits, ed, l),
        _ => apply(gcf_generic_apply_delta_with_limits, base, ed, l),
    };
    let names = [
        "graph decode",
        "graph apply",
        "generic decode",
        "generic apply",
    ];
    for (which, name) in names.into_iter().enumerate() {
        let run = |l: *const gcf_limits| run(which, l);
        let (status, whole, _) = run(ptr::null());
        assert_eq!(status, gcf_status::GCF_STATUS_OK, "{name}");
        assert!(!whole.is_empty(), "{name}");
        assert_eq!(run(&gcf_limits::default()).1, whole, "{name}");
        let text_len = if name.starts_with("graph") {
            gd.len()
        } else {
            ed.len()
        };
        let exact = gcf_limits {
            max_input_len: text_len as u64,
            max_container_len: 2,
            ..gcf_limits::default()
        };
        assert_eq!(run(&exact).1, whole, "{name}");
        for short in [
            gcf_limits {
                max_container_len: 1,
                ..gcf_limits::default()
            },
            gcf_limits {
                max_input_len: text_len as u64 - 1,
                ..gcf_limits::default()
            },
        ] {
            let (status, out, err) = run(&short);
            assert_eq!(
                status,
                gcf_status::GCF_STATUS_DATA_ERROR,
                "{name} {short:?}"
            );
            assert!(out.is_empty(), "{name}");
            let (category, line, _, _) = err.unwrap();
            assert_eq!(category, "limit_exceeded", "{name} {short:?}");
            if short.max_container_len == 1 {
                assert!(line > 2, "{name}: {line}");
            }
        }
        let deep = gcf_limits {
            max_depth: 129,
            ..gcf_limits::default()
        };
        let (status, _, err) = run(&deep);
        assert_eq!(status, gcf_status::GCF_STATUS_INVALID_ARGUMENT, "{name}");
        assert_eq!(
            err.unwrap().3,
            "limits: max_depth must be from 1 to 128, not 129"
        );
    }
}

/// JSON of `levels` containers: arrays and objects in turn, each array a
/// one-row table when `tables`.
fn deep_json(levels: usize, tables: bool) -> String {
    let (mut json, mut made, mut i) = (String::from("1"), 0, 0);
    while made < levels {
        (json, made) = match (i % 2, tables) {
            (0, false) => (format!("[{json},2]"), made + 1),
            (0, true) if made + 2 <= levels => (format!("[{{\"a\":{json},\"b\":2}}]"), made + 2),
            _ => (format!("{{\"k\":{json},\"z\":\"x\"}}"), made + 1),
        };
        i += 1;
    }
    json
}

/// A deep value through the C ABI on threads far smaller than the usual
/// 8 MiB (a C caller's threads, Go's on musl): encoded and decoded as on a
/// large stack, or refused with `limit_exceeded` where the stack runs
/// short (`gcf_core::stack`), never overflowing it.
#[test]
fn deep_values_on_small_thread_stacks_finish_or_are_refused() {
    let outcome = |json: String, text: String| {
        // SAFETY: the arguments are live Rust slices and valid out-params.
        let encoded = call(|o, e| unsafe { gcf_generic_encode(json.as_ptr(), json.len(), o, e) });
        // SAFETY: as above.
        let decoded = call(|o, e| unsafe { gcf_generic_decode(text.as_ptr(), text.len(), o, e) });
        [encoded, decoded].map(|(status, out, detail)| match detail {
            None if status == gcf_status::GCF_STATUS_OK => Ok(out),
            Some((category, _, _, message)) => Err((category, message.contains("stack"))),
            None => unreachable!("a failure carries its error"),
        })
    };
    let mut refused_at_64k = 0;
    for tables in [false, true] {
        // 128 levels in all: the chain and the root object around it.
        let json = format!("{{\"root\":{}}}", deep_json(127, tables));
        let (status, text, detail) =
            // SAFETY: the arguments are live Rust slices and valid out-params.
            call(|o, e| unsafe { gcf_generic_encode(json.as_ptr(), json.len(), o, e) });
        assert_eq!(status, gcf_status::GCF_STATUS_OK, "{detail:?}");
        let expected = outcome(json.clone(), text.clone());
        assert!(expected.iter().all(Result::is_ok));
        for stack in [64 << 10, 96 << 10, 128 << 10, 192 << 10] {
            let (json, text) = (json.clone(), text.clone());
            let got = std::thread::Builder::new()
                .stack_size(stack)
                .spawn(move || outcome(json, text))
                .unwrap()
                .join()
                .expect("no stack overflow");
            for (got, expected) in got.iter().zip(&expected) {
                match got {
                    Ok(out) => assert_eq!(Ok(out), expected.as_ref(), "{stack}"),
                    Err(refusal) => {
                        assert_eq!(refusal, &("limit_exceeded".to_string(), true), "{stack}");
                        refused_at_64k += usize::from(stack == 64 << 10);
                    }
                }
            }
        }
    }
    // The check, not luck, kept the smallest threads alive.
    assert!(refused_at_64k > 0);
}
