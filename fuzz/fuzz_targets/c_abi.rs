//! The C ABI entry points on arbitrary bytes: decode, encode (of JSON, with
//! and without constant columns, and value-grouped), pack roots, deltas
//! (decode, encode, diff, apply, the answer functions), the graph session
//! and the generic delta session handles, and both streaming writer handles
//! driven by call sequences read from the input (a callback that may refuse
//! included), with every output buffer, error and handle freed; a generic
//! stream that finishes wrote a payload that decodes. A panic must never cross the boundary; a result is a status.
#![no_main]

use std::ffi::{c_char, c_int, c_void};

use gcf::*;
use gcf_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

/// Where a stream's callback writes; it refuses once `refuse_at` bytes came.
struct Out {
    bytes: Vec<u8>,
    refuse_at: usize,
}

unsafe extern "C" fn collect(user: *mut c_void, bytes: *const u8, len: usize) -> c_int {
    // SAFETY: `user` is the `Out` the stream was created with, alive and not
    // otherwise borrowed while the stream runs; `bytes` holds `len` bytes.
    let (out, bytes) = unsafe {
        (
            &mut *user.cast::<Out>(),
            std::slice::from_raw_parts(bytes, len),
        )
    };
    if out.bytes.len() + len > out.refuse_at {
        return 1;
    }
    out.bytes.extend_from_slice(bytes);
    0
}

fn errs(f: impl FnOnce(*mut *mut gcf_error) -> gcf_status) -> gcf_status {
    let mut err: *mut gcf_error = std::ptr::null_mut();
    let status = f(&mut err);
    // SAFETY: `err` was filled by the call or left NULL.
    unsafe { gcf_error_free(err) };
    status
}

/// A name or text from the input (as raw bytes: invalid UTF-8 included).
fn text(b: &mut Bytes) -> Vec<u8> {
    if b.pick(8) == 0 {
        (0..b.pick(6)).map(|_| b.byte()).collect()
    } else {
        b.text().into_bytes()
    }
}

fn cell(b: &mut Bytes, keep: &mut Vec<Vec<u8>>) -> gcf_cell {
    let kind = b.pick(7) as u32; // 6 is an unknown kind
    let s = text(b);
    let c = gcf_cell {
        kind,
        int_value: b.u64() as i64,
        float_value: b.float(),
        str_ptr: s.as_ptr().cast::<c_char>(),
        str_len: s.len(),
    };
    keep.push(s);
    c
}

