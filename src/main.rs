//! The `absolve` command: a thin layer over the library (see `absolve --help`).

mod cli;

/// `--features mimalloc`: mimalloc instead of the system's allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
