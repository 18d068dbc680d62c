//! Builds nested MIME structures from the fuzzer's bytes (multiparts, `message/rfc822`
//! and the two alternating, to random depths past the walker's limit; boundaries that
//! share prefixes, RFC 2231 boundaries, unclosed multiparts; 7bit, base64 and
//! quoted-printable HTML and CSS parts; base headers) and checks that:
//! - nothing panics (walk, rewrite, mbox);
//! - a rewrite that warned about nothing is stable: rewriting its output changes nothing;
//! - a message that cannot change (no base anywhere) comes out byte for byte.
#![no_main]

use absolve::base::Base;
use absolve::mime;
use absolve::{Sink, Warning};
use base64::Engine;
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

/// Warnings seen, and nothing else.
struct Warned(bool);
impl Sink for Warned {
    fn output(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn warning(&mut self, _: Warning) {
        self.0 = true;
    }
}

/// How a generated message is written.
struct Writer<'a, 'u> {
    u: &'a mut Unstructured<'u>,
    out: Vec<u8>,
    eol: &'static [u8],
    /// Base headers and `<base href>` written at all.
    bases: bool,
    nodes: usize,
}

const BOUNDARY_CHARS: &[u8] = b"ab0-_=";
const HREFS: &[&str] = &["x", "../y?q#f", "/z", "#top", "", " p q ", "http://abs/", "c:d"];
const CONTAINERS: &[&str] = &[
    "multipart/mixed",
    "multipart/alternative",
    "multipart/related",
    "multipart/digest",
    "multipart/signed",
];

impl Writer<'_, '_> {
    fn line(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
        self.out.extend_from_slice(self.eol);
    }

    fn base_headers(&mut self) -> Result<()> {
        if self.bases {
            match self.u.int_in_range(0..=3)? {
                0 => self.line("Content-Base: http://h/base/"),
                1 => self.line("Content-Location: loc/page.html"),
                2 => self.line("Content-Location: http://l/a/b.html"),
                _ => {}
            }
        }
        Ok(())
    }

    fn boundary(&mut self, depth: usize) -> Result<String> {
        let len = self.u.int_in_range(0..=3)?;
        let mut b = format!("b{}", depth % 3);
        for _ in 0..len {
            b.push(char::from(*self.u.choose(BOUNDARY_CHARS)?));
        }
        Ok(b)
    }

    /// One entity: heading and body.
    fn entity(&mut self, depth: usize) -> Result<()> {
        self.nodes += 1;
        let deep = self.u.ratio(9, 10)? && depth < 130 && self.nodes < 80;
        if !deep || self.u.ratio(1, 4)? {
            return self.leaf();
        }
        if self.u.ratio(1, 3)? {
            self.line("Content-Type: message/rfc822");
            self.base_headers()?;
            self.line("");
            return self.entity(depth + 1);
        }
        self.multipart(depth)
    }

    fn multipart(&mut self, depth: usize) -> Result<()> {
        let ctype = *self.u.choose(CONTAINERS)?;
        let boundary = self.boundary(depth)?;
        match self.u.int_in_range(0..=4)? {
            0 => self.line(&format!("Content-Type: {ctype}; boundary*=\"ansi-x3.4-1968''{boundary}\"")),
            1 => {
                let (a, b) = boundary.split_at(1);
                self.line(&format!("Content-Type: {ctype};"));
                self.line(&format!(" boundary*0*=x-unknown''{a}; boundary*1=\"{b}\""));
            }
            2 => self.line(&format!("Content-Type: {ctype}; boundary={boundary}")),
            _ => self.line(&format!("Content-Type: {ctype}; boundary=\"{boundary}\"")),
        }
        self.base_headers()?;
        self.line("");
        if self.u.ratio(1, 4)? {
            self.line("preamble --not-a-boundary");
        }
        let children = self.u.int_in_range(0..=3)?;
        for _ in 0..children {
            self.line(&format!("--{boundary}"));
            self.entity(depth + 1)?;
            self.out.extend_from_slice(self.eol);
        }
        if self.u.ratio(7, 8)? {
            self.line(&format!("--{boundary}--"));
        }
        Ok(())
    }

