//! URLs in CSS: `url(...)` (quoted or not) and `@import "..."`, found in raw bytes.
//!
//! A `<style>` element's bytes may be in any ASCII-compatible charset and must pass through
//! unchanged outside the URLs, so this is a byte scanner over the subset of CSS Syntax
//! Level 3 §4 that decides where a URL token is: comments, strings, escapes, `url(` and
//! `@import`, and the strings of `image-set()`. Every delimiter it looks for is ASCII,
//! which is what makes it charset-safe.

use std::ops::Range;

/// One URL found in CSS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CssUrl {
    /// The bytes to replace: the string with its quotes, or an unquoted url's content.
    pub token: Range<usize>,
    /// The quote character of a quoted URL.
    pub quote: Option<u8>,
}

impl CssUrl {
    /// The raw bytes of the URL inside the token, escapes not yet decoded. A string the
    /// end of the input closed (CSS Syntax 3 §4.3.5) has no closing quote, and a
    /// backslash it ends with is no escape: it is nothing.
    pub fn raw<'a>(&self, css: &'a [u8]) -> &'a [u8] {
        let (start, end) = (self.token.start, self.token.end);
        match self.quote {
            // Its closing quote, or the backslash it ends with, left out.
            Some(_) if closed_string(css, start, end) || escaped(css, end) => {
                &css[start + 1..end - 1]
            }
            Some(_) => &css[start + 1..end],
            None => &css[self.token.clone()],
        }
    }
}

/// Finds every `url(...)`, `@import "..."` and `image-set("...")` string in `css`, in
/// order (CSS Images 4 §2.2: a string argument of `image-set()` or
/// `-webkit-image-set()` is a URL).
///
/// ```
/// use absolve::css::{urls, unescape};
///
/// let css = br#"@import "a.css"; p { background: url( 'b\'c.png' ) } /* url(no) */"#;
/// let found: Vec<_> = urls(css).map(|u| unescape(std::str::from_utf8(u.raw(css)).unwrap())).collect();
/// assert_eq!(found, ["a.css", "b'c.png"]);
/// let css = br#"a{b:image-set("c.png" 1x, url(d.png) 2x, "e.avif" type("image/avif"))}"#;
/// let found: Vec<_> = urls(css).map(|u| std::str::from_utf8(u.raw(css)).unwrap()).collect();
/// assert_eq!(found, ["c.png", "d.png", "e.avif"]);
/// ```
pub fn urls(css: &[u8]) -> CssUrls<'_> {
    CssUrls {
        css,
        pos: 0,
        image_set_depth: 0,
    }
}

/// The iterator returned by [`urls`].
pub struct CssUrls<'a> {
    css: &'a [u8],
    pos: usize,
    /// Parentheses open inside an `image-set(`, counting its own (0: not inside one).
    image_set_depth: usize,
}

impl Iterator for CssUrls<'_> {
    type Item = CssUrl;

    fn next(&mut self) -> Option<CssUrl> {
        let css = self.css;
        while self.pos < css.len() {
            let start = self.pos;
            match css[start] {
                b'/' if css.get(start + 1) == Some(&b'*') => self.pos = comment_end(css, start),
                b'"' | b'\'' => {
                    let end = string_end(css, start);
                    self.pos = end;
                    if self.image_set_depth == 1 && string_ended(css, start, end) {
                        return Some(CssUrl {
                            token: start..end,
                            quote: Some(css[start]),
                        });
                    }
                }
                // An at-keyword (CSS Syntax §4.3.1): its name is read whole, escapes
                // decoded (`@\69mport` is `@import`; `@url(` is no function).
                b'@' => {
                    let end = name_end(css, start + 1);
                    self.pos = end;
                    if name_is(&css[start + 1..end], b"import")
                        && let Some(found) = self.import_string()
                    {
                        return Some(found);
                    }
                }
                // A CDO token (§4.3.1), read whole: its `--` starts no name (`<!--url(`
                // is a `url(`, as a `<style>` may begin).
                b'<' if css[start + 1..].starts_with(b"!--") => self.pos = start + 4,
                // A hash token: its name is no function's (`#url(` is none).
                b'#' => self.pos = name_end(css, start + 1),
                // A name, read whole so that a function's name is known from its start,
                // escapes decoded (§4.3.4: `u\72 l(` is `url(`; `\41 url(`, `-url(` or a
                // number's unit `1url(` are not).
                _ if starts_name(css, start) => {
                    let end = name_end(css, start);
                    self.pos = end;
                    if css.get(end) == Some(&b'(') {
                        self.pos = end + 1;
                        let name = &css[start..end];
                        if name_is(name, b"url") {
                            if let Some(found) = self.url_contents() {
                                return Some(found);
                            }
                        } else if self.image_set_depth > 0 {
                            self.image_set_depth += 1;
                        } else if name_is(name, b"image-set") || name_is(name, b"-webkit-image-set")
                        {
                            self.image_set_depth = 1;
                        }
                    }
                }
                b'(' => {
                    self.pos += 1;
                    if self.image_set_depth > 0 {
                        self.image_set_depth += 1;
                    }
                }
                b')' => {
                    self.pos += 1;
                    self.image_set_depth = self.image_set_depth.saturating_sub(1);
                }
                _ => self.pos += 1,
            }
        }
        None
    }
}

