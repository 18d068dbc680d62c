//! Damage inside a compressed mail folder or WARC file: the members (gzip members, bzip2
//! and xz streams, zstd frames) after it are read on, their messages and records listed
//! and rewritten, the bytes from the damage to the next member that decodes copied as
//! they are, the messages numbered on; a member the damaged data ran into is read again;
//! a document (HTML) cut by damage is not read on; magic numbers that start no member
//! do not make the search unbounded.

use crate::common::{self, arg, json_lines};
use absolve::compress::{ALL, Compression, Decoder, Encoder};
use absolve::{Options, document};
use std::io::{Read, Write};

fn compressed(c: Compression, data: &[u8]) -> Vec<u8> {
    let mut e = Encoder::new(c, Vec::new()).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Message `n` of an mbox: HTML with one link, relative to its own `Content-Base`.
fn message(n: usize) -> Vec<u8> {
    format!(
        "From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: m{n}\n\
         Content-Base: http://h{n}.example/d/\nContent-Type: text/html\n\n\
         <html><body><a href=\"rel{n}.html\">x</a><p>{}</p></body></html>\n\n",
        "filler ".repeat(40 * n)
    )
    .into_bytes()
}

/// Where the link of message `n` resolves to.
fn resolved(n: usize) -> String {
    format!("http://h{n}.example/d/rel{n}.html")
}

/// Five messages, each compressed as a member of its own (as `pbzip2`, `pzstd` or
/// `cat a.gz b.gz` make), the second damaged by `damage`.
fn five_members(c: Compression, damage: impl Fn(&mut Vec<u8>)) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut members: Vec<Vec<u8>> = (1..=5).map(|n| compressed(c, &message(n))).collect();
    damage(&mut members[1]);
    let file = members.concat();
    (members, file)
}

/// Overwrites the middle of a member's data with 16 bytes of `0xFF`.
fn overwrite_middle(member: &mut [u8]) {
    let middle = member.len() / 2;
    member[middle..middle + 16].fill(0xff);
}

/// What `bytes` decompress to, every member that decodes, read on after damage.
fn decoded_on(c: Compression, bytes: &[u8]) -> Vec<u8> {
    let mut decoder = Decoder::new(c, bytes);
    let mut text = Vec::new();
    loop {
        decoder.read_to_end(&mut text).unwrap();
        if !decoder.resume(&mut |_| Ok(())).unwrap() {
            return text;
        }
    }
}

#[test]
fn every_member_after_a_damaged_one_is_read_on_in_an_mbox() {
    // Before: the rest from the damage on was copied as it is, messages 3 to 5 neither
    // listed nor rewritten.
    let options = Options::new();
    for c in ALL {
        let (members, file) = five_members(c, |m| overwrite_middle(m));
        let found = document::links(&file, &options).unwrap();
        let listed: Vec<(Option<usize>, String)> = found
            .links
            .iter()
            .map(|link| (link.location.message, link.resolved.to_string()))
            .collect();
        for n in [1, 3, 4, 5] {
            assert!(
                listed.iter().any(|(_, url)| *url == resolved(n)),
                "{c}: message {n} listed: {listed:?}"
            );
        }
        let numbers: Vec<usize> = listed.iter().filter_map(|(number, _)| *number).collect();
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "{c}: numbered on: {numbers:?}"
        );

        let done = document::rewrite(&file, &options).unwrap();
        let warnings: Vec<String> = done.warnings.iter().map(|w| w.to_string()).collect();
        let warning = warnings
            .iter()
            .find(|w| w.contains("reading resumes there"))
            .unwrap_or_else(|| panic!("{c}: {warnings:?}"));
        assert!(
            warning.contains("rewrite copies them as they are"),
            "{c}: {warning}"
        );
        let text = String::from_utf8_lossy(&decoded_on(c, &done.output)).into_owned();
        for n in [1, 3, 4, 5] {
            assert!(
                text.contains(&format!("href=\"{}\"", resolved(n))),
                "{c}: {n}"
            );
        }
        // The compressed bytes from the damage to the member read on from are in the
        // output as they were.
        let damage = done
            .warnings
            .iter()
            .find_map(|w| match &w.problem {
                absolve::Problem::Compression(damage) => Some(damage.clone()),
                _ => None,
            })
            .unwrap();
        let gap = &file[damage.compressed_offset as usize..damage.resumed_at.unwrap() as usize];
        let output = &done.output;
        assert!(
            gap.is_empty() || output.windows(gap.len()).any(|w| w == gap),
            "{c}: the damaged bytes copied"
        );
        assert!(members[1].len() > gap.len(), "{c}");
    }
}

