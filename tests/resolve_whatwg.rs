//! Resolution by the URL Standard: `Standard::Whatwg` against
//! `fixtures/whatwg/references.tsv` (the URL Standard's answers, checked with Node's `URL`
//! by `tests/whatwg/node-check.mjs`), and `absolve resolve --spec whatwg`.

use crate::common::{absolve, stderr};
use absolve::Standard;
use absolve::url::whatwg::{parse_base, resolve_whatwg};
use std::path::Path;
use std::process::Command;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/whatwg/references.tsv"
);

/// One row of the fixture: its line number, base, reference and expected `href` (`None`:
/// the URL parser returns failure).
struct Row {
    line: usize,
    base: String,
    reference: String,
    expected: Option<String>,
}

/// Rows where servo's `url` crate (2.5.8) departs from the URL Standard (and Node): its
/// own `tests/expected_failures.txt` lists them (`<file:////foo>`, `<////one/two> against
/// <file:///>`, `<C|/> against <file://host/>`, `</c:/foo/bar> against <file://host/path>`):
/// an empty first path segment after an empty `file:` host is dropped, and a drive letter
/// drops the base's host; against a non-special base, a leading backslash is read as a
/// slash (the Standard's relative state treats `\` as `/` for special URLs only). Base,
/// reference, and the crate's answer; a row here whose answer changes (a fixed crate)
/// fails, to be taken off.
const URL_CRATE_DEPARTS: [(&str, &str, &str); 7] = [
    ("foo://h/a/b", r"\g", "foo://h/g"),
    ("foo://h/a/b", r"/\host/p", "foo://host/p"),
    ("", "file:////foo", "file:///foo"),
    ("file:///", "////one/two", "file:///one/two"),
    ("file://host/dir/file", "C|/x", "file:///C:/x"),
    ("file://host/path", "/c:/foo/bar", "file:///c:/foo/bar"),
    (
        "http://h/",
        r"file:\\\\server\share",
        "file:///server/share",
    ),
];

impl Row {
    /// What absolve answers: the expected `href`, or the `url` crate's where it departs.
    fn answer(&self) -> Option<&str> {
        let departs = URL_CRATE_DEPARTS
            .iter()
            .find(|(base, reference, _)| *base == self.base && *reference == self.reference);
        match departs {
            Some((_, _, answer)) => Some(answer),
            None => self.expected.as_deref(),
        }
    }
}

/// `\t`, `\n`, `\r`, `\\` and `\uXXXX` in a field, as `node-check.mjs` writes them.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = u32::from_str_radix(&hex, 16).expect("\\uXXXX");
                out.push(char::from_u32(code).expect("a scalar value"));
            }
            other => panic!("unknown escape \\{other:?} in {field:?}"),
        }
    }
    out
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let rows: Vec<Row> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(index, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "line {}: {line:?}", index + 1);
            let expected = unescape(fields[2]);
            Row {
                line: index + 1,
                base: unescape(fields[0]),
                reference: unescape(fields[1]),
                expected: (expected != "failure").then_some(expected),
            }
        })
        .collect();
    assert!(rows.len() > 150, "{} rows", rows.len());
    rows
}

