//! LZ4 frames (resiliparse's `.warc.lz4`) read as gzip, bzip2, xz and zstd are: a WARC in
//! LZ4 frames lists the links of its gzip twin, whatever its frames (one per record, one
//! for all, linked blocks with checksums, a legacy frame, skippable frames between them);
//! `rewrite` writes LZ4 back, the skippable frames kept; damage (a block checksum, a cut,
//! bytes after the last frame) is said with its byte offset, the bytes from it copied as
//! they are, reading resumed at the next frame that decodes; the corpus's resiliparse
//! files list what their `.warc.gz` siblings list. The frames are written here with
//! lz4_flex (the `lz4` tool is not needed), over `fixtures/lz4/pages.warc`.

use crate::common::{absolve, arg, json_lines, lz4_warc, stderr};
use absolve::compress::{Compression, DamageReason, Decoder};
use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
use std::io::{Read, Write};
use std::path::Path;

const PAGES: &[u8] = include_bytes!("../fixtures/lz4/pages.warc");

/// The records of a WARC file written as `fixtures/lz4/make.py` writes them, each whole.
fn records(warc: &[u8]) -> Vec<&[u8]> {
    let starts: Vec<usize> = (0..warc.len())
        .filter(|&at| warc[at..].starts_with(b"WARC/1.1\r\nWARC-Type"))
        .chain([warc.len()])
        .collect();
    starts.windows(2).map(|w| &warc[w[0]..w[1]]).collect()
}

/// `data` in one LZ4 frame described by `info`.
fn frame(info: FrameInfo, data: &[u8]) -> Vec<u8> {
    let mut encoder = FrameEncoder::with_frame_info(info, Vec::new());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// Each record in an LZ4 frame of its own, as resiliparse (FastWARC) writes `.warc.lz4`.
fn frame_per_record(warc: &[u8]) -> Vec<u8> {
    records(warc)
        .into_iter()
        .flat_map(|record| frame(FrameInfo::new(), record))
        .collect()
}

/// Each record in a gzip member of its own: the `.warc.gz` twin.
fn member_per_record(warc: &[u8]) -> Vec<u8> {
    records(warc)
        .into_iter()
        .flat_map(|record| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(record).unwrap();
            gz.finish().unwrap()
        })
        .collect()
}

/// A skippable frame (LZ4 Frame Format §5) of magic `0x184D2A5?` holding `data`.
fn skippable(nibble: u8, data: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x50 | nibble, 0x2a, 0x4d, 0x18];
    frame.extend_from_slice(&(data.len() as u32).to_le_bytes());
    frame.extend_from_slice(data);
    frame
}

/// Each layout of LZ4 frames the pages are tried in, by name.
fn layouts(warc: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let linked = FrameInfo::new()
        .block_mode(BlockMode::Linked)
        .block_checksums(true)
        .content_checksum(true)
        .content_size(Some(warc.len() as u64));
    let mut with_skippable = skippable(0, b"head");
    for (n, record) in records(warc).into_iter().enumerate() {
        with_skippable.extend(frame(FrameInfo::new().content_checksum(true), record));
        with_skippable.extend(skippable(n as u8, b"between"));
    }
    vec![
        ("frame per record", frame_per_record(warc)),
        ("one frame", frame(FrameInfo::new(), warc)),
        (
            "linked blocks, checksums, content size",
            frame(linked, warc),
        ),
        (
            "legacy frame",
            frame(FrameInfo::new().legacy_frame(true), warc),
        ),
        ("skippable frames", with_skippable),
    ]
}

/// The links `absolve links` lists in `bytes` written to a file named `name`, each
/// without its `file` key; and what it said.
fn links_of(name: &str, bytes: &[u8]) -> (Vec<serde_json::Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = absolve(&["links", arg(&path)], b"");
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    let links = json_lines(&out.stdout)
        .into_iter()
        .map(|mut link| {
            link.as_object_mut().unwrap().remove("file");
            link
        })
        .collect();
    let said = stderr(&out).replace(&format!("{}", dir.path().display()), "DIR");
    (links, said)
}