#[test]
fn the_command_line_reads_on_and_numbers_the_messages_on() {
    // The file path runs the decoder on a thread of its own, stream after stream.
    let dir = tempfile::tempdir().unwrap();
    for c in ALL {
        let (_, file) = five_members(c, |m| overwrite_middle(m));
        let path = dir.path().join(format!("folder.mbox.{}", c.extension()));
        std::fs::write(&path, &file).unwrap();
        let out = common::absolve(&["links", arg(&path)], b"");
        assert!(out.status.success(), "{c}: {}", common::stderr(&out));
        let links = json_lines(&out.stdout);
        let last = links.last().unwrap();
        assert_eq!(last["resolved"], resolved(5), "{c}");
        let second = links.iter().find(|l| l["resolved"] == resolved(3)).unwrap();
        assert!(second["message"].as_u64().unwrap() >= 2, "{c}");
        assert!(common::stderr(&out).contains("reading resumes"), "{c}");

        let copy = dir.path().join(format!("copy.mbox.{}", c.extension()));
        let out = common::absolve(&["rewrite", arg(&path), "-o", arg(&copy)], b"");
        assert!(out.status.success(), "{c}: {}", common::stderr(&out));
        let text = decoded_on(c, &std::fs::read(&copy).unwrap());
        let text = String::from_utf8_lossy(&text);
        assert!(text.contains(&format!("href=\"{}\"", resolved(5))), "{c}");
    }
}

#[test]
fn a_member_the_damaged_data_ran_into_is_read_again() {
    // gzip: the last bytes of a member overwritten, its deflate data decodes on into the
    // next member's bytes. xz: a stream cut short, the next stream's bytes read as its
    // data. bzip2: a stream cut inside a block, the next stream's block read as the rest
    // of it. Before: the damage was found past the next member's start, and the search
    // for a member started there; message 3 was lost.
    let options = Options::new();
    type Damage = fn(&mut Vec<u8>);
    let cases: [(Compression, Damage); 4] = [
        (Compression::Gzip, |m| {
            let end = m.len();
            m[end - 16..].fill(0xff)
        }),
        (Compression::Xz, |m| m.truncate(m.len() / 2)),
        (Compression::Bzip2, |m| m.truncate(m.len() / 2)),
        (Compression::Zstd, |m| m.truncate(m.len() / 2)),
    ];
    for (c, damage) in cases {
        let (_, file) = five_members(c, damage);
        let found = document::links(&file, &options).unwrap();
        let words: Vec<String> = found.warnings.iter().map(|w| w.to_string()).collect();
        if c == Compression::Gzip {
            // Read again from before where the damage was found: said so, not "copied".
            assert!(
                words
                    .iter()
                    .any(|w| w.contains("decoded on into the member at")),
                "{words:?}"
            );
        }
        for n in [1, 3, 4, 5] {
            assert!(
                found.links.iter().any(|l| l.resolved == resolved(n)),
                "{c}: message {n}: {:?}",
                found.warnings
            );
        }
    }
}

#[test]
fn a_bzip2_block_cut_short_is_damage_where_it_starts() {
    // Before: the cut block took the next stream's block as its end, gave nothing and no
    // error, and the damage was said to be in the next stream: its messages lost.
    let mut first = compressed(Compression::Bzip2, &message(1));
    first.truncate(first.len() - 20);
    let second = compressed(Compression::Bzip2, &message(2));
    let file = [first.clone(), second].concat();
    let mut decoder = Decoder::new(Compression::Bzip2, &file[..]);
    let mut text = Vec::new();
    decoder.read_to_end(&mut text).unwrap();
    let damage = decoder.damage().unwrap().clone();
    assert!(damage.compressed_offset < first.len() as u64, "{damage:?}");
    assert!(decoder.resume(&mut |_| Ok(())).unwrap());
    assert_eq!(decoder.compressed_offset(), first.len() as u64);
    decoder.read_to_end(&mut text).unwrap();
    assert!(text.ends_with(&message(2)));
}

#[test]
fn damage_before_any_byte_reads_the_next_member_as_the_file_start() {
    // A page whose first gzip member gives nothing: the page in the next is the file.
    let mut broken = compressed(Compression::Gzip, b"<p>lost</p>");
    broken[3] = 0xe0; // reserved flags: no member
    let page = compressed(Compression::Gzip, b"<a href=\"p.html\">p</a>");
    let file = [broken, page].concat();
    let options = Options::new().with_url("http://h/d/").unwrap();
    let found = document::links(&file, &options).unwrap();
    let urls: Vec<String> = found.links.iter().map(|l| l.resolved.to_string()).collect();
    assert_eq!(urls, ["http://h/d/p.html"], "{:?}", found.warnings);
}

#[test]
fn a_document_is_not_read_on_after_damage() {
    // An HTML page in two members, the first damaged: what follows the damage is the
    // rest of one document, cut: copied as it is, not read as a document of its own.
    let page = (0..400)
        .map(|i| format!("<p><a href=\"p{i}.html\">{i}</a>\n"))
        .collect::<String>();
    let (one, two) = page.as_bytes().split_at(page.len() / 2);
    let mut first = compressed(Compression::Gzip, one);
    let end = first.len();
    first[end - 6] ^= 1; // its CRC-32
    let second = compressed(Compression::Gzip, two);
    let file = [first.clone(), second.clone()].concat();
    let options = Options::new().with_url("http://h/d/").unwrap();
    let done = document::rewrite(&file, &options).unwrap();
    assert!(done.output.ends_with(&second));
    let warnings: Vec<String> = done.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("the rest is not decoded (rewrite copies it as it is)"))
    );
}

