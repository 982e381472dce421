//! Decode limits set by the caller, and deep values on small thread stacks.

use super::*;

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
    let graph_delta = graph_delta_between(&held, &current);
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