impl CssUrls<'_> {
    /// After `@import`: whitespace and comments, then a string (a `url(` is found later).
    fn import_string(&mut self) -> Option<CssUrl> {
        let pos = skip_whitespace_and_comments(self.css, self.pos);
        let quote = *self.css.get(pos).filter(|b| matches!(b, b'"' | b'\''))?;
        let end = string_end(self.css, pos);
        self.pos = end;
        string_ended(self.css, pos, end).then_some(CssUrl {
            token: pos..end,
            quote: Some(quote),
        })
    }

    /// After `url(`: a quoted string or an unquoted URL, then `)` (CSS Syntax §4.3.6).
    fn url_contents(&mut self) -> Option<CssUrl> {
        let css = self.css;
        let start = skip_whitespace(css, self.pos);
        if let Some(&quote) = css.get(start).filter(|b| matches!(b, b'"' | b'\'')) {
            // `url(` and a quote is a function token (CSS Syntax §4.3.4), not a url
            // token: its `)` is found later and closes it, as any function's.
            if self.image_set_depth > 0 {
                self.image_set_depth += 1;
            }
            let end = string_end(css, start);
            self.pos = end;
            // Comments are no tokens (CSS Syntax §4.3.2): the function may hold one after
            // its string (`url("a"/**/)`), not before it (§4.3.4 sees only whitespace).
            // The end of the input closes the function (§5.4.9) as its `)` would.
            let close = skip_whitespace_and_comments(css, end);
            let complete =
                string_ended(css, start, end) && matches!(css.get(close), Some(b')') | None);
            return complete.then_some(CssUrl {
                token: start..end,
                quote: Some(quote),
            });
        }
        let (content_end, after, valid) = unquoted_url_end(css, start);
        self.pos = after;
        (valid && content_end > start).then_some(CssUrl {
            token: start..content_end,
            quote: None,
        })
    }
}

/// CSS name code points (§4.2), with every non-ASCII byte counting as one, and a NUL,
/// which is U+FFFD once the input is preprocessed (§3.3).
fn is_name_byte(b: u8) -> bool {
    NAME_BYTES[usize::from(b)]
}

/// [`is_name_byte`] of every byte, looked up: names are most of a stylesheet's bytes.
static NAME_BYTES: [bool; 256] = byte_table!(|byte| byte.is_ascii_alphanumeric()
    || byte == b'_'
    || byte == b'-'
    || byte >= 0x80
    || byte == 0);

/// Whether a backslash at `pos` starts a valid escape (§4.3.8): not one before a newline.
fn valid_escape(css: &[u8], pos: usize) -> bool {
    css[pos] == b'\\' && !css.get(pos + 1).is_some_and(|&b| is_newline(b))
}

/// Whether a run of name code points and escapes starts at `pos`: an ident's, or a
/// number's with its unit, read whole so that no name is matched from its middle.
fn starts_name(css: &[u8], pos: usize) -> bool {
    is_name_byte(css[pos]) || valid_escape(css, pos)
}

/// The end of the run of name code points and valid escapes from `pos` (§4.3.12).
fn name_end(css: &[u8], mut pos: usize) -> usize {
    loop {
        pos += css[pos..].iter().take_while(|&&b| is_name_byte(b)).count();
        match pos < css.len() && valid_escape(css, pos) {
            true => pos = escape_end(css, pos),
            false => return pos,
        }
    }
}

