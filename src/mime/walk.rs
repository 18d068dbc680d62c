//! The walk over the entities of a message, one at a time, in order: each leaf is handed
//! over as soon as it is found, so nothing of the message's structure is kept beyond the
//! open multiparts above the current entity (at most [`MAX_DEPTH`] of them).
//!
//! Headings are parsed by mailparse ([`mailparse::parse_headers`],
//! [`mailparse::parse_content_type`]); a multipart body is cut into its parts as
//! mailparse's `parse_mail` cuts it, but for delimiter lines, which must hold the boundary
//! whole (RFC 2046 §5.1.1: a delimiter line is `--boundary`, optional white space and the
//! line's end; the CRLF before it belongs to it, `--boundary--` closes), without
//! building its parse tree, which for a message of many small parts weighs many times the
//! message. Nesting is walked with an explicit stack, never recursion: no input can
//! overflow the call stack, and the work is linear in the input times the depth limit.

use super::headers;
use super::transfer::TransferEncoding;
use super::{Part, Warning};
use crate::base::Base;
use crate::url::Standard;
use mailparse::{MailHeader, MailHeaderMap, ParsedContentType};
use std::collections::BTreeMap;
use std::ops::Range;

/// How deeply entities may nest (multiparts and encapsulated messages together, as
/// mailparse limits its multipart recursion to 100 levels). An entity deeper than that is
/// passed through unchanged, with a warning.
pub const MAX_DEPTH: usize = 100;

/// What the walk reports: each leaf part, in order, and each warning, where it arises.
pub(crate) trait Visitor {
    fn part(&mut self, part: Part);
    fn warning(&mut self, warning: Warning);
}

/// Walks `message` (whose outer base is `outer`), reporting every leaf to `visitor`.
pub(crate) fn walk(message: &[u8], outer: &Base, standard: Standard, visitor: &mut dyn Visitor) {
    let mut walker = Walker {
        root: message,
        standard,
        visitor,
    };
    walker.run(Entity {
        range: 0..message.len(),
        path: String::new(),
        is_message: true,
        outer: outer.clone(),
        depth: 0,
        in_digest: false,
        untouchable: None,
    });
}

/// One entity still to be looked at: a message (the top one, or the body of a
/// `message/rfc822`) or a part of a multipart.
struct Entity {
    /// Its bytes in the root message: heading and body.
    range: Range<usize>,
    /// Its IMAP number (empty for the top message).
    path: String,
    /// A message rather than a part: its single body is `path.1`, not `path` (RFC 3501
    /// §6.4.5: the parts of an encapsulated message are numbered below its own number).
    is_message: bool,
    /// The base of the entity around it.
    outer: Base,
    depth: usize,
    /// A part of a `multipart/digest`, whose default type is `message/rfc822` (RFC 2046
    /// §5.1.5).
    in_digest: bool,
    /// Why everything inside must pass through unchanged (a signed multipart, a truncated
    /// part), if it must.
    untouchable: Option<String>,
}

impl Entity {
    /// The number of its body when the body is a leaf.
    fn leaf_path(&self) -> String {
        if self.is_message {
            child_path(&self.path, 1)
        } else {
            self.path.clone()
        }
    }

    /// The number by which warnings name it.
    fn name(&self) -> String {
        if self.path.is_empty() {
            "1".to_owned()
        } else {
            self.path.clone()
        }
    }
}

/// A multipart being cut into its parts: where the next part starts.
struct Multipart {
    /// The multipart entity's bytes (heading and body) in the root message.
    range: Range<usize>,
    /// `--` and the boundary.
    delimiter: Vec<u8>,
    /// Just past the last delimiter found (relative to `range`); `None` when done.
    next: Option<usize>,
    count: usize,
    path: String,
    base: Base,
    depth: usize,
    in_digest: bool,
    untouchable: Option<String>,
}

/// What one entity leads to.
enum Next {
    Nothing,
    Multipart(Multipart),
    Entity(Entity),
}

