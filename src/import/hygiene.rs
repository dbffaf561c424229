//! Turning a file's bytes into clean text: encoding, BOM, line ends, control characters
//! (docs/import.md, "Hygiene").

/// Text decoded from a file's bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The text, still with its BOM, line ends and control characters (see [`normalize`]).
    pub text: String,
    /// A note for the report when decoding was not plain UTF-8: `(line, message)`.
    pub warning: Option<(usize, String)>,
}

/// Share of invalid bytes above which a file is not treated as text at all.
const MAX_INVALID_SHARE: f64 = 0.10;

/// Decodes a file's bytes.
///
/// * UTF-8 (with or without a BOM): as is.
/// * A UTF-16 BOM (`FF FE` or `FE FF`, as Windows Notepad writes): decoded as UTF-16 with a
///   warning; unpaired surrogates become U+FFFD.
/// * Invalid UTF-8: decoded lossily, each invalid sequence replaced by U+FFFD, with a warning
///   giving the count and the line of the first one. Why lossy rather than skipped: one stray
///   Latin-1 byte pasted years ago should not drop a whole day of notes, and the replacement
///   character stays visible in the entry while the report points at the line.
/// * More than 10 % of the bytes invalid: `Err` with the skip reason, because such a file is
///   not text in any useful sense (an image or a file in a legacy encoding such as GBK, which
///   lossy decoding would turn into noise).
pub fn decode(bytes: &[u8]) -> Result<Decoded, &'static str> {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return Ok(utf16(rest, u16::from_le_bytes, "UTF-16LE"));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return Ok(utf16(rest, u16::from_be_bytes, "UTF-16BE"));
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(Decoded { text: s.to_string(), warning: None });
    }
    let mut invalid_bytes = 0usize;
    let mut sequences = 0usize;
    let mut first_at = None;
    let mut offset = 0usize;
    for chunk in bytes.utf8_chunks() {
        offset += chunk.valid().len();
        let bad = chunk.invalid().len();
        if bad > 0 {
            invalid_bytes += bad;
            sequences += 1;
            first_at.get_or_insert(offset);
        }
        offset += bad;
    }
    if invalid_bytes as f64 > bytes.len() as f64 * MAX_INVALID_SHARE {
        return Err("not UTF-8 text (over 10% of the bytes are invalid)");
    }
    let first_at = first_at.unwrap_or(0);
    let line = 1 + bytes[..first_at].iter().filter(|&&b| b == b'\n').count();
    Ok(Decoded {
        text: String::from_utf8_lossy(bytes).into_owned(),
        warning: Some((line, format!("invalid UTF-8: {sequences} byte sequence(s) replaced by U+FFFD"))),
    })
}

fn utf16(bytes: &[u8], word: fn([u8; 2]) -> u16, name: &str) -> Decoded {
    let units = bytes.chunks_exact(2).map(|c| word([c[0], c[1]]));
    let text: String = char::decode_utf16(units).map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)).collect();
    Decoded { text, warning: Some((1, format!("decoded as {name} (byte-order mark)"))) }
}

/// Text after [`normalize`].
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    /// Lines separated by `\n` only; no BOM; no control characters except `\t` and `\n`.
    pub text: String,
    /// How many control characters were removed.
    pub control_chars: usize,
    /// The 1-based line of the first removed control character.
    pub first_control_line: Option<usize>,
}

/// Normalises decoded text without changing its line numbering:
///
/// * a leading BOM (U+FEFF) is removed (not counted);
/// * CRLF and lone CR become LF (a lone CR is a line break in the editors that write it);
/// * control characters (Unicode category Cc: NUL, U+0001–U+001F, DEL, U+0080–U+009F) other
///   than tab and line feed are removed and counted, and so is a U+FEFF inside the text;
/// * tabs are kept: the Markdown splitter treats a tab as one indent level;
/// * a missing final newline needs nothing.
pub fn normalize(text: &str) -> Normalized {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut control_chars = 0;
    let mut first_control_line = None;
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
                line += 1;
            }
            '\n' => {
                out.push('\n');
                line += 1;
            }
            '\t' => out.push('\t'),
            c if c.is_control() || c == '\u{feff}' => {
                control_chars += 1;
                first_control_line.get_or_insert(line);
            }
            c => out.push(c),
        }
    }
    Normalized { text: out, control_chars, first_control_line }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_passes_through() {
        let d = decode("- 你好\n".as_bytes()).unwrap();
        assert_eq!(d.text, "- 你好\n");
        assert_eq!(d.warning, None);
    }

    #[test]
    fn a_stray_latin1_byte_is_replaced_with_a_warning() {
        // "caf\xE9" on line 2: one invalid byte out of 12.
        let d = decode(b"- ok\n- caf\xe9 x\n").unwrap();
        assert_eq!(d.text, "- ok\n- caf\u{fffd} x\n");
        assert_eq!(d.warning, Some((2, "invalid UTF-8: 1 byte sequence(s) replaced by U+FFFD".into())));
    }

    #[test]
    fn mostly_invalid_bytes_are_not_text() {
        // GBK "你好" is C4 E3 BA C3: 4 invalid bytes of 6.
        assert_eq!(decode(b"- \xc4\xe3\xba\xc3"), Err("not UTF-8 text (over 10% of the bytes are invalid)"));
    }

    #[test]
    fn utf16_with_bom() {
        let le: Vec<u8> =
            [0xFF, 0xFE].into_iter().chain("- 日\n".encode_utf16().flat_map(|u| u.to_le_bytes())).collect();
        let d = decode(&le).unwrap();
        assert_eq!(d.text, "- 日\n");
        assert_eq!(d.warning, Some((1, "decoded as UTF-16LE (byte-order mark)".into())));
        let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain("a".encode_utf16().flat_map(|u| u.to_be_bytes())).collect();
        assert_eq!(decode(&be).unwrap().text, "a");
    }

    #[test]
    fn normalize_bom_crlf_controls() {
        let n = normalize("\u{feff}a\r\nb\rc\u{0}d\n\te\u{7}\u{feff}\u{85}");
        assert_eq!(n.text, "a\nb\ncd\n\te");
        // NUL on line 3, BEL, inner BOM and NEL (U+0085) on line 4.
        assert_eq!(n.control_chars, 4);
        assert_eq!(n.first_control_line, Some(3));
        let clean = normalize("x\ny");
        assert_eq!((clean.text.as_str(), clean.control_chars, clean.first_control_line), ("x\ny", 0, None));
    }
}
