//! Tokens: one file's text to words and punctuation.
//!
//! Che has very little punctuation: `{ } ( ) ; !`. Everything else is a
//! *word*: a keyword, a name (letters, digits and dots, as in
//! `wFrench.01`), a function name or a chess literal; which one depends on
//! where it stands, so the lexer leaves that to the parser and the checker.
//! Words also take `?` and `_`, which no Che word contains, so that a
//! Che++ literal such as `?N` or a name such as `w_French` arrives whole
//! and can be explained instead of being cut in pieces.
//!
//! `#` starts a comment that runs to the end of the line; comments are kept
//! (with the number of tokens before them) for the converter, which copies
//! them into the Che++ it writes.
//!
//! `include` is handled here, because its argument is not a token: the file
//! name is the next word on the same line, and the rest of that line is
//! skipped, as the Nimzo 3 documentation describes. The include stage
//! ([`crate::include`]) replaces the [`TokenKind::Include`] token by the
//! tokens of the named file.

use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{FileId, Span};

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A keyword, name, function name or literal.
    Word(String),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `;`
    Semi,
    /// `!`
    Bang,
    /// `include FILE`, before the include stage replaces it.
    Include {
        /// The file name as written.
        file: String,
        /// Where the file name stands.
        file_span: Span,
    },
    /// The end of the program.
    Eof,
}

impl TokenKind {
    /// How the token is named in messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Word(w) => format!("`{w}`"),
            TokenKind::LBrace => "`{`".into(),
            TokenKind::RBrace => "`}`".into(),
            TokenKind::LParen => "`(`".into(),
            TokenKind::RParen => "`)`".into(),
            TokenKind::Semi => "`;`".into(),
            TokenKind::Bang => "`!`".into(),
            TokenKind::Include { .. } => "`include`".into(),
            TokenKind::Eof => "the end of the file".into(),
        }
    }
}

/// A token and its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it stands.
    pub span: Span,
}

/// A comment: the text after `#`, and how many tokens of the whole
/// program come before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The text after the `#`, without the line break.
    pub text: String,
    /// Where it stands.
    pub span: Span,
    /// The index, in the program's token stream, of the token after it.
    pub before_token: usize,
}

/// The tokens and comments of one file.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens, without an end token.
    pub tokens: Vec<Token>,
    /// The comments, `before_token` counted within this file.
    pub comments: Vec<Comment>,
}

/// Whether `c` may stand in a word.
pub fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '?' | '_')
}

/// Splits one file's text into tokens.
pub fn lex(file: FileId, text: &str, diags: &mut Diagnostics) -> Lexed {
    let mut out = Lexed::default();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
    let mut i = 0;
    while let Some(&(at, c)) = chars.get(i) {
        let single = |kind| Token {
            kind,
            span: Span::new(file, at, at + 1),
        };
        match c {
            '#' => {
                let mut j = i;
                while chars.get(j).is_some_and(|&(_, c)| c != '\n') {
                    j += 1;
                }
                let stop = end_of(j);
                out.comments.push(Comment {
                    text: text
                        .get(at + 1..stop)
                        .unwrap_or("")
                        .trim_end_matches('\r')
                        .to_string(),
                    span: Span::new(file, at, stop),
                    before_token: out.tokens.len(),
                });
                i = j;
            }
            c if c.is_whitespace() => i += 1,
            '{' => {
                out.tokens.push(single(TokenKind::LBrace));
                i += 1;
            }
            '}' => {
                out.tokens.push(single(TokenKind::RBrace));
                i += 1;
            }
            '(' => {
                out.tokens.push(single(TokenKind::LParen));
                i += 1;
            }
            ')' => {
                out.tokens.push(single(TokenKind::RParen));
                i += 1;
            }
            ';' => {
                out.tokens.push(single(TokenKind::Semi));
                i += 1;
            }
            '!' => {
                out.tokens.push(single(TokenKind::Bang));
                i += 1;
            }
            c if is_word_char(c) => {
                let mut j = i;
                while chars.get(j).is_some_and(|&(_, c)| is_word_char(c)) {
                    j += 1;
                }
                let stop = end_of(j);
                let word = text.get(at..stop).unwrap_or("");
                let span = Span::new(file, at, stop);
                if word == "include" {
                    i = include_line(file, text, &chars, j, span, &mut out, diags);
                } else {
                    out.tokens.push(Token {
                        kind: TokenKind::Word(word.to_string()),
                        span,
                    });
                    i = j;
                }
            }
            other => {
                let span = Span::new(file, at, at + other.len_utf8());
                let mut d = Diagnostic::error(span, format!("unexpected character `{other}`"))
                    .label("not part of Che");
                d = match other {
                    ',' => d.help(
                        "the arguments of a Che function are separated by blanks: `wpwns(d4 e4)`",
                    ),
                    '"' => d.help("only `include` takes a quoted file name"),
                    c if !c.is_ascii() => {
                        d.note("names are made of ASCII letters, digits and dots")
                    }
                    _ => d,
                };
                diags.push(d);
                i += 1;
            }
        }
    }
    out
}