struct Walker<'m, 'v> {
    root: &'m [u8],
    /// The standard a header's relative base is resolved by.
    standard: Standard,
    visitor: &'v mut dyn Visitor,
}

impl Walker<'_, '_> {
    /// Depth first, in order, with an explicit stack of the open multiparts.
    fn run(&mut self, top: Entity) {
        let mut stack: Vec<Multipart> = Vec::new();
        let mut pending = Some(top);
        loop {
            if let Some(entity) = pending.take() {
                match self.entity(entity) {
                    Next::Nothing => {}
                    Next::Multipart(multipart) => stack.push(multipart),
                    Next::Entity(inner) => pending = Some(inner),
                }
                continue;
            }
            let Some(multipart) = stack.last_mut() else {
                return;
            };
            match multipart.next_part(self.root) {
                Some(part) => pending = Some(part),
                None => {
                    stack.pop();
                }
            }
        }
    }

    /// One entity: its heading, then its parts, its encapsulated message or itself as a
    /// leaf.
    fn entity(&mut self, entity: Entity) -> Next {
        let bytes = &self.root[entity.range.clone()];
        let heading_end = unended_heading(bytes);
        let parsed = mailparse::parse_headers(heading_end.map_or(bytes, |end| &bytes[..end]));
        let (heading, body_start) = match parsed {
            Ok(parsed) => parsed,
            Err(_) if entity.is_message && entity.depth > 0 => {
                return self.unparsable_message(entity);
            }
            Err(error) if entity.depth == 0 => {
                self.visitor.warning(Warning::Unparsable(error.to_string()));
                return Next::Nothing;
            }
            Err(error) => {
                let reason = format!("its heading does not parse ({error})");
                self.visitor
                    .warning(Warning::PartUnchanged(entity.name(), reason));
                return Next::Nothing;
            }
        };
        if let Some(end) = heading_end {
            let offset = entity.range.start + end;
            self.visitor
                .warning(Warning::HeadingNotEnded(entity.name(), offset));
        }
        if entity.is_message && entity.depth > 0 && heading.is_empty() {
            return self.unparsable_message(entity);
        }
        let mut rejected = Vec::new();
        let base = headers::entity_base_reporting(
            self.standard,
            &heading,
            &entity.outer,
            &mut |name, error| rejected.push((name, error)),
        );
        for (name, error) in rejected {
            self.visitor
                .warning(Warning::UnusableBase(entity.name(), name, error));
        }
        let ctype = content_type(&heading, entity.in_digest);
        let mime_type = ctype.mimetype.to_ascii_lowercase();
        let is_container = mime_type.starts_with("multipart/")
            || mime_type == "message/rfc822"
            || mime_type == "message/global";
        if is_container && entity.depth >= MAX_DEPTH {
            let reason = format!("nested more than {MAX_DEPTH} levels deep: not walked");
            self.visitor
                .warning(Warning::PartUnchanged(entity.name(), reason));
            return Next::Nothing;
        }
        let body = entity.range.start + body_start..entity.range.end;
        if mime_type.starts_with("multipart/") {
            return self.multipart(entity, &ctype.params, base, &mime_type, body_start);
        }
        if mime_type == "message/rfc822" || mime_type == "message/global" {
            return self.encapsulated(entity, &heading, base, body);
        }
        self.visitor.part(leaf(
            entity.leaf_path(),
            &heading,
            &ctype,
            base,
            body,
            entity.untouchable,
        ));
        Next::Nothing
    }

