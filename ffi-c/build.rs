//! Gives the shared library an ELF SONAME, as a C library installed for
//! others to link against needs: a program records `libgcf.so.0.1` (from
//! version 1 on, `libgcf.so.MAJOR`), so an installed library can be upgraded
//! in place within a compatible series and an incompatible one can sit
//! beside it (`scripts/install-c.sh` installs the file under that name).
//! Before 1.0 every minor version may break the ABI, so it is part of the
//! name. Other object formats (Mach-O, PE) name their libraries otherwise
//! and are left as Cargo builds them.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let elf = matches!(
        std::env::var("CARGO_CFG_TARGET_OS").as_deref(),
        Ok("linux"
            | "android"
            | "freebsd"
            | "netbsd"
            | "openbsd"
            | "dragonfly"
            | "illumos"
            | "solaris")
    );
    if !elf {
        return;
    }
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let series = if major == "0" {
        format!("0.{minor}")
    } else {
        major
    };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgcf.so.{series}");
}
