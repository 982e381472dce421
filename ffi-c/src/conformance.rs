//! The conformance suite's shared dispatch ([`gcf_bind::conformance`]) for
//! bindings that reach the library through C: one fixture in, one verdict
//! out, so a binding runs every fixture with a loop over files.

use crate::buf::{bytes_arg, gcf_buf, put, reset_out};
use crate::error::{boundary, gcf_error, gcf_status};

/// Runs one conformance fixture (the bytes of its `.json` file) and outputs
/// the verdict as JSON: `{"operation", "status": "pass"|"fail", "detail"?}`.
/// A failing fixture is still `GCF_STATUS_OK`; only bad arguments are errors.
///
/// # Safety
///
/// `fixture` points to `fixture_len` readable bytes (or is NULL with 0);
/// `out` is a writable `gcf_buf`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gcf_conformance_run(
    fixture: *const u8,
    fixture_len: usize,
    out: *mut gcf_buf,
    err: *mut *mut gcf_error,
) -> gcf_status {
    // SAFETY: the pointers are valid per this function's contract.
    unsafe {
        boundary(err, || {
            reset_out(out)?;
            let bytes = bytes_arg(fixture, fixture_len, "fixture")?;
            let verdict = gcf_bind::conformance::run_json(bytes);
            put(out, gcf_buf::from_vec(verdict.into_bytes()));
            Ok(())
        })
    }
}
