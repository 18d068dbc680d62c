//! `absolve resolve [--rfc 1808|3986] BASE [--] [REF...]` and `absolve resolve --pairs`.

use super::USAGE;
use super::output;
use absolve::url::{Standard, has_scheme, resolve_into};
use clap::Args;
use std::io::{self, Read, Write};
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(
    after_help = "Results go to standard output, one line per reference, in order. \
A line of standard input that is not UTF-8 is answered with its invalid bytes replaced by \
U+FFFD, with a warning naming the line.

Examples:
  absolve resolve 'http://a/b/c/d;p?q' g ../g '?y'
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

/// How many bytes of answers are gathered before they are written.
const OUT_CHUNK: usize = 64 * 1024;

/// Answers each line of standard input with what `answer` appends to the output, in
/// order, one line each. Input is read in large blocks and split in place; answers are
/// appended to one buffer, written when it fills and before every read that may wait
/// (so that an interactive caller gets each answer at once). Nothing is allocated per
/// line but for a line that is not UTF-8, answered from its lossy decoding with a warning
/// naming it.
fn answer_lines(mut answer: impl FnMut(&str, u64, &mut String)) -> io::Result<ExitCode> {
    let mut stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    let mut buf = vec![0u8; 256 * 1024];
    let mut out = String::with_capacity(OUT_CHUNK + 4096);
    let (mut start, mut filled, mut number) = (0, 0, 0);
    loop {
        while let Some(end) = memchr::memchr(b'\n', &buf[start..filled]) {
            number += 1;
            answer_line(&buf[start..start + end], number, &mut answer, &mut out);
            start += end + 1;
            if out.len() >= OUT_CHUNK {
                stdout.write_all(out.as_bytes())?;
                out.clear();
            }
        }
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        out.clear();
        buf.copy_within(start..filled, 0);
        filled -= start;
        start = 0;
        if filled == buf.len() {
            // A line longer than the buffer: room for more of it.
            buf.resize(buf.len() * 2, 0);
        }
        let read = match stdin.read(&mut buf[filled..]) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if read == 0 {
            break;
        }
        filled += read;
    }
    if filled > 0 {
        // The last line, without a line ending.
        answer_line(&buf[..filled], number + 1, &mut answer, &mut out);
        stdout.write_all(out.as_bytes())?;
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Appends the answer to one line (its line ending excluded) and a newline to `out`.
fn answer_line(
    line: &[u8],
    number: u64,
    answer: &mut impl FnMut(&str, u64, &mut String),
    out: &mut String,
) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(text) => answer(text, number, out),
        Err(_) => {
            warn_line(
                number,
                &"not valid UTF-8: answered with U+FFFD in place of its invalid bytes",
            );
            answer(&String::from_utf8_lossy(line), number, out);
        }
    }
    out.push('\n');
}

fn warn_line(number: u64, warning: &dyn std::fmt::Display) {
    output::warn(&format!("standard input, line {number}"), warning);
}