/// Whether the name `raw`, its escapes decoded, is `name` (ASCII case-insensitive).
fn name_is(raw: &[u8], name: &[u8]) -> bool {
    if !raw.contains(&b'\\') {
        return raw.eq_ignore_ascii_case(name);
    }
    unescape(&String::from_utf8_lossy(raw))
        .as_bytes()
        .eq_ignore_ascii_case(name)
}

fn is_css_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn skip_whitespace(css: &[u8], mut pos: usize) -> usize {
    while css.get(pos).is_some_and(|&b| is_css_whitespace(b)) {
        pos += 1;
    }
    pos
}

fn skip_whitespace_and_comments(css: &[u8], mut pos: usize) -> usize {
    loop {
        pos = skip_whitespace(css, pos);
        if css[pos..].starts_with(b"/*") {
            pos = comment_end(css, pos);
        } else {
            return pos;
        }
    }
}

/// The end of the comment starting at `start` (or the end of input, unterminated).
fn comment_end(css: &[u8], start: usize) -> usize {
    memchr::memmem::find(&css[start + 2..], b"*/").map_or(css.len(), |i| start + 2 + i + 2)
}

/// The end (after the closing quote) of the string starting at `start`; an unescaped
/// newline or the end of input ends it early, as a bad string.
fn string_end(css: &[u8], start: usize) -> usize {
    let quote = css[start];
    let mut pos = start + 1;
    while let Some(&b) = css.get(pos) {
        match b {
            b'\\' => pos = escape_end(css, pos),
            b'\n' | b'\r' | b'\x0c' => return pos,
            _ if b == quote => return pos + 1,
            _ => pos += 1,
        }
    }
    css.len()
}

/// Whether the string token `start..end` ended with its closing quote.
fn closed_string(css: &[u8], start: usize, end: usize) -> bool {
    end >= start + 2 && end <= css.len() && css[end - 1] == css[start] && !escaped(css, end - 1)
}

/// Whether the string `start..end` is a string token: ended by its closing quote, or by
/// the end of the input (CSS Syntax 3 §4.3.5: a parse error, the string still returned),
/// not by a newline (a bad string).
fn string_ended(css: &[u8], start: usize, end: usize) -> bool {
    closed_string(css, start, end) || end == css.len()
}