    /// `multipart/*`: its parts, each with this entity's base as its outer base (RFC 1808
    /// §3.2). Those of a signed or encrypted multipart are walked (their links listed) but
    /// left whole: a rewrite would break them.
    fn multipart(
        &mut self,
        entity: Entity,
        params: &BTreeMap<String, String>,
        base: Base,
        mime_type: &str,
        body_start: usize,
    ) -> Next {
        let Some(boundary) = boundary(params) else {
            let reason = format!("a {mime_type} without a boundary parameter: not walked");
            self.visitor
                .warning(Warning::PartUnchanged(entity.name(), reason));
            return Next::Nothing;
        };
        let delimiter = [&b"--"[..], &boundary].concat();
        let bytes = &self.root[entity.range.clone()];
        let Some(first) = find_delimiter_line(bytes, body_start, &delimiter) else {
            let reason = format!("a {mime_type} without any boundary line: not walked");
            self.visitor
                .warning(Warning::PartUnchanged(entity.name(), reason));
            return Next::Nothing;
        };
        let protected = matches!(mime_type, "multipart/signed" | "multipart/encrypted");
        let untouchable = entity.untouchable.or_else(|| {
            protected.then(|| format!("inside {mime_type} (a rewrite would break it)"))
        });
        Next::Multipart(Multipart {
            range: entity.range,
            next: Some(first + delimiter.len()),
            delimiter,
            count: 0,
            path: entity.path,
            base,
            depth: entity.depth,
            in_digest: mime_type == "multipart/digest",
            untouchable,
        })
    }

