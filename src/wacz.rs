//! WACZ (Web Archive Collection Zipped, <https://specs.webrecorder.net/wacz/1.1.1/>): a ZIP
//! file of WARCs (`archive/*.warc`, `archive/*.warc.gz`), their indexes (`indexes/`), the
//! pages (`pages/pages.jsonl`) and a Frictionless Data Package manifest,
//! `datapackage.json`, whose `profile` is `data-package` and which names the WACZ version
//! (`wacz_version`, WACZ 1.0 to 1.1.1).
//!
//! A [`Wacz`] reads the WARC members in their order in the ZIP, each a streaming reader
//! (a stored member is read straight from the file; a deflated one through a decoder):
//! no member is held in memory, so memory is as for a WARC. ZIP needs the end of the file
//! first (its central directory), so the input must be seekable.
//!
//! ```no_run
//! use absolve::wacz::{Wacz, member_label};
//! use std::io::Read;
//!
//! let mut wacz = Wacz::new(std::fs::File::open("crawl.wacz")?)?;
//! for index in 0..wacz.warc_count() {
//!     let (name, mut reader) = wacz.warc(index)?;
//!     let label = member_label("crawl.wacz", &name);
//!     let mut bytes = 0;
//!     bytes += std::io::copy(&mut reader, &mut std::io::sink())?;
//!     println!("{label}: {bytes} bytes");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Read, Seek};
use zip::ZipArchive;
use zip::read::ZipFile;

/// The manifest's name at the root of a WACZ (WACZ 1.1.1 §"Directory Layout").
pub const DATAPACKAGE: &str = "datapackage.json";

/// The folder holding the WARCs.
pub const ARCHIVE_FOLDER: &str = "archive/";

/// The most of `datapackage.json` read: 64 MiB (it lists every file with its hash: a
/// large crawl's is a few megabytes).
pub const MAX_DATAPACKAGE: u64 = 64 * 1024 * 1024;

/// Why a file is not read as a WACZ.
#[derive(Debug, thiserror::Error)]
pub enum WaczError {
    /// Not a ZIP file, or a damaged one.
    #[error("not a readable ZIP file: {0}")]
    Zip(#[from] zip::result::ZipError),
    /// A ZIP file, but its `datapackage.json` is missing or does not say WACZ.
    #[error("a ZIP file but not a WACZ: {0}")]
    NotWacz(String),
    /// A ZIP file whose directory cannot be read (cut short?) and whose local headers
    /// name no WARC member before the damage ([`Wacz::from_local_headers`]).
    #[error(
        "a ZIP file whose directory is unreadable (cut short?) and no WARC member ({ARCHIVE_FOLDER}*.warc, *.warc.gz) comes before the damage: nothing to list (fetch it again, or check it with `unzip -t`)"
    )]
    NoWarcBeforeDamage,
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A WARC member of a WACZ that could not be read to its end (a damaged or encrypted
/// member, or one that is no WARC): the links found before are listed, the rest of it is
/// skipped, the other members are read.
///
/// ```
/// let damage = absolve::wacz::MemberDamage { offset: 0, reason: "not a WARC file".into() };
/// assert!(damage.to_string().starts_with("member unreadable from byte 0 of its data (not a WARC file)"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "member unreadable from byte {offset} of its data ({reason}): the links before are \
     listed, the rest of it is skipped, the other members are read"
)]
pub struct MemberDamage {
    /// How many bytes of the member's (uncompressed) data were read.
    pub offset: u64,
    /// What went wrong.
    pub reason: String,
}

/// A member of the ZIP whose local header is there but which the ZIP's central
/// directory, as read, does not list (APPNOTE 4.3.6): a second member of the same name
/// (the central directory lists both; a reader keeps the last) or one a tool left behind.
/// It is not read: its bytes may be stale, and its name is the other's.
///
/// ```
/// let unlisted = absolve::wacz::UnlistedMember { offset: 120, name: Some("archive/a.warc".into()) };
/// assert!(unlisted.to_string().starts_with("a member at byte 120 of the file (archive/a.warc) is not in the ZIP's directory"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a member at byte {offset} of the file ({}) is not in the ZIP's directory as read (a \
     second member of that name?): not read; extract it with unzip, which keeps both, and \
     run absolve on it",
    .name.as_deref().unwrap_or("its name unreadable")
)]
pub struct UnlistedMember {
    /// Where its local file header starts in the file.
    pub offset: u64,
    /// Its name, from its local header.
    pub name: Option<String>,
}

