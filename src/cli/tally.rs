//! What the CLI learns about each document while the library works on it: whether any
//! link changed, whether relative links were left for want of a base. A sink wraps the
//! output sink to see every link go by.

use super::output::CliSink;
use absolve::base::BaseSource;
use absolve::html::{Sink, Warning};
use absolve::links::Link;
use absolve::url::has_scheme;
use std::io;

/// What one document's links showed.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// A link resolved to something other than what it said.
    pub changed: bool,
    /// A relative reference stayed relative because there was no base (§3.4).
    pub relative_left: bool,
}

impl Tally {
    fn observe(&mut self, link: &Link) {
        self.changed |= link.resolved != link.original;
        self.relative_left |= link.base_from == BaseSource::None && is_relative(&link.original);
    }
}

/// A reference that a base would change: not empty, not fragment-only, with no scheme.
fn is_relative(reference: &str) -> bool {
    !reference.is_empty() && !reference.starts_with('#') && !has_scheme(reference)
}

/// Passes everything to `inner`, tallying the links (building them only when `watch` is
/// set or `inner` wants them).
pub struct Watched<'t, S: CliSink> {
    pub inner: S,
    pub tally: &'t mut Tally,
    pub watch: bool,
}

impl<S: CliSink> Sink for Watched<'_, S> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.output(bytes)
    }
    fn link(&mut self, link: &Link) {
        self.tally.observe(link);
        if self.inner.wants_links() {
            self.inner.link(link);
        }
    }
    fn wants_links(&self) -> bool {
        self.watch || self.inner.wants_links()
    }
    fn wants_output(&self) -> bool {
        self.inner.wants_output()
    }
    fn warning(&mut self, warning: Warning) {
        self.inner.warning(warning);
    }
}

impl<S: CliSink> CliSink for Watched<'_, S> {
    fn label(&self) -> &str {
        self.inner.label()
    }
    fn locate(&mut self, message: Option<usize>, part: Option<&str>) {
        self.inner.locate(message, part);
    }
}
