//! Splitting a CHEG source line into its parts: the optional tag, the
//! mnemonic and the argument fields, each with its byte range in the file.
//!
//! The layout is the original one: `TAG:` at the start of the line, a tab
//! (or spaces), the instruction, its arguments separated by commas; an
//! untagged line starts with a tab or spaces; `;` starts a comment. As in
//! the original reader, a space also separates two arguments (the manual
//! itself writes `VALON var1 var2,var3`), and two commas in a row leave an
//! empty field (an omitted condition, say).

use std::ops::Range;

/// A piece of text with its byte range in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece<'a> {
    /// The text.
    pub text: &'a str,
    /// Where it is in the file.
    pub range: Range<usize>,
}

/// One non-empty source line, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The 1-based line number.
    pub number: u32,
    /// Byte offset of the line's start.
    pub start: usize,
    /// `TAG` of `TAG:`, when the line starts with one.
    pub tag: Option<Piece<'a>>,
    /// A word at the start of the line that is not followed by `:`
    /// (legal only for `ENTRY` and `END`).
    pub unindented: bool,
    /// The mnemonic (or `ENTRY`/`END`), if the line has one.
    pub word: Option<Piece<'a>>,
    /// The rest of the line after the mnemonic, comment removed.
    pub rest: Piece<'a>,
}

/// Splits `text` into its lines and each line into tag, word and rest.
/// Lines that hold only white space or a comment are left out.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let number = n as u32 + 1;
        let line_start = start;
        start += raw.len();
        let body = raw.trim_end_matches(['\n', '\r']);
        let body = match body.find(';') {
            Some(i) => &body[..i],
            None => body,
        };
        if body.trim().is_empty() {
            continue;
        }
        let mut pos = 0;
        let mut tag = None;
        let mut unindented = false;
        let first = body.chars().next().unwrap_or(' ');
        if !first.is_whitespace() {
            let end = body
                .find(|c: char| c.is_whitespace() || c == ':')
                .unwrap_or(body.len());
            if body[end..].starts_with(':') {
                tag = Some(Piece {
                    text: &body[..end],
                    range: line_start..line_start + end,
                });
                pos = end + 1;
            } else {
                unindented = true;
            }
        }
        let after = &body[pos..];
        let skip = after.len() - after.trim_start().len();
        pos += skip;
        let word_text = &body[pos..];
        let word_len = word_text
            .find(char::is_whitespace)
            .unwrap_or(word_text.len());
        let word = (word_len > 0).then(|| Piece {
            text: &word_text[..word_len],
            range: line_start + pos..line_start + pos + word_len,
        });
        let rest_start = pos + word_len;
        out.push(Line {
            number,
            start: line_start,
            tag,
            unindented,
            word,
            rest: Piece {
                text: &body[rest_start..],
                range: line_start + rest_start..line_start + body.len(),
            },
        });
    }
    out
}

/// Splits an argument text into fields. Commas separate fields, two commas
/// in a row give an empty field, a trailing comma gives an empty last
/// field; white space between two arguments separates them too. A literal
/// set `"( ... )` is one field, commas inside included.
pub fn fields<'a>(rest: &Piece<'a>) -> Vec<Piece<'a>> {
    let text = rest.text;
    let bytes = text.as_bytes();
    let base = rest.range.start;
    let mut out = Vec::new();
    let mut i = 0;
    let mut after_comma = false;
    let skip_ws = |mut i: usize| {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t' || bytes[i] == b'\r') {
            i += 1;
        }
        i
    };
    loop {
        i = skip_ws(i);
        if i >= bytes.len() {
            if after_comma {
                out.push(Piece {
                    text: "",
                    range: base + i..base + i,
                });
            }
            break;
        }
        if bytes[i] == b',' {
            out.push(Piece {
                text: "",
                range: base + i..base + i,
            });
            i += 1;
            after_comma = true;
            continue;
        }
        let begin = i;
        if bytes[i] == b'"' && bytes.get(i + 1) == Some(&b'(') {
            let mut depth = 0usize;
            i += 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\r' | b',') {
            i += 1;
        }
        out.push(Piece {
            text: &text[begin..i],
            range: base + begin..base + i,
        });
        i = skip_ws(i);
        after_comma = false;
        if i < bytes.len() && bytes[i] == b',' {
            i += 1;
            after_comma = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        let p = Piece {
            text: s,
            range: 0..s.len(),
        };
        fields(&p).into_iter().map(|f| f.text.to_string()).collect()
    }

    #[test]
    fn fields_split_on_commas_and_spaces() {
        assert_eq!(texts("A,B,C"), ["A", "B", "C"]);
        assert_eq!(texts("A B,C"), ["A", "B", "C"]);
        assert_eq!(texts("LM,,DEEP"), ["LM", "", "DEEP"]);
        assert_eq!(texts("LM,"), ["LM", ""]);
        assert_eq!(
            texts(" A , \"(1,2,(3)) , \"-4"),
            ["A", "\"(1,2,(3))", "\"-4"]
        );
        assert_eq!(texts(""), Vec::<String>::new());
    }

    #[test]
    fn lines_find_tags_and_words() {
        let src = "ENTRY K,K\nL1:\tADD A,\"1,\"2 ; sum\n\tLEAVE\n; only a comment\nEND\n";
        let ls = lines(src);
        assert_eq!(ls.len(), 4);
        assert!(ls[0].unindented);
        assert_eq!(ls[0].word.as_ref().map(|w| w.text), Some("ENTRY"));
        assert_eq!(ls[1].tag.as_ref().map(|t| t.text), Some("L1"));
        assert_eq!(ls[1].word.as_ref().map(|w| w.text), Some("ADD"));
        assert_eq!(ls[1].rest.text.trim(), "A,\"1,\"2");
        assert_eq!(ls[2].number, 3);
        assert_eq!(ls[3].word.as_ref().map(|w| w.text), Some("END"));
    }
}
