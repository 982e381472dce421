//! The generic profile through the ABI: encode and decode, constant
//! columns and groups, the typed stream, keyed-set deltas and sessions.

use super::*;

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

/// A generic stream writing into `sink` (which must outlive it).
///
/// # Safety
///
/// `sink` stays where it is until the stream is freed.
unsafe fn collecting_stream(sink: &mut Collected) -> *mut gcf_generic_stream {
    let mut stream = ptr::null_mut();
    // SAFETY: the pointers are valid for the call; `sink` outlives the
    // stream per this function's contract.
    let (s, _) = status_of(|e| unsafe {
        gcf_generic_stream_new(
            Some(collect),
            (sink as *mut Collected).cast(),
            ptr::null(),
            &mut stream,
            e,
        )
    });
    assert_eq!(s, gcf_status::GCF_STATUS_OK);
    stream
}

#[test]
fn generic_stream_writes_typed_cells() {
    let mut sink = Collected::unlimited();
    let fields = ["id", "name", "ok", "score", "note"].map(|f| gcf_str {
        ptr: f.as_ptr().cast(),
        len: f.len(),
    });
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let stream = collecting_stream(&mut sink);
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

#[test]
fn generic_stream_writes_keyed_maps_and_inline_arrays() {
    let mut sink = Collected::unlimited();
    let fields = ["name"].map(|f| gcf_str {
        ptr: f.as_ptr().cast(),
        len: f.len(),
    });
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let stream = collecting_stream(&mut sink);
        let tags = [
            gcf_cell {
                str_ptr: "x".as_ptr().cast(),
                str_len: 1,
                ..cell(GCF_CELL_STR)
            },
            gcf_cell {
                int_value: 2,
                ..cell(GCF_CELL_INT)
            },
        ];
        let (s, _) = status_of(|e| {
            gcf_generic_stream_inline_array(stream, b"tags".as_ptr(), 4, tags.as_ptr(), 2, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let absent = [cell(GCF_CELL_MISSING)];
        let (s, _) = status_of(|e| {
            gcf_generic_stream_inline_array(stream, b"bad".as_ptr(), 3, absent.as_ptr(), 1, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        // A label that is also a value field is refused; another is taken.
        let (s, cat) = status_of(|e| {
            gcf_generic_stream_begin_keyed_map(
                stream,
                b"users".as_ptr(),
                5,
                b"name".as_ptr(),
                4,
                fields.as_ptr(),
                1,
                e,
            )
        });
        assert_eq!(
            (s, cat.as_deref()),
            (gcf_status::GCF_STATUS_DATA_ERROR, Some("invalid_input"))
        );
        let (s, _) = status_of(|e| {
            gcf_generic_stream_begin_keyed_map(
                stream,
                b"users".as_ptr(),
                5,
                b"id".as_ptr(),
                2,
                fields.as_ptr(),
                1,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let ada = [gcf_cell {
            str_ptr: "Ada".as_ptr().cast(),
            str_len: 3,
            ..cell(GCF_CELL_STR)
        }];
        let (s, _) = status_of(|e| {
            gcf_generic_stream_keyed_row(stream, b"u1".as_ptr(), 2, ada.as_ptr(), 1, e)
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| gcf_generic_stream_end_table(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        // The default label, with NULL.
        let (s, _) = status_of(|e| {
            gcf_generic_stream_begin_keyed_map(
                stream,
                b"more".as_ptr(),
                4,
                ptr::null(),
                0,
                fields.as_ptr(),
                1,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let (s, _) = status_of(|e| gcf_generic_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        gcf_generic_stream_free(stream);
    }
    let text = String::from_utf8(sink.bytes).unwrap();
    assert_eq!(
        text,
        "GCF profile=generic\ntags[2]: x,2\n## users [?:]{id,name}\nu1|Ada\n## more [?:]{key,name}\n##! summary counts=1,0\n"
    );
}

#[test]
fn generic_stream_keyed_row_cells_takes_the_key_as_a_cell() {
    let mut sink = Collected::unlimited();
    let fields = ["v"].map(|f| gcf_str {
        ptr: f.as_ptr().cast(),
        len: f.len(),
    });
    let int = |n: i64| gcf_cell {
        int_value: n,
        ..cell(GCF_CELL_INT)
    };
    let text = |s: &'static str| gcf_cell {
        str_ptr: s.as_ptr().cast(),
        str_len: s.len(),
        ..cell(GCF_CELL_STR)
    };
    // SAFETY: all pointers are valid for the calls; the stream is freed once.
    unsafe {
        let stream = collecting_stream(&mut sink);
        let (s, _) = status_of(|e| {
            gcf_generic_stream_begin_keyed_map(
                stream,
                b"m".as_ptr(),
                1,
                b"id".as_ptr(),
                2,
                fields.as_ptr(),
                1,
                e,
            )
        });
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        let float = gcf_cell {
            float_value: 2.0,
            ..cell(GCF_CELL_FLOAT)
        };
        for row in [[int(7), text("a")], [float, int(1)], [text("7"), text("b")]] {
            let (s, _) =
                status_of(|e| gcf_generic_stream_keyed_row_cells(stream, row.as_ptr(), 2, e));
            assert_eq!(s, gcf_status::GCF_STATUS_OK);
        }
        for key in [
            cell(GCF_CELL_NULL),
            cell(GCF_CELL_BOOL),
            cell(GCF_CELL_MISSING),
        ] {
            let row = [key, int(1)];
            let (s, cat) =
                status_of(|e| gcf_generic_stream_keyed_row_cells(stream, row.as_ptr(), 2, e));
            assert_eq!(
                (s, cat.as_deref()),
                (gcf_status::GCF_STATUS_DATA_ERROR, Some("invalid_input"))
            );
        }
        let (s, _) = status_of(|e| gcf_generic_stream_keyed_row_cells(stream, ptr::null(), 0, e));
        assert_eq!(s, gcf_status::GCF_STATUS_INVALID_ARGUMENT);
        let row = [int(1)];
        let (s, cat) =
            status_of(|e| gcf_generic_stream_keyed_row_cells(stream, row.as_ptr(), 1, e));
        assert_eq!(
            (s, cat.as_deref()),
            (
                gcf_status::GCF_STATUS_DATA_ERROR,
                Some("row_width_mismatch")
            )
        );
        let (s, _) = status_of(|e| gcf_generic_stream_finish(stream, e));
        assert_eq!(s, gcf_status::GCF_STATUS_OK);
        gcf_generic_stream_free(stream);
    }
    let text = String::from_utf8(sink.bytes).unwrap();
    assert_eq!(
        text,
        "GCF profile=generic\n## m [?:]{id,v}\n7|a\n2|1\n\"7\"|b\n##! summary counts=3\n"
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
    // Read back: the set, the header's root and tool.
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, back, _) = call(|o, e| unsafe {
        gcf_generic_decode_full(full.as_ptr(), full.len(), ptr::null(), o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_OK);
    let back: serde_json::Value = serde_json::from_str(&back).unwrap();
    let orders: serde_json::Value = serde_json::from_str(ORDERS).unwrap();
    assert_eq!(back["set"], orders);
    assert_eq!(
        (back["packRoot"].as_str(), back["tool"].as_str()),
        (Some(ORDERS_ROOT), Some(tool))
    );
    // A repeated identity is refused at its row.
    let twice = full.replace("[3]", "[4]") + "1001|1|x|y\n";
    // SAFETY: the arguments are live Rust slices and valid out-params.
    let (status, _, err) = call(|o, e| unsafe {
        gcf_generic_decode_full(twice.as_ptr(), twice.len(), ptr::null(), o, e)
    });
    assert_eq!(status, gcf_status::GCF_STATUS_DATA_ERROR);
    let (category, line, _, _) = err.unwrap();
    assert_eq!((category.as_str(), line), ("duplicate_key", 6));
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
    // At the root's value in the delta's header.
    let column = wire.find(" base_root=").unwrap() + " base_root=".len() + 1;
    let (category, line, at, _) = err.unwrap();
    assert_eq!(
        (category.as_str(), line, at),
        ("base_mismatch", 1, column as u64)
    );
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
        // The failed call was turn 2, as the references count it: turn 3 is
        // a delta, and turn 4 re-anchors with n = 2.
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
        assert!(!is_full && wire.contains(" delta=true "), "{wire}");
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