    /// `message/rfc822` (or `message/global`): its body is a message of its own, whose
    /// heading is the next layer in (RFC 1808 §3.2), numbered as this entity is.
    fn encapsulated(
        &mut self,
        entity: Entity,
        heading: &[MailHeader<'_>],
        base: Base,
        body: Range<usize>,
    ) -> Next {
        let path = entity.leaf_path();
        let encoding = heading
            .get_first_value("Content-Transfer-Encoding")
            .map(|value| without_comments(&value).into_owned());
        if TransferEncoding::from_header(encoding.as_deref()) != TransferEncoding::Identity {
            // RFC 2046 §5.2.1: only 7bit, 8bit or binary; anything else is not walked.
            let reason = "an encapsulated message in a transfer encoding (RFC 2046 §5.2.1 \
                          allows none): not walked"
                .to_owned();
            self.visitor.warning(Warning::PartUnchanged(path, reason));
            return Next::Nothing;
        }
        Next::Entity(Entity {
            range: body,
            path,
            is_message: true,
            outer: base,
            depth: entity.depth + 1,
            in_digest: false,
            untouchable: entity.untouchable,
        })
    }

    /// An encapsulated message with no heading: reported as one leaf left as it is. Its
    /// outer base already holds the encapsulating entity's headers: not applied again.
    fn unparsable_message(&mut self, entity: Entity) -> Next {
        let reason = "an encapsulated message that does not parse".to_owned();
        self.visitor
            .warning(Warning::PartUnchanged(entity.path.clone(), reason.clone()));
        let ctype = mailparse::parse_content_type("message/rfc822");
        self.visitor.part(leaf(
            entity.path,
            &[],
            &ctype,
            entity.outer,
            entity.range,
            Some(reason),
        ));
        Next::Nothing
    }
}

impl Multipart {
    /// The next part, up to the next delimiter line; the last one of a multipart with no
    /// closing delimiter is marked as truncated (left whole).
    fn next_part(&mut self, root: &[u8]) -> Option<Entity> {
        let bytes = &root[self.range.clone()];
        let after_delimiter = self.next?;
        let Some(start) = find_from(bytes, after_delimiter, b"\n").map(|i| i + 1) else {
            self.next = None;
            return None;
        };
        let next_delimiter = find_delimiter_line(bytes, start, &self.delimiter);
        let end = next_delimiter.map_or(bytes.len(), |i| strip_trailing_crlf(bytes, start, i));
        let after = next_delimiter.map_or(bytes.len(), |i| i + self.delimiter.len());
        let closing = bytes[after..].starts_with(b"--");
        let last = closing || after + 2 > bytes.len();
        self.next = (!last).then_some(after);
        self.count += 1;
        let truncated = last && !closing;
        let untouchable = self.untouchable.clone().or_else(|| {
            truncated.then(|| "truncated (its multipart has no closing boundary)".to_owned())
        });
        Some(Entity {
            range: self.range.start + start..self.range.start + end,
            path: child_path(&self.path, self.count),
            is_message: false,
            outer: self.base.clone(),
            depth: self.depth + 1,
            in_digest: self.in_digest,
            untouchable,
        })
    }
}

/// Where the heading of an entity ends when no blank line ends it: at its first line that
/// is neither a header field (RFC 5322 §2.2: a name of printable characters but the
/// colon, then `:`; §4.5.3 allows blanks before the colon), nor a folded continuation,
/// nor a `From ` line. That line starts the body, as Python's email parser decides
/// (`MissingHeaderBodySeparatorDefect`); mailparse would take every line up to the next
/// blank line for a header, the body's links with them. `None` when a blank line or
/// the end of the entity ends the heading, or when its first line is no header (no
/// heading at all: left to mailparse, as before).
fn unended_heading(bytes: &[u8]) -> Option<usize> {
    let mut start = 0;
    while start < bytes.len() {
        let end = find_from(bytes, start, b"\n").map_or(bytes.len(), |i| i + 1);
        let line = &bytes[start..end];
        if line == b"\n" || line == b"\r\n" {
            return None;
        }
        if !is_heading_line(line) {
            return (start > 0).then_some(start);
        }
        start = end;
    }
    None
}

/// A header field, a folded continuation of one, or a `From ` line (an mbox separator
/// left in: Python's email keeps it in the heading too).
fn is_heading_line(line: &[u8]) -> bool {
    if line.starts_with(b" ") || line.starts_with(b"\t") || line.starts_with(b"From ") {
        return true;
    }
    let name_len = line
        .iter()
        .take_while(|&&b| (0x21..=0x7e).contains(&b) && b != b':')
        .count();
    let after_name = line[name_len..].trim_ascii_start();
    name_len > 0 && after_name.starts_with(b":")
}

/// A leaf part as reported.
fn leaf(
    path: String,
    heading: &[MailHeader<'_>],
    ctype: &ParsedContentType,
    base: Base,
    body: Range<usize>,
    untouchable: Option<String>,
) -> Part {
    let encoding = heading
        .get_first_value("Content-Transfer-Encoding")
        .map(|value| without_comments(&value).into_owned());
    Part {
        path,
        mime_type: ctype.mimetype.to_ascii_lowercase(),
        // An empty value (`charset=""`) names no charset: as if there were none.
        charset: ctype
            .params
            .get("charset")
            .filter(|label| !label.trim().is_empty())
            .cloned(),
        base,
        body,
        transfer_encoding: TransferEncoding::from_header(encoding.as_deref()),
        untouchable,
    }
}

/// The entity's Content-Type; without one, `text/plain`, or `message/rfc822` in a digest
/// (RFC 2046 §5.1.5).
fn content_type(heading: &[MailHeader<'_>], in_digest: bool) -> ParsedContentType {
    match heading.get_first_value("Content-Type") {
        Some(value) => mailparse::parse_content_type(without_comments(&value).trim()),
        None if in_digest => mailparse::parse_content_type("message/rfc822"),
        None => mailparse::parse_content_type("text/plain"),
    }
}

/// A structured field's value (Content-Type, Content-Transfer-Encoding) without its
/// comments: RFC 2045 §5.1 and §6.1 fields follow RFC 822 §3.4.3, where a parenthesized
/// comment may stand between any two tokens (the RFC's own example:
/// `Content-type: text/plain; charset=us-ascii (Plain text)`). Each comment (nested ones
/// and `\`-quoted characters inside it included) becomes a space. Parentheses inside a
/// quoted string are kept, and so is one glued to the text before it (`boundary=a(b)`,
/// an unquoted boundary some mailers write, RFC 2046 §5.1.1 allowing `(` and `)` in one):
/// a comment is only taken where a token may start, at the start or after whitespace or
/// a `;`.
pub(crate) fn without_comments(value: &str) -> std::borrow::Cow<'_, str> {
    if !value.contains('(') {
        return value.into();
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    let (mut quoted, mut previous) = (false, None::<char>);
    while let Some(c) = chars.next() {
        let starts_comment =
            !quoted && c == '(' && previous.is_none_or(|p| p.is_whitespace() || p == ';');
        if starts_comment {
            let mut depth = 1;
            while depth > 0 {
                match chars.next() {
                    Some('\\') => {
                        chars.next();
                    }
                    Some('(') => depth += 1,
                    Some(')') => depth -= 1,
                    Some(_) => {}
                    None => break,
                }
            }
            out.push(' ');
            previous = Some(' ');
            continue;
        }
        if quoted && c == '\\' {
            out.push(c);
            if let Some(escaped) = chars.next() {
                out.push(escaped);
            }
            previous = Some(c);
            continue;
        }
        if c == '"' {
            quoted = !quoted;
        }
        out.push(c);
        previous = Some(c);
    }
    out.into()
}

/// The boundary parameter's bytes. mailparse decodes RFC 2231 parameters whose charset it
/// knows; one with a charset label it does not know (`boundary*="ansi-x3.4-1968''XYZ"`,
/// or continuations `boundary*0*=...; boundary*1=...`) it leaves under its raw names, and
/// those are put together here (RFC 2231 §3 continuations, §4 `charset'language'`
/// prefix and %-encoding). A boundary is ASCII (RFC 2046 §5.1.1): its bytes are compared
/// as they are, whatever the label says.
fn boundary(params: &BTreeMap<String, String>) -> Option<Vec<u8>> {
    if let Some(plain) = params.get("boundary") {
        return Some(plain.as_bytes().to_vec());
    }
    if let Some(extended) = params.get("boundary*") {
        return Some(percent_decode(strip_charset(extended)));
    }
    let mut joined = Vec::new();
    let mut n = 0;
    loop {
        if let Some(encoded) = params.get(&format!("boundary*{n}*")) {
            let encoded = if n == 0 {
                strip_charset(encoded)
            } else {
                encoded
            };
            joined.extend(percent_decode(encoded));
        } else if let Some(literal) = params.get(&format!("boundary*{n}")) {
            joined.extend_from_slice(literal.as_bytes());
        } else {
            break;
        }
        n += 1;
    }
    (n > 0).then_some(joined)
}

/// An RFC 2231 extended value without its `charset'language'` prefix.
fn strip_charset(value: &str) -> &str {
    let mut pieces = value.splitn(3, '\'');
    match (pieces.next(), pieces.next(), pieces.next()) {
        (Some(_), Some(_), Some(rest)) => rest,
        _ => value,
    }
}

/// `%XX` decoded; anything else (a stray `%` included) kept as it is.
fn percent_decode(value: &str) -> Vec<u8> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| {
            std::str::from_utf8(h)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        });
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// The IMAP number of child `n` of the entity numbered `path` (empty: the message).
fn child_path(path: &str, n: usize) -> String {
    if path.is_empty() {
        n.to_string()
    } else {
        format!("{path}.{n}")
    }
}

fn find_from(bytes: &[u8], start: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(&bytes[start..], needle).map(|i| start + i)
}

/// The first delimiter line at or after `start`: `delimiter` (`--` and the boundary) at the
/// start of a line (or at `start`), followed by nothing but an optional `--` (the close
/// delimiter), linear white space and the line's end (RFC 2046 §5.1.1: "a line consisting
/// entirely of two hyphen characters ... followed by the boundary parameter value ...,
/// optional linear whitespace, and a terminating CRLF").
///
/// §5.1.1's note to implementors allows a longer line to match too (`--xy` for the boundary
/// `x`), as mailparse does. Python's `email`, MimeKit, GMime and Thunderbird match the
/// whole line, and so does this: a multipart nested in one whose boundary is a prefix of
/// its own (`x`, then `xy`) is walked as they walk it, where prefix matching cut the outer
/// part at the inner delimiter and lost the inner parts.
fn find_delimiter_line(bytes: &[u8], start: usize, delimiter: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(delimiter);
    let mut from = start;
    while let Some(i) = finder.find(&bytes[from..]).map(|i| from + i) {
        let at_line_start = i == start || bytes[i - 1] == b'\n';
        if at_line_start && ends_delimiter_line(&bytes[i + delimiter.len()..]) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Whether what follows a delimiter's boundary, up to the line's end, is an optional `--`
/// and linear white space only (RFC 2046 §5.1.1's `close-delimiter` and `transport-padding`).
fn ends_delimiter_line(after: &[u8]) -> bool {
    let line_end = memchr::memchr(b'\n', after).unwrap_or(after.len());
    let line = &after[..line_end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let padding = line.strip_prefix(b"--").unwrap_or(line);
    padding.iter().all(|&b| b == b' ' || b == b'\t')
}

/// The CRLF (or LF) before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
fn strip_trailing_crlf(bytes: &[u8], start: usize, mut end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(header: &str) -> BTreeMap<String, String> {
        mailparse::parse_content_type(header).params
    }

    #[test]
    fn rfc2231_boundaries_with_a_charset_mailparse_does_not_know() {
        let b = |h| boundary(&params(h)).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(
            b("multipart/mixed; boundary*=\"ansi-x3.4-1968''XYZ\"").as_deref(),
            Some("XYZ")
        );
        assert_eq!(
            b("multipart/mixed; boundary*0*=ansi-x3.4-1968''X%59; boundary*1=\"Z\"").as_deref(),
            Some("XYZ")
        );
        assert_eq!(
            b("multipart/mixed; boundary*=us-ascii'en'A%42C").as_deref(),
            Some("ABC")
        );
        assert_eq!(
            b("multipart/mixed; boundary=plain").as_deref(),
            Some("plain")
        );
        assert_eq!(b("multipart/mixed"), None);
    }

    #[test]
    fn percent_decoding_keeps_stray_percent_signs() {
        assert_eq!(percent_decode("a%2Fb%zz%4"), b"a/b%zz%4");
    }

    #[test]
    fn a_heading_without_its_blank_line_ends_at_the_first_line_that_is_no_header() {
        let heading = b"Subject: two\r\nX-Long: a\r\n b\r\nTo : c\r\n";
        let body = b"<a href=\"http://h/two.html\">2</a>\r\nKey: value\r\n\r\n";
        let message = [&heading[..], body].concat();
        assert_eq!(unended_heading(&message), Some(heading.len()));
        assert_eq!(unended_heading(b"Subject: x\n\n<a>\n"), None);
        assert_eq!(unended_heading(b"Subject: x\nFrom a@b 1\n"), None);
        assert_eq!(
            unended_heading(b"<html>\nSubject: x\n\n"),
            None,
            "no heading"
        );
    }

    #[test]
    fn delimiters_only_count_at_the_start_of_a_line() {
        assert_eq!(find_delimiter_line(b"x--b\n--b", 0, b"--b"), Some(5));
        assert_eq!(find_delimiter_line(b"--b", 0, b"--b"), Some(0));
        assert_eq!(find_delimiter_line(b"\n--b", 1, b"--b"), Some(1));
    }

    #[test]
    fn a_delimiter_line_holds_the_boundary_whole() {
        assert_eq!(find_delimiter_line(b"--bc\n--b\n", 0, b"--b"), Some(5));
        assert_eq!(find_delimiter_line(b"--b-\n--b--\r\n", 0, b"--b"), Some(5));
        assert_eq!(
            find_delimiter_line(b"--b--x\n--b \t\r\n", 0, b"--b"),
            Some(7)
        );
        assert_eq!(find_delimiter_line(b"--bc\n--bd", 0, b"--b"), None);
    }
}
