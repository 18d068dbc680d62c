//! `absolve resolve [--rfc 1808|3986] BASE [--] [REF...]`

use absolve::url::{Standard, resolve_into};
use clap::Args;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The standard to resolve by: 1808 (the default) or 3986.
    #[arg(long = "rfc", value_name = "1808|3986", default_value = "1808")]
    standard: Standard,
    /// The base URL; an empty BASE leaves every reference unchanged (RFC 1808 §3.4).
    #[arg(value_name = "BASE", allow_hyphen_values = true)]
    base: String,
    /// References to resolve; without any, one reference per line of standard input.
    #[arg(value_name = "REF", allow_hyphen_values = true)]
    references: Vec<String>,
}

/// Prints the absolute form of each reference on a line of its own.
pub fn run(args: ResolveArgs) -> io::Result<ExitCode> {
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::new(stdout);
    let mut resolved = String::new();
    if !args.references.is_empty() {
        for reference in &args.references {
            write_resolved(&mut out, &mut resolved, &args, reference)?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut input = io::BufReader::new(io::stdin().lock());
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let reference = std::str::from_utf8(strip_line_ending(&line)).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("standard input, line {number}: not valid UTF-8"),
            )
        })?;
        write_resolved(&mut out, &mut resolved, &args, reference)?;
        // Streaming: before a read that may wait for more input, answer every line so far.
        if !input.buffer().contains(&b'\n') {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn write_resolved(
    out: &mut impl Write,
    buffer: &mut String,
    args: &ResolveArgs,
    reference: &str,
) -> io::Result<()> {
    buffer.clear();
    resolve_into(args.standard, &args.base, reference, buffer);
    buffer.push('\n');
    out.write_all(buffer.as_bytes())
}

/// The line ending (LF or CRLF) is not part of the reference.
fn strip_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
