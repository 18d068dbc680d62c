//! A whole document in memory, by format, as `absolve rewrite` and `absolve links` treat a
//! file (`src/cli/process.rs`): HTML, one MIME message, an mbox archive, a WARC file.
//! Nothing here touches Python: it runs with the GIL released.

use crate::args::{Checked, Format};
use crate::link::{Link, Place};
use absolve::format;
use absolve::html;
use absolve::mime::{self, Part, Report};

/// What a document gave: its rewritten bytes (when asked), its links, its warnings.
#[derive(Debug, Default)]
pub struct Outcome {
    pub output: Vec<u8>,
    pub links: Vec<Link>,
    pub warnings: Vec<String>,
}

/// What the caller wants out of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// The rewritten bytes.
    Output,
    /// The links.
    Links,
}

/// The format of `document`: the one given, or told apart by content.
pub fn resolve_format(format: Format, document: &[u8]) -> Format {
    if format != Format::Auto {
        return format;
    }
    match format::detect(&document[..document.len().min(64 * 1024)]) {
        format::Format::Html => Format::Html,
        format::Format::Mime => Format::Mime,
        format::Format::Mbox => Format::Mbox,
        format::Format::Warc => Format::Warc,
        format::Format::Css => Format::Css,
    }
}

/// Processes `document` as `format`.
pub fn process(
    document: &[u8],
    format: Format,
    checked: &Checked,
    want: Want,
) -> Result<Outcome, String> {
    match resolve_format(format, document) {
        Format::Html | Format::Auto => Ok(html_document(document, checked, want)),
        Format::Mime => Ok(message(document, checked, want)),
        Format::Mbox => Ok(mbox(document, checked, want)),
        Format::Warc => crate::warc::in_memory(document, checked, want),
        Format::Css => Ok(stylesheet(document, checked, want)),
    }
}

/// A standalone stylesheet: its `url()` and `@import` values against the outer base, in
/// its charset (CSS Syntax §3.2), as `absolve rewrite --format css` does.
fn stylesheet(document: &[u8], checked: &Checked, want: Want) -> Outcome {
    let encoding = absolve::css::stylesheet_encoding(document, checked.options.charset);
    let mut outcome = Outcome::default();
    if !encoding.is_ascii_compatible() {
        let warning = html::Warning::UnsupportedCharset(encoding.name());
        outcome.warnings.push(warning.to_string());
        if want == Want::Output {
            outcome.output = document.to_vec();
        }
        return outcome;
    }
    let mut found = Vec::new();
    let rewritten = html::rewrite_css_text(
        document,
        encoding,
        &checked.outer,
        &checked.options,
        |link| found.push(link),
    );
    match want {
        Want::Output => outcome.output = rewritten.unwrap_or_else(|| document.to_vec()),
        Want::Links => outcome.links = found.into_iter().map(Link::bare).collect(),
    }
    outcome
}

/// An HTML document: in memory, its `<base href>` found wherever it is.
fn html_document(document: &[u8], checked: &Checked, want: Want) -> Outcome {
    match want {
        Want::Output => {
            let collected = html::rewrite(document, &checked.outer, &checked.options);
            Outcome {
                output: collected.output,
                links: Vec::new(),
                warnings: collected.warnings.iter().map(ToString::to_string).collect(),
            }
        }
        Want::Links => html_links(document, checked),
    }
}

/// The links of an HTML document, its rewritten bytes dropped as they come (the library's
/// `html::links` keeps them in memory all the same; this belongs in the library).
fn html_links(document: &[u8], checked: &Checked) -> Outcome {
    let options = html::Options {
        base_lookahead: usize::MAX,
        ..checked.options.clone()
    };
    let outer = &checked.outer;
    let sink = LinksOnly::default();
    let mut rewriter = if html::may_have_base_element(document) {
        html::Rewriter::new(outer, &options, sink)
    } else {
        html::Rewriter::with_document_base(outer, outer, &options, sink)
    };
    // Nothing in `LinksOnly` can fail.
    for chunk in document.chunks(64 * 1024) {
        let _ = rewriter.write(chunk);
    }
    rewriter.end().unwrap_or_default().0
}

/// A sink that keeps the links and warnings of a document, not its bytes.
#[derive(Default)]
struct LinksOnly(Outcome);

impl html::Sink for LinksOnly {
    fn output(&mut self, _bytes: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn link(&mut self, link: &absolve::links::Link) {
        self.0.links.push(Link::bare(link.clone()));
    }
    fn link_owned(&mut self, link: absolve::links::Link) {
        self.0.links.push(Link::bare(link));
    }
    fn wants_output(&self) -> bool {
        false
    }
    fn warning(&mut self, warning: html::Warning) {
        self.0.warnings.push(warning.to_string());
    }
}

/// One MIME message (an `.eml`, an MHTML page): message number 1, as the CLI numbers it.
fn message(document: &[u8], checked: &Checked, want: Want) -> Outcome {
    let mut outcome = Outcome::default();
    let rewritten = one_message(document, 1, checked, want, &mut outcome);
    if want == Want::Output {
        outcome.output = rewritten;
    }
    outcome
}

/// An mbox archive, message by message; separator lines kept as they were.
fn mbox(document: &[u8], checked: &Checked, want: Want) -> Outcome {
    let mut outcome = Outcome::default();
    for (index, entry) in mime::mbox::Messages::new(document).enumerate() {
        // Reading from memory cannot fail.
        let Ok(entry) = entry else { break };
        if want == Want::Output {
            outcome.output.extend_from_slice(&entry.separator);
        }
        if entry.separator.is_empty() {
            // Bytes before the first separator line are not a message: kept as they are.
            if want == Want::Output {
                outcome.output.extend_from_slice(&entry.message);
            }
            continue;
        }
        let rewritten = one_message(&entry.message, index + 1, checked, want, &mut outcome);
        if want == Want::Output {
            let updated = mime::mbox::update_content_length(&entry.message, rewritten);
            outcome.output.extend_from_slice(&updated);
        }
    }
    outcome
}

/// Rewrites message `number`, its links and warnings located by its number and parts.
fn one_message(
    message: &[u8],
    number: usize,
    checked: &Checked,
    want: Want,
    outcome: &mut Outcome,
) -> Vec<u8> {
    let mut report = MessageReport {
        number,
        want,
        outcome,
    };
    mime::rewrite_message(message, &checked.outer, &checked.options, &mut report)
}

/// Keeps a message's links and warnings, located by message number and part.
struct MessageReport<'a> {
    number: usize,
    want: Want,
    outcome: &'a mut Outcome,
}

impl Report for MessageReport<'_> {
    fn wants_links(&self) -> bool {
        self.want == Want::Links
    }
    fn link(&mut self, part: &Part, link: &absolve::links::Link) {
        self.outcome.links.push(Link {
            link: link.clone(),
            place: Place {
                message: Some(self.number),
                part: Some(part.path.clone()),
                ..Place::default()
            },
        });
    }
    fn warning(&mut self, warning: mime::Warning) {
        self.outcome
            .warnings
            .push(format!("message {}: {warning}", self.number));
    }
}
