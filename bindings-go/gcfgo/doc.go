// Package gcf is a drop-in replacement for github.com/blackwell-systems/gcf-go
// (the v1.7.1 API, plus v1.8.0's EncodeGenericGrouped) backed by libgcf, the
// C ABI of the gcf-core Rust codec, through cgo.
//
// A module switches with one line in its go.mod, naming a released version
// (published at github.com/gcf-native/gcf-go with libgcf prebuilt for Linux
// and macOS on amd64 and arm64) or a checkout of this repository:
//
//	replace github.com/blackwell-systems/gcf-go => github.com/gcf-native/gcf-go v0.1.0
//	replace github.com/blackwell-systems/gcf-go => /path/to/gcf-native/bindings-go/gcfgo
//
// Names, types and signatures are gcf-go's. Functions that return only a
// value in gcf-go do so here too; EncodeGeneric panics only where gcf-go's
// does (an integer outside int64). Errors read like gcf-go's: they start
// with the spec's error category ("count_mismatch: ..."), and graph Decode's
// start with "gcf: ". Every error is an *Error, so errors.As gives its
// Category, Class, Line and Column; the one exception is ParseJSONOrdered's
// JSON syntax errors, which are encoding/json's, as in gcf-go.
//
// DIFFERENCES.md in this folder lists every way the module differs from
// gcf-go v1.7.1.
//
// libgcf is linked statically: in a checkout from target/release/libgcf.a
// at the repository root (run `cargo build --release -p gcf-ffi` there
// first), in a released module from the archive it carries for the
// platform (scripts/package-go.sh). The package internal/native is the
// repository's native Go package (bindings-go), linked file by file in a
// checkout and copied into a release, so both modules build one code base.
package gcf
