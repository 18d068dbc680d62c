//! WARC files: `links` lists each record's links with the record they are in; `rewrite`
//! writes the archive with its HTML and CSS payloads rewritten.

use super::input::Checked;
use super::output::{self, CliSink};
use absolve::warc;
use std::io::{self, Read, Write};

/// Runs one WARC input into `sink`: its links when the sink wants them, else the
/// rewritten archive. Whether anything changed: a link resolved to something else, or a
/// record written anew.
pub fn run<S: CliSink>(
    checked: &Checked,
    head: &[u8],
    reader: Box<dyn Read>,
    mut sink: S,
) -> io::Result<bool> {
    let options = warc::Options {
        html: checked.options.clone(),
        http_base_headers: checked.http_base_headers,
    };
    let input = head.chain(reader);
    let label = sink.label().to_owned();
    let warn = |warning: warc::Warning| output::warn(&label, &warning);
    if sink.wants_links() {
        let mut links = warc::Links::new(input, options);
        let mut changed = false;
        while let Some(found) = links.next() {
            links.take_warnings().into_iter().for_each(warn);
            let found = found.map_err(worded)?;
            changed |= found.link.resolved != found.link.original;
            sink.record_link(
                found.record.as_deref(),
                found.target_uri.as_deref(),
                &found.link,
            );
            // A write error (a closed pipe) is reported by the sink's next output.
            sink.output(&[])?;
        }
        links.take_warnings().into_iter().for_each(warn);
        return sink.output(&[]).map(|()| changed);
    }
    let summary = warc::rewrite(input, SinkWriter(&mut sink), &options, warn).map_err(worded)?;
    Ok(summary.rewritten > 0)
}

/// A library error as the CLI words it (the caller adds the file name).
fn worded(error: warc::Error) -> io::Error {
    match error {
        warc::Error::Io(error) => error,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    }
}

/// The sink's output as a [`Write`].
struct SinkWriter<'a, S: CliSink>(&'a mut S);

impl<S: CliSink> Write for SinkWriter<'_, S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.output(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
