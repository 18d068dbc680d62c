//! RFC 3986 §5.2 strict resolution, for callers who need the successor standard's answers.
//!
//! Components are split as RFC 3986 §3 (and the regular expression of its Appendix B) does,
//! except that a scheme must follow the grammar of §3.1 (a letter, then letters, digits,
//! `+`, `-`, `.`). A component that is defined but empty is kept (`g?` keeps its `?`), the
//! dot segments are removed by §5.2.4 and the result is recomposed by §5.3.

use super::parse::span;
use super::segments::{Segments, last_segment_start};
use std::ops::Range;

/// A URI reference split into the five components of RFC 3986 §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reference<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> Reference<'a> {
    /// Splits `s` into its components (RFC 3986 §3, Appendix B).
    fn parse(s: &'a str) -> Self {
        let (s, fragment) = split_off(s, b'#');
        let (scheme, s) = match scheme_len(s) {
            Some(n) => (Some(&s[..n]), &s[n + 1..]),
            None => (None, s),
        };
        let (s, query) = split_off(s, b'?');
        let (authority, path) = match s.strip_prefix("//") {
            Some(after) => {
                let end = memchr::memchr(b'/', after.as_bytes()).unwrap_or(after.len());
                (Some(&after[..end]), &after[end..])
            }
            None => (None, s),
        };
        Reference {
            scheme,
            authority,
            path,
            query,
            fragment,
        }
    }
}

/// Where each component of a base lies in its string: the base split once (§3) and read
/// back for every reference resolved against it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Spans {
    scheme: Option<Range<usize>>,
    authority: Option<Range<usize>>,
    path: Range<usize>,
    query: Option<Range<usize>>,
    fragment: Option<Range<usize>>,
}

impl Spans {
    /// The spans of `input` split by §3.
    pub(crate) fn of(input: &str) -> Spans {
        let r = Reference::parse(input);
        let at = |part: &str| span(input, part);
        Spans {
            scheme: r.scheme.map(at),
            authority: r.authority.map(at),
            path: at(r.path),
            query: r.query.map(at),
            fragment: r.fragment.map(at),
        }
    }

    /// The reference of `input`, the string these spans were made from.
    fn reference<'a>(&self, input: &'a str) -> Reference<'a> {
        let part = |range: &Range<usize>| &input[range.clone()];
        Reference {
            scheme: self.scheme.as_ref().map(part),
            authority: self.authority.as_ref().map(part),
            path: part(&self.path),
            query: self.query.as_ref().map(part),
            fragment: self.fragment.as_ref().map(part),
        }
    }
}

/// Splits at the first `delimiter`; what follows it is defined even when empty.
fn split_off(s: &str, delimiter: u8) -> (&str, Option<&str>) {
    match memchr::memchr(delimiter, s.as_bytes()) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// Whether `s` starts with a scheme by RFC 3986 §3.1 (a letter first: `9p:x` has none,
/// as RFC 1808 reads it).
pub(crate) fn has_scheme(s: &str) -> bool {
    scheme_len(s).is_some()
}

/// RFC 3986 §3.1: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, then `:`.
fn scheme_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (bytes[n] == b':').then_some(n)
}

/// Resolves `reference` against `base` by RFC 3986 §5.2.2 (strict) and appends the §5.3
/// recomposition to `out`. An empty base leaves the reference unchanged (RFC 1808 §3.4).
pub(crate) fn resolve_into(base: &str, reference: &str, out: &mut String) {
    resolve_into_split(base, || Reference::parse(base), reference, out);
}

/// [`resolve_into`] against a base already split: `spans` are `base`'s ([`Spans::of`]).
pub(crate) fn resolve_into_spans(base: &str, spans: &Spans, reference: &str, out: &mut String) {
    resolve_into_split(base, || spans.reference(base), reference, out);
}

/// [`resolve_into`] with the base's split given by `split_base` (called once, when needed).
fn resolve_into_split<'b>(
    base: &'b str,
    split_base: impl FnOnce() -> Reference<'b>,
    reference: &str,
    out: &mut String,
) {
    if base.is_empty() {
        out.push_str(reference);
        return;
    }
    let r = Reference::parse(reference);
    let b = split_base();
    let (scheme, authority) = match (r.scheme, r.authority) {
        (Some(_), _) => (r.scheme, r.authority),
        (None, Some(_)) => (b.scheme, r.authority),
        (None, None) => (b.scheme, b.authority),
    };
    super::parse::write_prefix(out, scheme, authority);
    let query = if r.scheme.is_some() || r.authority.is_some() || r.path.starts_with('/') {
        remove_dot_segments_of(out, r.path);
        r.query
    } else if r.path.is_empty() {
        out.push_str(b.path);
        r.query.or(b.query)
    } else {
        merge_and_remove_dot_segments(out, &b, r.path);
        r.query
    };
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = r.fragment {
        out.push('#');
        out.push_str(fragment);
    }
}