/// Whether the first bytes of a file are a ZIP local file header (`PK\x03\x04`), as a
/// WACZ starts (an empty ZIP, `PK\x05\x06`, holds no WARC).
///
/// ```
/// assert!(absolve::wacz::is_zip(b"PK\x03\x04\x14\0"));
/// assert!(!absolve::wacz::is_zip(b"WARC/1.1"));
/// ```
pub fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04")
}

/// Whether a manifest's JSON says WACZ: a `wacz_version` (WACZ 1.0-1.1.1), or the
/// `data-package` profile with a resource under `archive/` (later versions, which drop
/// `wacz_version`).
///
/// ```
/// use absolve::wacz::datapackage_says_wacz;
///
/// assert!(datapackage_says_wacz(br#"{"profile": "data-package", "wacz_version": "1.1.1", "resources": []}"#));
/// assert!(datapackage_says_wacz(br#"{"profile": "data-package", "resources": [{"path": "archive/data.warc.gz"}]}"#));
/// assert!(!datapackage_says_wacz(br#"{"profile": "data-package", "resources": [{"path": "data.csv"}]}"#));
/// assert!(!datapackage_says_wacz(b"not json"));
/// ```
pub fn datapackage_says_wacz(json: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(json) else {
        return false;
    };
    if value.get("wacz_version").is_some_and(|v| v.is_string()) {
        return true;
    }
    let profile = value.get("profile").and_then(|p| p.as_str());
    let archive_resource = value
        .get("resources")
        .and_then(|r| r.as_array())
        .is_some_and(|resources| {
            resources.iter().any(|r| {
                r.get("path")
                    .and_then(|p| p.as_str())
                    .is_some_and(|p| p.starts_with(ARCHIVE_FOLDER))
            })
        });
    profile == Some("data-package") && archive_resource
}

/// Whether `reader` is a WACZ: a ZIP file whose `datapackage.json` says so
/// ([`datapackage_says_wacz`]). Reads the ZIP's central directory and the manifest; the
/// reader's position is left anywhere.
///
/// ```
/// let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
/// zip.start_file("datapackage.json", zip::write::SimpleFileOptions::default())?;
/// std::io::Write::write_all(&mut zip, br#"{"profile": "data-package", "wacz_version": "1.1.1"}"#)?;
/// let bytes = zip.finish()?.into_inner();
/// assert!(absolve::wacz::is_wacz(std::io::Cursor::new(&bytes)));
/// assert!(!absolve::wacz::is_wacz(std::io::Cursor::new(b"WARC/1.1\r\n")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_wacz<R: Read + Seek>(reader: R) -> bool {
    ZipArchive::new(reader)
        .ok()
        .is_some_and(|mut archive| read_datapackage(&mut archive).is_ok())
}

