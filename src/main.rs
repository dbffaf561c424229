//! The `memlayers` binary: see `memlayers --help` and the README.

fn main() {
    std::process::exit(memlayers::cli::main());
}
