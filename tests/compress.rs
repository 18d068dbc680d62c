//! Compressed input: a gzipped, bzip2, xz and zstd mbox give the records the
//! plain mbox gives; a rewrite in the same compression decompresses to the plain rewrite;
//! a truncated gzip keeps everything before the damage, and the rest is copied raw; zstd
//! skippable frames stay before or after the content, pzstd's frame sizes and a seek
//! table are rewritten to describe the frames written.

use absolve::compress::{ALL, Compression, DamageReason, Decoder, Encoder, ZSTD_FRAME, rewrite};
use absolve::format::Format;
use absolve::{Options, document};
use std::io::{Read, Write};

const MBOX: &str = "fixtures/mime/archive-two-messages.mbox";

fn compressed(c: Compression, data: &[u8]) -> Vec<u8> {
    let mut e = Encoder::new(c, Vec::new()).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn resolved(bytes: &[u8]) -> Vec<(String, String)> {
    let found = document::links(bytes, &Options::default()).unwrap();
    found
        .links
        .iter()
        .map(|l| (l.original.to_string(), l.resolved.to_string()))
        .collect()
}

#[test]
fn every_compression_of_the_mbox_gives_its_records() {
    let plain = std::fs::read(MBOX).unwrap();
    let expected = resolved(&plain);
    assert!(!expected.is_empty());
    for c in ALL {
        let bytes = compressed(c, &plain);
        assert_eq!(Compression::detect(&bytes), Some(c));
        let mut decoded = Vec::new();
        Decoder::new(c, &bytes[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(resolved(&decoded), expected, "{c}");
    }
}

#[test]
fn the_system_tools_streams_are_read() {
    // What gzip/bzip2/xz/zstd write (when installed) decodes like what we write.
    let plain = std::fs::read(MBOX).unwrap();
    for (tool, c) in [
        ("gzip", Compression::Gzip),
        ("bzip2", Compression::Bzip2),
        ("xz", Compression::Xz),
        ("zstd", Compression::Zstd),
    ] {
        let Ok(mut child) = std::process::Command::new(tool)
            .arg("-c")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            continue;
        };
        child.stdin.take().unwrap().write_all(&plain).unwrap();
        let out = child.wait_with_output().unwrap().stdout;
        let mut decoded = Vec::new();
        let mut decoder = Decoder::new(c, &out[..]);
        decoder.read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, plain, "{tool}");
        assert_eq!(decoder.damage(), None, "{tool}");
    }
}

#[test]
fn a_rewritten_compressed_mbox_decompresses_to_the_plain_rewrite() {
    let plain = std::fs::read(MBOX).unwrap();
    let options = Options::new().with_url("http://example.com/list/").unwrap();
    let expected = document::rewrite(&plain, &options).unwrap().output;
    for c in ALL {
        let bytes = compressed(c, &plain);
        let mut out = Vec::new();
        let damage = rewrite(c, &bytes[..], &mut out, |decoded, encoder| {
            let mut text = Vec::new();
            decoded.read_to_end(&mut text)?;
            let done = document::rewrite(&text, &options).map_err(std::io::Error::other)?;
            encoder.write_all(&done.output)
        })
        .unwrap();
        assert_eq!(damage, None);
        assert_eq!(Compression::detect(&out), Some(c), "same compression out");
        let mut back = Vec::new();
        Decoder::new(c, &out[..]).read_to_end(&mut back).unwrap();
        assert_eq!(back, expected, "{c}");
    }
}

#[test]
fn a_truncated_gzip_keeps_everything_before_the_damage() {
    let plain = std::fs::read(MBOX).unwrap();
    // Two members, as `cat a.gz b.gz` makes; the second is cut short.
    let mut bytes = compressed(Compression::Gzip, &plain);
    let first = bytes.len();
    let second = compressed(Compression::Gzip, &plain);
    bytes.extend_from_slice(&second[..second.len() - 12]);

    let mut decoder = Decoder::new(Compression::Gzip, &bytes[..]);
    let mut decoded = Vec::new();
    decoder.read_to_end(&mut decoded).unwrap();
    assert!(
        decoded.len() > plain.len(),
        "the first member and part of the second"
    );
    assert_eq!(&decoded[..plain.len()], &plain[..]);
    assert!(plain.starts_with(&decoded[plain.len()..]));
    let damage = decoder.damage().cloned().unwrap();
    assert_eq!(damage.reason, DamageReason::Truncated(Compression::Gzip));
    assert!(damage.compressed_offset > first as u64);

    // Rewritten: what was decoded is processed and compressed; the raw rest follows.
    let mut out = Vec::new();
    let damage = rewrite(Compression::Gzip, &bytes[..], &mut out, |d, e| {
        std::io::copy(d, e).map(drop)
    })
    .unwrap()
    .unwrap();
    let rest = &bytes[damage.compressed_offset as usize..];
    assert!(out.ends_with(rest));
    let mut again = Vec::new();
    Decoder::new(Compression::Gzip, &out[..out.len() - rest.len()])
        .read_to_end(&mut again)
        .unwrap();
    assert_eq!(again, decoded);
}

/// `layers` gzip members, one inside the other, around `data`.
fn nested_gzip(data: &[u8], layers: usize) -> Vec<u8> {
    (0..layers).fold(data.to_vec(), |inner, _| {
        compressed(Compression::Gzip, &inner)
    })
}

#[test]
fn compression_nested_past_the_limit_is_passed_through_not_recursed() {
    // 500 layers overflowed the stack (SIGABRT) before the limit.
    let options = Options::new().with_url("http://e.com/").unwrap();
    let deep = nested_gzip(b"<a href=\"x\">x</a>\n", 500);
    let found = document::links(&deep, &options).unwrap();
    assert!(found.links.is_empty(), "the innermost layers are not read");
    let said = found
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>();
    assert!(
        said.iter()
            .any(|w| w.contains("inside 8 layers of compression already")),
        "{said:?}"
    );
    // Rewritten: the layers past the limit are the same bytes inside the eight.
    let done = document::rewrite(&deep, &options).unwrap();
    let mut inner = done.output;
    for _ in 0..8 {
        let mut out = Vec::new();
        Decoder::new(Compression::Gzip, &inner[..])
            .read_to_end(&mut out)
            .unwrap();
        inner = out;
    }
    assert_eq!(inner, nested_gzip(b"<a href=\"x\">x</a>\n", 492));

    // Up to the limit every layer is undone.
    let shallow = nested_gzip(b"<a href=\"x\">x</a>\n", 8);
    let found = document::links(&shallow, &options).unwrap();
    assert_eq!(found.links[0].resolved.as_str(), "http://e.com/x");
}

#[test]
fn a_zstd_frame_without_its_checksum_delivers_all_it_decoded() {
    // What `zstd` writes ends with a checksum; with its last byte cut, every block is
    // whole (0 of 3000 links were found: the decoder kept its window).
    let page: String = (0..3000)
        .map(|i| format!("<p><a href=\"p{i}.html\">x</a>\n"))
        .collect();
    let Ok(mut child) = std::process::Command::new("zstd")
        .args(["-q", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let whole = child.wait_with_output().unwrap().stdout;
    let cut = &whole[..whole.len() - 1];
    let mut decoder = Decoder::new(Compression::Zstd, cut);
    let mut out = Vec::new();
    decoder.read_to_end(&mut out).unwrap();
    assert_eq!(out, page.as_bytes());
    let damage = decoder.damage().cloned().unwrap();
    assert_eq!(damage.reason, DamageReason::Truncated(Compression::Zstd));
    assert_eq!(damage.compressed_offset as usize, whole.len() - 4);

    // Rewritten: the page, recompressed, then the three checksum bytes there were.
    let options = Options::new().with_url("http://e.com/").unwrap();
    let found = document::links(cut, &options).unwrap();
    assert_eq!(found.links.len(), 3000);
    let done = document::rewrite(cut, &options).unwrap();
    assert!(
        done.output
            .ends_with(&whole[whole.len() - 4..whole.len() - 1])
    );
}

/// A message with a relative link, `size` bytes long.
fn big_message(size: usize) -> Vec<u8> {
    let mut message = b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n\
        <a href=x>x</a>\r\n"
        .to_vec();
    let line = b"<p>filler filler filler filler filler filler filler filler</p>\r\n";
    while message.len() < size {
        message.extend_from_slice(line);
    }
    message.truncate(size);
    message
}

#[test]
fn a_message_decompressing_past_the_held_limit_passes_through_unchanged() {
    use absolve::pipeline::{self, Held, Input, TooLarge};
    use absolve::{Collected, Problem};
    // A decompression bomb in small: 2 MiB of message in a few KiB, 1 MiB held at most.
    let message = big_message(2 << 20);
    let options = Options::new().with_max_held(1 << 20);
    for c in ALL {
        let bytes = compressed(c, &message);
        assert!(bytes.len() < 64 << 10, "{c}");
        let mut sink = Collected::default();
        pipeline::run(Input::Reader(Box::new(&bytes[..])), &options, &mut sink).unwrap();
        let mut back = Vec::new();
        Decoder::new(c, &sink.output[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == message, "{c}: passed through unchanged");
        assert!(sink.links.is_empty(), "{c}");
        let expected = TooLarge {
            what: Held::Message,
            size: message.len() as u64,
            limit: 1 << 20,
            passed_through: true,
        };
        let problems: Vec<_> = sink.warnings.iter().map(|w| &w.problem).collect();
        assert_eq!(problems, [&Problem::TooLarge(expected)], "{c}");
        assert_eq!(sink.warnings[0].location.message, Some(1));

        // Listing: not read past the limit, no link, the same warning.
        let mut sink = Collected::links_only();
        pipeline::run(Input::Reader(Box::new(&bytes[..])), &options, &mut sink).unwrap();
        assert!(sink.links.is_empty(), "{c}");
        let listed = TooLarge {
            size: (1 << 20) + 1,
            passed_through: false,
            ..expected
        };
        assert_eq!(sink.warnings[0].problem, Problem::TooLarge(listed), "{c}");
        assert!(
            sink.warnings[0]
                .to_string()
                .contains("Options::with_max_held")
        );
    }
}

#[test]
fn a_message_or_stylesheet_file_past_the_held_limit_is_not_held() {
    use absolve::pipeline::{self, Held, Input};
    use absolve::{Collected, Problem};
    let dir = tempfile::tempdir().unwrap();
    let eml = dir.path().join("big.eml");
    std::fs::write(&eml, big_message(300 << 10)).unwrap();
    let css = dir.path().join("big.css");
    let mut sheet = b"a{b:url(i.png)}\n".repeat(20_000);
    sheet.truncate(300 << 10);
    std::fs::write(&css, &sheet).unwrap();
    let options = Options::new()
        .with_url("http://h/")
        .unwrap()
        .with_max_held(256 << 10);
    let formats = [
        (&eml, Held::Message, None),
        (&css, Held::Stylesheet, Some(Format::Css)),
    ];
    for (path, what, format) in formats {
        // The CLI tells a stylesheet by its name.
        let options = options.clone().with_format(format);
        let mut sink = Collected::default();
        pipeline::run(Input::File(path), &options, &mut sink).unwrap();
        assert!(sink.output == std::fs::read(path).unwrap(), "{what}");
        assert!(sink.links.is_empty(), "{what}");
        assert!(
            matches!(&sink.warnings[0].problem, Problem::TooLarge(t) if t.what == what && t.size == 300 << 10),
            "{:?}",
            sink.warnings
        );
        // Within the limit, it is read as before.
        let mut sink = Collected::default();
        let roomy = options.clone().with_max_held(300 << 10);
        pipeline::run(Input::File(path), &roomy, &mut sink).unwrap();
        assert!(!sink.links.is_empty(), "{what}");
        assert!(sink.warnings.is_empty(), "{:?}", sink.warnings);
    }
}

#[test]
fn the_cli_max_held_flag_sets_the_held_limit() {
    use crate::common::{absolve, stderr};
    let dir = tempfile::tempdir().unwrap();
    let eml = dir.path().join("big.eml");
    let message = big_message(300 << 10);
    std::fs::write(&eml, &message).unwrap();
    let path = eml.to_str().unwrap();

    let out = absolve(
        &["rewrite", "--url", "http://r/", "--max-held", "256K", path],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout == message, "passed through unchanged");
    let said = stderr(&out);
    assert!(
        said.contains("over the limit of 262144 bytes") && said.contains("--max-held"),
        "{said}"
    );
    assert!(!said.contains("Options::with_max_held"), "{said}");

    // Within a limit given with a unit, and by default, the message is read.
    for limit in [&["--max-held", "0.5MiB"][..], &[]] {
        let out = absolve(&[&["links"][..], limit, &[path]].concat(), b"");
        assert_eq!(out.status.code(), Some(0), "{limit:?}: {}", stderr(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("http://h/d/x"),
            "{limit:?}"
        );
    }

    // A size that is none, or 0, is a usage error naming the flag.
    for bad in ["0", "12Q", "-1"] {
        let out = absolve(&["links", &format!("--max-held={bad}"), path], b"");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&out).contains("--max-held"),
            "{bad}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn the_held_limit_is_256_mib_by_default() {
    assert_eq!(Options::new().max_held(), 256 << 20);
    assert_eq!(absolve::DEFAULT_MAX_HELD, 256 << 20);
}

/// RFC 8878 §3.1.2: a skippable frame of magic `0x184D2A50 + nibble` holding `data`.
fn skippable(nibble: u32, data: &[u8]) -> Vec<u8> {
    let mut frame = (0x184D_2A50 + nibble).to_le_bytes().to_vec();
    frame.extend((data.len() as u32).to_le_bytes());
    frame.extend_from_slice(data);
    frame
}

/// A skippable frame's offset in the output, and its content.
type Skipped = (usize, Vec<u8>);

/// Where each skippable frame of `data` is among its bytes, with its content; the bytes
/// between them (the data frames) decompressed one run at a time.
fn split_at_skippable(data: &[u8]) -> (Vec<Skipped>, Vec<Vec<u8>>) {
    let is_magic = |b: &[u8]| b.len() >= 4 && b[0] & 0xf0 == 0x50 && b[1..4] == [0x2a, 0x4d, 0x18];
    let (mut frames, mut runs, mut at, mut run_start) = (Vec::new(), Vec::new(), 0, 0);
    while at < data.len() {
        if is_magic(&data[at..]) {
            if at > run_start {
                let mut text = Vec::new();
                Decoder::new(Compression::Zstd, &data[run_start..at])
                    .read_to_end(&mut text)
                    .unwrap();
                runs.push(text);
            }
            let len = u32::from_le_bytes(data[at + 4..at + 8].try_into().unwrap()) as usize;
            frames.push((at, data[at + 8..at + 8 + len].to_vec()));
            at += 8 + len;
            run_start = at;
        } else {
            at += 1;
        }
    }
    if run_start < data.len() {
        let mut text = Vec::new();
        Decoder::new(Compression::Zstd, &data[run_start..])
            .read_to_end(&mut text)
            .unwrap();
        runs.push(text);
    }
    (frames, runs)
}

/// Two pages of relative links, each compressed as a zstd frame of its own, and what they
/// give rewritten against `http://h/d/` (longer: every frame boundary moves).
fn two_pages() -> ([Vec<u8>; 2], Vec<u8>, Options) {
    let page = |name: &str| -> Vec<u8> {
        (0..2000)
            .map(|i| format!("<p><a href=\"{name}{i}.html\">{name} {i}</a>\n"))
            .collect::<String>()
            .into_bytes()
    };
    let pages = [page("one"), page("two")];
    let options = Options::new().with_url("http://h/d/").unwrap();
    let expected = document::rewrite(&pages.concat(), &options).unwrap().output;
    assert_ne!(expected.len(), pages.concat().len());
    (pages, expected, options)
}

/// The warnings of a rewrite, as text.
fn warnings_of(done: &document::Rewritten) -> Vec<String> {
    done.warnings.iter().map(|w| w.to_string()).collect()
}

#[test]
fn zstd_skippable_frames_keep_their_place_among_the_frames_that_remain() {
    // Before: the middle frame was written at its old decompressed offset of the longer
    // rewritten content, cutting a line in two.
    use absolve::Collected;
    use absolve::pipeline::{self, Input};
    let ([one, two], expected, options) = two_pages();
    let mut zst = skippable(1, b"HEAD");
    zst.extend(compressed(Compression::Zstd, &one));
    zst.extend(skippable(5, b"MIDDLE"));
    zst.extend(compressed(Compression::Zstd, &two));
    zst.extend(skippable(15, b"TRAILER"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html.zst");
    std::fs::write(&file, &zst).unwrap();
    let inputs = [Input::Reader(Box::new(&zst[..])), Input::File(&file)];
    for input in inputs {
        let mut sink = Collected::default();
        pipeline::run(input, &options, &mut sink).unwrap();
        let (frames, runs) = split_at_skippable(&sink.output);
        let names: Vec<&[u8]> = frames.iter().map(|(_, f)| &f[..]).collect();
        assert_eq!(names, [&b"HEAD"[..], b"MIDDLE", b"TRAILER"]);
        assert_eq!(frames[0].0, 0, "first");
        assert_eq!(frames[2].0 + 8 + 7, sink.output.len(), "last");
        assert!(
            runs == [expected.clone()],
            "the content whole, between the head and the rest"
        );
        let problems: Vec<String> = sink.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("1 zstd skippable frame(s) (metadata, no content) between content frames written after the content"),
            "{problems:?}"
        );
    }
    // Listing passes them over, with no warning.
    let found = document::links(&zst, &options).unwrap();
    assert_eq!(found.links.len(), 4000);
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
}

#[test]
fn a_zstd_rewrite_whose_content_kept_its_frames_keeps_skippable_frames_as_they_were() {
    // The first and last places are kept whatever the content: the input comes out as it
    // went in, with no warning. A frame shaped as pzstd's size of the next frame is not
    // one when none follows it.
    let page = b"<a href=http://h/x>one</a>\n";
    let mut zst = skippable(1, b"HEAD");
    zst.extend(compressed(Compression::Zstd, page));
    zst.extend(skippable(0, b"TAIL"));
    zst.extend(skippable(15, b"TRAILER"));
    let done = document::rewrite(&zst, &Options::new()).unwrap();
    assert_eq!(done.output, zst);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
}

/// pzstd's skippable frame: the compressed size of the frame after it.
fn pzstd_size(size: usize) -> Vec<u8> {
    skippable(0, &(size as u32).to_le_bytes())
}

/// The frames of what pzstd wrote: each content frame after its size, decompressed.
fn pzstd_frames(mut data: &[u8]) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    while !data.is_empty() {
        assert_eq!(
            data[..8],
            pzstd_size(0)[..8],
            "pzstd's size at {}",
            data.len()
        );
        let size = u32::from_le_bytes(data[8..12].try_into().unwrap()) as usize;
        let mut decoder = Decoder::new(Compression::Zstd, &data[12..12 + size]);
        let mut text = Vec::new();
        decoder.read_to_end(&mut text).unwrap();
        assert_eq!(decoder.damage(), None, "a whole frame, {size} bytes");
        frames.push(text);
        data = &data[12 + size..];
    }
    frames
}

#[test]
fn pzstd_frame_sizes_are_rewritten_to_the_frames_written() {
    // Before: they were kept with the input frames' sizes, and `pzstd -d` failed on the
    // output ("Unknown frame descriptor").
    let ([one, two], expected, options) = two_pages();
    let mut zst = Vec::new();
    for page in [&one, &two] {
        let frame = compressed(Compression::Zstd, page);
        zst.extend(pzstd_size(frame.len()));
        zst.extend(frame);
    }
    assert!(pzstd_frames(&zst) == [one.clone(), two.clone()]);
    let done = document::rewrite(&zst, &options).unwrap();
    assert!(done.warnings.is_empty(), "{:?}", warnings_of(&done));
    assert!(pzstd_frames(&done.output).concat() == expected);

    // Content past one frame: each frame written has its size.
    let big: Vec<u8> = std::iter::repeat_n(&one[..], 2 * ZSTD_FRAME / one.len() + 1)
        .flatten()
        .copied()
        .collect();
    let mut zst = pzstd_size(0);
    zst.extend(compressed(Compression::Zstd, &big));
    let done = document::rewrite(&zst, &options).unwrap();
    let frames = pzstd_frames(&done.output);
    let expected = document::rewrite(&big, &options).unwrap().output;
    assert_eq!(frames.len(), expected.len().div_ceil(ZSTD_FRAME));
    assert!(frames.len() >= 3);
    assert!(frames.concat() == expected);
}

#[test]
fn what_pzstd_writes_pzstd_reads_once_rewritten() {
    let ([one, two], expected, options) = two_pages();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("page.html");
    std::fs::write(&plain, [one, two].concat()).unwrap();
    let zst = dir.path().join("page.html.zst");
    let Ok(status) = std::process::Command::new("pzstd")
        .args(["-q", "-p", "2", "-f", "-o"])
        .args([&zst, &plain])
        .status()
    else {
        return;
    };
    assert!(status.success());
    let done = document::rewrite(&std::fs::read(&zst).unwrap(), &options).unwrap();
    std::fs::write(&zst, &done.output).unwrap();
    let back = std::process::Command::new("pzstd")
        .args(["-q", "-d", "-c"])
        .arg(&zst)
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert!(back.stdout == expected);
}

/// The seekable format's seek table for `frames` (compressed size, decompressed size,
/// checksum), with checksums.
pub(crate) fn seek_table(frames: &[(usize, usize, u32)]) -> Vec<u8> {
    let mut data = Vec::new();
    for &(compressed, decompressed, checksum) in frames {
        data.extend((compressed as u32).to_le_bytes());
        data.extend((decompressed as u32).to_le_bytes());
        data.extend(checksum.to_le_bytes());
    }
    data.extend((frames.len() as u32).to_le_bytes());
    data.push(0x80);
    data.extend(0x8F92_EAB1u32.to_le_bytes());
    skippable(0xE, &data)
}

/// The seek table that ends `data`, checked against the bytes before it: every entry's
/// frame where the sizes before it say, of its compressed size, decompressing to its
/// decompressed size, with its checksum. Returns the content, decompressed.
fn check_seek_table(data: &[u8]) -> Vec<u8> {
    let footer = &data[data.len() - 9..];
    assert_eq!(
        footer[5..],
        0x8F92_EAB1u32.to_le_bytes(),
        "a seek table ends it"
    );
    assert_eq!(footer[4], 0x80, "with checksums");
    let count = u32::from_le_bytes(footer[..4].try_into().unwrap()) as usize;
    let table_start = data.len() - 9 - 12 * count - 8;
    assert_eq!(data[table_start..table_start + 4], [0x5e, 0x2a, 0x4d, 0x18]);
    let field = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let (mut at, mut content) = (0, Vec::new());
    for entry in 0..count {
        let e = table_start + 8 + 12 * entry;
        let (size, decompressed, checksum) = (field(e) as usize, field(e + 4), field(e + 8));
        let frame = &data[at..at + size];
        let mut decoder = Decoder::new(Compression::Zstd, frame);
        let mut text = Vec::new();
        decoder.read_to_end(&mut text).unwrap();
        assert_eq!(decoder.damage(), None, "entry {entry}: one whole frame");
        assert_eq!(text.len(), decompressed as usize, "entry {entry}");
        let expected = match decompressed {
            0 => 0x51d8_e999, // XXH64 of nothing
            _ => u32::from_le_bytes(frame[size - 4..].try_into().unwrap()),
        };
        assert_eq!(checksum, expected, "entry {entry}");
        content.extend(text);
        at += size;
    }
    assert_eq!(
        at, table_start,
        "the entries describe every byte before the table"
    );
    content
}

#[test]
fn a_seek_table_is_rewritten_to_describe_the_frames_written() {
    // Before: it was kept as it was, its sizes those of the input's frames.
    let ([one, two], expected, options) = two_pages();
    let frames = [&one, &two].map(|page| compressed(Compression::Zstd, page));
    let entries: Vec<_> = [(&frames[0], &one), (&frames[1], &two)]
        .iter()
        .map(|(f, p)| {
            (
                f.len(),
                p.len(),
                u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap()),
            )
        })
        .collect();
    let mut zst = skippable(3, b"HEAD");
    zst.extend(frames.concat());
    zst.extend(seek_table(&entries));
    let mut whole = skippable(3, b"HEAD");
    whole.extend(frames.concat());
    let mut listed = vec![(8 + 4, 0, 0x51d8_e999)];
    listed.extend(&entries);
    whole.extend(seek_table(&listed));
    assert!(check_seek_table(&whole) == [&one[..], &two[..]].concat());

    let done = document::rewrite(&whole, &options).unwrap();
    assert!(done.warnings.is_empty(), "{:?}", warnings_of(&done));
    assert!(done.output.starts_with(&skippable(3, b"HEAD")));
    assert!(check_seek_table(&done.output) == expected);
    // A table that did not describe the input (the head left out) is rewritten too.
    let done = document::rewrite(&zst, &options).unwrap();
    assert!(check_seek_table(&done.output) == expected);
}

#[test]
fn after_damage_the_seek_table_is_left_out_and_the_warning_names_the_file() {
    // Before: the table was written before the bytes after the damage, describing
    // neither, with no word of it.
    let ([one, _], _, options) = two_pages();
    let expected = document::rewrite(&one, &options).unwrap().output;
    let frame = compressed(Compression::Zstd, &one);
    let checksum = u32::from_le_bytes(frame[frame.len() - 4..].try_into().unwrap());
    let mut zst = frame.clone();
    zst.extend(seek_table(&[(frame.len(), one.len(), checksum)]));
    zst.extend(b"JUNK");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html.zst");
    std::fs::write(&file, &zst).unwrap();
    let out = crate::common::absolve(
        &["rewrite", "--url", "http://h/d/", crate::common::arg(&file)],
        b"",
    );
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert!(out.stdout.ends_with(b"JUNK"), "the rest copied as it is");
    let (frames, runs) = split_at_skippable(&out.stdout[..out.stdout.len() - 4]);
    assert!(frames.is_empty(), "no seek table");
    assert!(runs == [expected], "the page rewritten");
    let stderr = crate::common::stderr(&out);
    let dropped = stderr
        .lines()
        .find(|line| line.contains("seek table"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        dropped.contains("page.html.zst: the zstd seek table (seekable format) is left out"),
        "{dropped}"
    );
}

#[test]
fn a_skippable_frame_too_large_to_hold_is_left_out_and_said() {
    use absolve::compress::MAX_SKIPPABLE_HELD;
    let mut zst = skippable(1, &vec![7; MAX_SKIPPABLE_HELD as usize]);
    zst.extend(compressed(Compression::Zstd, b"<p>text"));
    zst.extend(skippable(2, b"kept"));
    let done = document::rewrite(&zst, &Options::new()).unwrap();
    let (frames, runs) = split_at_skippable(&done.output);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].1, b"kept");
    assert_eq!(runs, [b"<p>text"]);
    let problems: Vec<String> = done.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("1 zstd skippable frame(s)"),
        "{problems:?}"
    );
    assert!(
        problems[0].ends_with("the first at compressed byte 0"),
        "{problems:?}"
    );
}

/// An mboxcl2 message whose `Content-Length` covers an unquoted From_ line, then one
/// more message; each with a relative link.
fn counted_mbox(filler: usize) -> Vec<u8> {
    let body = format!(
        "{}\nFrom Monday 3 on, <a href=inside>\n",
        "<p><a href=x>filler</a>\n".repeat(filler)
    );
    let mut mbox = format!(
        "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Length: {}\n\n{body}\n",
        body.len()
    );
    mbox += "From c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html\n\n<a href=y>y</a>\n";
    mbox.into_bytes()
}

#[test]
fn an_mbox_message_past_the_held_limit_keeps_the_from_lines_its_content_length_covers() {
    // Before: past the limit, the From_ line inside the counted body started a message
    // of its own (rewritten, numbered 2); held, it stays in message 1.
    use absolve::Collected;
    use absolve::pipeline::{self, Input};
    let mbox = counted_mbox(200);
    let options = Options::new().with_url("http://h/").unwrap();
    let held = document::links(&mbox, &options).unwrap();
    let numbers = |links: &[absolve::Link]| -> Vec<(usize, String)> {
        links
            .iter()
            .map(|l| (l.location.message.unwrap(), l.resolved.to_string()))
            .collect()
    };
    assert_eq!(numbers(&held.links).len(), 202);
    assert_eq!(numbers(&held.links)[201], (2, "http://h/y".to_string()));
    let small = options.clone().with_max_held(1024);
    let mut sink = Collected::default();
    pipeline::run(Input::Reader(Box::new(&mbox[..])), &small, &mut sink).unwrap();
    // Message 1 passed through whole, message 2 rewritten.
    let first = mbox.len() - b"y>y</a>\n".len();
    assert_eq!(sink.output[..first], mbox[..first]);
    assert_eq!(&sink.output[first..], b"http://h/y>y</a>\n");
    assert_eq!(numbers(&sink.links), [(2, "http://h/y".to_string())]);
    let problems: Vec<String> = sink.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(sink.warnings[0].location.message, Some(1));
    let size = mbox.windows(9).position(|w| w == b"From c@d ").unwrap() - 34;
    assert!(
        problems[0].starts_with(&format!("the message is {size} bytes")),
        "{problems:?}"
    );
}

#[test]
fn an_mbox_message_past_the_held_limit_is_streamed_through_and_the_next_read() {
    use absolve::pipeline::{self, Held, Input, TooLarge};
    use absolve::{Collected, Problem};
    let big = big_message(600 << 10);
    let mut mbox = b"From a@b Mon Jan  1 00:00:00 2024\n".to_vec();
    mbox.extend(&big);
    // A long line with no end of line, then the next message.
    mbox.extend(vec![b'x'; 300 << 10]);
    mbox.extend(b"\n\nFrom c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html\n");
    mbox.extend(b"Content-Location: http://h/2/\n\n<a href=y>y</a>\n");
    let size = (big.len() + (300 << 10) + 2) as u64;
    let options = Options::new().with_max_held(256 << 10);
    let bytes = compressed(Compression::Bzip2, &mbox);
    let mut sink = Collected::default();
    pipeline::run(Input::Reader(Box::new(&bytes[..])), &options, &mut sink).unwrap();
    let mut back = Vec::new();
    Decoder::new(Compression::Bzip2, &sink.output[..])
        .read_to_end(&mut back)
        .unwrap();
    let mut expected = mbox[..mbox.len() - b"y>y</a>\n".len()].to_vec();
    expected.extend(b"http://h/2/y>y</a>\n");
    assert!(
        back == expected,
        "the first passed through, the second rewritten"
    );
    let resolved: Vec<_> = sink.links.iter().map(|l| l.resolved.to_string()).collect();
    assert_eq!(resolved, ["http://h/2/y"]);
    let too_large = TooLarge {
        what: Held::Message,
        size,
        limit: 256 << 10,
        passed_through: true,
    };
    assert_eq!(sink.warnings.len(), 1, "{:?}", sink.warnings);
    assert_eq!(sink.warnings[0].problem, Problem::TooLarge(too_large));
    assert_eq!(sink.warnings[0].location.message, Some(1));

    // Listing: the same, the second message's link found.
    let mut sink = Collected::links_only();
    pipeline::run(Input::Reader(Box::new(&bytes[..])), &options, &mut sink).unwrap();
    assert_eq!(sink.links.len(), 1);
    assert_eq!(sink.links[0].location.message, Some(2));
    assert!(matches!(&sink.warnings[..], [w] if matches!(w.problem, Problem::TooLarge(_))));
}
