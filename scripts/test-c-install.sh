#!/usr/bin/env bash
# libgcf as a C user installs and links it: scripts/install-c.sh into a new
# prefix, then the C test program (ffi-c/tests/c/test_gcf.c) built from the
# installed files alone, found by pkg-config, and run:
#   - shared: `$(pkg-config --cflags --libs gcf)`; the program must record
#     the library by its SONAME, and runs with the prefix's lib/ on the
#     loader's path;
#   - static: the installed libgcf.a with pkg-config's Libs.private; the
#     program must not need the shared library.
# Called by scripts/test-ffi.sh; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

bash scripts/install-c.sh "$tmp/prefix"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
[ "$(pkg-config --modversion gcf)" = "$version" ]
series="$(readlink "$tmp/prefix/lib/libgcf.so")"
[ "$(readlink "$tmp/prefix/lib/$series")" = "libgcf.so.$version" ]
ls -l "$tmp/prefix/lib" "$tmp/prefix/include" | sed 's/^/  /'
cat "$tmp/prefix/lib/pkgconfig/gcf.pc" | sed 's/^/  /'
# Installed without debug info (install-c.sh strips it), symbols kept.
for lib in "$tmp/prefix/lib/libgcf.a" "$tmp/prefix/lib/libgcf.so.$version"; do
  if readelf -S -W "$lib" | grep -q '\.debug_info'; then
    echo "$lib was installed with debug info" >&2
    exit 1
  fi
done
nm -D --defined-only "$tmp/prefix/lib/libgcf.so.$version" > "$tmp/exports"
grep -q ' T gcf_version$' "$tmp/exports"

# The program, away from the repository's include/.
cp ffi-c/tests/c/test_gcf.c "$tmp/"
cd "$tmp"

echo "== shared: cc test_gcf.c \$(pkg-config --cflags --libs gcf)"
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -Wall -Wextra -Werror -std=c11 test_gcf.c $(pkg-config --cflags --libs gcf) -o shared
needed="$(readelf -d shared | sed -n 's/.*(NEEDED).*\[\(libgcf[^]]*\)\]/\1/p')"
if [ "$needed" != "$series" ]; then
  echo "the program needs '$needed', not the SONAME $series" >&2
  exit 1
fi
LD_LIBRARY_PATH="$tmp/prefix/lib" ./shared | tail -n 1

echo "== static: libgcf.a and \$(pkg-config --static --libs-only-l gcf)"
libdir="$(pkg-config --variable=libdir gcf)"
private="$(pkg-config --static --libs-only-l gcf | sed -e 's/^-lgcf //' -e 's/ -lgcf / /')"
# shellcheck disable=SC2046,SC2086
cc -Wall -Wextra -Werror -std=c11 test_gcf.c $(pkg-config --cflags gcf) "$libdir/libgcf.a" $private -o static
if readelf -d static | grep -q 'NEEDED.*libgcf'; then
  echo "the statically linked program needs the shared library" >&2
  exit 1
fi
./static | tail -n 1
echo "C install: ok"
