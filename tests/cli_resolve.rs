//! `absolve resolve`: the command-line contract of issue 2.

mod common;

use common::absolve;

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
fn a_bad_flag_is_a_one_line_error_and_a_failure() {
    let out = absolve(&["resolve", "--rfc", "2396", "http://a/", "g"], b"");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("2396"), "{stderr}");
}

#[test]
fn invalid_utf8_input_names_the_line() {
    let out = absolve(&["resolve", "http://a/"], b"g\n\xff\n");
    assert!(!out.status.success());
    assert_eq!(out.stdout, b"http://a/g\n");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("line 2"), "{stderr}");
}
