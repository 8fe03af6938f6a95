//! One output stream of an execution (stdout or stderr), kept whole without keeping it in
//! memory: its length and SHA-256 over every byte, the first [`HEAD_BYTES`] in memory for
//! messages, and the whole stream in a temporary file when it is longer than that (up to
//! [`Output::SPOOL_LIMIT`] bytes on disk; beyond it only the length and the digest go on,
//! so a difference is still seen, only not located).
//!
//! Two outputs are equal when their bytes are: same length, same digest. Comparisons that
//! leave some lines out (masked nondeterministic lines, the runtime's own stderr lines)
//! stream the kept bytes line by line ([`Output::lines`]).

use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::sync::Arc;

/// Bytes of each stream kept in memory.
pub const HEAD_BYTES: usize = 64 * 1024;

/// A captured output stream.
#[derive(Debug, Clone)]
pub struct Output {
    /// Every byte the design wrote, counted.
    pub len: u64,
    /// SHA-256 of every byte the design wrote.
    pub sha256: [u8; 32],
    /// The first [`HEAD_BYTES`] bytes.
    head: Vec<u8>,
    /// The whole stream (up to `kept` bytes), when it is longer than the head. Shared by
    /// clones; the file is removed when the last one is dropped.
    spool: Option<Arc<tempfile::NamedTempFile>>,
    /// Bytes that can be read back: `len` unless the stream passed the spool limit.
    kept: u64,
}

impl Default for Output {
    fn default() -> Self {
        Output::from_bytes(b"")
    }
}

impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.sha256 == other.sha256
    }
}
impl Eq for Output {}

impl Output {
    /// Bytes of a stream written to its temporary file; the rest is counted and hashed
    /// only. A flooding mutant (`yes`) writes gigabytes before its timeout.
    pub const SPOOL_LIMIT: u64 = 256 << 20;

    /// An output held in memory (tests, short streams).
    pub fn from_bytes(bytes: &[u8]) -> Output {
        let mut capture = Capture::new(u64::MAX);
        capture.add(bytes);
        capture.finish()
    }

    /// The first [`HEAD_BYTES`] bytes.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The head as text (invalid UTF-8 replaced), for messages and for reading the
    /// runtime's `syncmut runtime:` lines.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.head).into_owned()
    }

    /// Whether every byte can be read back (the stream stayed under the spool limit).
    pub fn is_whole(&self) -> bool {
        self.kept == self.len
    }

    /// Bytes that can be read back.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// The kept bytes, streamed.
    pub fn reader(&self) -> Box<dyn BufRead + '_> {
        match &self.spool {
            Some(file) => match file.reopen() {
                Ok(mut f) => {
                    let _ = f.rewind();
                    Box::new(BufReader::new(f.take(self.kept)))
                }
                // The temporary directory was cleaned under us: the head is what is left.
                Err(_) => Box::new(&self.head[..]),
            },
            None => Box::new(&self.head[..]),
        }
    }

    /// The kept bytes line by line, each with its `\n` (the last one may lack it).
    pub fn lines(&self) -> Lines<'_> {
        Lines {
            reader: self.reader(),
            offset: 0,
        }
    }

    /// SHA-256 over the lines `keep` accepts (line index from 0, bytes with their `\n`),
    /// with each line's length, so dropping lines cannot make two outputs collide. Lines
    /// past the spool limit are not seen: the caller checks [`Output::is_whole`].
    pub fn digest_of_lines(&self, keep: &dyn Fn(usize, &[u8]) -> bool) -> [u8; 32] {
        let mut hash = Sha256::new();
        for (i, line) in self.lines().enumerate() {
            if keep(i, &line.bytes) {
                hash.update((line.bytes.len() as u64).to_le_bytes());
                hash.update(&line.bytes);
            }
        }
        hash.finalize().into()
    }
}

/// One line of an output and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Where the line starts in the whole output, in bytes.
    pub offset: u64,
    /// The line without its newline.
    pub bytes: Vec<u8>,
}

impl Line {
    /// The line without its end, as text that shows every byte: valid UTF-8 as is,
    /// other bytes and control characters (but tab) as `\xNN`, so `0x80` and `0x81` read
    /// differently and a stray escape sequence cannot garble a terminal.
    pub fn shown(&self) -> String {
        let bytes = self.bytes.strip_suffix(b"\n").unwrap_or(&self.bytes);
        let mut out = String::new();
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                if c.is_control() && c != '\t' && (c as u32) < 0x100 {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                } else {
                    out.push(c);
                }
            }
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        out
    }
}

/// Iterator over an output's lines ([`Output::lines`]).
pub struct Lines<'a> {
    reader: Box<dyn BufRead + 'a>,
    offset: u64,
}

impl Iterator for Lines<'_> {
    type Item = Line;
    fn next(&mut self) -> Option<Line> {
        let mut bytes = Vec::new();
        match self.reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => None,
            Ok(n) => {
                let line = Line {
                    offset: self.offset,
                    bytes,
                };
                self.offset += n as u64;
                Some(line)
            }
        }
    }
}

/// An output being read ([`crate::streams`] feeds it what a pipe gives).
pub(crate) struct Capture {
    len: u64,
    hash: Sha256,
    head: Vec<u8>,
    spool: Option<tempfile::NamedTempFile>,
    spool_limit: u64,
    kept: u64,
    /// The spool file could not be written (no space): only the head is kept.
    spool_failed: bool,
}

impl Capture {
    pub(crate) fn new(spool_limit: u64) -> Capture {
        Capture {
            len: 0,
            hash: Sha256::new(),
            head: Vec::new(),
            spool: None,
            spool_limit,
            kept: 0,
            spool_failed: false,
        }
    }