/// The manifest, checked to say WACZ.
fn read_datapackage<R: Read + Seek>(archive: &mut ZipArchive<R>) -> Result<(), WaczError> {
    let manifest = match archive.by_name(DATAPACKAGE) {
        Ok(manifest) => manifest,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(WaczError::NotWacz(format!(
                "no {DATAPACKAGE} (a ZIP of pages or mail? absolve does not read the files in \
                 a ZIP: extract it, `unzip FILE`, then run `absolve rewrite -r` over the folder)"
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let mut json = Vec::new();
    manifest.take(MAX_DATAPACKAGE).read_to_end(&mut json)?;
    if datapackage_says_wacz(&json) {
        Ok(())
    } else {
        Err(WaczError::NotWacz(format!(
            "its {DATAPACKAGE} has no wacz_version nor an archive/ resource"
        )))
    }
}

/// Whether a member's name is one of the WARCs: `archive/NAME.warc` or
/// `archive/NAME.warc.gz` (any case), not in a subfolder.
///
/// ```
/// assert!(absolve::wacz::is_warc_member("archive/data.warc.gz"));
/// assert!(absolve::wacz::is_warc_member("archive/rec-1.WARC"));
/// assert!(!absolve::wacz::is_warc_member("indexes/index.cdx.gz"));
/// assert!(!absolve::wacz::is_warc_member("archive/"));
/// ```
pub fn is_warc_member(name: &str) -> bool {
    let Some(file) = name.strip_prefix(ARCHIVE_FOLDER) else {
        return false;
    };
    let lower = file.to_ascii_lowercase();
    !file.contains('/')
        && (lower.ends_with(".warc") || lower.ends_with(".warc.gz"))
        && lower.len() > ".warc".len()
}

/// The `file` label of a member: `NAME.wacz!/archive/data.warc.gz`, Java's jar-URL
/// convention (`jar:URL!/ENTRY`, `java.net.JarURLConnection`) without its scheme.
///
/// ```
/// assert_eq!(absolve::wacz::member_label("crawl.wacz", "archive/data.warc.gz"), "crawl.wacz!/archive/data.warc.gz");
/// ```
pub fn member_label(wacz: &str, member: &str) -> String {
    format!("{wacz}!/{member}")
}

/// A WACZ being read: its WARC members, in their order in the ZIP.
pub struct Wacz<R> {
    members: Members<R>,
    /// Where each WARC member is (its ZIP index, or its local header's offset when read
    /// from the local headers), with its name.
    warcs: Vec<(u64, String)>,
    /// Members whose local header is there but that the directory does not list.
    unlisted: Vec<UnlistedMember>,
}

/// How a WACZ's members are found.
enum Members<R> {
    /// Through the ZIP's central directory (APPNOTE 4.3.12), as ZIP readers do.
    Directory(ZipArchive<R>),
    /// From their local headers (APPNOTE 4.3.7), one after the other from the file's
    /// start: the central directory is gone ([`Wacz::from_local_headers`]).
    LocalHeaders(R),
}

impl<R: Read + Seek> Wacz<R> {
    /// Opens a WACZ: reads the ZIP's central directory, checks `datapackage.json`
    /// ([`is_wacz`]) and lists the WARC members ([`is_warc_member`]).
    pub fn new(reader: R) -> Result<Self, WaczError> {
        let mut archive = ZipArchive::new(reader)?;
        read_datapackage(&mut archive)?;
        let mut warcs = Vec::new();
        for index in 0..archive.len() {
            if let Some(Ok(name)) = archive.name_for_index(index)
                && is_warc_member(&name)
            {
                warcs.push((index as u64, name.into_owned()));
            }
        }
        let (archive, unlisted) = find_unlisted(archive)?;
        Ok(Wacz {
            members: Members::Directory(archive),
            warcs,
            unlisted,
        })
    }

    /// Opens a WACZ whose central directory cannot be read (a download cut short, which
    /// loses the directory at the end of the file first), from its members' local
    /// headers, one after the other from the file's start, as a streaming ZIP reader
    /// does (the zip crate's [`read_zipfile_from_stream`](zip::read::read_zipfile_from_stream)):
    /// the WARC members whose local header is whole are listed, the last one read up to
    /// where the file ends. The manifest is often last and lost with the directory: its
    /// WARC members make it a WACZ. A member written with a data descriptor and no sizes
    /// in its local header (a ZIP written as a stream) ends the listing.
    ///
    /// ```
    /// use absolve::wacz::Wacz;
    /// use std::io::{Cursor, Read, Write};
    ///
    /// let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    /// let stored = zip::write::SimpleFileOptions::default()
    ///     .compression_method(zip::CompressionMethod::Stored);
    /// zip.start_file("archive/a.warc", stored)?;
    /// zip.write_all(b"WARC/1.1\r\n")?;
    /// zip.start_file("datapackage.json", stored)?;
    /// zip.write_all(br#"{"profile": "data-package", "wacz_version": "1.1.1"}"#)?;
    /// let whole = zip.finish()?.into_inner();
    /// let cut = &whole[..whole.len() - 30]; // the directory's end is gone
    /// assert!(Wacz::new(Cursor::new(cut)).is_err());
    ///
    /// let mut wacz = Wacz::from_local_headers(Cursor::new(cut))?;
    /// assert_eq!(wacz.warc_names().collect::<Vec<_>>(), ["archive/a.warc"]);
    /// let (_, mut member) = wacz.warc(0)?;
    /// let mut bytes = Vec::new();
    /// member.read_to_end(&mut bytes)?;
    /// assert_eq!(bytes, b"WARC/1.1\r\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_local_headers(mut reader: R) -> Result<Self, WaczError> {
        let mut warcs = Vec::new();
        let mut offset = 0;
        while let Some((name, next)) = local_member(&mut reader, offset)? {
            if is_warc_member(&name) {
                warcs.push((offset, name));
            }
            offset = next;
        }
        if warcs.is_empty() {
            return Err(WaczError::NoWarcBeforeDamage);
        }
        Ok(Wacz {
            members: Members::LocalHeaders(reader),
            warcs,
            unlisted: Vec::new(),
        })
    }

    /// Whether the members were found from their local headers
    /// ([`Wacz::from_local_headers`]).
    pub fn without_directory(&self) -> bool {
        matches!(self.members, Members::LocalHeaders(_))
    }

    /// The members the ZIP's directory does not list ([`UnlistedMember`]), in file order.
    pub fn unlisted(&self) -> &[UnlistedMember] {
        &self.unlisted
    }

    /// How many WARC members there are.
    pub fn warc_count(&self) -> usize {
        self.warcs.len()
    }

    /// The WARC members' names, in order.
    pub fn warc_names(&self) -> impl Iterator<Item = &str> {
        self.warcs.iter().map(|(_, name)| name.as_str())
    }

    /// The `number`th WARC member (from 0): its name and a streaming reader of its bytes
    /// (a `.warc.gz` member's bytes are still gzip: the WARC reader decompresses them per
    /// record). The reader reports a CRC-32 mismatch as an error at its end.
    pub fn warc(&mut self, number: usize) -> Result<(String, ZipFile<'_, R>), WaczError> {
        let (at, name) = self
            .warcs
            .get(number)
            .cloned()
            .ok_or_else(|| WaczError::NotWacz(format!("no WARC member number {number}")))?;
        let member = match &mut self.members {
            Members::Directory(archive) => archive.by_index(at as usize)?,
            Members::LocalHeaders(reader) => {
                reader.seek(io::SeekFrom::Start(at))?;
                zip::read::read_zipfile_from_stream(reader)?
                    .ok_or_else(|| WaczError::NotWacz(format!("no member at byte {at}")))?
            }
        };
        Ok((name, member))
    }

    /// Calls `each` with every WARC member's name and reader, in order; stops at the first
    /// error.
    pub fn for_each_warc<F>(&mut self, mut each: F) -> Result<(), WaczError>
    where
        F: FnMut(&str, &mut dyn Read) -> io::Result<()>,
    {
        for number in 0..self.warcs.len() {
            let (name, mut reader) = self.warc(number)?;
            each(&name, &mut reader)?;
        }
        Ok(())
    }
}

/// The most bytes a data descriptor takes after a member's data (APPNOTE 4.3.9: a
/// signature, CRC-32 and two ZIP64 sizes).
const MAX_DESCRIPTOR: u64 = 24;

/// The members whose local header lies in the bytes no listed member covers (from a
/// local header to the end of its data and descriptor), before the central directory.
/// Each is named by the zip crate's reader of local headers; the archive is opened
/// again only when one is found (its reader is needed to read it).
fn find_unlisted<R: Read + Seek>(
    mut archive: ZipArchive<R>,
) -> Result<(ZipArchive<R>, Vec<UnlistedMember>), WaczError> {
    let mut extents = Vec::with_capacity(archive.len());
    for index in 0..archive.len() {
        // A member whose local header does not read is reported when it is read.
        if let Ok(file) = archive.by_index_raw(index)
            && let Some(data) = file.data_start()
        {
            extents.push((file.header_start(), data + file.compressed_size()));
        }
    }
    extents.sort_unstable();
    let mut gaps = Vec::new();
    let mut covered = archive.offset();
    for (start, end) in extents {
        if start > covered + MAX_DESCRIPTOR {
            gaps.push(covered..start);
        }
        covered = covered.max(end);
    }
    if archive.central_directory_start() > covered + MAX_DESCRIPTOR {
        gaps.push(covered..archive.central_directory_start());
    }
    if gaps.is_empty() {
        return Ok((archive, Vec::new()));
    }
    let mut reader = archive.into_inner();
    let mut unlisted = Vec::new();
    for gap in gaps {
        if let Some(member) = local_header_in(&mut reader, gap)? {
            unlisted.push(member);
        }
    }
    Ok((ZipArchive::new(reader)?, unlisted))
}

/// The member whose local header starts at `offset` (APPNOTE 4.3.7): its name, and where
/// the next one starts (after its data, and its data descriptor if one follows); `None`
/// when none starts there, or its data runs past the end of the file.
fn local_member<R: Read + Seek>(reader: &mut R, offset: u64) -> io::Result<Option<(String, u64)>> {
    reader.seek(io::SeekFrom::Start(offset))?;
    let name = match zip::read::read_zipfile_from_stream(reader) {
        Ok(Some(file)) => match file.name() {
            Ok(name) => name.into_owned(),
            Err(_) => return Ok(None),
        },
        _ => return Ok(None),
    };
    // The member was passed over to its end when it was dropped (the zip crate drains a
    // streamed member): the file's position is after its data, or at the file's end.
    let end = reader.stream_position()?;
    let mut signature = [0; 4];
    reader.seek(io::SeekFrom::Start(end))?;
    let next = match reader.read_exact(&mut signature) {
        // APPNOTE 4.3.9.3: a data descriptor, with its optional signature.
        Ok(()) if &signature == b"PK\x07\x08" => end + 16,
        _ => end,
    };
    Ok(Some((name, next)))
}

/// The member whose local header (`PK\x03\x04`) starts among the first bytes of `gap`
/// (after a data descriptor), named as the zip crate reads it.
fn local_header_in<R: Read + Seek>(
    reader: &mut R,
    gap: std::ops::Range<u64>,
) -> io::Result<Option<UnlistedMember>> {
    let mut head = vec![0; (gap.end - gap.start).min(MAX_DESCRIPTOR + 4) as usize];
    reader.seek(io::SeekFrom::Start(gap.start))?;
    reader.read_exact(&mut head)?;
    let Some(at) = memchr::memmem::find(&head, b"PK\x03\x04") else {
        return Ok(None);
    };
    let offset = gap.start + at as u64;
    reader.seek(io::SeekFrom::Start(offset))?;
    let name = match zip::read::read_zipfile_from_stream(reader) {
        Ok(Some(file)) => file.name().ok().map(|name| name.into_owned()),
        _ => None,
    };
    Ok(Some(UnlistedMember { offset, name }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};
    use zip::write::SimpleFileOptions;

    fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in members {
            zip.start_file(*name, SimpleFileOptions::default()).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    const MANIFEST: &[u8] = br#"{"profile": "data-package", "wacz_version": "1.1.1"}"#;

    #[test]
    fn warcs_in_zip_order_others_passed_over() {
        let bytes = zip_of(&[
            ("datapackage.json", MANIFEST),
            ("archive/b.warc", b"WARC/1.1\r\nB"),
            ("pages/pages.jsonl", b"{}"),
            ("archive/a.warc.gz", b"\x1f\x8b"),
            ("archive/sub/c.warc", b"no"),
        ]);
        let mut wacz = Wacz::new(Cursor::new(bytes)).unwrap();
        assert_eq!(
            wacz.warc_names().collect::<Vec<_>>(),
            ["archive/b.warc", "archive/a.warc.gz"]
        );
        let mut seen = Vec::new();
        wacz.for_each_warc(|name, reader| {
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes)?;
            seen.push((name.to_owned(), bytes));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen[0].1, b"WARC/1.1\r\nB");
        assert_eq!(seen[1].1, b"\x1f\x8b");
    }

    #[test]
    fn a_zip_without_the_manifest_is_not_a_wacz() {
        let bytes = zip_of(&[("archive/a.warc", b"WARC/1.1")]);
        assert!(!is_wacz(Cursor::new(&bytes)));
        assert!(matches!(
            Wacz::new(Cursor::new(bytes)),
            Err(WaczError::NotWacz(_))
        ));
        let other = zip_of(&[(
            "datapackage.json",
            br#"{"profile": "tabular-data-package"}"#,
        )]);
        assert!(!is_wacz(Cursor::new(other)));
    }

    #[test]
    fn not_a_zip() {
        assert!(matches!(
            Wacz::new(Cursor::new(b"PK\x03\x04 truncated".to_vec())),
            Err(WaczError::Zip(_))
        ));
    }
}