#[test]
fn magic_numbers_that_start_no_member_end_the_search() {
    // A hostile rest: after the damage, 5,000 gzip magic numbers with nothing decodable
    // after them, then a whole member. The search gives up after MAX_FALSE_STARTS
    // trials: the rest is copied as it is.
    let (_, mut file) = five_members(Compression::Gzip, |m| overwrite_middle(m));
    let damaged_end = file.len();
    let mut hostile = Vec::new();
    for _ in 0..5000 {
        hostile.extend_from_slice(&[0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]);
    }
    file.splice(damaged_end..damaged_end, hostile);
    file.extend(compressed(Compression::Gzip, &message(6)));
    // Members 3 to 5 are read on after the damage in member 2; the hostile bytes after
    // them start no member.
    let done = document::rewrite(&file, &Options::new()).unwrap();
    let warnings: Vec<String> = done.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("the rest is not decoded (rewrite copies it as it is)")),
        "{warnings:?}"
    );
    let last = compressed(Compression::Gzip, &message(6));
    assert!(done.output.ends_with(&last));
    const { assert!(absolve::compress::MAX_FALSE_STARTS < 5000) };
}

#[test]
fn a_bzip2_stream_is_read_on_at_the_block_after_the_damaged_one() {
    // One stream (`bzip2 -1`: blocks of 100 kB), one of its blocks damaged: the blocks
    // after it are read, each alone (as bzip2recover does), their CRCs checked. Before:
    // everything after the damaged block was copied unread.
    let folder: Vec<u8> = (1..=80).flat_map(message).collect();
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
    encoder.write_all(&folder).unwrap();
    let mut file = encoder.finish().unwrap();
    assert_eq!(file.windows(4).filter(|w| *w == b"BZh1").count(), 1);
    let middle = file.len() / 3;
    file[middle] ^= 0x10;
    let found = document::links(&file, &Options::new()).unwrap();
    let last = found.links.last().unwrap();
    assert_eq!(last.resolved, resolved(80), "{:?}", found.warnings);
    let listed = found.links.len();
    assert!(
        (60..80).contains(&listed),
        "one block's messages lost, not more: {listed}"
    );

    let done = document::rewrite(&file, &Options::new()).unwrap();
    let text = String::from_utf8_lossy(&decoded_on(Compression::Bzip2, &done.output)).into_owned();
    assert!(text.contains(&format!("href=\"{}\"", resolved(80))));
}

#[test]
fn a_seek_table_after_damage_read_on_is_left_out() {
    // Four messages in zstd frames, a seek table (zstd's seekable format) at the end, the
    // second frame damaged. Before: the frames read on were rewritten and the table
    // rewritten to describe them alone, the bytes copied as they are before them left
    // out of it: a wrong table, with no word.
    let frames: Vec<Vec<u8>> = (1..=4)
        .map(|n| compressed(Compression::Zstd, &message(n)))
        .collect();
    let entries: Vec<(usize, usize, u32)> = frames
        .iter()
        .zip(1..=4)
        .map(|(frame, n)| {
            let checksum = u32::from_le_bytes(frame[frame.len() - 4..].try_into().unwrap());
            (frame.len(), message(n).len(), checksum)
        })
        .collect();
    let mut file = frames.clone();
    overwrite_middle(&mut file[1]);
    let mut file = file.concat();
    file.extend(crate::compress::seek_table(&entries));
    let done = document::rewrite(&file, &Options::new()).unwrap();
    let footer_magic = 0x8F92_EAB1u32.to_le_bytes();
    assert!(
        !done.output.windows(4).any(|w| w == footer_magic),
        "no seek table"
    );
    let warnings: Vec<String> = done.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings.iter().any(|w| w.contains("seek table")),
        "{warnings:?}"
    );
    let text = String::from_utf8_lossy(&decoded_on(Compression::Zstd, &done.output)).into_owned();
    assert!(text.contains(&format!("href=\"{}\"", resolved(4))));
}

#[test]
fn a_file_named_compressed_that_is_not_is_read_as_it_is_and_said() {
    // Before: read as it is with no word (a damaged start and a file saved decompressed
    // looked alike: nothing said either).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.html.gz");
    std::fs::write(&path, b"<a href=\"p.html\">p</a>").unwrap();
    let out = common::absolve(&["links", "--url", "http://h/d/", arg(&path)], b"");
    assert!(out.status.success());
    assert_eq!(json_lines(&out.stdout)[0]["resolved"], "http://h/d/p.html");
    let stderr = common::stderr(&out);
    assert!(
        stderr.contains("page.html.gz: its name says gzip, but it is not gzip data"),
        "{stderr}"
    );
}

#[test]
fn a_file_whose_first_member_is_damaged_is_read_from_the_next() {
    // `folder.mbox.gz` whose first member is damaged from its first byte on: no longer
    // read as text with no word, but from its second member on, the first copied as it
    // is.
    let dir = tempfile::tempdir().unwrap();
    let (members, mut file) = five_members(Compression::Gzip, |_| {});
    file[0] = b'_';
    overwrite_middle(&mut file[..members[0].len()]);
    let path = dir.path().join("folder.mbox.gz");
    std::fs::write(&path, &file).unwrap();
    let out = common::absolve(&["links", arg(&path)], b"");
    assert!(out.status.success());
    let links = json_lines(&out.stdout);
    let urls: Vec<&str> = links
        .iter()
        .map(|l| l["resolved"].as_str().unwrap())
        .collect();
    assert_eq!(urls, [2, 3, 4, 5].map(resolved));
    let copy = dir.path().join("copy.mbox.gz");
    let out = common::absolve(&["rewrite", arg(&path), "-o", arg(&copy)], b"");
    assert!(out.status.success());
    let written = std::fs::read(&copy).unwrap();
    let first = &file[..members[0].len()];
    assert!(
        written.starts_with(first),
        "the damaged member copied as it is"
    );
}

