//! The C ABI entry points on arbitrary bytes: decode, encode (of JSON, with
//! and without constant columns, and value-grouped), pack roots, deltas
//! (decode, encode, diff, apply, the answer functions), the graph session
//! and the generic delta session handles, with every output buffer, error
//! and handle freed. A panic must never cross the boundary; a result is a status.
#![no_main]

use gcf::*;
use libfuzzer_sys::fuzz_target;

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
        // NULL inputs with a length are refused, not read.
        run(|o, e| gcf_graph_decode(std::ptr::null(), n, o, e));
    }
});
