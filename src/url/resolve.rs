//! RFC 1808 §4: resolving an embedded (relative) URL against a base URL.
//!
//! Each step of §4 is a function or a commented branch below. The result is written into
//! one `String`; nothing else is allocated. Step 6 is done, as the RFC suggests, as a
//! segment stack: the merged path is walked segment by segment and written straight into
//! the result, a `..` popping the segment written before it.

use super::parse::{Url, write_prefix, write_suffix};
use super::segments::{Segments, last_segment_start};

/// Resolves `reference` against `base_str` by RFC 1808 §4 and appends the result to `out`.
/// The base is parsed only once steps 1 to 2b have not already settled the answer.
pub(crate) fn resolve_into(base_str: &str, reference: &str, out: &mut String) {
    resolve_into_parsed(base_str, || Url::parse(base_str), reference, out);
}

/// [`resolve_into`] with the base's parse given by `parsed_base` (called at most once, when
/// the base is needed): a caller holding the base already parsed ([`Spans`](super::parse::Spans)) reads
/// it back instead of parsing it again.
pub(crate) fn resolve_into_parsed<'b>(
    base_str: &'b str,
    parsed_base: impl FnOnce() -> Url<'b>,
    reference: &str,
    out: &mut String,
) {
    // Step 1: an empty (unknown) base leaves the embedded URL as it is (§3.4).
    // Step 2a: an entirely empty embedded URL is the base URL (only "": url module docs,
    // "Only the empty string is entirely empty").
    if base_str.is_empty() || reference.is_empty() {
        out.push_str(if base_str.is_empty() {
            reference
        } else {
            base_str
        });
        return;
    }
    let embedded = Url::parse(reference);
    // Step 2b: an embedded URL with a scheme is absolute, byte for byte (url module docs,
    // "A reference with a scheme is returned byte for byte").
    if embedded.scheme.is_some() {
        out.push_str(reference);
        return;
    }
    // Step 2c: it inherits the scheme of the base.
    let base = &parsed_base();
    let scheme = base.scheme;
    // Step 3: a non-empty net_loc skips to step 7; otherwise the base's is inherited,
    // including a base's empty `//` (url module docs, "An empty net_loc is inherited and
    // remembered").
    if let Some(net_loc) = embedded.net_loc.filter(|n| !n.is_empty()) {
        write_prefix(out, scheme, Some(net_loc));
        write_path_and_suffix(out, &embedded);
        return;
    }
    write_prefix(out, scheme, base.net_loc);
    // Step 4: a path preceded by a slash is not relative: skip to step 7.
    if embedded.has_root {
        write_path_and_suffix(out, &embedded);
    } else if embedded.path.is_empty() {
        inherit_path(out, base, &embedded);
    } else {
        merge_path(out, base, &embedded);
    }
}

/// Step 5: an empty path (not preceded by a slash) inherits the base path, then the base
/// params unless the embedded URL has its own, then the base query likewise.
/// The result is plain concatenation (see [url](crate::url#step-5-is-plain-concatenation)).
fn inherit_path(out: &mut String, base: &Url<'_>, embedded: &Url<'_>) {
    if base.has_root {
        out.push('/');
    }
    out.push_str(base.path);
    let (params, query) = match (embedded.params, embedded.query) {
        // 5a: non-empty params skip to step 7, inheriting nothing more.
        (Some(params), query) => (Some(params), query),
        // 5b: inherit the base params; a non-empty query skips to step 7.
        (None, Some(query)) => (base.params, Some(query)),
        (None, None) => (base.params, base.query),
    };
    write_suffix(out, params, query, embedded.fragment);
}

/// Step 6: the last segment of the base path is replaced by the embedded path, and the
/// dot segments are removed by 6a to 6d. The path keeps a leading slash when the base path
/// had one or the base has a net_loc (see
/// [url](crate::url#the-path-after-step-6-starts-with-a-slash)).
fn merge_path(out: &mut String, base: &Url<'_>, embedded: &Url<'_>) {
    if base.has_root || base.net_loc.is_some() {
        out.push('/');
    }
    let directory = &base.path[..last_segment_start(base.path)];
    remove_dot_segments(out, Segments::merged(directory, embedded.path));
    write_suffix(out, embedded.params, embedded.query, embedded.fragment);
}

/// Step 7 for steps 3 and 4: the embedded URL's own path, params, query and fragment.
fn write_path_and_suffix(out: &mut String, embedded: &Url<'_>) {
    if embedded.has_root {
        out.push('/');
    }
    out.push_str(embedded.path);
    write_suffix(out, embedded.params, embedded.query, embedded.fragment);
}

/// Steps 6a to 6d over the merged path, appending the result to `out`.
///
/// Every segment is complete (a segment is delimited by `/` or an end of the path), and the
/// empty string is a segment like any other (see
/// [url](crate::url#the-empty-string-is-a-complete-segment)). The written path is a stack of
/// `segment/` units; the last segment is written without its slash.
/// - 6a: a `.` that is not the last segment is dropped.
/// - 6b: a last `.` is dropped (the path then ends with `/`).
/// - 6c: a `..` that is not last pops the unit before it when that unit is not `..`;
///   applied left to right this gives the RFC's iterative leftmost removal.
/// - 6d: a last `..` does the same once, leaving the path ending with `/`.
fn remove_dot_segments(out: &mut String, segments: Segments<'_>) {
    let path_start = out.len();
    for (segment, is_last) in segments {
        match segment {
            "." => {}
            ".." if pop_segment(out, path_start) => {}
            _ => {
                out.push_str(segment);
                if !is_last {
                    out.push('/');
                }
            }
        }
    }
}

/// Steps 6c and 6d: removes the last written `segment/` unit if there is one and it is not
/// `..`. Returns whether a unit was removed.
fn pop_segment(out: &mut String, path_start: usize) -> bool {
    let written = &out[path_start..];
    let Some(unit) = written.strip_suffix('/') else {
        return false;
    };
    let unit_start = path_start + last_segment_start(unit);
    if &out[unit_start..out.len() - 1] == ".." {
        return false;
    }
    out.truncate(unit_start);
    true
}