/// What `bytes` decompress to, every frame.
fn decompressed(bytes: &[u8]) -> Vec<u8> {
    let mut decoder = Decoder::new(Compression::Lz4, bytes);
    let mut out = Vec::new();
    decoder.read_to_end(&mut out).unwrap();
    assert_eq!(decoder.damage(), None);
    out
}

#[test]
fn a_warc_lz4_lists_the_links_of_its_warc_gz_twin_whatever_its_frames() {
    // Before: refused ("LZ4-compressed: LZ4 is not supported"), status 1.
    let (twin, _) = links_of("pages.warc.gz", &member_per_record(PAGES));
    assert_eq!(twin.len(), 10, "{twin:?}");
    for (layout, bytes) in layouts(PAGES) {
        assert_eq!(
            Compression::detect(&bytes),
            Some(Compression::Lz4),
            "{layout}"
        );
        assert_eq!(decompressed(&bytes), PAGES, "{layout}");
        let (links, said) = links_of("pages.warc.lz4", &bytes);
        assert_eq!(links, twin, "{layout}");
        assert_eq!(said, "", "{layout}");
    }
    let lines: Vec<String> = twin.iter().map(|link| link.to_string()).collect();
    insta::assert_snapshot!("links", lines.join("\n"));
}

/// The one-record WARC the refusal tests wrote (an uncompressed block, no checksum) is
/// read: it was refused.
#[test]
fn a_stored_block_is_read() {
    let (links, said) = links_of("in.warc.lz4", &lz4_warc());
    assert_eq!(said, "");
    assert!(!links.is_empty());
}

#[test]
fn a_piped_lz4_stream_and_a_name_without_lz4_are_read_by_their_magic_number() {
    let bytes = frame_per_record(PAGES);
    let piped = absolve(&["links"], &bytes);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(json_lines(&piped.stdout).len(), 10);
    let (links, _) = links_of("crawl.bin", &bytes);
    assert_eq!(links.len(), 10);
}

/// `rewrite` of each layout: LZ4 out (one frame, the `lz4` tool's defaults), its content
/// the rewrite of the plain WARC, the skippable frames before the first content frame
/// and after the last kept in place, those between moved after the content, and said.
#[test]
fn rewrite_writes_lz4_back_the_rewrite_of_the_plain_warc() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("pages.warc");
    std::fs::write(&plain, PAGES).unwrap();
    let expected = absolve(&["rewrite", arg(&plain)], b"");
    assert!(expected.status.success(), "{}", stderr(&expected));
    assert_ne!(expected.stdout, PAGES);
    for (layout, bytes) in layouts(PAGES) {
        let path = dir.path().join("pages.warc.lz4");
        std::fs::write(&path, &bytes).unwrap();
        let out = absolve(&["rewrite", arg(&path)], b"");
        assert!(out.status.success(), "{layout}: {}", stderr(&out));
        assert_eq!(
            Compression::detect(&out.stdout),
            Some(Compression::Lz4),
            "{layout}"
        );
        // lz4_flex's own frame reader reads it back (as the `lz4` tool and FastWARC do),
        // a frame per `read_to_end`, but for skippable frames, which it refuses.
        let mut back = Vec::new();
        match layout {
            "skippable frames" => back = decompressed(&out.stdout),
            _ => {
                let mut frames = lz4_flex::frame::FrameDecoder::new(&out.stdout[..]);
                while !frames.get_ref().is_empty() {
                    frames.read_to_end(&mut back).unwrap();
                }
            }
        }
        assert_eq!(back, expected.stdout, "{layout}");
        // A frame per record, as the `.warc.gz` twin has a member per record.
        let magic = [0x04, 0x22, 0x4d, 0x18];
        let frames = out.stdout.windows(4).filter(|w| *w == magic).count();
        assert_eq!(frames, records(PAGES).len(), "{layout}");
        if layout == "skippable frames" {
            assert!(out.stdout.starts_with(&skippable(0, b"head")), "{layout}");
            let after: Vec<u8> = (0..records(PAGES).len() as u8)
                .flat_map(|n| skippable(n, b"between"))
                .collect();
            assert!(out.stdout.ends_with(&after), "{layout}");
            insta::assert_snapshot!(
                "rewrite_skippable_stderr",
                stderr(&out).replace(&format!("{}", dir.path().display()), "DIR")
            );
        } else {
            assert_eq!(stderr(&out), "", "{layout}");
        }
    }
}

