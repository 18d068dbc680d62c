//! `absolve resolve [--rfc 1808|3986] BASE [--] [REF...]` and `absolve resolve --pairs`.

use super::USAGE;
use super::output;
use absolve::url::{Standard, has_scheme, resolve_into};
use clap::Args;
use std::borrow::Cow;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(
    after_help = "Results go to standard output, one line per reference, in order. \
A line of standard input that is not UTF-8 is answered with its invalid bytes replaced by \
U+FFFD, with a warning naming the line.

Examples:
  absolve resolve http://a/b/c/d;p?q g ../g '?y'
  printf 'g\\n../h\\n' | absolve resolve http://a/b/c/d
  printf 'http://a/b/c\\tg\\n' | absolve resolve --pairs
  absolve resolve --rfc 3986 http://a/b/c/d ../../../g"
)]
pub struct ResolveArgs {
    /// The standard to resolve by: 1808 (the default) or 3986.
    #[arg(long = "rfc", value_name = "1808|3986", default_value = "1808")]
    standard: Standard,
    /// Read BASE<TAB>REF lines from standard input and answer each with the resolved URL
    /// (no BASE argument then). A line without a tab, or with an empty BASE, is answered
    /// with its REF unchanged (RFC 1808 §3.4); a BASE without a scheme too, with a warning.
    #[arg(long, conflicts_with_all = ["base", "references"])]
    pairs: bool,
    /// The base URL, with a scheme; an empty BASE leaves every reference unchanged
    /// (RFC 1808 §3.4).
    #[arg(
        value_name = "BASE",
        allow_hyphen_values = true,
        required_unless_present = "pairs"
    )]
    base: Option<String>,
    /// References to resolve; without any, one reference per line of standard input.
    #[arg(value_name = "REF", allow_hyphen_values = true)]
    references: Vec<String>,
}

/// Prints the absolute form of each reference on a line of its own.
pub fn run(args: ResolveArgs) -> io::Result<ExitCode> {
    let standard = args.standard;
    if args.pairs {
        return answer_lines(|line, number, out| {
            let (base, reference) = match line.split_once('\t') {
                Some((base, reference)) => (base, reference),
                None => ("", line),
            };
            let base = if !base.is_empty() && !has_scheme(base) {
                warn_line(
                    number,
                    &format!("BASE {base:?} has no scheme: REF left unchanged"),
                );
                ""
            } else {
                base
            };
            resolve_into(standard, base, reference, out);
        });
    }
    let base = args.base.unwrap_or_default();
    if !base.is_empty() && !has_scheme(&base) {
        eprintln!(
            "absolve: BASE {base:?} has no scheme: a base URL must be absolute (an empty BASE leaves references unchanged)"
        );
        return Ok(ExitCode::from(USAGE));
    }
    if !args.references.is_empty() {
        let mut out = io::BufWriter::new(io::stdout().lock());
        let mut resolved = String::new();
        for reference in &args.references {
            resolved.clear();
            resolve_into(standard, &base, reference, &mut resolved);
            resolved.push('\n');
            out.write_all(resolved.as_bytes())?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    answer_lines(|reference, _, out| resolve_into(standard, &base, reference, out))
}

/// Answers each line of standard input with what `answer` appends to the output buffer,
/// in order, one line each. Buffers are reused: no allocation per line but for one that is
/// not UTF-8, which is answered from its lossy decoding with a warning naming it.
fn answer_lines(mut answer: impl FnMut(&str, u64, &mut String)) -> io::Result<ExitCode> {
    let mut input = io::BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::new();
    let mut answered = String::new();
    for number in 1.. {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = match std::str::from_utf8(strip_line_ending(&line)) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => {
                warn_line(
                    number,
                    &"not valid UTF-8: answered with U+FFFD in place of its invalid bytes",
                );
                String::from_utf8_lossy(strip_line_ending(&line))
            }
        };
        answered.clear();
        answer(&text, number, &mut answered);
        answered.push('\n');
        out.write_all(answered.as_bytes())?;
        // Streaming: before a read that may wait for more input, answer every line so far.
        if memchr::memchr(b'\n', input.buffer()).is_none() {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn warn_line(number: u64, warning: &dyn std::fmt::Display) {
    output::warn(&format!("standard input, line {number}"), warning);
}

/// The line ending (LF or CRLF) is not part of the reference.
fn strip_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
