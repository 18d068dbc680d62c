//! Safari web archives (`.webarchive`) on the command line: each HTML and CSS resource
//! resolved against its own WebResourceURL and located by its place in the archive;
//! `rewrite` writing the property list back in its form with every other key kept
//! (and Python's plistlib reading it); `--url` only for a resource without a URL; damaged
//! resources warned about and the rest read; a property list that does not parse
//! refused (status 1); the `--max-held` bound; `-r` and compressed archives.

use crate::common::{absolve, arg, gzipped, json_lines, stderr};
use plist::{Dictionary, Value};
use std::path::Path;

const SITE: &str = "fixtures/webarchive/site.webarchive";
const LATIN1_XML: &str = "fixtures/webarchive/latin1-xml.webarchive";
const DAMAGED: &str = "fixtures/webarchive/damaged-resources.webarchive";

/// A resource dictionary; `url` left out when `None`.
fn resource(data: &[u8], url: Option<&str>, mime: &str) -> Value {
    let mut resource = Dictionary::new();
    resource.insert("WebResourceData".into(), Value::Data(data.to_vec()));
    resource.insert("WebResourceMIMEType".into(), mime.into());
    if let Some(url) = url {
        resource.insert("WebResourceURL".into(), url.into());
    }
    Value::Dictionary(resource)
}

/// A binary web archive of `main` and `subresources`.
fn archive(main: Value, subresources: Vec<Value>) -> Vec<u8> {
    let mut root = Dictionary::new();
    root.insert("WebMainResource".into(), main);
    root.insert("WebSubresources".into(), Value::Array(subresources));
    let mut bytes = Vec::new();
    Value::Dictionary(root)
        .to_writer_binary(&mut bytes)
        .unwrap();
    bytes
}

/// The property list in `bytes`.
fn parsed(bytes: &[u8]) -> Value {
    Value::from_reader(std::io::Cursor::new(bytes)).unwrap()
}

/// The `WebResourceData` at a path of keys and indexes.
fn data<'v>(root: &'v Value, path: &[&str]) -> &'v [u8] {
    let mut value = root;
    for step in path {
        value = match step.parse::<usize>() {
            Ok(index) => &value.as_array().unwrap()[index],
            Err(_) => value.as_dictionary().unwrap().get(step).unwrap(),
        };
    }
    value
        .as_dictionary()
        .unwrap()
        .get("WebResourceData")
        .unwrap()
        .as_data()
        .unwrap()
}

/// `value` with every `WebResourceData` of an HTML or CSS resource taken out: what a
/// rewrite must leave as it was.
fn without_documents(value: &Value) -> Value {
    match value {
        Value::Dictionary(dictionary) => {
            let document = dictionary
                .get("WebResourceMIMEType")
                .and_then(Value::as_string)
                .is_some_and(|t| t.starts_with("text/html") || t.starts_with("text/css"));
            let mut kept = Dictionary::new();
            for (key, value) in dictionary {
                if !(document && key == "WebResourceData") {
                    kept.insert(key.clone(), without_documents(value));
                }
            }
            Value::Dictionary(kept)
        }
        Value::Array(values) => Value::Array(values.iter().map(without_documents).collect()),
        other => other.clone(),
    }
}

