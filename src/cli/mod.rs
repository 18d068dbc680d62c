//! Command-line definitions (one place, with their documentation) and dispatch.

mod input;
mod output;
mod process;
mod resolve;
mod warc;

use clap::{Parser, Subcommand};
use std::io;
use std::process::ExitCode;

/// Makes every link in HTML documents and MIME messages absolute, as RFC 1808 defines it.
#[derive(Debug, Parser)]
#[command(name = "absolve", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve references against a base URL (RFC 1808 §4), one result per line.
    Resolve(resolve::ResolveArgs),
    /// Make every link in HTML documents (or MIME messages, mbox archives) absolute.
    Rewrite(process::RewriteArgs),
    /// List every link as JSON Lines, with its resolved form and effective base.
    Links(process::LinksArgs),
}

/// Parses the command line, runs the subcommand and turns its error into a one-line
/// message on standard error and a non-zero exit status.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(error),
    };
    let result = match cli.command {
        Command::Resolve(args) => resolve::run(args),
        Command::Rewrite(args) => return process::rewrite(args),
        Command::Links(args) => return process::links(args),
    };
    match result {
        Ok(code) => code,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("absolve: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to standard output in full; a usage error is one line on standard
/// error (the first of clap's message, which names the offending argument) and status 2.
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let message = error.render().to_string();
    let first = message.lines().next().unwrap_or("invalid arguments");
    eprintln!("absolve: {}", first.trim_start_matches("error: "));
    ExitCode::from(2)
}