/// The generic stream handle driven by calls read from `b`.
fn generic_stream(b: &mut Bytes) {
    let mut out = Out {
        bytes: Vec::new(),
        refuse_at: if b.pick(8) == 0 {
            b.pick(200)
        } else {
            usize::MAX
        },
    };
    let tool = text(b);
    let options = gcf_generic_stream_options {
        tool: tool.as_ptr(),
        tool_len: tool.len(),
    };
    let mut stream: *mut gcf_generic_stream = std::ptr::null_mut();
    let user = (&mut out as *mut Out).cast::<c_void>();
    // SAFETY: every pointer is valid for its length; `out` outlives the stream.
    unsafe {
        let made = errs(|e| gcf_generic_stream_new(Some(collect), user, &options, &mut stream, e));
        if made != gcf_status::GCF_STATUS_OK {
            return;
        }
        // Names unique across the stream: unique keys are the caller's duty
        // (the writer keeps O(1) memory), as in `stream_writers`.
        let mut number_keys = 0i64;
        let mut serial = 0;
        let mut unique = |b: &mut Bytes| {
            serial += 1;
            let mut name = text(b);
            name.extend_from_slice(format!("_{serial}").as_bytes());
            name
        };
        for _ in 0..b.pick(40) {
            let mut keep = Vec::new();
            let name = unique(b);
            match b.pick(11) {
                0 => {
                    let c = cell(b, &mut keep);
                    errs(|e| gcf_generic_stream_field(stream, name.as_ptr(), name.len(), &c, e));
                }
                8 => {
                    let names: Vec<Vec<u8>> = (0..b.pick(4)).map(|_| unique(b)).collect();
                    let fields = strs(&names);
                    // NULL: the default label; else a label, maybe a field's.
                    let label = match b.pick(3) {
                        0 => None,
                        1 => names.first().cloned(),
                        _ => Some(text(b)),
                    };
                    let (lp, ll) = label
                        .as_ref()
                        .map_or((std::ptr::null(), 0), |l| (l.as_ptr(), l.len()));
                    errs(|e| {
                        gcf_generic_stream_begin_keyed_map(
                            stream,
                            name.as_ptr(),
                            name.len(),
                            lp,
                            ll,
                            fields.as_ptr(),
                            fields.len(),
                            e,
                        )
                    });
                }
                9 => {
                    let cells: Vec<gcf_cell> = (0..b.pick(4)).map(|_| cell(b, &mut keep)).collect();
                    if b.pick(2) == 0 {
                        errs(|e| {
                            gcf_generic_stream_keyed_row(
                                stream,
                                name.as_ptr(),
                                name.len(),
                                cells.as_ptr(),
                                cells.len(),
                                e,
                            )
                        });
                    } else {
                        // The key is cell 0: a number, the name, or a kind
                        // that is refused (none at all too). Number keys
                        // are unique and never spell a name (which ends in
                        // `_N`), so what is written decodes.
                        let mut cells = cells;
                        if let Some(key) = cells.first_mut() {
                            number_keys += 1;
                            match b.pick(4) {
                                0 => {
                                    *key = gcf_cell {
                                        kind: GCF_CELL_INT,
                                        int_value: number_keys,
                                        ..*key
                                    }
                                }
                                1 => {
                                    *key = gcf_cell {
                                        kind: GCF_CELL_STR,
                                        str_ptr: name.as_ptr().cast(),
                                        str_len: name.len(),
                                        ..*key
                                    }
                                }
                                2 => {
                                    *key = gcf_cell {
                                        kind: [GCF_CELL_NULL, GCF_CELL_BOOL, GCF_CELL_MISSING, 6]
                                            [b.pick(4)],
                                        ..*key
                                    }
                                }
                                _ => {
                                    *key = gcf_cell {
                                        kind: GCF_CELL_FLOAT,
                                        float_value: -(number_keys as f64) - 0.5,
                                        ..*key
                                    }
                                }
                            }
                        }
                        errs(|e| {
                            gcf_generic_stream_keyed_row_cells(
                                stream,
                                cells.as_ptr(),
                                cells.len(),
                                e,
                            )
                        });
                    }
                }
                10 => {
                    let cells: Vec<gcf_cell> = (0..b.pick(4)).map(|_| cell(b, &mut keep)).collect();
                    errs(|e| {
                        gcf_generic_stream_inline_array(
                            stream,
                            name.as_ptr(),
                            name.len(),
                            cells.as_ptr(),
                            cells.len(),
                            e,
                        )
                    });
                }
                1 => {
                    errs(|e| {
                        gcf_generic_stream_begin_section(stream, name.as_ptr(), name.len(), e)
                    });
                }
                2 => {
                    errs(|e| gcf_generic_stream_end_section(stream, e));
                }
                3 => {
                    let names: Vec<Vec<u8>> = (0..b.pick(5)).map(|_| unique(b)).collect();
                    let fields = strs(&names);
                    // NULL: a root table.
                    let (np, nl) = if b.pick(3) == 0 {
                        (std::ptr::null(), 0)
                    } else {
                        (name.as_ptr(), name.len())
                    };
                    errs(|e| {
                        gcf_generic_stream_begin_table(
                            stream,
                            np,
                            nl,
                            fields.as_ptr(),
                            fields.len(),
                            e,
                        )
                    });
                }
                4 | 5 => {
                    let cells: Vec<gcf_cell> = (0..b.pick(5)).map(|_| cell(b, &mut keep)).collect();
                    errs(|e| gcf_generic_stream_row(stream, cells.as_ptr(), cells.len(), e));
                }
                6 => {
                    errs(|e| gcf_generic_stream_end_table(stream, e));
                }
                _ => {
                    errs(|e| gcf_generic_stream_flush(stream, e));
                }
            }
        }
        if b.pick(4) != 0 {
            if errs(|e| gcf_generic_stream_finish(stream, e)) == gcf_status::GCF_STATUS_OK {
                let text = String::from_utf8(out.bytes.clone()).expect("a stream writes UTF-8");
                gcf_core::generic::decode(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            }
        }
        gcf_generic_stream_free(stream);
    }
}

/// The graph stream handle driven by calls read from `b`.
fn graph_stream(b: &mut Bytes) {
    let mut out = Out {
        bytes: Vec::new(),
        refuse_at: if b.pick(8) == 0 {
            b.pick(200)
        } else {
            usize::MAX
        },
    };
    let tool = text(b);
    // Mostly no pack root: a random one would fail most streams at birth.
    let root = if b.pick(4) == 0 { text(b) } else { Vec::new() };
    let options = gcf_graph_stream_options {
        tool: tool.as_ptr(),
        tool_len: tool.len(),
        token_budget: b.pick(3) as u64 * 100,
        tokens_used: b.pick(3) as u64,
        trailer: b.pick(4) as u32, // 3 is unknown
        index_names: b.byte() & 1 == 1,
        pack_root: root.as_ptr(),
        pack_root_len: root.len(),
        session: b.byte() & 1 == 1,
    };
    let mut stream: *mut gcf_graph_stream = std::ptr::null_mut();
    let user = (&mut out as *mut Out).cast::<c_void>();
    // SAFETY: every pointer is valid for its length; `out` outlives the stream.
    unsafe {
        let made = errs(|e| gcf_graph_stream_new(Some(collect), user, &options, &mut stream, e));
        if made != gcf_status::GCF_STATUS_OK {
            return;
        }
        let mut ids: Vec<u64> = Vec::new();
        for _ in 0..b.pick(40) {
            let (x, y, z) = (text(b), text(b), text(b));
            let known = |b: &mut Bytes, ids: &Vec<u64>| {
                if ids.is_empty() || b.pick(6) == 0 {
                    b.u64()
                } else {
                    ids[b.pick(ids.len())]
                }
            };
            match b.pick(6) {
                0 | 1 => {
                    let mut id = 0u64;
                    let score = b.float();
                    let distance = b.pick(5) as u32;
                    let status = errs(|e| {
                        gcf_graph_stream_write_symbol(
                            stream,
                            x.as_ptr(),
                            x.len(),
                            y.as_ptr(),
                            y.len(),
                            score,
                            z.as_ptr(),
                            z.len(),
                            distance,
                            &mut id,
                            e,
                        )
                    });
                    if status == gcf_status::GCF_STATUS_OK {
                        ids.push(id);
                    }
                }
                2 => {
                    let (s, t) = (known(b, &ids), known(b, &ids));
                    errs(|e| {
                        gcf_graph_stream_write_edge(
                            stream,
                            s,
                            t,
                            x.as_ptr(),
                            x.len(),
                            y.as_ptr(),
                            y.len(),
                            e,
                        )
                    });
                }
                3 => {
                    errs(|e| {
                        gcf_graph_stream_write_edge_by_name(
                            stream,
                            x.as_ptr(),
                            x.len(),
                            y.as_ptr(),
                            y.len(),
                            z.as_ptr(),
                            z.len(),
                            std::ptr::null(),
                            0,
                            e,
                        )
                    });
                }
                4 => {
                    let id = known(b, &ids);
                    let (l, c) = (b.pick(4) as u32, b.pick(4) as u32);
                    errs(|e| {
                        gcf_graph_stream_write_location(
                            stream,
                            id,
                            x.as_ptr(),
                            x.len(),
                            l,
                            c,
                            l,
                            c + 1,
                            e,
                        )
                    });
                }
                _ => {
                    errs(|e| gcf_graph_stream_flush(stream, e));
                }
            }
        }
        if b.pick(4) != 0 {
            errs(|e| gcf_graph_stream_finish(stream, e));
        }
        gcf_graph_stream_free(stream);
    }
}

fn run(f: impl FnOnce(*mut gcf_buf, *mut *mut gcf_error) -> gcf_status) {
    let mut out = gcf_buf {
        ptr: std::ptr::null_mut(),
        len: 0,
    };
    let mut err: *mut gcf_error = std::ptr::null_mut();
    let _ = f(&mut out, &mut err);
    // SAFETY: `out` and `err` were filled by the call (or left empty/NULL).
    unsafe {
        if !err.is_null() {
            let _ = gcf_error_category(err);
            let _ = gcf_error_class(err);
            let _ = gcf_error_message(err);
            let _ = gcf_error_status(err);
            let _ = gcf_error_line(err);
            let _ = gcf_error_column(err);
            gcf_error_free(err);
        }
        gcf_buf_free(&mut out);
    }
}

fuzz_target!(|data: &[u8]| {
    let (p, n) = (data.as_ptr(), data.len());
    let split = data.first().map_or(0, |&b| usize::from(b)).min(n);
    let (a, b) = data.split_at(split);
    // SAFETY: every pointer is valid for its length, outputs are locals.
    unsafe {
        run(|o, e| gcf_graph_decode(p, n, o, e));
        run(|o, e| gcf_generic_decode(p, n, o, e));
        run(|o, e| gcf_generic_decode_full(p, n, std::ptr::null(), o, e));
        // The decoders under limits cut from the input's first bytes: small
        // ones (so some are reached), zeros (the defaults) and impossible
        // ones (a depth past 128, refused as an argument).
        let word = |i: usize| u64::from(data.get(i).copied().unwrap_or(0) % 40);
        let limits = gcf_limits {
            max_depth: word(1) * 4,
            max_container_len: word(2),
            max_line_len: word(3) * 8,
            max_fields: word(4),
            max_input_len: word(5) * 16,
            max_expansion: word(6) * 64,
            max_expansion_ratio: word(7),
        };
        run(|o, e| gcf_graph_decode_with_limits(p, n, &limits, o, e));
        run(|o, e| gcf_generic_decode_with_limits(p, n, &limits, o, e));
        run(|o, e| gcf_graph_decode_packed_with_limits(p, n, &limits, o, e));
        run(|o, e| gcf_generic_decode_packed_with_limits(p, n, &limits, o, e));
        run(|o, e| gcf_graph_encode(p, n, o, e));
        run(|o, e| gcf_generic_encode(p, n, o, e));
        // Every flag word, unknown bits included (refused as arguments).
        let flags = u32::from(data.last().copied().unwrap_or(0) & 3);
        run(|o, e| gcf_generic_encode_flags(p, n, flags, o, e));
        // The grouped encoder on the JSON after the split, keyed and grouped
        // by field names cut from the bytes before it (empty, non-UTF-8 and
        // NULL names included).
        let (key, group) = a.split_at(a.len() / 2);
        run(|o, e| {
            gcf_generic_encode_grouped(
                b.as_ptr(),
                b.len(),
                key.as_ptr(),
                key.len(),
                group.as_ptr(),
                group.len(),
                o,
                e,
            )
        });
        // The whole input as JSON, keyed by `id` and grouped by a common
        // field name (or by `id` itself, which is refused).
        const GROUPS: [&str; 5] = ["type", "kind", "name", "status", "id"];
        let g = GROUPS[usize::from(data.last().copied().unwrap_or(0)) % GROUPS.len()];
        run(|o, e| gcf_generic_encode_grouped(p, n, b"id".as_ptr(), 2, g.as_ptr(), g.len(), o, e));
        run(|o, e| gcf_generic_encode_grouped(p, n, std::ptr::null(), 1, b"g".as_ptr(), 1, o, e));
        run(|o, e| gcf_graph_pack_root(p, n, o, e));
        run(|o, e| gcf_generic_pack_root(p, n, o, e));
        run(|o, e| gcf_graph_apply_delta(a.as_ptr(), a.len(), b.as_ptr(), b.len(), o, e));
        run(|o, e| gcf_generic_apply_delta(a.as_ptr(), a.len(), b.as_ptr(), b.len(), o, e));
        // Deltas: decode (text), encode (JSON), diff of two keyed sets, the
        // answer functions, full payloads of a keyed set.
        let (ap, an, bp, bn) = (a.as_ptr(), a.len(), b.as_ptr(), b.len());
        run(|o, e| gcf_graph_decode_delta(p, n, o, e));
        run(|o, e| gcf_generic_decode_delta(p, n, o, e));
        run(|o, e| gcf_graph_encode_delta(p, n, o, e));
        run(|o, e| gcf_generic_encode_delta(p, n, o, e));
        run(|o, e| gcf_generic_diff(ap, an, bp, bn, o, e));
        run(|o, e| gcf_generic_encode_full(p, n, b"t".as_ptr(), 1, o, e));
        let mut outcome = gcf_outcome::GCF_OUTCOME_NONE;
        run(|o, e| gcf_generic_delta(ap, an, bp, bn, b"t".as_ptr(), 1, &mut outcome, o, e));
        run(|o, e| gcf_graph_delta(ap, an, bp, bn, ap, an.min(8), &mut outcome, o, e));
        // A graph session encoding the input twice (the second turn may
        // answer with a delta or `unchanged`).
        let mut session: *mut gcf_graph_session = std::ptr::null_mut();
        let mut err: *mut gcf_error = std::ptr::null_mut();
        if gcf_graph_session_new(&mut session, &mut err) == gcf_status::GCF_STATUS_OK {
            run(|o, e| gcf_graph_session_encode(session, p, n, o, e));
            run(|o, e| gcf_graph_session_encode(session, bp, bn, o, e));
            run(|o, e| gcf_graph_session_encode(session, p, n, o, e));
            gcf_graph_session_free(session);
        }
        gcf_error_free(err);
        // A generic delta session from the first part, fed the second,
        // with a policy word and period from the input (unknown ones refused).
        let policy = u32::from(data.get(1).copied().unwrap_or(0) % 4);
        let every = usize::from(data.get(2).copied().unwrap_or(0) % 4);
        let mut generic: *mut gcf_generic_delta_session = std::ptr::null_mut();
        let mut err: *mut gcf_error = std::ptr::null_mut();
        let made = gcf_generic_delta_session_new(
            ap,
            an,
            b"t".as_ptr(),
            1,
            policy,
            every,
            &mut generic,
            &mut err,
        );
        if made == gcf_status::GCF_STATUS_OK {
            run(|o, e| gcf_generic_delta_session_initial_full(generic, o, e));
            let mut full = false;
            run(|o, e| gcf_generic_delta_session_next(generic, bp, bn, o, &mut full, e));
            run(|o, e| gcf_generic_delta_session_next(generic, ap, an, o, &mut full, e));
            gcf_generic_delta_session_free(generic);
        }
        gcf_error_free(err);
        // Both stream handles, driven by the input read as choices.
        let mut choices = Bytes::new(data);
        generic_stream(&mut choices);
        graph_stream(&mut choices);
        // NULL inputs with a length are refused, not read.
        run(|o, e| gcf_graph_decode(std::ptr::null(), n, o, e));
    }
});

/// `gcf_str`s viewing `names` (valid while `names` lives).
fn strs(names: &[Vec<u8>]) -> Vec<gcf_str> {
    names
        .iter()
        .map(|n| gcf_str {
            ptr: n.as_ptr().cast(),
            len: n.len(),
        })
        .collect()
}