#[test]
fn a_stream_that_gives_nothing_is_copied_whole() {
    // A page whose first bytes happen to be a gzip header, its deflate data bad from the
    // start; a zstd frame damaged at its first block after a skippable frame. Before: the
    // bytes the decoder consumed before it found the damage were lost (an empty member
    // written in their place, the skippable frame dropped), and a second rewrite
    // changed the output again.
    let mut gzip_page = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];
    gzip_page.extend_from_slice(b"<![CDATA[<a href=\"p.html\">p</a>");
    let frame = compressed(Compression::Zstd, &message(1));
    let mut zstd = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0];
    zstd.extend_from_slice(b"META");
    zstd.extend_from_slice(&frame[..frame.len() / 2]);
    let options = Options::new().with_url("http://h/d/").unwrap();
    for file in [gzip_page, zstd] {
        let done = document::rewrite(&file, &options).unwrap();
        assert_eq!(done.output, file, "{:?}", done.warnings);
        let again = document::rewrite(&done.output, &options).unwrap();
        assert_eq!(again.output, done.output);
    }
}

#[test]
fn damaged_deflate_data_is_said_to_be_damaged() {
    // zlib-rs words most deflate errors "repeated call with bad state", which reads as a
    // fault of absolve's; the warning says the data do not decode.
    let page: Vec<u8> = (0..3000)
        .flat_map(|i| format!("<p>line {i}, <a href=\"p{i}.html\">link</a></p>\n").into_bytes())
        .collect();
    let mut file = compressed(Compression::Gzip, &page);
    file[200] ^= 0x55;
    let options = Options::new().with_url("http://h/d/").unwrap();
    let found = document::links(&file, &options).unwrap();
    let words: Vec<String> = found.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        words.iter().any(|w| w.contains("corrupt gzip data")),
        "{words:?}"
    );
    assert!(
        !words.iter().any(|w| w.contains("repeated call")),
        "{words:?}"
    );
}

/// An mbox of messages 1 to 80 in one xz stream of blocks of 64 KiB (as `xz -T` writes
/// blocks of 24 MiB), each block's LZMA2 data on its own.
fn xz_blocks_of(check: lzma_rust2::CheckType) -> Vec<u8> {
    let mut options = lzma_rust2::XzOptions::with_preset(1);
    options.lzma_options.dict_size = 64 * 1024;
    options.set_block_size(std::num::NonZeroU64::new(64 * 1024));
    options.set_check_sum_type(check);
    let mut writer = lzma_rust2::XzWriter::new(Vec::new(), options).unwrap();
    writer
        .write_all(&(1..=80).flat_map(message).collect::<Vec<u8>>())
        .unwrap();
    let file = writer.finish().unwrap();
    assert_eq!(file.windows(6).filter(|w| *w == b"\xfd7zXZ\0").count(), 1);
    file
}

