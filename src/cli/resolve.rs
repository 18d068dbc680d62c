//! `absolve resolve [--spec rfc1808|rfc3986|whatwg] BASE [--] [REF...]` and
//! `absolve resolve --pairs` (`--rfc 1808|3986` is the older spelling of `--spec`).

use super::USAGE;
use super::output;
use absolve::url::whatwg::{self, WhatwgError};
use absolve::url::{Standard, has_scheme, resolve_into};
use clap::Args;
use std::io::{self, Read, Write};
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(
    override_usage = "absolve resolve [OPTIONS] BASE [REF]...\n       absolve resolve [OPTIONS] --pairs",
    after_help = "Results go to standard output, one line per reference, in order. \
A line of standard input that is not UTF-8 is answered with its invalid bytes replaced by \
U+FFFD, with a warning naming the line. With --spec whatwg a reference the URL Standard \
rejects (http://[::1, http://a b/) is answered unchanged, with a warning naming it (its \
line, for standard input) and the reason.

Examples:
  absolve resolve 'http://a/b/c/d;p?q' g ../g '?y'
  printf 'g\\n../h\\n' | absolve resolve http://a/b/c/d
  printf 'http://a/b/c\\tg\\n' | absolve resolve --pairs
  absolve resolve --spec rfc3986 http://a/b/c/d ../../../g
  absolve resolve --spec whatwg 'http://a/b/c/d;p?q' ../../../g '//h' '#'"
)]
pub struct ResolveArgs {
    /// The standard to resolve by: rfc1808 (the default), rfc3986, or whatwg (the WHATWG
    /// URL Standard: the URL a browser reports).
    #[arg(
        long = "spec",
        value_name = "rfc1808|rfc3986|whatwg",
        value_parser = parse_spec,
        conflicts_with = "rfc"
    )]
    spec: Option<Standard>,
    /// The older spelling of --spec: 1808 or 3986.
    #[arg(long = "rfc", value_name = "1808|3986", value_parser = parse_rfc)]
    rfc: Option<Standard>,
    /// Read BASE<TAB>REF lines from standard input and answer each with the resolved URL
    /// (no BASE argument then). A line without a tab, or with an empty BASE, is answered
    /// with its REF unchanged (RFC 1808 §3.4; with --spec whatwg an absolute REF is still
    /// parsed and serialized); a BASE without a scheme too, with a warning.
    #[arg(long, conflicts_with = "operands")]
    pairs: bool,
    /// BASE, the base URL, with a scheme (an empty BASE leaves every reference unchanged,
    /// RFC 1808 §3.4, but --spec whatwg still parses an absolute one); then the references
    /// to resolve (without any, one reference per line of standard input). Everything from
    /// BASE on is an operand, even a reference spelled like a flag (`-h`).
    #[arg(
        value_name = "BASE",
        allow_hyphen_values = true,
        trailing_var_arg = true,
        required_unless_present = "pairs"
    )]
    operands: Vec<String>,
}

impl ResolveArgs {
    /// BASE (empty when only `--pairs` was given) and the references after it; a `--`
    /// right after BASE ends the options, as before BASE (`resolve BASE -- -x`).
    fn base_and_references(&self) -> (&str, &[String]) {
        match self.operands.split_first() {
            Some((base, [dashes, references @ ..])) if dashes == "--" => (base, references),
            Some((base, references)) => (base, references),
            None => ("", &[]),
        }
    }
}

pub(super) fn parse_spec(value: &str) -> Result<Standard, absolve::url::UnknownStandard> {
    value.parse()
}

pub(super) fn parse_rfc(value: &str) -> Result<Standard, absolve::url::UnknownRfc> {
    Standard::from_rfc(value)
}