/// Whether the byte at `pos` is escaped by an odd run of backslashes before it.
fn escaped(css: &[u8], pos: usize) -> bool {
    css[..pos].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// An unquoted URL starting at `start`: where its content ends (before trailing
/// whitespace and `)`), where the token ends (after `)`), and whether it is a valid url
/// token (no quote, `(`, or whitespace followed by anything but `)`). The end of the
/// input ends a valid one as `)` does (CSS Syntax 3 §4.3.6: a parse error, the token
/// still returned).
fn unquoted_url_end(css: &[u8], start: usize) -> (usize, usize, bool) {
    let mut pos = start;
    while let Some(&b) = css.get(pos) {
        match b {
            b')' => return (pos, pos + 1, true),
            // A backslash before a newline is no escape (§4.3.8): a bad url (§4.3.6).
            b'\\' if css.get(pos + 1).is_some_and(|&b| is_newline(b)) => {
                return (pos, bad_url_end(css, pos), false);
            }
            b'\\' => pos = escape_end(css, pos),
            // A quote, `(` or a non-printable code point makes it a bad url (§4.3.6).
            b'"' | b'\'' | b'(' => return (pos, bad_url_end(css, pos), false),
            _ if is_non_printable(b) => return (pos, bad_url_end(css, pos), false),
            _ if is_css_whitespace(b) => {
                let after = skip_whitespace(css, pos);
                return match css.get(after) {
                    Some(b')') => (pos, after + 1, true),
                    None => (pos, after, true),
                    _ => (pos, bad_url_end(css, after), false),
                };
            }
            _ => pos += 1,
        }
    }
    (css.len(), css.len(), true)
}

/// CSS Syntax §4.2: a non-printable code point (U+0000-U+0008, U+000B, U+000E-U+001F,
/// U+007F), which no url token may hold unescaped. A NUL byte is not one: the input is
/// preprocessed first (§3.3), a NUL becoming U+FFFD, which a url token may hold.
fn is_non_printable(b: u8) -> bool {
    matches!(b, 0x01..=0x08 | 0x0b | 0x0e..=0x1f | 0x7f)
}

/// CSS Syntax §4.2 newlines, as the input holds them before the preprocessing that makes
/// CR LF, CR and FF a LF (§3.3).
fn is_newline(b: u8) -> bool {
    matches!(b, b'\n' | b'\r' | b'\x0c')
}

/// How many bytes the newline at `pos` is: 2 for CR LF (one newline once preprocessed,
/// §3.3), else 1.
fn newline_len(css: &[u8], pos: usize) -> usize {
    if css[pos] == b'\r' && css.get(pos + 1) == Some(&b'\n') {
        2
    } else {
        1
    }
}

/// CSS Syntax §4.3.14: the remnants of a bad url run to the next unescaped `)`.
fn bad_url_end(css: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = css.get(pos) {
        match b {
            b')' => return pos + 1,
            b'\\' => pos = escape_end(css, pos),
            _ => pos += 1,
        }
    }
    css.len()
}

/// The end of the escape whose backslash is at `pos` (CSS Syntax §4.3.7): up to six hex
/// digits and one whitespace after them, or the one character escaped. A CR LF is one
/// character, a newline once the input is preprocessed (§3.3): the whitespace after hex
/// digits, or the newline a backslash continues a string over (§4.3.5).
fn escape_end(css: &[u8], pos: usize) -> usize {
    let mut end = pos + 1;
    let hex_start = end;
    while end < css.len() && end - hex_start < 6 && css[end].is_ascii_hexdigit() {
        end += 1;
    }
    if end == hex_start {
        return match css.get(end) {
            Some(_) => end + newline_len(css, end),
            None => css.len(),
        };
    }
    if css.get(end).is_some_and(|&b| is_css_whitespace(b)) {
        end += newline_len(css, end);
    }
    end
}

/// Decodes CSS escapes (CSS Syntax §4.3.7) in a URL's text.
///
/// ```
/// assert_eq!(absolve::css::unescape(r"a\29 b\)c\\"), "a)b)c\\");
/// ```
pub fn unescape(text: &str) -> String {
    // A NUL is U+FFFD once the input is preprocessed (CSS Syntax §3.3).
    if text.contains('\0') {
        return unescape(&text.replace('\0', "\u{FFFD}"));
    }
    if !text.contains('\\') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            // A backslash at the end of a url token (§4.3.7; a string's raw text never
            // ends with one: [`CssUrl::raw`]).
            None => out.push('\u{FFFD}'),
            // A backslash and a newline (CR LF, CR, LF or FF, §3.3) in a string is a
            // line continuation: neither is in its value (§4.3.5).
            Some('\r') => {
                chars.next();
                chars.next_if_eq(&'\n');
            }
            Some('\n' | '\x0c') => {
                chars.next();
            }
            Some(h) if h.is_ascii_hexdigit() => {
                let mut value = 0u32;
                for _ in 0..6 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                // One whitespace after the digits is the escape's; a CR LF is one
                // (§3.3).
                if chars.next_if(|c| c.is_ascii_whitespace()) == Some('\r') {
                    chars.next_if_eq(&'\n');
                }
                let decoded = char::from_u32(value).filter(|&c| c != '\0');
                out.push(decoded.unwrap_or('\u{FFFD}'));
            }
            Some(other) => {
                chars.next();
                out.push(other);
            }
        }
    }
    out
}

/// Writes `url` as the content of a CSS URL token that was quoted with `quote` (or
/// unquoted), escaping what that form requires. An unquoted URL that would need escapes
/// is written double-quoted instead.
///
/// ```
/// let mut out = String::new();
/// absolve::css::write_url(&mut out, "http://h/a b", None);
/// assert_eq!(out, r#""http://h/a b""#);
/// ```
pub fn write_url(out: &mut String, url: &str, quote: Option<u8>) {
    let needs_quotes = |c: char| c.is_ascii_whitespace() || "\"'()\\".contains(c) || c.is_control();
    let quote = match quote {
        None if !url.chars().any(needs_quotes) => {
            out.push_str(url);
            return;
        }
        None => '"',
        Some(q) => q as char,
    };
    out.push(quote);
    for c in url.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\a "),
            '\r' => out.push_str("\\d "),
            '\x0c' => out.push_str("\\c "),
            _ if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push(quote);
}