/// Messages 1 to 80 in one stream, named as mail folders: of 64 KiB xz blocks
/// ([`xz_blocks_of`]) and of 100 kB bzip2 blocks (`bzip2 -1`).
fn one_stream_folders() -> [(&'static str, Vec<u8>); 2] {
    let mut bzip2 = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
    bzip2
        .write_all(&(1..=80).flat_map(message).collect::<Vec<u8>>())
        .unwrap();
    [
        ("folder.mbox.xz", xz_blocks_of(lzma_rust2::CheckType::Crc64)),
        ("folder.mbox.bz2", bzip2.finish().unwrap()),
    ]
}

/// `absolve links` of `file`, written as `name` in `dir` (its name says its compression):
/// the links listed, and what was said. The command succeeds.
fn links_of(dir: &std::path::Path, name: &str, file: &[u8]) -> (Vec<serde_json::Value>, String) {
    let path = dir.join(name);
    std::fs::write(&path, file).unwrap();
    let out = common::absolve(&["links", arg(&path)], b"");
    assert!(out.status.success(), "{}", common::stderr(&out));
    (json_lines(&out.stdout), common::stderr(&out))
}

/// A decoder of `file` read to its damage, then read on after it ([`Decoder::resume`]),
/// which it does; and the compressed bytes passed over.
fn read_on_after_damage(c: Compression, file: &[u8]) -> (Decoder<&[u8]>, Vec<u8>) {
    let mut decoder = Decoder::new(c, file);
    decoder.read_to_end(&mut Vec::new()).unwrap();
    let mut gap = Vec::new();
    let resumed = decoder.resume(&mut |bytes| {
        gap.extend_from_slice(bytes);
        Ok(())
    });
    assert!(resumed.unwrap(), "{c:?}: read on");
    (decoder, gap)
}

#[test]
fn an_xz_stream_is_read_on_at_the_block_after_the_damaged_one() {
    // One stream of blocks, one block damaged: the blocks after it are read, as a stream
    // of their own, their checks matched, the stream's index passed over. Before:
    // everything after the damaged block was copied unread.
    for check in [lzma_rust2::CheckType::Crc64, lzma_rust2::CheckType::Sha256] {
        let mut file = xz_blocks_of(check);
        let middle = file.len() / 3;
        file[middle..middle + 16].fill(0xff);
        let found = document::links(&file, &Options::new()).unwrap();
        let last = found.links.last().unwrap();
        assert_eq!(last.resolved, resolved(80), "{:?}", found.warnings);
        let listed = found.links.len();
        assert!(
            (60..80).contains(&listed),
            "{check:?}: one block's messages lost, not more: {listed}"
        );
        assert_eq!(found.warnings.len(), 1, "{check:?}: {:?}", found.warnings);

        let (_, gap) = read_on_after_damage(Compression::Xz, &file);
        assert!(!gap.is_empty() && gap.len() < 64 * 1024, "{}", gap.len());
        let done = document::rewrite(&file, &Options::new()).unwrap();
        assert!(
            done.output.windows(gap.len()).any(|w| w == gap),
            "the damage copied"
        );
        let text = String::from_utf8_lossy(&decoded_on(Compression::Xz, &done.output)).into_owned();
        assert!(text.contains(&format!("href=\"{}\"", resolved(80))));
    }
}

/// Messages 1 to 80 in one LZ4 frame of independent blocks of 64 KiB (as the `lz4` tool
/// writes blocks of 4 MiB), with block checksums or without (the tool's default).
fn lz4_blocks_of(block_checksums: bool) -> Vec<u8> {
    use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
    let info = FrameInfo::new()
        .block_size(BlockSize::Max64KB)
        .block_mode(BlockMode::Independent)
        .block_checksums(block_checksums)
        .content_checksum(true);
    let mut encoder = FrameEncoder::with_frame_info(info, Vec::new());
    encoder
        .write_all(&(1..=80).flat_map(message).collect::<Vec<u8>>())
        .unwrap();
    encoder.finish().unwrap()
}

/// Where each block of [`lz4_blocks_of`]'s frame starts (at its size field): after the
/// magic number and a frame descriptor of three bytes (LZ4 Frame Format §3, no content
/// size), each block its size field, its data and its checksum if there is one.
fn lz4_blocks_in(frame: &[u8], block_checksums: bool) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = 7;
    loop {
        let field = u32::from_le_bytes(frame[at..at + 4].try_into().unwrap());
        if field == 0 {
            return starts;
        }
        starts.push(at);
        at += 4 + (field & 0x7fff_ffff) as usize + if block_checksums { 4 } else { 0 };
    }
}

#[test]
fn an_lz4_frame_is_read_on_at_the_block_after_the_damaged_one() {
    // One frame of independent blocks, one block's data damaged: its size field says
    // where the next block starts, which decodes alone; the blocks from there are read,
    // the frame's content checksum and size (which the lost block counted in) not
    // checked. Before: everything after the damaged block was copied unread.
    for block_checksums in [false, true] {
        let mut file = lz4_blocks_of(block_checksums);
        // The data of a block a third of the way in, from its first sequence's token: a
        // literal run longer than the block (data lost in the middle of a block can decode,
        // as other bytes, and show only at the frame's end, in its content checksum).
        let blocks = lz4_blocks_in(&file, block_checksums);
        let damaged = blocks[blocks.len() / 3] + 4;
        file[damaged..damaged + 16].fill(0xff);
        let found = document::links(&file, &Options::new()).unwrap();
        let words: Vec<String> = found.warnings.iter().map(|w| w.to_string()).collect();
        let last = found.links.last().unwrap();
        assert_eq!(last.resolved, resolved(80), "{block_checksums}: {words:?}");
        let listed = found.links.len();
        assert!(
            (70..80).contains(&listed),
            "{block_checksums}: one block's messages lost, not more: {listed}"
        );
        assert_eq!(words.len(), 1, "{block_checksums}: {words:?}");
        assert!(words[0].contains("reading resumes"), "{words:?}");

        let (mut decoder, gap) = read_on_after_damage(Compression::Lz4, &file);
        assert!(
            gap.len() < 64 * 1024,
            "one block passed over: {}",
            gap.len()
        );
        assert!(
            gap.windows(16).any(|w| w == [0xff; 16]),
            "the damage passed over"
        );
        decoder.read_to_end(&mut Vec::new()).unwrap();
        assert_eq!(decoder.damage(), None, "the frame read on ends whole");

        let done = document::rewrite(&file, &Options::new()).unwrap();
        assert!(
            done.output.windows(gap.len()).any(|w| w == gap),
            "the damage copied"
        );
        let text =
            String::from_utf8_lossy(&decoded_on(Compression::Lz4, &done.output)).into_owned();
        assert!(text.contains(&format!("href=\"{}\"", resolved(80))));
    }
    // The first block damaged, nothing given before it: the frame's header is passed over
    // with it, and the folder (its name says it is one) read on from the second block.
    let dir = tempfile::tempdir().unwrap();
    let mut file = lz4_blocks_of(false);
    let first = lz4_blocks_in(&file, false)[0] + 4;
    file[first..first + 16].fill(0xff);
    let (links, stderr) = links_of(dir.path(), "folder.mbox.lz4", &file);
    assert_eq!(links.last().unwrap()["resolved"], resolved(80), "{stderr}");
    // The first 64 KiB hold the first 21 messages, the smallest.
    assert!((55..80).contains(&links.len()), "{}: {stderr}", links.len());
    assert!(stderr.contains("up to byte "), "{stderr}");
}

