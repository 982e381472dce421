#!/usr/bin/env bash
# The Rust crates as crates.io would serve them, before any is published:
#   1. `cargo package` of gcf-core, gcf-bind, gcf-compat and gcf-cli, each
#      built from its packaged files alone (the workspace's crates reach one
#      another through cargo's local registry, not by path);
#   2. outside the workspace, a new project whose one dependency line is
#      `gcf = { package = "gcf-compat", version = "0.1.0" }` builds
#      bindings-rust/sample's program (written for the gcf 3.1.0 crate) and
#      prints what the crate itself prints for it;
#   3. `cargo install` of the packaged gcf-cli, whose `gcf` encodes the
#      README's example and decodes it back.
# The packaged crates stand in for the registry through [patch.crates-io];
# everything else comes from cargo's cache (--offline). target/package is
# cargo's and stays; the consumers build in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
crates=(gcf-core gcf-bind gcf-compat gcf-cli)

# What the gcf 3.1.0 crate prints for the sample program (the workspace's
# build of it, bindings-rust/sample-reference).
cargo run -q -p gcf-compat-sample-reference > "$tmp/reference.out"

echo "== cargo package ${crates[*]}"
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
# --allow-dirty: a run checks the tree it has (a release workflow packages a
# clean tag).
cargo package -q --allow-dirty "${args[@]}"
# The packaged sources, as a user's cargo unpacks them (outside this
# workspace, whose root manifest would otherwise claim them).
patch=""
for c in "${crates[@]}"; do
  cp -R "target/package/$c-$version" "$tmp/$c"
  [ -f "target/package/$c-$version.crate" ]
  patch+="$c = { path = \"$tmp/$c\" }"$'\n'
done
# Cargo's own config format, in the consumers' directory.
mkdir -p "$tmp/.cargo"
printf '[patch.crates-io]\n%s' "$patch" > "$tmp/.cargo/config.toml"
export CARGO_TARGET_DIR="$tmp/target"

echo "== the gcf crate's sample program through gcf = { package = \"gcf-compat\", version = \"$version\" }"
mkdir -p "$tmp/app/src"
cp bindings-rust/sample/src/main.rs "$tmp/app/src/main.rs"
cat > "$tmp/app/Cargo.toml" <<EOF
[package]
name = "app"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
gcf = { package = "gcf-compat", version = "$version" }
serde_json = { version = "1", features = ["preserve_order"] }
EOF
(cd "$tmp/app" && cargo run -q --offline > "$tmp/app.out")
diff -u "$tmp/reference.out" "$tmp/app.out"
echo "same output as the gcf 3.1.0 crate ($(wc -l < "$tmp/app.out") lines)"

echo "== cargo install of the packaged gcf-cli"
(cd "$tmp" && cargo install -q --offline --debug --path "$tmp/gcf-cli" --root "$tmp/cli")
example="$root/examples/codegraph.json"
"$tmp/cli/bin/gcf" encode "$example" > "$tmp/graph.gcf"
head -n 1 "$tmp/graph.gcf"
"$tmp/cli/bin/gcf" decode "$tmp/graph.gcf" > "$tmp/graph.json"
"$tmp/cli/bin/gcf" encode "$tmp/graph.json" | cmp - "$tmp/graph.gcf"
echo "crates: ok"
