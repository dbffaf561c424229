//! Build script: links the `memlayers` executable on Linux as a non-PIE (position-dependent)
//! executable.
//!
//! Why (issue 15): an agent runs one `memlayers` process per call, so process start is part
//! of every call's latency. As a PIE the 13 MB binary carries ~49 600 relative relocations
//! that the dynamic loader applies at every start, touching (and copying) hundreds of pages:
//! `memlayers --version` took 1.75 ms against 0.95 ms for `/bin/true` (perf stat, 200 runs,
//! the 2-core benchmark machine). Linked non-PIE it carries 176 relocations and starts in
//! 1.14 ms; a day-window `retrieve` at 1M entries fell from 3.30 to 2.52 ms.
//!
//! The cost: the executable's own code is loaded at a fixed address (no ASLR for it; shared
//! libraries, heap and stack stay randomised). The library crate and the tests are not
//! affected (the flag is a link argument of the binary only). Other systems build as usual.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=memlayers=-no-pie");
    }
}