#[test]
fn the_xz_blocks_between_two_damaged_ones_are_read() {
    // Two damaged blocks with whole ones between, less than 1 MiB apart: each damage loses
    // its own block, no more. Before: the block after the first damage was taken to read
    // on from only if the blocks from it decoded 1 MiB (or to the stream's end) with no
    // damage, so every block up to the second damaged one was copied unread.
    let resolved_of = |file: &[u8]| -> Vec<String> {
        let found = document::links(file, &Options::new()).unwrap();
        found.links.into_iter().map(|link| link.resolved).collect()
    };
    for check in [lzma_rust2::CheckType::Crc32, lzma_rust2::CheckType::Crc64] {
        let whole = xz_blocks_of(check);
        let damaged_at = |file: &mut Vec<u8>, at: usize| file[at..at + 16].fill(0xff);
        let (first, second) = (whole.len() / 4, whole.len() * 3 / 5);
        let mut one = whole.clone();
        damaged_at(&mut one, first);
        let mut other = whole.clone();
        damaged_at(&mut other, second);
        let mut both = one.clone();
        damaged_at(&mut both, second);

        let (one, other) = (resolved_of(&one), resolved_of(&other));
        let kept_by_both: Vec<&String> = one.iter().filter(|r| other.contains(r)).collect();
        let listed = resolved_of(&both);
        assert_eq!(
            listed.iter().collect::<Vec<_>>(),
            kept_by_both,
            "{check:?}: {} of 80 listed, {} listed with each damage alone",
            listed.len(),
            kept_by_both.len()
        );
        assert!(
            kept_by_both.len() < one.len() && one.len() < 80,
            "two blocks lost"
        );
    }
}

#[test]
fn a_compressed_file_whose_stream_header_is_damaged_is_read_from_its_first_block() {
    // `folder.mbox.xz` and `folder.mbox.bz2` (one stream each) whose magic number is
    // damaged: read from the first block on, every message listed, with a warning.
    // Before: "its name says xz, but it is not xz data", read as text, nothing listed.
    let dir = tempfile::tempdir().unwrap();
    for (name, mut file) in one_stream_folders() {
        file[1] ^= 0x10;
        let (links, stderr) = links_of(dir.path(), name, &file);
        assert_eq!(links.len(), 80, "{name}: {stderr}");
        assert_eq!(links[79]["resolved"], resolved(80));
        assert!(
            stderr.contains("no magic number at compressed byte 0"),
            "{stderr}"
        );
    }
}

#[test]
fn a_member_whose_magic_number_is_damaged_is_read_with_it_restored() {
    // A gzip member or zstd frame whose magic number is damaged (where a member is
    // looked for: the file's start, after a whole member) is read with it restored when
    // the rest of it decodes. Before: the member was copied unread (its messages lost);
    // at the file's start, the whole file was ("its name says gzip, but it is not").
    let dir = tempfile::tempdir().unwrap();
    for c in [Compression::Gzip, Compression::Zstd] {
        for damaged in [0, 2] {
            let (members, mut file) = five_members(c, |_| {});
            let at: usize = members[..damaged].iter().map(Vec::len).sum();
            file[at + 1] ^= 0x10;
            let name = format!("folder.mbox.{}", c.extension());
            let (links, stderr) = links_of(dir.path(), &name, &file);
            let urls: Vec<&str> = links
                .iter()
                .map(|l| l["resolved"].as_str().unwrap())
                .collect();
            assert_eq!(
                urls,
                [1, 2, 3, 4, 5].map(resolved),
                "{c} {damaged}: {stderr}"
            );
            assert!(
                stderr.contains(&format!(
                    "a {c} member whose magic number is damaged at compressed byte {at} "
                )),
                "{stderr}"
            );
        }
    }
}

#[test]
fn a_mail_folder_damaged_in_its_first_block_is_read_on_as_a_mail_folder() {
    // The first block damaged: the stream read on starts inside a message, which its
    // content does not tell for a mail folder; the file's name does. Before: read as one
    // HTML document, its links unresolved ("no base URL"), the messages after lost.
    let dir = tempfile::tempdir().unwrap();
    for (name, mut file) in one_stream_folders() {
        file[40..56].fill(0xff);
        let (links, stderr) = links_of(dir.path(), name, &file);
        assert!((40..80).contains(&links.len()), "{name}: {stderr}");
        assert_eq!(links.last().unwrap()["resolved"], resolved(80), "{stderr}");
        assert!(!stderr.contains("no base URL"), "{stderr}");
        assert!(!stderr.contains("--format"), "{stderr}");
    }
}