    pub(crate) fn add(&mut self, bytes: &[u8]) {
        self.hash.update(bytes);
        self.len += bytes.len() as u64;
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if self.spool.is_none()
            && !self.spool_failed
            && self.len > HEAD_BYTES as u64
            && self.spool_limit > HEAD_BYTES as u64
        {
            // Longer than the head: from now on the whole stream goes to a file.
            match tempfile::Builder::new()
                .prefix("syncmut-output-")
                .tempfile()
            {
                Ok(mut file) => {
                    if file.write_all(&self.head).is_ok() {
                        self.kept = self.head.len() as u64;
                        self.spool = Some(file);
                    } else {
                        self.spool_failed = true;
                    }
                }
                Err(_) => self.spool_failed = true,
            }
            let rest = &bytes[bytes.len().min(room)..];
            self.spill(rest);
        } else if self.spool.is_some() {
            self.spill(bytes);
        } else if !self.spool_failed {
            self.kept = self.head.len() as u64;
        }
    }

    fn spill(&mut self, bytes: &[u8]) {
        let Some(file) = &mut self.spool else { return };
        let take = (self.spool_limit.saturating_sub(self.kept)).min(bytes.len() as u64) as usize;
        if take > 0 {
            if file.write_all(&bytes[..take]).is_err() {
                self.spool_failed = true;
                return;
            }
            self.kept += take as u64;
        }
    }

    pub(crate) fn finish(mut self) -> Output {
        if let Some(file) = &mut self.spool {
            if file.flush().is_err() {
                self.spool_failed = true;
            }
        }
        let spool = if self.spool_failed {
            None
        } else {
            self.spool.map(Arc::new)
        };
        let kept = if spool.is_some() {
            self.kept
        } else {
            self.head.len() as u64
        };
        Output {
            len: self.len,
            sha256: self.hash.finalize().into(),
            head: self.head,
            spool,
            kept,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], limit: u64) -> Output {
        let mut capture = Capture::new(limit);
        for chunk in bytes.chunks(64 * 1024) {
            capture.add(chunk);
        }
        capture.finish()
    }

    #[test]
    fn short_outputs_stay_in_memory_and_compare_by_their_bytes() {
        let a = read(b"one\ntwo\n", Output::SPOOL_LIMIT);
        assert!(a.spool.is_none() && a.is_whole());
        assert_eq!(a, Output::from_bytes(b"one\ntwo\n"));
        assert_ne!(a, Output::from_bytes(b"one\ntwo"));
        let lines: Vec<Line> = a.lines().collect();
        assert_eq!(
            lines,
            [
                Line {
                    offset: 0,
                    bytes: b"one\n".to_vec()
                },
                Line {
                    offset: 4,
                    bytes: b"two\n".to_vec()
                }
            ]
        );
    }

    #[test]
    fn long_outputs_are_spooled_whole_and_read_back_exactly() {
        let mut bytes: Vec<u8> = (0..3 * HEAD_BYTES).map(|i| b'a' + (i % 26) as u8).collect();
        bytes.extend_from_slice(b"\nlast\x80");
        let out = read(&bytes, Output::SPOOL_LIMIT);
        assert!(out.spool.is_some() && out.is_whole());
        assert_eq!(out.head(), &bytes[..HEAD_BYTES]);
        let mut back = Vec::new();
        out.reader().read_to_end(&mut back).unwrap();
        assert_eq!(back, bytes);
        let last = out.lines().last().unwrap();
        assert_eq!(last.offset, 3 * HEAD_BYTES as u64 + 1);
        assert_eq!(last.shown(), "last\\x80");
        // One byte changed far past the head changes the digest.
        let mut other = bytes.clone();
        other[2 * HEAD_BYTES] ^= 1;
        assert_ne!(read(&other, Output::SPOOL_LIMIT), out);
    }

    #[test]
    fn past_the_spool_limit_only_the_length_and_digest_go_on() {
        let bytes = vec![b'x'; 2 * HEAD_BYTES];
        let out = read(&bytes, HEAD_BYTES as u64 + 10);
        assert_eq!(out.len, bytes.len() as u64);
        assert_eq!(out.kept(), HEAD_BYTES as u64 + 10);
        assert!(!out.is_whole());
        assert_eq!(
            out,
            Output::from_bytes(&bytes),
            "the digest still covers every byte"
        );
    }

    #[test]
    fn invalid_utf8_is_shown_byte_by_byte() {
        let line = |b: &[u8]| {
            Line {
                offset: 0,
                bytes: b.to_vec(),
            }
            .shown()
        };
        assert_eq!(line(b"v \x80\n"), "v \\x80");
        assert_ne!(line(b"v \x80\n"), line(b"v \x81\n"));
        assert_eq!(line("é\n".as_bytes()), "é");
    }

    #[test]
    fn a_line_digest_leaves_out_what_it_is_told_to() {
        let a = Output::from_bytes(b"keep\nnoise 1\nkeep too\n");
        let b = Output::from_bytes(b"keep\nnoise 2\nkeep too\n");
        let without_line_1 = |i: usize, _: &[u8]| i != 1;
        assert_eq!(
            a.digest_of_lines(&without_line_1),
            b.digest_of_lines(&without_line_1)
        );
        assert_ne!(
            a.digest_of_lines(&|_, _| true),
            b.digest_of_lines(&|_, _| true)
        );
        // Lines are delimited in the digest: moving a line end is a difference.
        let c = Output::from_bytes(b"kee\npkeep too\n");
        let d = Output::from_bytes(b"keep\nkeep too\n");
        assert_ne!(
            c.digest_of_lines(&|_, _| true),
            d.digest_of_lines(&|_, _| true)
        );
    }
}
