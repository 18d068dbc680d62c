//! Path segments: the pieces of a path between slashes (RFC 1808 §4 step 6, RFC 3986
//! §5.2.3-§5.2.4). Shared by both resolution modes.

/// The index just after the last `/` of `path`, or 0: where its last segment starts.
/// RFC 1808 §4 step 6: "anything following the rightmost slash, or the entire path".
pub(crate) fn last_segment_start(path: &str) -> usize {
    memchr::memrchr(b'/', path.as_bytes()).map_or(0, |i| i + 1)
}

/// The segments of a merged path, each with whether it is the last one: the base path up
/// to and including its last slash, followed by the reference path, without building the
/// merged string.
pub(crate) struct Segments<'a> {
    directory: Option<&'a str>,
    path: Option<&'a str>,
}

impl<'a> Segments<'a> {
    /// The segments of `directory` (empty, or ending with `/`) followed by `path`.
    pub(crate) fn merged(directory: &'a str, path: &'a str) -> Self {
        Segments {
            directory: directory.strip_suffix('/'),
            path: Some(path),
        }
    }
}

impl<'a> Iterator for Segments<'a> {
    type Item = (&'a str, bool);

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(directory) = self.directory {
            let (segment, rest) = split_segment(directory);
            self.directory = rest;
            return Some((segment, false));
        }
        let (segment, rest) = split_segment(self.path?);
        self.path = rest;
        Some((segment, rest.is_none()))
    }
}

/// The first segment of `s` and what follows its slash, if there is a slash.
fn split_segment(s: &str) -> (&str, Option<&str>) {
    match memchr::memchr(b'/', s.as_bytes()) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_segments_mark_only_the_last() {
        let got: Vec<_> = Segments::merged("b/c/", "g/h").collect();
        assert_eq!(got, [("b", false), ("c", false), ("g", false), ("h", true)]);
    }

    #[test]
    fn empty_segments_are_segments() {
        let got: Vec<_> = Segments::merged("", "g//h/").collect();
        assert_eq!(got, [("g", false), ("", false), ("h", false), ("", true)]);
    }

    #[test]
    fn last_segment_starts_after_the_rightmost_slash() {
        assert_eq!(last_segment_start("b/c/d"), 4);
        assert_eq!(last_segment_start("d"), 0);
        assert_eq!(last_segment_start("b/"), 2);
    }
}
