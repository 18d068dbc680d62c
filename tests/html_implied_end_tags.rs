//! Valid HTML whose end tags are implied (`<li>`, `<p>`, `<td>`,
//! `<option>`, `<a>`) is rewritten completely, whatever its size: the memory limit is for
//! hostile input only.

use absolve::base::Base;
use absolve::html::{Collected, Options, Rewriter, rewrite};

fn base() -> Base {
    Base::retrieval_url("http://h/d/p.html").unwrap()
}

/// Every `href=` value of `out` is absolute, and there are `expected` of them.
fn assert_all_absolute(out: &[u8], expected: usize) {
    let text = String::from_utf8_lossy(out);
    let values: Vec<&str> = text.split("href=").skip(1).collect();
    assert_eq!(values.len(), expected);
    for (i, value) in values.iter().enumerate() {
        assert!(
            value.starts_with("http://h/d/"),
            "link {i}: {}",
            &value[..40.min(value.len())]
        );
    }
}

/// Equal, or a panic showing where they differ (not megabytes of both).
fn assert_same(got: &str, expected: &str) {
    if got != expected {
        let at = got
            .bytes()
            .zip(expected.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let from = at.saturating_sub(60);
        panic!(
            "differ at byte {at}:\n got: {}\nwant: {}",
            &got[from..(at + 60).min(got.len())],
            &expected[from..(at + 60).min(expected.len())]
        );
    }
}

/// The document in 64 KiB chunks through the streaming rewriter, and whole in memory.
fn both_ways(document: &[u8]) -> [Collected; 2] {
    let mut rewriter = Rewriter::new(&base(), &Options::default(), Collected::default());
    for chunk in document.chunks(64 * 1024) {
        rewriter.write(chunk).unwrap();
    }
    [
        rewriter.end().unwrap(),
        rewrite(document, &base(), &Options::default()),
    ]
}

#[test]
fn a_table_of_43690_rows_without_end_tags() {
    let mut doc = b"<table>".to_vec();
    for i in 0..43_690 {
        doc.extend_from_slice(format!("<tr><td><a href=r{i}.html>r<td>x").as_bytes());
    }
    doc.extend_from_slice(b"</table><a href=last.html>");
    for out in both_ways(&doc) {
        assert_all_absolute(&out.output, 43_691);
        assert!(
            !out.warnings.iter().any(|w| matches!(
                w.problem,
                absolve::Problem::Html(absolve::html::Warning::ParserStopped { .. })
            )),
            "{:?}",
            out.warnings
        );
    }
}

#[test]
fn unclosed_li_p_option_and_a_elements() {
    for (open, item) in [
        ("<ul>", "<li><a href=x>x</a>"),
        ("<div>", "<p><a href=x>x</a>"),
        ("<select>", "<option>o"),
        ("<div>", "<a href=x>x"),
    ] {
        let mut doc = open.as_bytes().to_vec();
        doc.extend_from_slice(&item.repeat(131_072).into_bytes());
        doc.extend_from_slice(b"<a href=last.html>");
        let links = if item.contains("href") { 131_073 } else { 1 };
        for out in both_ways(&doc) {
            assert_all_absolute(&out.output, links);
            assert_eq!(out.output.len(), doc.len() + links * "http://h/d/".len());
        }
    }
}

#[test]
fn restarts_keep_template_svg_and_noscript_state() {
    // Enough elements before each construct that a restart is due inside it.
    let filler = "<li>".repeat(5000);
    let doc = format!(
        "{filler}<template>{filler}<base href=/t/><a href=t>t</a></template>\
         {filler}<svg>{filler}<a href='#x'/><g/></svg><a href='#y'>\
         {filler}<noscript>{filler}<a href=n></noscript><base href=/b/><a href=z>"
    );
    let expected = format!(
        "{filler}<template>{filler}<base href=http://h/t/><a href=http://h/b/t>t</a></template>\
         {filler}<svg>{filler}<a href='#x'/><g/></svg><a href='#y'>\
         {filler}<noscript>{filler}<a href=http://h/b/n></noscript><base href=http://h/b/><a href=http://h/b/z>"
    );
    for out in both_ways(doc.as_bytes()) {
        assert_same(&String::from_utf8(out.output).unwrap(), &expected);
    }
}

#[test]
fn a_generated_document_of_several_megabytes_through_the_command_line() {
    let mut doc = b"<ul>".to_vec();
    for i in 0..200_000 {
        doc.extend_from_slice(format!("<li><a href=l{i}.html>{i}\n").as_bytes());
    }
    // From a file: the test helper writes all of standard input before reading.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.html");
    std::fs::write(&path, &doc).unwrap();
    let path = path.to_str().unwrap();
    let out = crate::common::absolve(&["rewrite", "--url", "http://h/d/p.html", path], b"");
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert!(
        !crate::common::stderr(&out).contains("stopped"),
        "{}",
        crate::common::stderr(&out)
    );
    assert_all_absolute(&out.stdout, 200_000);
}

#[test]
fn a_restart_gives_the_same_bytes_whatever_the_chunks() {
    let doc = format!(
        "{}<a href=a><template><a href=t></template><svg><a href=s /></svg><style>p{{b:url(i.png)}}</style>{}<a href=z>",
        "<li>".repeat(4100),
        "<p>".repeat(4100)
    );
    let whole = rewrite(doc.as_bytes(), &base(), &Options::default()).output;
    for chunk in [1, 7, 1000] {
        let mut rewriter = Rewriter::new(&base(), &Options::default(), Collected::default());
        for piece in doc.as_bytes().chunks(chunk) {
            rewriter.write(piece).unwrap();
        }
        let out = rewriter.end().unwrap().output;
        assert!(out == whole, "chunks of {chunk}");
    }
    let text = String::from_utf8(whole).unwrap();
    assert!(text.ends_with("<p><a href=http://h/d/z>"));
    assert!(text.contains("<style>p{b:url(http://h/d/i.png)}</style>"));
}