#[test]
fn a_file_cut_short_whose_magic_number_is_damaged_is_read_with_it_restored() {
    // One gzip member, cut short (a download that stopped), its magic number damaged:
    // its data decodes with no damage up to the cut, which is what is taken. Before: the
    // trial asked for a whole member or 1 MiB, and the file was copied unread.
    let dir = tempfile::tempdir().unwrap();
    let folder: Vec<u8> = (1..=80).flat_map(message).collect();
    let mut file = compressed(Compression::Gzip, &folder);
    file.truncate(file.len() * 2 / 3);
    file[0] ^= 0x10;
    let (links, stderr) = links_of(dir.path(), "folder.mbox.gz", &file);
    assert!((40..80).contains(&links.len()), "{}: {stderr}", links.len());
    assert_eq!(links[0]["resolved"], resolved(1));
    assert!(
        stderr.contains("a gzip member whose magic number is damaged at compressed byte 0"),
        "{stderr}"
    );
}

/// WARC record `n`: a response whose page has one link, relative to its target URI.
fn warc_record(n: usize) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"p{n}.html\">{}</a>",
        "x".repeat(100 * n)
    );
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:r{n}>\r\n\
         WARC-Target-URI: http://h{n}.example/d/\r\n\
         Content-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

/// Records 1 to 4 in three members: record 1; record 2 and the first half of record 3,
/// every byte of their member overwritten (no member starts in it: damaged data that
/// decodes on would make the test depend on what it decodes to); the rest of record 3
/// and, if `fourth`, record 4. Reading resumes in the middle of record 3.
fn warc_cut_in_a_record(c: Compression, fourth: bool) -> Vec<u8> {
    let third = warc_record(3);
    let (head, tail) = third.split_at(third.len() / 2);
    let mut second = compressed(c, &[warc_record(2), head.to_vec()].concat());
    second.fill(0xa5);
    let mut last = tail.to_vec();
    if fourth {
        last.extend_from_slice(&warc_record(4));
    }
    [compressed(c, &warc_record(1)), second, compressed(c, &last)].concat()
}

/// Every compression the WARC framing does not read itself (gzip it reads member by
/// member: `warc_damage`).
fn whole_file_compressions() -> impl Iterator<Item = Compression> {
    ALL.into_iter().filter(|&c| c != Compression::Gzip)
}

#[test]
fn a_warc_stream_read_on_inside_a_record_skips_its_rest() {
    // Reading resumes after damage inside record 3: its rest is no record. Before, a
    // stream read on with no record in it was "not a WARC file" (status 1, the rewrite
    // given up), and the rest before record 4 was "a wrong Content-Length?".
    let dir = tempfile::tempdir().unwrap();
    for c in whole_file_compressions() {
        for fourth in [false, true] {
            let name = format!("crawl-{fourth}.warc.{}", c.extension());
            let (links, said) = links_of(dir.path(), &name, &warc_cut_in_a_record(c, fourth));
            let resolved: Vec<&str> = links
                .iter()
                .map(|l| l["resolved"].as_str().unwrap())
                .collect();
            let mut expected = vec!["http://h1.example/d/p1.html"];
            if fourth {
                expected.push("http://h4.example/d/p4.html");
            }
            assert_eq!(resolved, expected, "{c}: {said}");
            assert!(said.contains("reading resumes"), "{c}: {said}");
            assert!(
                said.contains(
                    "where reading resumed after the damage are the rest of a record it cut"
                ),
                "{c}: {said}"
            );
            assert!(!said.contains("Content-Length?"), "{c}: {said}");

            let path = dir.path().join(&name);
            let copy = dir.path().join(format!("copy-{name}"));
            let out = common::absolve(&["rewrite", arg(&path), "-o", arg(&copy)], b"");
            assert!(out.status.success(), "{c}: {}", common::stderr(&out));
            let text = decoded_on(c, &std::fs::read(&copy).unwrap());
            let text = String::from_utf8_lossy(&text);
            assert!(text.contains("href=\"http://h1.example/d/p1.html\""), "{c}");
            assert_eq!(
                text.contains("href=\"http://h4.example/d/p4.html\""),
                fourth,
                "{c}"
            );
        }
    }
}

#[test]
fn a_record_cut_by_damage_in_a_warc_compressed_whole_is_said_to_be() {
    // Record 2 starts in the first member, the damage after it: the stream the decoder
    // gives ends inside record 2 there, the file does not. Before: "the file ends N
    // bytes before the end of its block", for the command line and the library alike.
    // A file cut short inside a record still says the file ends.
    use absolve::Event;
    use absolve::warc::Links;
    let dir = tempfile::tempdir().unwrap();
    let second = warc_record(2);
    let (head, tail) = second.split_at(second.len() / 2);
    for c in whole_file_compressions() {
        let mut damaged = compressed(c, b"damaged");
        damaged.fill(0xa5);
        let first = compressed(c, &[warc_record(1), head.to_vec()].concat());
        let last = compressed(c, &[tail.to_vec(), warc_record(3)].concat());
        let cut = [&first[..], &damaged, &last].concat();
        // The next member cut within its first bytes: nothing of it decoded.
        let short = [&first[..], &last[..8]].concat();
        for (bytes, by_damage) in [(&cut[..], true), (&short[..], false)] {
            let name = format!("crawl-{by_damage}.warc.{}", c.extension());
            let (_, said) = links_of(dir.path(), &name, bytes);
            let library: Vec<String> = Links::new(bytes, Options::new())
                .filter_map(|event| match event.unwrap() {
                    Event::Warning(warning) => Some(warning.to_string()),
                    Event::Link(_) => None,
                })
                .collect();
            for said in [said, library.join("\n")] {
                let record_2 = said.lines().find(|line| line.contains("record 2 "));
                let record_2 = record_2.unwrap_or_else(|| panic!("{c} {by_damage}: {said}"));
                assert_eq!(
                    record_2.contains("cut by damaged compressed data"),
                    by_damage,
                    "{c}: {said}"
                );
                assert_eq!(
                    record_2.contains("the file ends"),
                    !by_damage,
                    "{c}: {said}"
                );
            }
        }
    }
}