#[test]
fn every_fixture_row_resolves_as_the_url_standard_says() {
    let mut wrong = Vec::new();
    for row in rows() {
        let base = (!row.base.is_empty()).then(|| parse_base(&row.base).expect("a base"));
        let mut out = String::new();
        let result = resolve_whatwg(base.as_ref(), &row.reference, None, &mut out);
        let got = result.map(|()| out.clone()).ok();
        if got.as_deref() != row.answer() {
            wrong.push(format!(
                "line {}: {:?} against {:?}: expected {:?}, got {got:?}",
                row.line,
                row.reference,
                row.base,
                row.answer()
            ));
        }
        if got.is_none() {
            assert_eq!(
                out, row.reference,
                "line {}: a failure is left as is",
                row.line
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every departure listed is a row of the fixture, where Node's answer differs.
#[test]
fn the_url_crate_s_departures_are_fixture_rows() {
    let rows = rows();
    for (base, reference, answer) in URL_CRATE_DEPARTS {
        let row = rows
            .iter()
            .find(|row| row.base == base && row.reference == reference)
            .unwrap_or_else(|| panic!("{reference:?} against {base:?} is not in the fixture"));
        assert_ne!(row.expected.as_deref(), Some(answer));
    }
}

/// `resolve_into(Standard::Whatwg, ...)`, the entry every RFC call site already uses,
/// gives the same answers (a failure: the reference unchanged).
#[test]
fn resolve_with_whatwg_gives_the_fixture_answers() {
    for row in rows() {
        let got = absolve::url::resolve_with(Standard::Whatwg, &row.base, &row.reference);
        let expected = row.answer().unwrap_or(&row.reference);
        assert_eq!(got, expected, "line {}", row.line);
    }
}

/// `resolve --pairs --spec whatwg` answers the fixture's rows (those that fit on a line)
/// with the expected column, and warns about each failure by its line.
#[test]
fn resolve_pairs_answers_the_fixture() {
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|row| !row.reference.contains(['\t', '\n', '\r']) && !row.base.is_empty())
        .collect();
    let input: String = rows
        .iter()
        .map(|row| format!("{}\t{}\n", row.base, row.reference))
        .collect();
    let out = absolve(
        &["resolve", "--pairs", "--spec", "whatwg"],
        input.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let answers: Vec<&str> = stdout.lines().collect();
    assert_eq!(answers.len(), rows.len());
    let warnings = stderr(&out);
    for (number, (row, answer)) in rows.iter().zip(&answers).enumerate() {
        let expected = row.answer().unwrap_or(&row.reference);
        assert_eq!(*answer, expected, "fixture line {}", row.line);
        let named = warnings.contains(&format!("standard input, line {}: ", number + 1));
        assert_eq!(named, row.answer().is_none(), "fixture line {}", row.line);
    }
}

#[test]
fn resolve_args_echo_a_rejected_reference_and_name_it() {
    let out = absolve(
        &[
            "resolve",
            "--spec",
            "whatwg",
            "http://ipf.example.cn/?p=1",
            "../upload/x.jpg",
            "http://[::1",
            "//i0.wp.com",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        b"http://ipf.example.cn/upload/x.jpg\nhttp://[::1\nhttp://i0.wp.com/\n"
    );
    assert_eq!(
        stderr(&out),
        "absolve: warning: REF \"http://[::1\": left unchanged: the URL Standard rejects it (invalid IPv6 address)\n"
    );
}

#[test]
fn resolve_stdin_names_the_line_of_a_rejected_reference() {
    let out = absolve(
        &["resolve", "--spec", "WhatWG", "http://h/a/"],
        b"b c\nhttps://exa%mple/\n",
    );
    assert_eq!(out.stdout, b"http://h/a/b%20c\nhttps://exa%mple/\n");
    assert!(
        stderr(&out).contains("standard input, line 2: REF \"https://exa%mple/\" left unchanged"),
        "{}",
        stderr(&out)
    );
}

/// `links --spec whatwg --url U` where the Standard rejects U: a usage error, as `resolve`'s
/// BASE (it was taken, named as every link's base, and resolved nothing).
#[test]
fn a_url_flag_the_url_standard_rejects_is_a_usage_error() {
    for url in ["http://a:99999/", "http://1.2.3.256/", "http://[::1"] {
        for command in ["links", "rewrite"] {
            let out = absolve(&[command, "--spec", "whatwg", "--url", url], b"<a href=g>");
            assert_eq!(out.status.code(), Some(2), "{command} {url}");
            assert!(out.stdout.is_empty());
            assert!(
                stderr(&out).contains(&format!(
                    "--url: {url:?} does not parse by the URL Standard"
                )),
                "{}",
                stderr(&out)
            );
        }
        let rfc = absolve(&["links", "--url", url], b"<a href=g>");
        assert!(rfc.status.success(), "{}", stderr(&rfc));
    }
}

#[test]
fn a_base_the_url_standard_rejects_is_a_usage_error() {
    let out = absolve(&["resolve", "--spec", "whatwg", "http://a b/", "g"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("BASE \"http://a b/\" does not parse by the URL Standard"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_empty_base_parses_absolute_references_and_leaves_relative_ones_quietly() {
    let out = absolve(
        &["resolve", "--spec", "whatwg", "", "g", "HTTP://X:80"],
        b"",
    );
    assert_eq!(out.stdout, b"g\nhttp://x/\n");
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn spec_and_rfc_spellings() {
    for args in [
        ["--spec", "rfc3986"],
        ["--spec", "RFC3986"],
        ["--spec", "3986"],
        ["--rfc", "3986"],
    ] {
        let out = absolve(
            &["resolve", args[0], args[1], "http://a/b/c", "../../../g"],
            b"",
        );
        assert_eq!(out.stdout, b"http://a/g\n", "{args:?}");
    }
    let both = absolve(
        &[
            "resolve",
            "--spec",
            "whatwg",
            "--rfc",
            "1808",
            "http://a/",
            "g",
        ],
        b"",
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
    let rfc_whatwg = absolve(&["resolve", "--rfc", "whatwg", "http://a/", "g"], b"");
    assert_eq!(rfc_whatwg.status.code(), Some(2));
}

/// The fixture's expected column is Node's: run the check when Node is here.
#[test]
fn node_agrees_with_the_fixture() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/whatwg/node-check.mjs");
    let run = match Command::new("node").arg(&script).arg(FIXTURE).output() {
        Ok(run) => run,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "skipped: `node` is not on PATH, so {} was not run",
                script.display()
            );
            return;
        }
        Err(error) => panic!("node: {error}"),
    };
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("0 differ"));
}

/// The URL Standard's serializations are absolute and stable: resolving one again, against
/// any base, gives it back (the "URL serializer" round trip of
/// https://url.spec.whatwg.org/#url-serializing).
#[test]
fn an_href_resolves_to_itself() {
    let other = parse_base("https://other.example/x/y?z#w").unwrap();
    let mut checked = 0;
    for row in rows() {
        let Some(href) = row.answer() else { continue };
        let mut out = String::new();
        resolve_whatwg(Some(&other), href, None, &mut out).unwrap();
        assert_eq!(out, href, "line {}", row.line);
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}
