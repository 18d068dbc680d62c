//! Runners and generators shared by the test modules: running the `absolve` binary,
//! reading its output, and generated MIME input; WARC records are made in [`warc`].

pub mod warc;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs the `absolve` binary with `args`, feeding `stdin`.
pub fn absolve(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("absolve runs");
    // A run that fails on its arguments exits without reading: a broken pipe is expected.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Runs `absolve` with `args`, writing `stdin` from another thread so that a large
/// input and a large output do not block each other.
pub fn absolve_piped(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("absolve runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A path as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Each line of `bytes` (JSON lines, as `absolve links` writes them) parsed.
pub fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A message nested `depth` levels deep: `multipart/mixed` and `message/rfc822`
/// alternating, an HTML part at the bottom.
pub fn alternating(depth: usize) -> Vec<u8> {
    let mut head = b"MIME-Version: 1.0\r\n".to_vec();
    let mut tail = Vec::new();
    for i in 0..depth {
        head.extend(
            format!("Content-Type: multipart/mixed; boundary=\"b{i:06}x\"\r\n\r\n--b{i:06}x\r\nContent-Type: message/rfc822\r\n\r\n")
                .as_bytes(),
        );
        tail.push(format!("\r\n--b{i:06}x--\r\n"));
    }
    head.extend_from_slice(b"Content-Type: text/html\r\n\r\n<a href=\"deep\">x</a>");
    for t in tail.iter().rev() {
        head.extend_from_slice(t.as_bytes());
    }
    head
}

/// A page with relative links in an HTTP response.
const ARCHIVED_RESPONSE: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"a.html\">a</a> <img src=\"/i.png\">";

/// An ARC file (version 1, the Internet Archive's format before WARC) holding
/// [`ARCHIVED_RESPONSE`]: a `filedesc://` record, then the response's record, each a URL
/// line with the record's length.
pub fn arc_file() -> Vec<u8> {
    let desc = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut arc = format!(
        "filedesc://t.arc 0.0.0.0 20140216050221 text/plain {}\n",
        desc.len()
    )
    .into_bytes();
    arc.extend_from_slice(desc);
    arc.extend_from_slice(
        format!(
            "\nhttp://example.com/d/p.html 1.2.3.4 20140216050221 text/html {}\n",
            ARCHIVED_RESPONSE.len()
        )
        .as_bytes(),
    );
    arc.extend_from_slice(ARCHIVED_RESPONSE);
    arc.push(b'\n');
    arc
}

/// A WARC file of one `response` record holding [`ARCHIVED_RESPONSE`], in an LZ4 frame
/// (LZ4 Frame Format §3: magic number, descriptor, one uncompressed block, end mark), as
/// resiliparse writes `.warc.lz4` files (with compressed blocks).
pub fn lz4_warc() -> Vec<u8> {
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Record-ID", "<urn:uuid:a>"),
        ("WARC-Target-URI", "http://example.com/d/p.html"),
        ("Content-Type", "application/http; msgtype=response"),
    ];
    let warc = warc::record(&fields, ARCHIVED_RESPONSE);
    // Magic number, then FLG (version 1, independent blocks), BD (64 KiB blocks), HC.
    let mut frame = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82];
    let size = warc.len() as u32 | 1 << 31; // The high bit: stored uncompressed.
    frame.extend_from_slice(&size.to_le_bytes());
    frame.extend_from_slice(&warc);
    frame.extend_from_slice(&[0; 4]);
    frame
}

/// A tar archive (POSIX ustar, as GNU tar writes with `--format=ustar`) of one file,
/// `site/index.html`, holding a page with a relative link: a header block (name, mode,
/// sizes and time in octal, its checksum, the `ustar` magic), the file's bytes padded to
/// 512, two zero blocks.
pub fn tar_file() -> Vec<u8> {
    let page = b"<a href=\"x.html\">x</a>\n";
    let mut header = [0u8; 512];
    let mut field = |at: usize, value: &[u8]| header[at..at + value.len()].copy_from_slice(value);
    field(0, b"site/index.html");
    field(100, b"0000644\0");
    field(108, b"0000000\0");
    field(116, b"0000000\0");
    field(124, format!("{:011o}\0", page.len()).as_bytes());
    field(136, b"15100000000\0");
    field(156, b"0");
    field(257, b"ustar\0");
    field(263, b"00");
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * u32::from(b' ');
    header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let mut tar = header.to_vec();
    tar.extend_from_slice(page);
    tar.resize(tar.len().next_multiple_of(512) + 1024, 0);
    tar
}

/// `data` in one gzip member.
pub fn gzipped(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}
