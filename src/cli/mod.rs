//! Command-line definitions (one place, with their documentation) and dispatch.

/// `eprintln!`, but passing over a standard error it cannot write to (closed, or a pipe
/// whose reader has gone, as in `2>&1 | head`): there is nowhere else to say so, and the
/// run goes on, where `eprintln!` would panic (on a thread of the pool, in the middle of
/// a file). What the command writes to standard output still decides its status.
macro_rules! stderr {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod input;
mod output;
mod process;
mod resolve;
mod write;

use clap::{Parser, Subcommand};
use std::io;
use std::process::ExitCode;

/// Makes every link in web pages, stylesheets, feeds, SVG images, mail messages (.eml,
/// MHTML, mbox) and web archives (WARC, WACZ, Safari .webarchive) absolute, as RFC 1808
/// defines it.
#[derive(Debug, Parser)]
#[command(
    name = "absolve",
    version,
    about,
    propagate_version = true,
    arg_required_else_help = true,
    after_help = "Examples:
  absolve rewrite --url https://example.com/a/page.html page.html > absolute.html
  absolve rewrite -i saved/page.html        (base from the page's \"saved from\" comment)
  absolve rewrite -r -o copy/ --keep-local mirror/
  absolve links page.html | jq -r .resolved
  absolve rewrite -i saved.webarchive       (each resource against its own URL)
  absolve resolve http://a/b/c/d g ../h

Usage errors exit with status 2, other failures with 1."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve references against a base URL (RFC 1808 §4), one result per line.
    Resolve(resolve::ResolveArgs),
    /// Make every link in HTML pages, stylesheets, feeds, SVG images, MIME messages, mbox
    /// archives, WARC files and Safari web archives absolute.
    Rewrite(process::RewriteArgs),
    /// List every link of HTML pages, stylesheets, feeds, SVG images, MIME messages, mbox
    /// archives, WARC and WACZ files and Safari web archives as JSON Lines, with its
    /// resolved form and effective base.
    Links(process::LinksArgs),
}

/// The exit status of a usage error: a bad or missing argument, or options that do not go
/// together.
pub const USAGE: u8 = 2;

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
            stderr!("absolve: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to standard output, status 0. Anything else is a usage error:
/// clap's whole message (the argument's name, the possible values, its suggestions and
/// the usage) on standard error, status 2. A bare `absolve` prints the help that way.
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = error.print();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        _ => ExitCode::from(USAGE),
    }
}