/// The charset of a standalone stylesheet, CSS Syntax §3.2: the BOM, else the caller's
/// charset (the transport's), else `@charset "label";` at the very start, else UTF-8.
///
/// ```
/// use absolve::css::stylesheet_encoding;
///
/// assert_eq!(stylesheet_encoding(b"@charset \"iso-8859-1\"; a{}", None), encoding_rs::WINDOWS_1252);
/// assert_eq!(stylesheet_encoding(b"@charset \"utf-16\"; a{}", None), encoding_rs::UTF_8);
/// assert_eq!(stylesheet_encoding(b"a{}", Some(encoding_rs::SHIFT_JIS)), encoding_rs::SHIFT_JIS);
/// assert_eq!(stylesheet_encoding(b"\xEF\xBB\xBFa{}", Some(encoding_rs::SHIFT_JIS)), encoding_rs::UTF_8);
/// ```
pub fn stylesheet_encoding(
    css: &[u8],
    given: Option<&'static encoding_rs::Encoding>,
) -> &'static encoding_rs::Encoding {
    if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(css) {
        return encoding;
    }
    if let Some(given) = given {
        return given;
    }
    // Only these exact bytes within the first 1024: `@charset "`, a label holding no `"`
    // or `;`, then `";` (`@charset "x" ;` or a longer one declares nothing).
    let head = &css[..css.len().min(1024)];
    let declared = head
        .strip_prefix(b"@charset \"")
        .and_then(|rest| {
            let end = rest.iter().position(|&b| b == b'"' || b == b';')?;
            rest[end..].starts_with(b"\";").then_some(&rest[..end])
        })
        .and_then(encoding_rs::Encoding::for_label);
    match declared {
        // §3.2: a UTF-16 label here means the bytes were ASCII-compatible: UTF-8.
        Some(e) if e == encoding_rs::UTF_16BE || e == encoding_rs::UTF_16LE => encoding_rs::UTF_8,
        Some(e) => e,
        None => encoding_rs::UTF_8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(css: &str) -> Vec<String> {
        urls(css.as_bytes())
            .map(|u| unescape(std::str::from_utf8(u.raw(css.as_bytes())).unwrap()))
            .collect()
    }

    #[test]
    fn url_forms() {
        assert_eq!(found("a{b:url(x.png)}"), ["x.png"]);
        assert_eq!(found("a{b:URL( \"y z.png\" )}"), ["y z.png"]);
        assert_eq!(found("a{b:url( w.png )}"), ["w.png"]);
        assert_eq!(found("a{b:url('q')}"), ["q"]);
    }

    #[test]
    fn a_comment_after_a_quoted_url() {
        assert_eq!(found("a{b:url(\"a\"/**/)}"), ["a"]);
        assert_eq!(found("a{b:url( 'b' /* c */ )}"), ["b"]);
        // Before the string it makes the whole an unquoted url, a bad one (§4.3.6).
        assert!(found("a{b:url(/**/\"d\")}").is_empty());
    }

    #[test]
    fn function_names_are_read_whole_and_unescaped() {
        // CSS Syntax §4.3.4: the name is compared once its escapes are decoded.
        assert_eq!(found(r"a{b:u\72 l(x);c:\55Rl( 'y' )}"), ["x", "y"]);
        assert_eq!(
            found(r#"a{b:image-s\65t("z" 1x)}@\69mport "i";"#),
            ["z", "i"]
        );
        // A hash token, an at-keyword, a longer name (the whitespace after a hex escape
        // is the escape's) and a number's unit are no `url(`.
        assert!(found(r"a{b:#url(x);c:@url(y)}").is_empty());
        assert!(found(r"a{b:\41 url(x);c:\D800 url('y');d:1url(z)}").is_empty());
        assert!(found(r#"a{b:#image-set("x" 1x)}"#).is_empty());
        // A backslash before a newline is no escape: the name after it is one.
        assert_eq!(found("a{b:\\\nurl(x)}"), ["x"]);
    }

    #[test]
    fn a_url_right_after_a_cdo() {
        assert_eq!(found("<!--url(a)-->url(b)"), ["a", "b"]);
        assert_eq!(found("<!--image-set('c' 1x)-->"), ["c"]);
    }

    #[test]
    fn a_charset_rule_is_its_exact_bytes() {
        // CSS Syntax §3.2: `@charset "` XX* `";` in the first 1024 bytes, no XX a `"`
        // or `;`.
        let latin1 = encoding_rs::WINDOWS_1252;
        assert_eq!(stylesheet_encoding(b"@charset \"latin1\";", None), latin1);
        assert_eq!(
            stylesheet_encoding(b"@charset \"latin1\" ;", None),
            encoding_rs::UTF_8
        );
        assert_eq!(
            stylesheet_encoding(b"@charset \"latin1\"\n", None),
            encoding_rs::UTF_8
        );
        assert_eq!(
            stylesheet_encoding(b"@charset \"latin1", None),
            encoding_rs::UTF_8
        );
        let mut far = b"@charset \"latin1".to_vec();
        far.resize(1030, b' ');
        far.extend_from_slice(b"\";");
        assert_eq!(stylesheet_encoding(&far, None), encoding_rs::UTF_8);
    }

    #[test]
    fn import_forms() {
        assert_eq!(
            found("@import 'a.css';@IMPORT \"b.css\" screen;"),
            ["a.css", "b.css"]
        );
        assert_eq!(found("@import url(c.css);"), ["c.css"]);
        assert_eq!(found("@import/**/'d.css';"), ["d.css"]);
    }

    #[test]
    fn not_urls() {
        assert!(found("/* url(a) */").is_empty());
        assert!(found("a{content:'url(b)'}").is_empty());
        assert!(found("a{b:myurl(c)}").is_empty());
        assert!(found("a{b:url(a b)}").is_empty());
        // (`url("open` is one: the end of the input closes it, tokens_closed_by_the_end.)
        assert!(found("a{b:url()}").is_empty());
        // A non-printable code point makes a bad url (CSS Syntax §4.3.6); escaped, it is
        // part of the URL.
        assert!(found("a{b:url(\x7f)}").is_empty());
        assert!(found("a{b:url(c\x01d)}").is_empty());
        assert_eq!(found("a{b:url(c\\7f d)}"), ["c\u{7f}d"]);
    }

    #[test]
    fn image_set_strings() {
        assert_eq!(
            found(r#"a{b:image-set("a.png" 1x, 'b.png' 2x)}"#),
            ["a.png", "b.png"]
        );
        assert_eq!(
            found(r#"a{b:-WEBKIT-image-set(url(c.png) 1x, "d.png" 2x) "no.png"}"#),
            ["c.png", "d.png"]
        );
        assert_eq!(
            found(r#"a{b:image-set("e.avif" type("image/avif"), "f.jpg" type('image/jpeg'))}"#),
            ["e.avif", "f.jpg"]
        );
        assert!(found(r#"a{b:my-image-set("x.png");c:"y.png"}"#).is_empty());
        // A quoted `url("...")` is a function: its `)` closes it, not the `(` before it
        // (the html fuzz target: the string after it was taken for one of `image-set(`'s
        // once the unquoted URL before it had been written back quoted).
        assert_eq!(found(r#"a{b:image-set((url("c") "d"))}"#), ["c"]);
        assert_eq!(found(r#"a{b:image-set((url(c) "d"))}"#), ["c"]);
        assert_eq!(found(r#"a{b:image-set(url("c") 1x, "d" 2x)}"#), ["c", "d"]);
        assert!(found(r#"a{content:"image-set('z.png')"}"#).is_empty());
    }

    #[test]
    fn token_ranges_cover_quotes_of_quoted_urls_only() {
        let css = b"x{a:url( 'q' );b:url(r)}";
        let tokens: Vec<_> = urls(css).map(|u| &css[u.token]).collect();
        assert_eq!(tokens, [&b"'q'"[..], &b"r"[..]]);
    }

    #[test]
    fn escapes_in_unquoted_urls() {
        assert_eq!(found(r"a{b:url(x\)y)}"), ["x)y"]);
        assert_eq!(found(r"a{b:url(\66 oo)}"), ["foo"]);
    }

    #[test]
    fn newlines_and_nul_are_read_as_preprocessed() {
        // CSS Syntax §3.3 makes CR LF, CR and FF a LF and NUL a U+FFFD before tokenizing.
        // A backslash and a newline continue a string (§4.3.5), a CR LF being one newline
        // (it ended the string at its LF, a bad string).
        assert_eq!(found("@import \"a\\\r\nb\";"), ["ab"]);
        assert_eq!(
            found("@import \"a\\\rb\" 'c\\\x0cd';a{b:url('e\\\nf')}"),
            ["ab", "ef"]
        );
        // The whitespace ending a hex escape is one CR LF.
        assert_eq!(found("@import \"a\\62\r\nc\";"), ["abc"]);
        // In an unquoted url, a backslash and a newline is no escape: a bad url (§4.3.6).
        assert!(found("a{b:url(a\\\nb)}").is_empty());
        assert!(found("a{b:url(a\\\r\nb)}").is_empty());
        // A NUL is U+FFFD: valid in an unquoted url, and in a URL's value.
        assert_eq!(found("a{b:url(a\0b)}"), ["a\u{FFFD}b"]);
        assert_eq!(found("@import \"a\0b\";"), ["a\u{FFFD}b"]);
    }

    #[test]
    fn writing_back_escapes_what_the_form_needs() {
        let mut out = String::new();
        write_url(&mut out, "http://h/a'b", Some(b'\''));
        assert_eq!(out, r"'http://h/a\'b'");
        out.clear();
        write_url(&mut out, "http://h/a(b)", None);
        assert_eq!(out, "\"http://h/a(b)\"");
    }

    #[test]
    fn tokens_closed_by_the_end_of_the_input() {
        // CSS Syntax 3 §4.3.5 and §4.3.6: the end of the input ends a string or a url
        // token (a parse error, the token still returned), and the parser closes the
        // open function, block and rule (§5.4), so the browser loads these URLs (Chromium
        // checked: its computed `background-image`, its CSSOM rules).
        assert_eq!(found("a{b:url(x.png"), ["x.png"]);
        assert_eq!(found("a{b:url(  x.png  "), ["x.png"]);
        assert_eq!(found("a{b:url(\"x.png"), ["x.png"]);
        assert_eq!(found("a{b:url('x.png'"), ["x.png"]);
        assert_eq!(found("a{b:url('x.png' /* open"), ["x.png"]);
        assert_eq!(found("a{b:url(\"x\\\"y"), ["x\"y"]);
        assert_eq!(found("@import \"a.css"), ["a.css"]);
        assert_eq!(found("@import 'a.css"), ["a.css"]);
        assert_eq!(found("a{b:image-set(\"c.png"), ["c.png"]);
        // A backslash at the end: nothing in a string (§4.3.5), U+FFFD in a url token
        // (§4.3.7), as Chromium reads them.
        assert_eq!(found("a{b:url(\"y\\"), ["y"]);
        assert_eq!(found("a{b:url(x\\"), ["x\u{FFFD}"]);
        // A newline ends a string as a bad string, and a quote or a space inside an
        // unquoted URL makes it a bad url, at the end as anywhere: no URL (Chromium: no
        // background image).
        assert!(found("a{b:url(\"x\ny.png").is_empty());
        assert!(found("a{b:url(x y.png").is_empty());
        assert!(found("a{b:url(x\"y.png").is_empty());
        assert!(found("@import \"a\n.css").is_empty());
    }

    #[test]
    fn token_ranges_of_tokens_closed_by_the_end() {
        // The token replaced is the string from its quote to the end (the closing quote
        // written with the new URL), or the unquoted URL's content without the spaces
        // after it.
        let css = b"a{b:url(\"x.png";
        let url = urls(css).next().unwrap();
        assert_eq!((url.token, url.quote), (8..14, Some(b'"')));
        let css = b"a{b:url( x.png  ";
        let url = urls(css).next().unwrap();
        assert_eq!((url.token, url.quote), (9..14, None));
    }

    #[test]
    fn unterminated_comment_and_truncated_input_do_not_panic() {
        assert!(found("/* url(a)").is_empty());
        assert!(found("url(").is_empty());
        assert!(found("@import").is_empty());
        assert!(found("\\").is_empty());
        assert!(found("'\\").is_empty());
    }
}