#[test]
fn each_link_names_its_resource_and_is_resolved_against_its_url() {
    let out = absolve(&["links", SITE], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    let find = |original: &str| {
        links
            .iter()
            .find(|l| l["original"] == original)
            .unwrap_or_else(|| panic!("{original} listed"))
    };
    let page = find("../about/");
    assert_eq!(page["file"], format!("{SITE}!/WebMainResource"));
    assert_eq!(
        page["target_uri"],
        "https://www.example.com/docs/index.html"
    );
    assert_eq!(page["resolved"], "https://www.example.com/about/");
    assert_eq!(page["base_from"], "retrieval-url");
    let css = find("../img/bg.png");
    assert_eq!(css["file"], format!("{SITE}!/WebSubresources/0"));
    assert_eq!(css["resolved"], "https://www.example.com/docs/img/bg.png");
    let frame = find("/pics/p.jpg");
    assert_eq!(
        frame["file"],
        format!("{SITE}!/WebSubframeArchives/0/WebMainResource")
    );
    assert_eq!(frame["resolved"], "https://frames.example.net/pics/p.jpg");
    // The image and the script are not documents: nothing is read out of them.
    assert!(links.iter().all(|l| l["original"] != "x.html"));
    // Fed on standard input, the content tells it apart.
    let piped = absolve(&["links"], &std::fs::read(SITE).unwrap());
    assert_eq!(json_lines(&piped.stdout).len(), links.len());
    assert_eq!(json_lines(&piped.stdout)[0]["file"], "-!/WebMainResource");
}

#[test]
fn rewrite_keeps_the_form_and_every_other_key() {
    for (fixture, binary) in [(SITE, true), (LATIN1_XML, false)] {
        let original = std::fs::read(fixture).unwrap();
        let out = absolve(&["rewrite", fixture], b"");
        assert!(out.status.success(), "{fixture}: {}", stderr(&out));
        assert_eq!(out.stdout.starts_with(b"bplist00"), binary, "{fixture}");
        assert_eq!(out.stdout.starts_with(b"<?xml"), !binary, "{fixture}");
        let (before, after) = (parsed(&original), parsed(&out.stdout));
        assert_eq!(
            without_documents(&before),
            without_documents(&after),
            "{fixture}"
        );
        assert_ne!(before, after, "{fixture}");
    }
    let site = parsed(&absolve(&["rewrite", SITE], b"").stdout);
    let page = String::from_utf8_lossy(data(&site, &["WebMainResource"])).into_owned();
    assert!(
        page.contains(r#"<a href="https://www.example.com/about/">"#),
        "{page}"
    );
    let frame_css = data(&site, &["WebSubframeArchives", "0", "WebSubresources", "0"]);
    assert_eq!(
        frame_css,
        b"h1 { background-image: url('https://frames.example.net/a/h1.svg') }\n"
    );
    // The Latin-1 page stays in its charset: é is one byte.
    let latin1 = parsed(&absolve(&["rewrite", LATIN1_XML], b"").stdout);
    let page = data(&latin1, &["WebMainResource"]);
    assert!(
        page.windows(5).any(|w| w == b"caf\xE9."),
        "{}",
        String::from_utf8_lossy(page)
    );
}

#[test]
#[cfg_attr(
    not(has_python3),
    ignore = "python3 with plistlib not found (apt-get install python3)"
)]
fn python_plistlib_reads_the_rewritten_archive() {
    let dir = tempfile::tempdir().unwrap();
    for fixture in [SITE, LATIN1_XML] {
        let output = dir.path().join("out.webarchive");
        let out = absolve(&["rewrite", "-o", arg(&output), fixture], b"");
        assert!(out.status.success(), "{}", stderr(&out));
        let script = "import plistlib, sys\n\
            archive = plistlib.load(open(sys.argv[1], 'rb'))\n\
            main = archive['WebMainResource']\n\
            print(main['WebResourceURL'])\n\
            print(len(archive.get('WebSubresources', [])))\n\
            sys.stdout.buffer.write(main['WebResourceData'])\n";
        let python = std::process::Command::new("python3")
            .args(["-c", script, arg(&output)])
            .output()
            .expect("python3 runs");
        assert!(
            python.status.success(),
            "{fixture}: {}",
            String::from_utf8_lossy(&python.stderr)
        );
        let text = String::from_utf8_lossy(&python.stdout).into_owned();
        let mut lines = text.lines();
        let url = lines.next().unwrap();
        assert!(url.starts_with("http"), "{fixture}: {text}");
        assert!(text.contains(&format!("href=\"{}", &url[..url.rfind('/').unwrap()])));
    }
}