/// Prints the absolute form of each reference on a line of its own.
pub fn run(args: ResolveArgs) -> io::Result<ExitCode> {
    let standard = args.spec.or(args.rfc).unwrap_or_default();
    if standard == Standard::Whatwg {
        return run_whatwg(args);
    }
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
    let (base, references) = args.base_and_references();
    if !base.is_empty() && !has_scheme(base) {
        stderr!(
            "absolve: BASE {base:?} has no scheme: a base URL must be absolute (an empty BASE leaves references unchanged)"
        );
        return Ok(ExitCode::from(USAGE));
    }
    if !references.is_empty() {
        let mut out = io::BufWriter::new(io::stdout().lock());
        let mut resolved = String::new();
        for reference in references {
            resolved.clear();
            resolve_into(standard, base, reference, &mut resolved);
            resolved.push('\n');
            out.write_all(resolved.as_bytes())?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    answer_lines(|reference, _, out| resolve_into(standard, base, reference, out))
}

/// `--spec whatwg`: each reference is the URL Standard's parse against BASE, serialized; a
/// BASE is parsed once (in `--pairs`, once for each run of lines with the same BASE).
fn run_whatwg(args: ResolveArgs) -> io::Result<ExitCode> {
    if args.pairs {
        let mut bases = LastBase::default();
        return answer_lines(|line, number, out| {
            let (base, reference) = line.split_once('\t').unwrap_or(("", line));
            let base = match bases.parse(base) {
                Ok(base) => base,
                Err(reason) => {
                    warn_line(
                        number,
                        &format_args!(
                            "BASE {base:?} does not parse by the URL Standard ({reason}): REF left unchanged"
                        ),
                    );
                    out.push_str(reference);
                    return;
                }
            };
            answer_whatwg(base, reference, out, |reason| {
                warn_line(number, &unchanged(reference, reason));
            });
        });
    }
    let (base, references) = args.base_and_references();
    let base = match (!base.is_empty()).then(|| whatwg::parse_base(base)) {
        None => None,
        Some(Ok(parsed)) => Some(parsed),
        Some(Err(reason)) => {
            stderr!(
                "absolve: BASE {base:?} does not parse by the URL Standard ({reason}): a base URL must be absolute (an empty BASE leaves references unchanged)"
            );
            return Ok(ExitCode::from(USAGE));
        }
    };
    if !references.is_empty() {
        let mut out = io::BufWriter::new(io::stdout().lock());
        let mut resolved = String::new();
        for reference in references {
            resolved.clear();
            answer_whatwg(base.as_ref(), reference, &mut resolved, |reason| {
                output::warn(&format!("REF {reference:?}"), &unchanged_reason(reason));
            });
            resolved.push('\n');
            out.write_all(resolved.as_bytes())?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    answer_lines(|reference, number, out| {
        answer_whatwg(base.as_ref(), reference, out, |reason| {
            warn_line(number, &unchanged(reference, reason));
        });
    })
}

/// Appends the URL Standard's answer for `reference` to `out`, or `reference` itself with
/// `warn` called with the reason. No base (an empty BASE, RFC 1808 §3.4) leaves a relative
/// reference unchanged without a warning, as the RFC modes do.
fn answer_whatwg(
    base: Option<&url::Url>,
    reference: &str,
    out: &mut String,
    warn: impl FnOnce(WhatwgError),
) {
    if let Err(reason) = whatwg::resolve_whatwg(base, reference, None, out)
        && !(base.is_none() && reason.is_relative_without_base())
    {
        warn(reason);
    }
}

/// The warning for a reference the URL Standard rejects.
fn unchanged(reference: &str, reason: WhatwgError) -> impl std::fmt::Display {
    format!("REF {reference:?} {}", unchanged_reason(reason))
}

fn unchanged_reason(reason: WhatwgError) -> impl std::fmt::Display {
    format!("left unchanged: the URL Standard rejects it ({reason})")
}

/// The BASE of the last `--pairs` line and its parse: lines from one page share a BASE.
#[derive(Default)]
struct LastBase {
    text: String,
    parsed: Option<Result<url::Url, WhatwgError>>,
}

impl LastBase {
    /// The URL record of `base` (`None` for an empty one), parsed unless it is the last.
    fn parse(&mut self, base: &str) -> Result<Option<&url::Url>, WhatwgError> {
        if base.is_empty() {
            return Ok(None);
        }
        if self.parsed.is_none() || self.text != base {
            self.text.clear();
            self.text.push_str(base);
            self.parsed = Some(whatwg::parse_base(base));
        }
        match self.parsed.as_ref() {
            Some(Ok(url)) => Ok(Some(url)),
            Some(Err(reason)) => Err(*reason),
            None => Ok(None),
        }
    }
}

/// How many bytes of answers are gathered before they are written.
const OUT_CHUNK: usize = 64 * 1024;

/// Answers each line of standard input with what `answer` appends to the output, in
/// order, one line each. Input is read in large blocks and split in place; answers are
/// appended to one buffer, written when it fills and before every read that may wait
/// (so that an interactive caller gets each answer at once). Nothing is allocated per
/// line but for a line that is not UTF-8, answered from its lossy decoding with a warning
/// naming it.
/// A read error of standard input, worded with what it is and what to do (`< /` gave only
/// "Is a directory").
fn unreadable_standard_input(error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        format!(
            "standard input: {error}: give the references as arguments after BASE, or on standard input one per line"
        ),
    )
}

fn answer_lines(mut answer: impl FnMut(&str, u64, &mut String)) -> io::Result<ExitCode> {
    let mut stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    let mut buf = vec![0u8; 256 * 1024];
    let mut out = String::with_capacity(OUT_CHUNK + 4096);
    // buf[start..filled] is the input not yet answered; buf[start..scanned] holds no
    // line ending (a long line's bytes are looked at once, not once per read).
    let (mut start, mut scanned, mut filled, mut number) = (0, 0, 0, 0);
    loop {
        while let Some(end) = memchr::memchr(b'\n', &buf[scanned..filled]).map(|at| scanned + at) {
            number += 1;
            answer_line(&buf[start..end], number, &mut answer, &mut out);
            start = end + 1;
            scanned = start;
            if out.len() >= OUT_CHUNK {
                stdout.write_all(out.as_bytes())?;
                out.clear();
            }
        }
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        out.clear();
        if start > 0 {
            buf.copy_within(start..filled, 0);
            filled -= start;
            start = 0;
        }
        scanned = filled;
        if filled == MAX_LINE {
            number += 1;
            filled = pass_long_line(&mut stdin, &mut stdout, &mut buf, number)?;
            scanned = 0;
            continue;
        }
        if filled == buf.len() {
            // A line longer than the buffer: room for more of it.
            buf.resize((buf.len() * 2).min(MAX_LINE), 0);
        }
        let read = match stdin.read(&mut buf[filled..]) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unreadable_standard_input(e)),
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

/// The longest line `resolve` answers: a longer one (a reference of over 64 MiB) is
/// copied to the output as it is, so that memory stays bounded whatever the input.
const MAX_LINE: usize = 64 << 20;

/// Line `number`, whose first [`MAX_LINE`] bytes fill `buf`: copied through to its end,
/// unresolved, with a warning; returns how many bytes after it `buf` holds (at its start).
fn pass_long_line(
    stdin: &mut impl Read,
    stdout: &mut impl Write,
    buf: &mut [u8],
    number: u64,
) -> io::Result<usize> {
    warn_line(
        number,
        &"over 64 MiB: copied as it is, not resolved (split it, or shorten the reference)",
    );
    let mut filled = buf.len();
    loop {
        if let Some(end) = memchr::memchr(b'\n', &buf[..filled]) {
            let line = &buf[..end];
            stdout.write_all(line.strip_suffix(b"\r").unwrap_or(line))?;
            stdout.write_all(b"\n")?;
            buf.copy_within(end + 1..filled, 0);
            return Ok(filled - end - 1);
        }
        stdout.write_all(&buf[..filled])?;
        filled = match stdin.read(buf) {
            Ok(0) => {
                stdout.write_all(b"\n")?;
                return Ok(0);
            }
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
            Err(e) => return Err(unreadable_standard_input(e)),
        };
    }
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
