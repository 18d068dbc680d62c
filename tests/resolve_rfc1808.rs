//! RFC 1808 §5: every normal and abnormal example, and the project's decisions (§4 where
//! the RFC leaves room), through the library's one-call `resolve`.

use absolve::resolve;

const BASE: &str = "http://a/b/c/d;p?q#f";

/// RFC 1808 §5.1 (24 normal examples) and §5.2 (15 abnormal examples).
const EXAMPLES: [(&str, &str); 39] = [
    ("g:h", "g:h"),
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/d;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../", "http://a/b/"),
    ("../g", "http://a/b/g"),
    ("../..", "http://a/"),
    ("../../", "http://a/"),
    ("../../g", "http://a/g"),
    ("", "http://a/b/c/d;p?q#f"),
    ("../../../g", "http://a/../g"),
    ("../../../../g", "http://a/../../g"),
    ("/./g", "http://a/./g"),
    ("/../g", "http://a/../g"),
    ("g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"),
    ("http:g", "http:g"),
    ("http:", "http:"),
];

#[test]
fn every_section_5_example() {
    for (reference, expected) in EXAMPLES {
        assert_eq!(
            resolve(BASE, reference),
            expected,
            "reference {reference:?}"
        );
    }
}

/// The same examples read out of the RFC's own text, so that a typo in the table above
/// cannot hide a wrong answer.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared not found (it holds rfc1808.txt; the shared data is optional)"
)]
fn every_section_5_example_as_printed_in_the_rfc() {
    let Ok(text) = std::fs::read_to_string("../shared/rfc1808.txt") else {
        panic!("../shared is present but this input of it is missing");
    };
    let start = text.find("5.1.  Normal Examples").expect("section 5.1");
    let end = text
        .find("5.3.  Recommended Practice")
        .expect("section 5.3");
    let mut seen = 0;
    for line in text[start..end].lines() {
        let Some((reference, rest)) = line.trim().split_once('=') else {
            continue;
        };
        let Some(expected) = rest
            .trim()
            .strip_prefix("<URL:")
            .and_then(|r| r.strip_suffix('>'))
        else {
            continue;
        };
        let reference = match reference.trim() {
            "<>" => "",
            other => other,
        };
        assert_eq!(
            resolve(BASE, reference),
            expected,
            "reference {reference:?}"
        );
        seen += 1;
    }
    assert_eq!(seen, 39, "examples found in RFC 1808 §5");
}

#[test]
fn decision_1_an_empty_component_is_absent() {
    assert_eq!(resolve(BASE, "?"), "http://a/b/c/d;p?q");
    assert_eq!(resolve(BASE, "g?"), "http://a/b/c/g");
    assert_eq!(resolve(BASE, ";"), "http://a/b/c/d;p?q");
    assert_eq!(resolve(BASE, "g;"), "http://a/b/c/g");
    assert_eq!(resolve(BASE, "g#"), "http://a/b/c/g");
}

#[test]
fn decision_2_an_empty_net_loc_inherits_and_is_remembered() {
    assert_eq!(resolve(BASE, "///g"), "http://a/g");
    assert_eq!(resolve("file:///x/y", "z"), "file:///x/z");
    assert_eq!(resolve("file:///x/y", "/z"), "file:///z");
    assert_eq!(resolve("file:///x/y", "?q"), "file:///x/y?q");
}

#[test]
fn decision_3_only_the_empty_string_is_entirely_empty() {
    assert_eq!(resolve(BASE, "#"), "http://a/b/c/d;p?q");
}

#[test]
fn decision_4_a_reference_with_a_scheme_is_returned_byte_for_byte() {
    for reference in [
        "HTTP://A/./b/../c",
        "mailto:x",
        "javascript:a(1)",
        "g:",
        "x+y-z.w:/../",
    ] {
        assert_eq!(resolve(BASE, reference), reference);
    }
}

#[test]
fn decision_5_leading_slash_after_step_6_and_concatenation_in_step_5() {
    assert_eq!(resolve("http://a", "g"), "http://a/g");
    assert_eq!(resolve("http://a", "?y"), "http://a?y");
    assert_eq!(resolve("http://a", ";x"), "http://a;x");
    assert_eq!(resolve("foo:bar", "baz"), "foo:baz");
    assert_eq!(resolve("foo:/bar", "baz"), "foo:/baz");
}

#[test]
fn decision_6_the_empty_string_is_a_complete_segment() {
    assert_eq!(resolve(BASE, "g//../h"), "http://a/b/c/g/h");
    assert_eq!(resolve(BASE, "g//.."), "http://a/b/c/g/");
}

#[test]
fn decision_7_scheme_characters_and_case() {
    assert_eq!(resolve(BASE, "9p:x"), "9p:x");
    assert_eq!(resolve(BASE, "a_b:x"), "http://a/b/c/a_b:x");
    assert_eq!(resolve(BASE, ":x"), "http://a/b/c/:x");
    assert_eq!(resolve("HTTP://A/b", "c"), "HTTP://A/c");
}

#[test]
fn decision_8_nothing_is_stripped_decoded_or_validated() {
    assert_eq!(resolve(BASE, " g "), "http://a/b/c/ g ");
    assert_eq!(resolve(BASE, "%2e%2e/g"), "http://a/b/c/%2e%2e/g");
    assert_eq!(resolve(BASE, "é/ü"), "http://a/b/c/é/ü");
}

#[test]
fn section_3_4_an_empty_base_leaves_references_unchanged() {
    for (reference, _) in EXAMPLES {
        assert_eq!(resolve("", reference), reference);
    }
}

#[test]
fn net_loc_holds_what_precedes_the_next_slash() {
    // §2.4.3 runs before §2.4.4: `?` inside the net_loc is part of it (§2.2 allows it).
    assert_eq!(resolve("http://h?x", "g"), "http://h?x/g");
    assert_eq!(resolve(BASE, "//g?y"), "http://g?y");
}

#[test]
fn step_6_dot_segments_in_the_base_path_are_removed_too() {
    assert_eq!(resolve("http://a/b/./c/d", "g"), "http://a/b/c/g");
    assert_eq!(resolve("http://a/b/../c/d", "g"), "http://a/c/g");
}
