#!/usr/bin/env bash
# Installs libgcf for C programs, the way a C library is installed:
#   scripts/install-c.sh PREFIX        (for example /usr/local)
# builds the release library and writes
#   PREFIX/include/gcf.h
#   PREFIX/lib/libgcf.a
#   PREFIX/lib/libgcf.so.VERSION, with the links libgcf.so.SERIES (its
#     SONAME: libgcf.so.0.1 before 1.0, see ffi-c/build.rs) and libgcf.so
#   PREFIX/lib/pkgconfig/gcf.pc
# so that `cc app.c $(pkg-config --cflags --libs gcf)` builds against it,
# and `pkg-config --static --libs gcf` names the system libraries the
# archive needs. DESTDIR is honoured for staged installs (packaging):
# files go under DESTDIR/PREFIX, and gcf.pc names PREFIX. The installed
# libraries have their debug info stripped (the release profile keeps line
# tables for profiling: 57 MB of archive, 19 MB of shared library); the
# symbols stay. GCF_INSTALL_STRIP=0 installs them as built.
# Linux (ELF) only; scripts/test-c-install.sh checks the result.
set -euo pipefail
prefix="${1:?usage: install-c.sh PREFIX}"
case "$prefix" in /*) ;; *) echo "PREFIX must be an absolute path" >&2; exit 1 ;; esac
cd "$(dirname "$0")/.."
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"
minor="${version#*.}"
minor="${minor%%.*}"
if [ "$major" = 0 ]; then series="0.$minor"; else series="$major"; fi

cargo build -q --release -p gcf-ffi
soname="$(readelf -d target/release/libgcf.so | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
if [ "$soname" != "libgcf.so.$series" ]; then
  echo "target/release/libgcf.so has SONAME '$soname', not libgcf.so.$series (ffi-c/build.rs)" >&2
  exit 1
fi
private="$(bash scripts/native-static-libs.sh)"

root="${DESTDIR:-}$prefix"
install -d "$root/include" "$root/lib/pkgconfig"
install -m 644 include/gcf.h "$root/include/gcf.h"
install -m 644 target/release/libgcf.a "$root/lib/libgcf.a"
install -m 755 target/release/libgcf.so "$root/lib/libgcf.so.$version"
if [ "${GCF_INSTALL_STRIP:-1}" != 0 ]; then
  strip -S "$root/lib/libgcf.a" "$root/lib/libgcf.so.$version"
fi
ln -sfn "libgcf.so.$version" "$root/lib/libgcf.so.$series"
ln -sfn "libgcf.so.$series" "$root/lib/libgcf.so"
cat > "$root/lib/pkgconfig/gcf.pc" <<EOF
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include

Name: gcf
Description: libgcf, the C ABI of gcf-core: GCF (Graph Compact Format) encoding and decoding
Version: $version
Libs: -L\${libdir} -lgcf
Libs.private: $private
Cflags: -I\${includedir}
EOF
echo "installed libgcf $version under $root (SONAME libgcf.so.$series)"
