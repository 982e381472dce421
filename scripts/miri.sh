#!/usr/bin/env bash
# Runs the gcf-core unit tests that reach `unsafe` code under Miri (the list
# of unsafe blocks and the test of each is in core/src/lib.rs, "Unsafe
# code"). Loops shorten under `cfg(miri)`.
#
# Miri needs a nightly toolchain with the miri component; this script
# installs it through rustup when missing. If that fails it says so loudly:
# outside CI that is an error (exit 1), in CI (CI is set) a warning, so a
# CI image without nightly still runs the rest of the suite.
set -euo pipefail
cd "$(dirname "$0")/.."

have_miri() { cargo +nightly miri --version >/dev/null 2>&1; }
if ! have_miri; then
  rustup toolchain install nightly --profile minimal --component miri rust-src >/dev/null 2>&1 ||
    rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 || true
fi
if ! have_miri; then
  msg="Miri is NOT available (rustup could not install nightly with the miri component): the unsafe code in gcf-core was NOT checked under Miri"
  printf '\n!!!!!!!!\n!!! %s\n!!!!!!!!\n\n' "$msg" >&2
  if [ -n "${CI:-}" ]; then
    echo "warning: continuing because CI is set" >&2
    exit 0
  fi
  exit 1
fi

cargo +nightly miri setup >/dev/null 2>&1 || cargo +nightly miri setup
# At least one test per unsafe block (core/src/lib.rs, "Unsafe code"),
# picked for a modest run time; MIRI_ALL=1 adds the exhaustive ones
# (every byte value at every position, every writer path), which take tens
# of minutes under Miri.
TESTS=(
  generic::key::tests::compact_str_layout_is_what_same_text_assumes
  generic::key::tests::same_text_agrees_with_text_equality
  hint::tests
  digits::tests
  generic::row::tests::assembled_rows_match_the_general_path
  generic::row::tests::floats_match_format_f64
  graph::token::tests::check_and_hash_agrees_with_the_check_and_the_hash_apart
  graph::line::tests::writers_fill_uninitialised_windows_like_initialised_ones
  graph::line::tests::lines_grow_or_flush_and_keep_every_byte
  graph::decode_fast::tests::field_ranges_are_char_boundaries
  graph::decode_fast::tests::field_end_finds_the_first_separator_at_every_offset
  graph::encode::tests::output_with_multibyte_text_everywhere_is_valid_utf8
  graph::stream::tests::printable_names_copy_and_check_in_one_pass
  generic::decode::delimiters::tests::finds_every_delimiter_across_blocks_and_tails
  generic::decode::delimiters::tests::positions_may_jump_forward_and_back
)
if [ -n "${MIRI_ALL:-}" ]; then
  TESTS+=(
    generic::row::tests
    graph::token::tests
    graph::decode_fast::tests::field_stops16_flags_exactly_the_bytes_outside_printable_ascii
    graph::stream::tests::fast_lines_match_the_general_writer
  )
fi
start=$(date +%s)
cargo +nightly miri test -p gcf-core --lib -- "${TESTS[@]}"
echo "miri: ${#TESTS[@]} test groups passed in $(( $(date +%s) - start )) s"