/// A WARC of more than one block (64 KiB blocks, linked: a block refers to the content
/// of those before it), a record's links after the first block.
#[test]
fn linked_blocks_across_a_long_record_are_read() {
    let filler = "<p>filler text, the same again and again</p>\n".repeat(4000);
    let html = format!("<html><body>{filler}<a href=\"late.html\">late</a></body></html>");
    let block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{html}",
        html.len()
    );
    let record = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:long>\r\n\
         WARC-Target-URI: http://example.com/long/page.html\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    );
    let warc = [PAGES, record.as_bytes()].concat();
    let info = FrameInfo::new()
        .block_mode(BlockMode::Linked)
        .block_size(BlockSize::Max64KB)
        .block_checksums(true)
        .content_checksum(true);
    let bytes = frame(info, &warc);
    assert!(bytes.len() < warc.len() / 10, "compressed: {}", bytes.len());
    assert_eq!(decompressed(&bytes), warc);
    let (links, said) = links_of("long.warc.lz4", &bytes);
    assert_eq!(said, "");
    assert_eq!(links.len(), 11);
    assert_eq!(links[10]["resolved"], "http://example.com/long/late.html");
}

/// Each damage: said with its compressed byte offset, the bytes from there copied as they
/// are by `rewrite`; in a WARC of a frame per record, the records after it read on.
#[test]
fn damage_is_said_and_its_bytes_kept_and_the_frames_after_it_read_on() {
    let frames: Vec<Vec<u8>> = records(PAGES)
        .into_iter()
        .map(|record| {
            frame(
                FrameInfo::new()
                    .block_checksums(true)
                    .content_checksum(true),
                record,
            )
        })
        .collect();
    let whole = frames.concat();
    let second = frames[0].len();
    let third = second + frames[1].len();
    // The frames: the warcinfo record (no link), then pages of 3, 4 and 3 links. The
    // second frame's block checksum (its last 4 bytes before the end mark and the
    // content checksum): bit flipped.
    let mut bad_block_checksum = whole.clone();
    bad_block_checksum[third - 9] ^= 1;
    // The second frame's content checksum, its last 4 bytes.
    let mut bad_content_checksum = whole.clone();
    bad_content_checksum[third - 1] ^= 1;
    // The token of the second frame's compressed block (after its 7-byte header and
    // 4-byte block size), in frames without block checksums: a literal run longer than
    // the block.
    let unchecked: Vec<Vec<u8>> = records(PAGES)
        .into_iter()
        .map(|record| frame(FrameInfo::new().content_checksum(true), record))
        .collect();
    let mut corrupt_block = unchecked.concat();
    assert_eq!(
        unchecked[0].len() + 4,
        second,
        "the block checksum is 4 bytes"
    );
    let second_unchecked = unchecked[0].len();
    corrupt_block[second_unchecked + 11] = 0xff;
    let truncated = whole[..third - 30].to_vec();
    let garbage_tail = [&whole[..], b"garbage after the last frame"].concat();
    let dir = tempfile::tempdir().unwrap();
    let mut said = Vec::new();
    let third_unchecked = second_unchecked + unchecked[1].len();
    // Each case: where the damage is, where reading resumes (the next frame, or the end:
    // the rest copied), how many links are listed.
    for (name, bytes, damaged_at, resumed_at, listed) in [
        (
            "bad-block-checksum",
            &bad_block_checksum,
            second + 7,
            third,
            7,
        ),
        (
            "bad-content-checksum",
            &bad_content_checksum,
            third - 4,
            third,
            10,
        ),
        (
            "corrupt-block",
            &corrupt_block,
            second_unchecked + 7,
            third_unchecked,
            7,
        ),
        ("truncated", &truncated, second + 7, truncated.len(), 0),
        (
            "garbage-tail",
            &garbage_tail,
            whole.len(),
            garbage_tail.len(),
            10,
        ),
    ] {
        let path = dir.path().join(format!("{name}.warc.lz4"));
        std::fs::write(&path, bytes).unwrap();
        let links = absolve(&["links", arg(&path)], b"");
        assert_eq!(links.status.code(), Some(0), "{name}: {}", stderr(&links));
        assert_eq!(
            json_lines(&links.stdout).len(),
            listed,
            "{name}: {}",
            stderr(&links)
        );
        let text = stderr(&links);
        assert!(
            text.contains(&format!("compressed byte {damaged_at} ")),
            "{name}: {text}"
        );
        said.push(text.replace(&format!("{}", dir.path().display()), "DIR"));
        // rewrite: the frames before the damage rewritten, the bytes from the damage to
        // the next frame that decodes copied as they are.
        let out = absolve(&["rewrite", arg(&path)], b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let gap = &bytes[damaged_at..resumed_at];
        assert!(
            out.stdout.windows(gap.len()).any(|w| w == gap),
            "{name}: the damaged bytes are not in the output"
        );
        if resumed_at == bytes.len() {
            assert!(out.stdout.ends_with(gap), "{name}");
        } else {
            assert!(
                !out.stdout.ends_with(gap),
                "{name}: the frames after it rewritten"
            );
        }
    }
    insta::assert_snapshot!("damage_stderr", said.join("\n"));
}

#[test]
fn the_decoder_says_where_each_damage_is() {
    let record = records(PAGES)[1];
    let info = FrameInfo::new()
        .block_checksums(true)
        .content_checksum(true);
    let good = frame(info, record);
    let decode = |bytes: &[u8]| {
        let mut decoder = Decoder::new(Compression::Lz4, bytes);
        let mut out = Vec::new();
        decoder.read_to_end(&mut out).unwrap();
        let damage = decoder.damage().cloned();
        let mut rest = Vec::new();
        decoder.into_rest().read_to_end(&mut rest).unwrap();
        (out, damage.map(|d| (d.reason, d.compressed_offset)), rest)
    };
    let (out, damage, rest) = decode(&good);
    assert_eq!((out.as_slice(), damage, rest.len()), (record, None, 0));
    // A bad content checksum: the content delivered, the checksum the rest.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    let at = bad.len() - 4;
    let (out, damage, rest) = decode(&bad);
    assert_eq!(out, record);
    assert_eq!(
        damage,
        Some((DamageReason::BadChecksum(Compression::Lz4), at as u64))
    );
    assert_eq!(rest, bad[at..]);
    // A header checksum that does not match: nothing delivered, all of it the rest.
    let mut bad = good.clone();
    bad[6] ^= 1;
    let (out, damage, rest) = decode(&bad);
    assert!(out.is_empty());
    assert!(
        matches!(
            damage,
            Some((DamageReason::BadHeader(Compression::Lz4, _), 0))
        ),
        "{damage:?}"
    );
    assert_eq!(rest, bad);
    // A frame that needs a dictionary (FLG bit 0): a bad header, not a wrong decode.
    let with_dictionary = [0x04, 0x22, 0x4d, 0x18, 0x61, 0x40, 0, 0, 0, 0, 0];
    let (_, damage, _) = decode(&with_dictionary);
    assert!(
        matches!(damage, Some((DamageReason::BadHeader(..), 0))),
        "{damage:?}"
    );
}

/// Memory: a frame whose content size field says 2^64 - 1 bytes and whose block size
/// fields say 2 GiB is read as damage (the size never allocated from); a legacy block
/// size above 8 MiB's bound likewise; a block size at the 4 MiB maximum, cut short, is a
/// truncation.
#[test]
fn sizes_that_lie_are_damage_not_allocations() {
    // FLG: version 01, independent blocks, a content size; BD: 4 MiB blocks; the size;
    // HC, the second byte of the descriptor's xxHash-32 (§3.1).
    let mut header = vec![0x04, 0x22, 0x4d, 0x18, 0x68, 0x70];
    header.extend_from_slice(&u64::MAX.to_le_bytes());
    header.push((twox_hash::XxHash32::oneshot(0, &header[4..]) >> 8) as u8);
    let header = &header[..];
    for (block, expected) in [
        (
            0x7fff_ffff_u32.to_le_bytes().to_vec(),
            "corrupt lz4 data: block of 2147483647 bytes",
        ),
        (
            [&(4u32 << 20).to_le_bytes()[..], b"cut"].concat(),
            "the lz4 stream is truncated",
        ),
        (
            0u32.to_le_bytes().to_vec(),
            "corrupt lz4 data: the frame says it holds 18446744073709551615 bytes",
        ),
    ] {
        let bytes = [header, &block[..]].concat();
        let mut decoder = Decoder::new(Compression::Lz4, &bytes[..]);
        let mut out = Vec::new();
        decoder.read_to_end(&mut out).unwrap();
        let said = decoder.damage().unwrap().to_string();
        assert!(said.starts_with(expected), "{said}");
    }
    let legacy = [&[0x02, 0x21, 0x4c, 0x18][..], &u32::MAX.to_le_bytes()].concat();
    let mut decoder = Decoder::new(Compression::Lz4, &legacy[..]);
    decoder.read_to_end(&mut Vec::new()).unwrap();
    let said = decoder.damage().unwrap().to_string();
    assert!(
        said.starts_with("corrupt lz4 data: legacy block larger"),
        "{said}"
    );
}

/// Under `-r`, a `.warc.lz4` is a WARC file as a `.warc.gz` is: listed, and rewritten
/// into the copy of the tree in LZ4.
#[test]
fn a_warc_lz4_in_a_tree_is_read_and_rewritten() {
    let temp = tempfile::tempdir().unwrap();
    let tree = temp.path().join("crawl");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("c.warc.lz4"), frame_per_record(PAGES)).unwrap();
    let listed = absolve(&["links", "-r", arg(&tree)], b"");
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(json_lines(&listed.stdout).len(), 10, "{}", stderr(&listed));
    let copy = temp.path().join("copy");
    let copied = absolve(&["rewrite", "-r", "-o", arg(&copy), arg(&tree)], b"");
    assert!(copied.status.success(), "{}", stderr(&copied));
    let written = std::fs::read(copy.join("c.warc.lz4")).unwrap();
    assert_eq!(Compression::detect(&written), Some(Compression::Lz4));
    assert_ne!(decompressed(&written), PAGES);
}

const CORPUS: &str = "../shared/corpus/warc/resiliparse";

/// resiliparse's own `.warc.lz4` files list what their `.warc.gz` siblings list.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn resiliparse_lz4_files_list_what_their_gz_siblings_list() {
    let mut compared = 0;
    for entry in std::fs::read_dir(CORPUS).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".lz4") else {
            continue;
        };
        let sibling = Path::new(CORPUS).join(format!("{stem}.gz"));
        let (lz4, said) = links_of(&name, &std::fs::read(&path).unwrap());
        assert_eq!(said, "", "{name}");
        let (gz, _) = links_of(&format!("{stem}.gz"), &std::fs::read(&sibling).unwrap());
        assert_eq!(lz4, gz, "{name}");
        compared += 1;
    }
    assert!(compared >= 2, "{compared} .warc.lz4 files in {CORPUS}");
}
