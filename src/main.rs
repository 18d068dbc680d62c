//! The `absolve` command: a thin layer over the library (see `absolve --help`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
