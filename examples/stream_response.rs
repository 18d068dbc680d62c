//! Streams an HTTP response body through the HTML rewriter on a tokio task: the
//! rewriter is `Send`, so the task can hold it across each `.await` while the body's
//! chunks arrive (simulated here by a channel and a timer), and the rewritten bytes go
//! on as soon as they are settled.
//!
//! Run with `cargo run --example stream_response`.

use absolve::base::Base;
use absolve::html::{Options, Rewriter};
use absolve::{Link, Sink, Warning};
use std::io;
use std::time::Duration;
use tokio::sync::mpsc;

/// Sends each piece of rewritten output to the client side of the proxy.
struct Forward {
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    links: usize,
}

impl Sink for Forward {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.to_client
            .send(bytes.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "client went away"))
    }
    fn link(&mut self, _link: Link) {
        self.links += 1;
    }
    fn warning(&mut self, warning: Warning) {
        eprintln!("warning: {warning}");
    }
}

/// The body of a response, as a server would receive it: chunks that split tags anywhere.
const BODY: [&str; 4] = [
    "<!doctype html><title>t</title><link rel=styles",
    "heet href=\"../css/site.css\"><a href='pa",
    "ge2.html'>next</a><img srcset=\"a.png 1x, b.png 2x\"",
    "><p style='background:url(bg.png)'>done</p>",
];

#[tokio::main]
async fn main() -> io::Result<()> {
    let (from_server, mut body) = mpsc::unbounded_channel::<Vec<u8>>();
    let (to_client, mut client) = mpsc::unbounded_channel::<Vec<u8>>();

    // The upstream server: chunks arrive over time.
    tokio::spawn(async move {
        for chunk in BODY {
            tokio::time::sleep(Duration::from_millis(5)).await;
            if from_server.send(chunk.as_bytes().to_vec()).is_err() {
                return;
            }
        }
    });

    // The proxy task owns the rewriter and keeps it across every `.await`.
    let base = Base::retrieval_url("http://example.com/docs/index.html").expect("a URL");
    let proxy = tokio::spawn(async move {
        let sink = Forward {
            to_client,
            links: 0,
        };
        let mut rewriter = Rewriter::new(&base, &Options::default(), sink);
        while let Some(chunk) = body.recv().await {
            rewriter.write(&chunk)?;
        }
        let sink = rewriter.end()?;
        io::Result::Ok(sink.links)
    });

    let mut page = Vec::new();
    while let Some(piece) = client.recv().await {
        page.extend_from_slice(&piece);
    }
    let links = proxy.await.expect("the proxy task ran")?;
    let page = String::from_utf8(page).expect("UTF-8 in, UTF-8 out");
    println!("{page}");
    println!("{links} links");
    assert!(page.contains("href=\"http://example.com/css/site.css\""));
    assert!(page.contains("href='http://example.com/docs/page2.html'"));
    Ok(())
}