#[test]
fn an_archive_with_nothing_to_change_is_written_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let once = absolve(&["rewrite", SITE], b"").stdout;
    // Rewritten again, nothing changes: the same bytes.
    assert_eq!(absolve(&["rewrite"], &once).stdout, once);
    let path = dir.path().join("done.webarchive");
    std::fs::write(&path, &once).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = absolve(&["rewrite", "-i", arg(&path)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(before.modified().unwrap(), after.modified().unwrap());
    assert_eq!(std::fs::read(&path).unwrap(), once);
    // -i on the original rewrites it in place, as a binary property list.
    let original = dir.path().join("site.webarchive");
    std::fs::copy(SITE, &original).unwrap();
    let out = absolve(&["rewrite", "-i", arg(&original)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&original).unwrap(), once);
}

#[test]
fn url_is_used_only_for_a_resource_without_one() {
    let bytes = archive(
        resource(b"<a href=p.html>", Some("http://h.example/d/"), "text/html"),
        vec![resource(b"a { background: url(i.png) }", None, "text/css")],
    );
    let out = absolve(&["links", "--url", "http://given.example/x/"], &bytes);
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    assert_eq!(links[0]["resolved"], "http://h.example/d/p.html");
    assert_eq!(links[1]["resolved"], "http://given.example/x/i.png");
    assert_eq!(links[1]["target_uri"], serde_json::Value::Null);
    assert!(
        stderr(&out).contains(
            "-!/WebSubresources/0: no WebResourceURL: resolved against the retrieval URL given"
        ),
        "{}",
        stderr(&out)
    );
    // Without --url its relative link stays relative, and the warning says so.
    let out = absolve(&["links"], &bytes);
    assert_eq!(json_lines(&out.stdout)[1]["resolved"], "i.png");
    assert!(
        stderr(&out)
            .contains("no WebResourceURL: relative links in it are left as they are (pass --url)"),
        "{}",
        stderr(&out)
    );
    // Every resource with its URL: --url is not used, and a warning says so.
    let full = archive(
        resource(b"<a href=p.html>", Some("http://h.example/d/"), "text/html"),
        vec![],
    );
    let out = absolve(&["links", "--url", "http://given.example/"], &full);
    assert_eq!(
        json_lines(&out.stdout)[0]["resolved"],
        "http://h.example/d/p.html"
    );
    assert!(
        stderr(&out).contains("--url is not used"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn damaged_resources_are_warned_about_and_the_rest_is_read() {
    let out = absolve(&["rewrite", DAMAGED], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    for expected in [
        "damaged-resources.webarchive!/WebSubresources/0: its WebResourceData is a string, not bytes",
        "damaged-resources.webarchive!/WebSubresources/2: not a dictionary but a string",
        "damaged-resources.webarchive!/WebSubresources/3: unknown WebResourceTextEncodingName \"x-klingon\"",
        "damaged-resources.webarchive!/WebSubresources/4: an unusable (\"not a url\") WebResourceURL",
        "damaged-resources.webarchive!/(root): its WebSubframeArchives is a dictionary, not an array",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    let (before, after) = (
        parsed(&std::fs::read(DAMAGED).unwrap()),
        parsed(&out.stdout),
    );
    assert_eq!(
        data(&after, &["WebMainResource"]),
        b"<a href=http://h.example/d/ok.html>ok</a>"
    );
    let subresources = |v: &Value| v.as_dictionary().unwrap()["WebSubresources"].clone();
    assert_eq!(subresources(&before), subresources(&after));
}

#[test]
fn a_property_list_that_does_not_parse_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut cut = std::fs::read(SITE).unwrap();
    cut.truncate(cut.len() / 2);
    let path = dir.path().join("cut.webarchive");
    std::fs::write(&path, &cut).unwrap();
    for args in [vec!["links"], vec!["rewrite"], vec!["rewrite", "-i"]] {
        let out = absolve(&[&args[..], &[arg(&path)]].concat(), b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("cut.webarchive: a property list that does not parse")
                && stderr(&out).contains("open it in Safari and save it again"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), cut);
    // Its magic number damaged, a file named .webarchive is still refused as one, not
    // read as HTML (its binary data rewritten as text, its lengths then wrong).
    let mut damaged = std::fs::read(SITE).unwrap();
    damaged[2] = b'.';
    let path = dir.path().join("magic.webarchive");
    std::fs::write(&path, &damaged).unwrap();
    let out = absolve(&["rewrite", arg(&path)], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("magic.webarchive: a property list that does not parse (it is neither a binary property list (bplist00) nor an XML one"),
        "{}",
        stderr(&out)
    );
    // Given as a web archive, what is not a property list says so.
    let out = absolve(&["links", "--format", "webarchive"], b"<p><a href=x>");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("neither a binary property list (bplist00) nor an XML one"),
        "{}",
        stderr(&out)
    );
    // A property list that is no web archive.
    let mut other = Vec::new();
    Value::Dictionary(Dictionary::from_iter([(
        "Name".to_owned(),
        Value::from("x"),
    )]))
    .to_writer_binary(&mut other)
    .unwrap();
    let out = absolve(&["links", "--format", "webarchive"], &other);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a Safari web archive (its root has no WebMainResource"),
        "{}",
        stderr(&out)
    );
    // In a tree, the others are read and the status says one failed.
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("cut.webarchive"), &cut).unwrap();
    std::fs::copy(SITE, tree.join("site.webarchive")).unwrap();
    let out = absolve(&["links", "-r", arg(&tree)], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(json_lines(&out.stdout).len() > 10);
}

#[test]
fn past_max_held_an_archive_is_not_read() {
    let size = std::fs::metadata(SITE).unwrap().len();
    let out = absolve(&["links", "--max-held", "100", SITE], b"");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("the web archive is over 100 bytes")
            && stderr(&out).contains("raise the limit, --max-held, to list them"),
        "{}",
        stderr(&out)
    );
    let out = absolve(&["rewrite", "--max-held", "100", SITE], b"");
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(SITE).unwrap());
    assert!(
        stderr(&out).contains(&format!("the web archive is {size} bytes, over the limit")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn trees_and_compressed_archives_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("saved");
    std::fs::create_dir(&tree).unwrap();
    std::fs::copy(SITE, tree.join("site.webarchive")).unwrap();
    // No extension: its content tells.
    std::fs::copy(SITE, tree.join("site-copy")).unwrap();
    std::fs::write(
        tree.join("site.webarchive.gz"),
        gzipped(&std::fs::read(SITE).unwrap()),
    )
    .unwrap();
    let out = absolve(&["links", "-r", arg(&tree)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    for name in ["site.webarchive", "site-copy", "site.webarchive.gz"] {
        let label = format!("{}!/WebMainResource", arg(&tree.join(name)));
        assert!(links.iter().any(|l| l["file"] == label), "{name}");
    }
    let out = absolve(&["rewrite", "-r", "-i", arg(&tree)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let once = absolve(&["rewrite", SITE], b"").stdout;
    assert_eq!(std::fs::read(tree.join("site.webarchive")).unwrap(), once);
    assert_eq!(std::fs::read(tree.join("site-copy")).unwrap(), once);
    let gz = std::fs::read(tree.join("site.webarchive.gz")).unwrap();
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut decoded).unwrap();
    assert_eq!(decoded, once);
    assert!(Path::new(&tree).is_dir());
}
