//! Link options of the command lines.
//!
//! `che` and `che-engine` are linked as position-dependent executables
//! (`-no-pie`) where the target links with GCC or Clang on x86-64 Linux:
//! a position-independent executable of this size carries about 11,000
//! relative relocations that the dynamic loader applies at every start,
//! writing (and so copying) every page of data that holds an address. A
//! process that runs a short program spends a measurable share of its
//! time there (docs/benchmarks.md, "Start-up"). The code itself is the
//! same; only the executable's load address is fixed.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && arch == "x86_64" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