/// §5.2.3 merge, then §5.2.4: the base path up to its last slash (or `/` when the base has
/// an authority and an empty path) followed by the reference path.
fn merge_and_remove_dot_segments(out: &mut String, base: &Reference<'_>, path: &str) {
    if base.authority.is_some() && base.path.is_empty() {
        remove_dot_segments(out, true, Segments::merged("", path));
        return;
    }
    let directory = &base.path[..last_segment_start(base.path)];
    match directory.strip_prefix('/') {
        Some(directory) => remove_dot_segments(out, true, Segments::merged(directory, path)),
        None => remove_dot_segments(out, false, Segments::merged(directory, path)),
    }
}

/// §5.2.4 on a single path.
fn remove_dot_segments_of(out: &mut String, path: &str) {
    match path.strip_prefix('/') {
        Some(rest) => remove_dot_segments(out, true, Segments::merged("", rest)),
        None => remove_dot_segments(out, false, Segments::merged("", path)),
    }
}

/// §5.2.4 remove_dot_segments, segment by segment, appending the output buffer to `out`.
///
/// The input buffer always starts with `/` after its first segment has moved (rule E), so
/// every written unit but a relative path's first is `/segment`:
/// - A, D: in a relative path, `.` and `..` before the first other segment are dropped;
/// - B: `/.` is dropped, and a last one leaves a `/`;
/// - C: `/..` removes the last unit written (and its slash), and a last one leaves a `/`;
/// - E: any other segment is moved to the output with the slash before it.
fn remove_dot_segments(out: &mut String, absolute: bool, segments: Segments<'_>) {
    let path_start = out.len();
    let mut started = absolute;
    for (segment, is_last) in segments {
        match (segment, started) {
            ("." | "..", false) => {}
            (".", true) => {
                if is_last {
                    out.push('/');
                }
            }
            ("..", true) => {
                let unit_start = path_start + last_slash(&out[path_start..]).unwrap_or(0);
                out.truncate(unit_start);
                if is_last {
                    out.push('/');
                }
            }
            (_, _) => {
                if started {
                    out.push('/');
                }
                out.push_str(segment);
                started = true;
            }
        }
    }
}

/// The index of the last `/` in `s`.
fn last_slash(s: &str) -> Option<usize> {
    memchr::memrchr(b'/', s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(base: &str, reference: &str) -> String {
        let mut out = String::new();
        resolve_into(base, reference, &mut out);
        out
    }

    /// RFC 3986 §5.4.1 and §5.4.2, every example.
    #[test]
    fn rfc3986_section_5_4_examples() {
        let base = "http://a/b/c/d;p?q";
        let examples = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"),
            ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ];
        for (reference, expected) in examples {
            assert_eq!(
                resolve(base, reference),
                expected,
                "reference {reference:?}"
            );
        }
    }

    #[test]
    fn defined_but_empty_components_are_kept() {
        assert_eq!(resolve("http://a/b", "g?"), "http://a/g?");
        assert_eq!(resolve("http://a/b", "g#"), "http://a/g#");
        assert_eq!(resolve("http://a/b?q", "#"), "http://a/b?q#");
    }

    #[test]
    fn remove_dot_segments_section_5_2_4_walkthroughs() {
        let rds = |p: &str| {
            let mut out = String::new();
            remove_dot_segments_of(&mut out, p);
            out
        };
        assert_eq!(rds("/a/b/c/./../../g"), "/a/g");
        assert_eq!(rds("mid/content=5/../6"), "mid/6");
        assert_eq!(rds("a/../b"), "/b");
        assert_eq!(rds("../a"), "a");
        assert_eq!(rds(".."), "");
        assert_eq!(rds("/.."), "/");
    }

    #[test]
    fn authority_with_empty_base_path_merges_under_a_slash() {
        assert_eq!(resolve("http://a", "g"), "http://a/g");
        assert_eq!(resolve("http://a?x", "?y"), "http://a?y");
    }

    #[test]
    fn scheme_must_start_with_a_letter() {
        assert_eq!(Reference::parse("1a:b").scheme, None);
        assert_eq!(Reference::parse("a1:b").scheme, Some("a1"));
    }
}
