//! Rewrites a feed read from standard input against a URL, streaming, to standard output:
//! `feed_rewrite URL < feed.xml > rewritten.xml`; with `--links`, prints each link as a
//! JSON line instead. Warnings go to standard error. (Until the CLI's `--format feed`.)

use absolve::base::Base;
use absolve::feed::Rewriter;
use absolve::html::{Options, Sink, Warning};
use absolve::links::{Link, Located};
use std::io::{self, BufWriter, Read, Write};

/// Writes the feed, or the links as JSON lines, to standard output.
struct Out<W: Write> {
    out: W,
    links: bool,
}

impl<W: Write> Sink for Out<W> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }
    fn link(&mut self, link: &Link) {
        if serde_json::to_writer(&mut self.out, &Located::new(link)).is_ok() {
            let _ = self.out.write_all(b"\n");
        }
    }
    fn wants_output(&self) -> bool {
        !self.links
    }
    fn wants_links(&self) -> bool {
        self.links
    }
    fn warning(&mut self, warning: Warning) {
        eprintln!("warning: {warning}");
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .ok_or("usage: feed_rewrite URL [--links] < feed")?;
    let links = args.next().as_deref() == Some("--links");
    let base = Base::retrieval_url(&url)?;
    let out = Out {
        out: BufWriter::new(io::stdout().lock()),
        links,
    };
    let mut rewriter = Rewriter::new(&base, &Options::default(), None, out, |w| {
        eprintln!("warning: {w}")
    });
    let mut stdin = io::stdin().lock();
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        rewriter.write(&buf[..n])?;
    }
    rewriter.end()?.out.flush()?;
    Ok(())
}
