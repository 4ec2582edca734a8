//! The chess literals of Che.
//!
//! Che (1996) knows fewer chess words than Che++: concrete squares `a1` ...
//! `h8`, moves between two concrete squares (`d4c5`), the twelve pieces `wP`
//! ... `bK`, the columns `aline` ... `hline`, the rows `row1` ... `row8`, the
//! board sides `kside` and `qside`, and the square colours `lsqr` and
//! `dsqr`. There are no wildcards, no colours of their own and no
//! compoperators; Che++ added those. A Che literal has the value the Che++
//! literal of the same spelling has (`cvm_chess::lit`), so both dialects
//! write the same advice table entries for the same words.
//!
//! A word that is not a Che literal may still be *almost* one: written in
//! the wrong letter case (`E4`; Che is case sensitive) or a Che++ literal
//! Che does not have (`e.`, `?N`, `centre`). [`classify`] says which, so
//! that the diagnostics can say what to write instead.

use cvm_chess::lit::{self, LitKind};

/// Why a word is not a Che literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotLiteral {
    /// The word in another letter case is a Che literal.
    Case {
        /// The kind of that literal.
        kind: LitKind,
        /// The correct spelling.
        spelling: String,
    },
    /// A Che++ literal that Che does not have.
    ChePlusPlus(LitKind),
    /// Not a chess word at all.
    Unknown,
}

/// The kind and CVM value of a Che literal, or why the word is not one.
pub fn classify(word: &str) -> Result<(LitKind, i32), NotLiteral> {
    if let Some(found) = che_literal(word) {
        return Ok(found);
    }
    let lower = word.to_ascii_lowercase();
    let mut candidates = vec![lower.clone()];
    if lower.len() == 2 {
        // A piece: colour in lower case, kind in upper case (`WN` -> `wN`).
        let (c, k) = lower.split_at(1);
        candidates.push(format!("{c}{}", k.to_ascii_uppercase()));
    }
    for c in candidates {
        if c != word {
            if let Some((kind, _)) = che_literal(&c) {
                return Err(NotLiteral::Case { kind, spelling: c });
            }
        }
    }
    match lit::parse_word(word) {
        Some((kind, _)) => Err(NotLiteral::ChePlusPlus(kind)),
        None => Err(NotLiteral::Unknown),
    }
}

/// The kind and value of `word` when it is a Che literal.
pub fn che_literal(word: &str) -> Option<(LitKind, i32)> {
    let (kind, value) = lit::parse_word(word)?;
    let ok = match kind {
        LitKind::Square => (0..64).contains(&value),
        LitKind::Move => lit::split_move(value)
            .is_some_and(|(f, t)| (0..64).contains(&f) && (0..64).contains(&t)),
        LitKind::Piece => lit::split_piece(value).is_some_and(|(c, k)| c < 2 && k < 6),
        LitKind::Column => value < lit::COLUMN_BASE + 8,
        LitKind::Row => true,
        LitKind::BoardSide => value < lit::SIDE_BASE + 2,
        LitKind::SquareColour => value < lit::SQCOLOR_BASE + 2,
        LitKind::Colour | LitKind::CompOp => false,
    };
    ok.then_some((kind, value))
}

/// The plural of a kind's name, for messages ("squares", "board sides").
pub fn plural(kind: LitKind) -> String {
    format!("{}s", kind.name())
}

/// The Che spellings of a kind, for notes ("a1 ... h8").
pub fn spellings(kind: LitKind) -> &'static str {
    match kind {
        LitKind::Square => "a1 ... h8, in lower case",
        LitKind::Move => "two squares written together, such as d4c5",
        LitKind::Piece => "wP wN wB wR wQ wK bP bN bB bR bQ bK",
        LitKind::Column => "aline ... hline",
        LitKind::Row => "row1 ... row8",
        LitKind::BoardSide => "kside or qside",
        LitKind::SquareColour => "lsqr or dsqr",
        LitKind::Colour | LitKind::CompOp => "none in Che",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn che_has_the_nimzo_3_words_only() {
        for w in [
            "e4", "d4c5", "wP", "bK", "cline", "row2", "kside", "qside", "lsqr", "dsqr",
        ] {
            assert!(che_literal(w).is_some(), "{w}");
        }
        for w in [
            "e.", ".4", "..", "e.e4", "..e4", "?N", "wO", "w?", "w", "b", "?", ".line", "centre",
            "kkside", "qqside", "?sqr",
        ] {
            assert!(
                matches!(classify(w), Err(NotLiteral::ChePlusPlus(_))),
                "{w}"
            );
        }
        assert_eq!(
            classify("E4"),
            Err(NotLiteral::Case {
                kind: LitKind::Square,
                spelling: "e4".into()
            })
        );
        assert_eq!(
            classify("WN"),
            Err(NotLiteral::Case {
                kind: LitKind::Piece,
                spelling: "wN".into()
            })
        );
        assert_eq!(
            classify("Kside"),
            Err(NotLiteral::Case {
                kind: LitKind::BoardSide,
                spelling: "kside".into()
            })
        );
        assert_eq!(classify("wFrench.01"), Err(NotLiteral::Unknown));
        assert_eq!(
            classify("d4c5"),
            Ok((LitKind::Move, lit::parse_move("d4c5").unwrap()))
        );
    }
}