#[test]
fn the_library_reads_a_warc_compressed_whole_as_the_command_line_does() {
    // `warc::Links` (Python's `warc_links`, `warc_link_batches`, the Spark job) read only
    // plain and gzip WARC files: the others were "not a WARC file: ... decompress it
    // first", though the command line read them.
    use absolve::Event;
    use absolve::warc::Links;
    for c in whole_file_compressions() {
        let whole: Vec<u8> = (1..=4).flat_map(warc_record).collect();
        let found: Vec<String> = Links::new(&compressed(c, &whole)[..], Options::new())
            .map(|event| match event.unwrap() {
                Event::Link(link) => link.resolved,
                Event::Warning(warning) => panic!("{c}: {warning}"),
            })
            .collect();
        let expected: Vec<String> = (1..=4)
            .map(|n| format!("http://h{n}.example/d/p{n}.html"))
            .collect();
        assert_eq!(found, expected, "{c}");

        let mut links = Vec::new();
        let mut said = Vec::new();
        for event in Links::new(&warc_cut_in_a_record(c, true)[..], Options::new()) {
            match event.unwrap() {
                Event::Link(link) => links.push(link.resolved),
                Event::Warning(warning) => said.push(warning.to_string()),
            }
        }
        assert_eq!(
            links,
            [expected[0].clone(), expected[3].clone()],
            "{c}: {said:?}"
        );
        assert!(said[0].contains("reading resumes"), "{c}: {said:?}");
        assert!(
            said[1].contains("the rest of a record it cut"),
            "{c}: {said:?}"
        );
        assert_eq!(said.len(), 2, "{c}: {said:?}");
    }
}

/// A reader that gives one byte a read, as a pipe whose writer writes byte by byte.
struct ByteByByte<'a>(&'a [u8]);

impl Read for ByteByByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some((&first, rest)) = self.0.split_first() else {
            return Ok(0);
        };
        match buf.first_mut() {
            Some(byte) => *byte = first,
            None => return Ok(0),
        }
        self.0 = rest;
        Ok(1)
    }
}

#[test]
fn a_compressed_warc_given_a_byte_a_read_is_told_by_its_magic_number() {
    // The compression was told by the first read alone: one byte is no magic number.
    use absolve::Event;
    use absolve::warc::Links;
    for c in whole_file_compressions() {
        let file = compressed(c, &warc_record(1));
        let found: Vec<String> = Links::new(ByteByByte(&file), Options::new())
            .filter_map(|event| match event.unwrap() {
                Event::Link(link) => Some(link.resolved),
                Event::Warning(_) => None,
            })
            .collect();
        assert_eq!(found, ["http://h1.example/d/p1.html"], "{c}");
    }
}

#[test]
fn the_records_of_a_warc_read_on_after_damage_are_numbered_on() {
    // Records 1 to 5 in three members, two damaged ones between them cutting records 2
    // and 4: reading resumes inside each cut record, whose start was numbered before the
    // damage, so the records after it keep their numbers in the file. Before: each
    // stream read on numbered its records from 1, and both cut records were "record 2".
    use absolve::Event;
    use absolve::warc::Links;
    let dir = tempfile::tempdir().unwrap();
    let halves = |n| {
        let record = warc_record(n);
        let (head, tail) = record.split_at(record.len() / 2);
        (head.to_vec(), tail.to_vec())
    };
    let ((head_2, tail_2), (head_4, tail_4)) = (halves(2), halves(4));
    for c in whole_file_compressions() {
        let mut damaged = compressed(c, b"damaged");
        damaged.fill(0xa5);
        let members = [
            compressed(c, &[warc_record(1), head_2.clone()].concat()),
            damaged.clone(),
            compressed(
                c,
                &[tail_2.clone(), warc_record(3), head_4.clone()].concat(),
            ),
            damaged,
            compressed(c, &[tail_4.clone(), warc_record(5)].concat()),
        ];
        let file = members.concat();
        let (_, said) = links_of(dir.path(), &format!("crawl.warc.{}", c.extension()), &file);
        let library: Vec<String> = Links::new(&file[..], Options::new())
            .filter_map(|event| match event.unwrap() {
                Event::Warning(warning) => Some(warning.to_string()),
                Event::Link(_) => None,
            })
            .collect();
        for said in [said, library.join("\n")] {
            let cut: Vec<&str> = said
                .lines()
                .filter(|line| line.contains("cut by damaged compressed data"))
                .collect();
            assert_eq!(cut.len(), 2, "{c}: {said}");
            assert!(cut[0].contains("record 2 <urn:r2>"), "{c}: {said}");
            assert!(cut[1].contains("record 4 <urn:r4>"), "{c}: {said}");
        }
    }
}
