//! `absolve resolve` on the command line: references as arguments, from standard input
//! and as base-tab-reference pairs, and its usage errors; a line over 64 MiB is copied
//! as it is.

use crate::common::{absolve, absolve_piped};

#[test]
fn each_reference_on_a_line_of_its_own_in_order() {
    let out = absolve(
        &[
            "resolve",
            "http://a/b/c/d;p?q#f",
            "--",
            "g",
            "",
            "../..",
            "-x",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "http://a/b/c/g\nhttp://a/b/c/d;p?q#f\nhttp://a/\nhttp://a/b/c/-x\n"
    );
}

#[test]
fn references_from_standard_input_keep_everything_but_the_line_ending() {
    let out = absolve(&["resolve", "http://a/b/c"], b"g\r\n g \n\n../x");
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        b"http://a/b/g\nhttp://a/b/ g \nhttp://a/b/c\nhttp://a/x\n"
    );
}

/// Everything after BASE is a reference, the first one too: `resolve http://a/b -h` printed
/// the help and resolved nothing.
#[test]
fn references_spelled_like_flags_are_references() {
    let out = absolve(
        &[
            "resolve",
            "http://a/b",
            "-h",
            "-V",
            "--pairs",
            "--spec",
            "x",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "http://a/-h\nhttp://a/-V\nhttp://a/--pairs\nhttp://a/--spec\nhttp://a/x\n"
    );
    let help = absolve(&["resolve", "--spec", "whatwg", "-h"], b"");
    assert!(help.status.success());
    assert!(
        String::from_utf8(help.stdout)
            .unwrap()
            .contains("Usage: absolve resolve")
    );
}

#[test]
fn rfc3986_mode() {
    let out = absolve(
        &[
            "resolve",
            "--rfc",
            "3986",
            "http://a/b/c/d;p?q",
            "../../../g",
            "g?",
        ],
        b"",
    );
    assert_eq!(out.stdout, b"http://a/g\nhttp://a/b/c/g?\n");
}

#[test]
fn an_empty_base_returns_references_unchanged() {
    let out = absolve(&["resolve", "", "../g", "#s"], b"");
    assert_eq!(out.stdout, b"../g\n#s\n");
}

#[test]
fn a_bad_flag_is_a_usage_error_with_clap_s_whole_message() {
    let out = absolve(&["resolve", "--rfc", "2396", "http://a/", "g"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("2396"), "{stderr}");
    assert!(stderr.contains("expected 1808 or 3986"), "{stderr}");
    assert!(
        stderr.contains("For more information, try '--help'."),
        "{stderr}"
    );
}

/// Every line is answered, in order; a line that is not UTF-8 is
/// answered from its lossy decoding, with a warning naming its number.
#[test]
fn every_line_is_answered_and_a_non_utf8_one_is_named() {
    let out = absolve(
        &["resolve", "http://a/"],
        b"g
\xff\xfex
h
\xc3\n",
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "http://a/g\nhttp://a/\u{FFFD}\u{FFFD}x\nhttp://a/h\nhttp://a/\u{FFFD}\n"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("standard input, line 2: not valid UTF-8"),
        "{stderr}"
    );
    assert!(
        stderr.contains("standard input, line 4: not valid UTF-8"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
}

#[test]
fn a_base_without_scheme_is_a_usage_error() {
    let out = absolve(&["resolve", "example.com/a/b", "c"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("example.com/a/b")
    );
}

#[test]
fn a_missing_base_names_it() {
    let out = absolve(&["resolve"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("<BASE>"), "{stderr}");
}

#[test]
fn pairs_answer_each_base_tab_reference_line() {
    let input = b"http://a/b/c/d;p?q\tg\nhttp://a/b/c/d;p?q\t../..\r\nhttp://x/y/\t\tz\n\t../g\nno tab\nrelative/base\tg\nhttp://a/\t\xff\n";
    let out = absolve(&["resolve", "--pairs"], input);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "http://a/b/c/g\nhttp://a/\nhttp://x/y/\tz\n../g\nno tab\ng\nhttp://a/\u{FFFD}\n"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("line 6: BASE \"relative/base\" has no scheme"),
        "{stderr}"
    );
    assert!(stderr.contains("line 7: not valid UTF-8"), "{stderr}");
    let rfc3986 = absolve(
        &["resolve", "--pairs", "--rfc", "3986"],
        b"http://a/b/c/d;p?q\t../../../g\n",
    );
    assert_eq!(rfc3986.stdout, b"http://a/g\n");
}

#[test]
fn pairs_take_no_base_argument() {
    let out = absolve(&["resolve", "--pairs", "http://a/"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--pairs"));
}

/// A line over 64 MiB (a reference no one writes, or input that is not references) is
/// copied as it is, with a warning naming it, and the lines after it are answered: the
/// command held the whole line, and its answer, in memory (3.5x its length).
#[test]
fn a_line_over_64_mib_is_copied_as_it_is() {
    let mut input = b"g\r\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', (64 << 20) + 1000));
    input.extend_from_slice(b"\r\nh\n");
    input.extend(std::iter::repeat_n(b'b', (64 << 20) + 10));
    let out = absolve_piped(&["resolve", "http://x/"], &input);
    assert!(out.status.success());
    let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0], b"http://x/g");
    assert_eq!(lines[1].len(), (64 << 20) + 1000);
    assert!(lines[1].iter().all(|&b| b == b'a'));
    assert_eq!(lines[2], b"http://x/h");
    assert_eq!(lines[3].len(), (64 << 20) + 10);
    assert_eq!(lines[4], b"");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("standard input, line 2: over 64 MiB: copied as it is"),
        "{stderr}"
    );
    assert!(
        stderr.contains("standard input, line 4: over 64 MiB"),
        "{stderr}"
    );
}
