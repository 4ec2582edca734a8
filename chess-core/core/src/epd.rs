//! EPD (Extended Position Description): a position's first four FEN fields plus named operations.
//!
//! Test suites are distributed as EPD: `bm Qd1+; id "BK.01";` for best moves, `;D1 20 ;D2 400` for
//! perft counts. An operation is an opcode followed by zero or more operands and ends with `;`;
//! operands in double quotes may contain spaces and semicolons. As an extension found in common
//! perft files, two integers right after the four fields are read as the half-move clock and
//! full-move number; otherwise the `hmvc` and `fmvn` operations set them, as the EPD standard says.

use crate::fen::FenError;
use crate::position::Position;
use std::error::Error;
use std::fmt;

/// One EPD operation: an opcode and its operands.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EpdOperation {
    /// The opcode, such as `bm`, `id` or `D1`.
    pub opcode: String,
    /// The operands, with surrounding quotes removed.
    pub operands: Vec<String>,
}

/// A parsed EPD record.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Epd {
    /// The position (clocks from the record's extension or `hmvc`/`fmvn`, else 0 and 1).
    pub position: Position,
    /// The operations in order of appearance.
    pub operations: Vec<EpdOperation>,
}

/// Why an EPD record was rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EpdError {
    /// The four position fields are not valid FEN fields.
    Position(FenError),
    /// A quoted operand is not closed.
    UnterminatedQuote(String),
    /// An operation whose opcode does not start with a letter.
    BadOpcode(String),
    /// `hmvc` or `fmvn` without a single non-negative integer operand.
    BadClock(String),
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdError::Position(err) => write!(f, "invalid EPD position: {err}"),
            EpdError::UnterminatedQuote(op) => {
                write!(f, "unterminated quoted operand in EPD operation `{op}`")
            }
            EpdError::BadOpcode(opcode) => {
                write!(f, "EPD opcode `{opcode}` does not start with a letter")
            }
            EpdError::BadClock(opcode) => write!(
                f,
                "EPD operation `{opcode}` needs one non-negative integer operand"
            ),
        }
    }
}

impl Error for EpdError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            EpdError::Position(err) => Some(err),
            EpdError::UnterminatedQuote(_) | EpdError::BadOpcode(_) | EpdError::BadClock(_) => None,
        }
    }
}

impl From<FenError> for EpdError {
    fn from(err: FenError) -> EpdError {
        EpdError::Position(err)
    }
}

/// Splits an operation into whitespace-separated words, keeping quoted strings whole.
fn words(text: &str) -> Result<Vec<String>, EpdError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut word = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some(ch) => word.push(ch),
                    None => return Err(EpdError::UnterminatedQuote(text.trim().to_owned())),
                }
            }
            out.push(word);
        } else {
            let mut word = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() {
                    break;
                }
                word.push(ch);
                chars.next();
            }
            out.push(word);
        }
    }
    Ok(out)
}

/// Splits the operation text at semicolons that are not inside quotes.
fn split_operations(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut in_quote = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            ';' if !in_quote => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Returns the byte offset just after the `n`-th whitespace-separated field (or the text length).
fn after_fields(text: &str, n: usize) -> usize {
    let mut seen = 0;
    let mut in_field = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() || c == ';' {
            if in_field {
                seen += 1;
                in_field = false;
                if seen == n {
                    return i;
                }
            }
            if c == ';' {
                return i;
            }
        } else {
            in_field = true;
        }
    }
    text.len()
}

fn clock_operand(op: &EpdOperation) -> Result<u32, EpdError> {
    match op.operands.as_slice() {
        [value] => value
            .parse::<u32>()
            .map_err(|_| EpdError::BadClock(op.opcode.clone())),
        _ => Err(EpdError::BadClock(op.opcode.clone())),
    }
}

impl Epd {
    /// Parses one EPD record.
    pub fn parse(text: &str) -> Result<Epd, EpdError> {
        let text = text.trim();
        let split = after_fields(text, 4);
        let mut position_text = text[..split].to_owned();
        let mut rest = &text[split..];
        // Extension: two bare integers after the fields are the clocks.
        let extra: Vec<&str> = rest
            .split(';')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if extra.len() >= 2
            && extra[..2]
                .iter()
                .all(|w| w.bytes().all(|b| b.is_ascii_digit()))
        {
            let cut = after_fields(rest, 2);
            position_text.push(' ');
            position_text.push_str(rest[..cut].trim());
            rest = &rest[cut..];
        }
        let mut position = Position::from_fen(&position_text)?;
        let mut operations = Vec::new();
        for part in split_operations(rest) {
            let mut w = words(part)?;
            if w.is_empty() {
                continue;
            }
            let opcode = w.remove(0);
            if !opcode.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return Err(EpdError::BadOpcode(opcode));
            }
            operations.push(EpdOperation {
                opcode,
                operands: w,
            });
        }
        for op in &operations {
            match op.opcode.as_str() {
                "hmvc" => position.halfmove_clock = clock_operand(op)?,
                "fmvn" => position.fullmove_number = clock_operand(op)?.max(1),
                _ => {}
            }
        }
        Ok(Epd {
            position,
            operations,
        })
    }

    /// The operands of the first operation with `opcode`, if present.
    pub fn operation(&self, opcode: &str) -> Option<&[String]> {
        self.operations
            .iter()
            .find(|op| op.opcode == opcode)
            .map(|op| op.operands.as_slice())
    }
}

/// Prints the record: four position fields, then each operation followed by `;`. Operands that
/// are empty or contain spaces or semicolons are written in double quotes.
impl fmt::Display for Epd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.position.epd_fields())?;
        for op in &self.operations {
            write!(f, " {}", op.opcode)?;
            for operand in &op.operands {
                if operand.is_empty() || operand.contains([' ', ';', '\t']) {
                    write!(f, " \"{operand}\"")?;
                } else {
                    write!(f, " {operand}")?;
                }
            }
            f.write_str(";")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_move_record() {
        let epd =
            Epd::parse("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";")
                .expect("valid");
        assert_eq!(epd.operation("bm"), Some(&["Qd1+".to_owned()][..]));
        assert_eq!(epd.operation("id"), Some(&["BK.01".to_owned()][..]));
        assert_eq!(
            epd.to_string(),
            "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id BK.01;"
        );
    }

    #[test]
    fn perft_record_with_clocks() {
        let epd = Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - 3 9 ;D1 15 ;D2 66").expect("valid");
        assert_eq!(epd.position.halfmove_clock(), 3);
        assert_eq!(epd.position.fullmove_number(), 9);
        assert_eq!(epd.operation("D2"), Some(&["66".to_owned()][..]));
    }

    #[test]
    fn clock_operations_and_errors() {
        let epd = Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - hmvc 7; fmvn 20;").expect("valid");
        assert_eq!(epd.position.halfmove_clock(), 7);
        assert_eq!(epd.position.fullmove_number(), 20);
        assert!(matches!(
            Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - id \"open;"),
            Err(EpdError::UnterminatedQuote(_))
        ));
        assert!(matches!(
            Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - hmvc x;"),
            Err(EpdError::BadClock(_))
        ));
        assert!(matches!(
            Epd::parse("4k3/8/8/8/8/8/8/4K2R w X - id a;"),
            Err(EpdError::Position(_))
        ));
    }
}