/// Reads the rest of an `include` line, starting at char index `i`, pushes
/// the include token and returns the char index of the next line.
fn include_line(
    file: FileId,
    text: &str,
    chars: &[(usize, char)],
    mut i: usize,
    keyword: Span,
    out: &mut Lexed,
    diags: &mut Diagnostics,
) -> usize {
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
    let at_eol = |i: usize| chars.get(i).is_none_or(|&(_, c)| c == '\n');
    while !at_eol(i) && chars.get(i).is_some_and(|&(_, c)| c.is_whitespace()) {
        i += 1;
    }
    let start = i;
    let (name, name_span) = if chars.get(i).is_some_and(|&(_, c)| c == '"') {
        let mut j = i + 1;
        while !at_eol(j) && chars.get(j).is_some_and(|&(_, c)| c != '"') {
            j += 1;
        }
        let closed = chars.get(j).is_some_and(|&(_, c)| c == '"');
        let name = text.get(end_of(i + 1)..end_of(j)).unwrap_or("").to_string();
        let span = Span::new(file, end_of(start), end_of(if closed { j + 1 } else { j }));
        if !closed {
            diags.push(
                Diagnostic::error(span, "unterminated file name")
                    .label("the closing `\"` is missing on this line"),
            );
        }
        i = if closed { j + 1 } else { j };
        (name, span)
    } else {
        while !at_eol(i)
            && chars
                .get(i)
                .is_some_and(|&(_, c)| !c.is_whitespace() && c != '#')
        {
            i += 1;
        }
        let name = text.get(end_of(start)..end_of(i)).unwrap_or("").to_string();
        (name, Span::new(file, end_of(start), end_of(i)))
    };
    if name.is_empty() {
        diags.push(
            Diagnostic::error(keyword, "`include` needs a file name")
                .label("no file name on this line")
                .help(
                    "write the file name after `include` on the same line: `include french.che3`",
                ),
        );
    } else {
        out.tokens.push(Token {
            kind: TokenKind::Include {
                file: name,
                file_span: name_span,
            },
            span: keyword.to(name_span),
        });
    }
    // The rest of the line is skipped; a comment there is still a comment.
    let rest_start = i;
    while !at_eol(i) {
        i += 1;
    }
    let rest = text.get(end_of(rest_start)..end_of(i)).unwrap_or("");
    let trimmed = rest.trim_start();
    if let Some(comment) = trimmed.strip_prefix('#') {
        let lo = end_of(rest_start) + (rest.len() - trimmed.len());
        out.comments.push(Comment {
            text: comment.trim_end_matches('\r').to_string(),
            span: Span::new(file, lo, end_of(i)),
            before_token: out.tokens.len(),
        });
    } else if !trimmed.trim_end().is_empty() {
        let lo = end_of(rest_start) + (rest.len() - trimmed.len());
        let hi = lo + trimmed.trim_end().len();
        diags.push(
            Diagnostic::warning(
                Span::new(file, lo, hi),
                "the rest of an `include` line is skipped",
            )
            .label("ignored")
            .note("`include` reads the file named by the next word and goes on with the next line"),
        );
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> (Vec<TokenKind>, Vec<String>, usize) {
        let mut d = Diagnostics::default();
        let l = lex(FileId(0), text, &mut d);
        let n = d.into_vec().len();
        (
            l.tokens.into_iter().map(|t| t.kind).collect(),
            l.comments.into_iter().map(|c| c.text).collect(),
            n,
        )
    }

    fn w(s: &str) -> TokenKind {
        TokenKind::Word(s.into())
    }

    #[test]
    fn words_and_punctuation() {
        let (k, c, n) = kinds("pattern wFrench.01 { !wpwns(d4 e4) } { }; # white\n");
        assert_eq!(
            k,
            vec![
                w("pattern"),
                w("wFrench.01"),
                TokenKind::LBrace,
                TokenKind::Bang,
                w("wpwns"),
                TokenKind::LParen,
                w("d4"),
                w("e4"),
                TokenKind::RParen,
                TokenKind::RBrace,
                TokenKind::LBrace,
                TokenKind::RBrace,
                TokenKind::Semi,
            ]
        );
        assert_eq!(c, vec![" white"]);
        assert_eq!(n, 0);
    }

    #[test]
    fn include_takes_the_rest_of_the_line() {
        let (k, c, n) = kinds("include lib.che3 # the library\nrule r {} a;");
        assert!(matches!(&k[0], TokenKind::Include { file, .. } if file == "lib.che3"));
        assert_eq!(k[1], w("rule"));
        assert_eq!(c, vec![" the library"]);
        assert_eq!(n, 0);
        let (k, _, n) = kinds("include \"my lib.che3\" extra\n;");
        assert!(matches!(&k[0], TokenKind::Include { file, .. } if file == "my lib.che3"));
        assert_eq!(k[1], TokenKind::Semi);
        assert_eq!(n, 1, "a warning for the skipped words");
        let (k, _, n) = kinds("include\n;");
        assert_eq!(k, vec![TokenKind::Semi]);
        assert_eq!(n, 1);
    }

    #[test]
    fn strange_characters_are_reported_once_each() {
        let (k, _, n) = kinds("wpwns(d4, e4) ä");
        assert_eq!(k.len(), 5);
        assert_eq!(n, 2);
    }
}