    fn leaf(&mut self) -> Result<()> {
        let css = self.u.ratio(1, 5)?;
        let ctype = if css {
            "text/css"
        } else {
            *self.u.choose(&["text/html", "text/html; charset=iso-8859-1", "text/plain", "application/xhtml+xml"])?
        };
        self.line(&format!("Content-Type: {ctype}"));
        let cte = self.u.int_in_range(0..=3)?;
        match cte {
            1 => self.line("Content-Transfer-Encoding: base64"),
            2 => self.line("Content-Transfer-Encoding: quoted-printable"),
            _ => {}
        }
        self.base_headers()?;
        self.line("");
        let mut text = String::new();
        if !css && self.bases && self.u.ratio(1, 4)? {
            text.push_str("<base href=\"http://e/base/\">");
        }
        for _ in 0..self.u.int_in_range(0..=4)? {
            let href = *self.u.choose(HREFS)?;
            if css {
                text.push_str(&format!("a{{b:url({href})}}\n"));
            } else {
                text.push_str(&format!("<a href=\"{href}\">t=é</a>\n<img src={href}>"));
            }
        }
        let body = match cte {
            1 => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                let width = self.u.int_in_range(4..=80)?;
                let eol = String::from_utf8_lossy(self.eol).into_owned();
                encoded
                    .as_bytes()
                    .chunks(width)
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect::<Vec<_>>()
                    .join(&eol)
            }
            2 => quoted_printable(&text, self.eol),
            _ => text,
        };
        self.out.extend_from_slice(body.as_bytes());
        Ok(())
    }
}

/// A plain quoted-printable encoding with soft breaks every 40 characters.
fn quoted_printable(text: &str, eol: &[u8]) -> String {
    let eol = String::from_utf8_lossy(eol);
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str(&eol);
        }
        let mut column = 0;
        for &b in line.as_bytes() {
            let token = if (33..=126).contains(&b) && b != b'=' {
                char::from(b).to_string()
            } else {
                format!("={b:02X}")
            };
            if column + token.len() > 40 {
                out.push('=');
                out.push_str(&eol);
                column = 0;
            }
            column += token.len();
            out.push_str(&token);
        }
    }
    out
}

fn generate(data: &[u8], bases: bool) -> Result<Vec<u8>> {
    let mut u = Unstructured::new(data);
    let eol: &'static [u8] = if u.ratio(1, 2)? { b"\r\n" } else { b"\n" };
    let mut writer = Writer {
        u: &mut u,
        out: Vec::new(),
        eol,
        bases,
        nodes: 0,
    };
    writer.line("MIME-Version: 1.0");
    writer.base_headers()?;
    writer.entity(0)?;
    Ok(writer.out)
}

fuzz_target!(|data: &[u8]| {
    let options = Default::default();
    // With no base anywhere, nothing can change: every byte comes out as it went in.
    if let Ok(message) = generate(data, false) {
        let out = mime::rewrite_message(&message, 1, &Base::none(), &options, &mut Warned(false));
        assert!(out == message, "a message with no base changed");
    }
    let Ok(message) = generate(data, true) else {
        return;
    };
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let mut warned = Warned(false);
    let once = mime::rewrite_message(&message, 1, &base, &options, &mut warned);
    let _ = mime::parts(&message, &base);
    if !warned.0 {
        let twice = mime::rewrite_message(&once, 1, &base, &options, &mut Warned(false));
        assert!(twice == once, "a warning-free rewrite is not stable");
    }
    let mut archive = b"From a@b Mon Jan  1 00:00:00 2024\n".to_vec();
    archive.extend_from_slice(&message);
    archive.extend_from_slice(b"\n\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: next\n\nx\n");
    for entry in mime::mbox::Messages::new(&archive[..]) {
        let entry = entry.unwrap();
        let number = entry.number.unwrap_or(1);
        let _ = mime::rewrite_message(&entry.message, number, &base, &options, &mut Warned(false));
    }
});
