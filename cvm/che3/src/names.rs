//! Che++ names for Che names.
//!
//! A Che name is letters, digits and dots (`wFrench.01`); a Che++ name is
//! letters, digits and underscores and starts with a letter or `_`. The
//! converter writes a Che name with its dots turned into underscores
//! (`wFrench_01`). Che names have no underscores, so this is one-to-one.
//! A name that cannot be written that way — it starts with a digit, or it
//! is a word Che++ already uses: a keyword (in any letter case), a chess
//! literal of Che++ (`w`, `centre`), an intrinsic, a name of `stdlib.che`,
//! `main`, or a helper the converter writes — gets the prefix `che_` and,
//! if that is taken too, a number (`che_begin`, `che_begin_2`).

use crate::hir::Checked;
use std::collections::HashSet;

/// The keywords of Che++.
pub const CHEPP_KEYWORDS: &[&str] = &[
    "and",
    "or",
    "const",
    "var",
    "list",
    "text",
    "procedure",
    "function",
    "extern",
    "begin",
    "end",
    "if",
    "then",
    "elseif",
    "else",
    "switch",
    "case",
    "default",
    "break",
    "goto",
    "return",
    "while",
    "do",
    "repeat",
    "until",
    "for",
    "in",
    "write",
    "include",
];

/// The names `stdlib.che` declares.
pub const STDLIB_NAMES: &[&str] = &[
    "CHE_TRUE",
    "CHE_FALSE",
    "CHE_LISTEND",
    "CHE_INVSQR",
    "CHE_MVBONUS",
    "CHE_MVMALUS",
    "CHE_SQRBONUS",
    "CHE_SQRMALUS",
    "CHE_PCBONUS",
    "CHE_PCMALUS",
    "CHE_DIAGBONUS",
    "CHE_CTRLBONUS",
    "ST_MIDGAMEMOB",
    "ST_ENDGAMEMOB",
    "ST_KINGSAFTY",
    "ST_PAWNEVAL",
    "ST_PAWNMAT",
    "ST_KNIGHTMAT",
    "ST_BISHOPMAT",
    "ST_ROOKMAT",
    "ST_QUEENMAT",
    "ST_PIECETHREAT",
    "ST_FEWMVSTHREAT",
    "ST_FUTIL1CUTOFF",
    "ST_FUTIL2CUTOFF",
    "ST_LEARNFLG",
    "ST_OPPONENT",
    "ST_DEFAULTVALUES",
    "OPP_FRITZ",
    "OPP_JUNIOR",
    "OPP_REBEL",
    "OPP_OTHER",
    "MIDGAME",
    "ENDGAME",
    "LATEENDGAME",
    "PAWNENDGAME",
    "IsPwnEndGame",
    "IsMidGame",
    "GamePhase",
    "OtherColour",
    "CopyList",
    "ClearList",
    "IsEmptyList",
    "InList",
    "AppendList",
    "GoodSqrs",
    "BadSqrs",
    "GoodMvs",
    "BadMvs",
    "GoodPMvs",
    "BadPMvs",
    "KeepPieces",
    "TradePieces",
    "KeepBishops",
    "TradeBishops",
    "GoodDiags",
    "ControlSqrs",
];

/// The names of the helpers the converter may write.
pub const HELPER_NAMES: &[&str] = &["STRONGMVBONUS", "BADMVMALUS", "PieceSqrs", "IsEndgame"];

/// The prefix of a name that needs one.
pub const ESCAPE: &str = "che_";

/// The longest Che++ name.
const MAX_LEN: usize = 255;

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_LEN
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Whether Che++ uses `word` already.
pub fn is_reserved(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    CHEPP_KEYWORDS.contains(&lower.as_str())
        || word == "main"
        || word == "TextOut"
        || STDLIB_NAMES.contains(&word)
        || HELPER_NAMES.contains(&word)
        || cvm::intrinsics::by_name(word).is_some()
        || cvm_chess::lit::parse_word(word).is_some()
        || word == ".sqr"
}

/// The Che++ names of a program's patterns and advices, by index.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// `patterns[i]` names pattern `i`.
    pub patterns: Vec<String>,
    /// `advices[i]` names advice `i`.
    pub advices: Vec<String>,
}

impl Names {
    /// Chooses the names for a checked program.
    pub fn new(p: &Checked) -> Names {
        let che: Vec<&str> = p
            .patterns
            .iter()
            .map(|x| x.name.as_str())
            .chain(p.advices.iter().map(|x| x.name.as_str()))
            .collect();
        let plain: Vec<String> = che.iter().map(|n| n.replace('.', "_")).collect();
        let ok: Vec<bool> = plain
            .iter()
            .map(|n| is_identifier(n) && !is_reserved(n))
            .collect();
        let mut taken: HashSet<String> = plain
            .iter()
            .zip(&ok)
            .filter(|(_, ok)| **ok)
            .map(|(n, _)| n.clone())
            .collect();
        let mut out: Vec<String> = Vec::with_capacity(plain.len());
        for (name, ok) in plain.iter().zip(&ok) {
            if *ok {
                out.push(name.clone());
                continue;
            }
            let base = format!("{ESCAPE}{name}");
            let mut candidate = base.clone();
            let mut n = 2;
            while taken.contains(&candidate)
                || is_reserved(&candidate)
                || !is_identifier(&candidate)
            {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            taken.insert(candidate.clone());
            out.push(candidate);
        }
        let advices = out.split_off(p.patterns.len().min(out.len()));
        Names {
            patterns: out,
            advices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hir::{Advice, Pattern};
    use crate::source::Span;

    fn program(patterns: &[&str], advices: &[&str]) -> Checked {
        Checked {
            patterns: patterns
                .iter()
                .map(|n| Pattern {
                    name: n.to_string(),
                    span: Span::default(),
                    and: Vec::new(),
                    or: Vec::new(),
                })
                .collect(),
            advices: advices
                .iter()
                .map(|n| Advice {
                    name: n.to_string(),
                    span: Span::default(),
                    steps: Vec::new(),
                })
                .collect(),
            ..Checked::default()
        }
    }

    #[test]
    fn names_are_kept_where_they_can_be() {
        let n = Names::new(&program(&["wCstld", "wFrench.01"], &["a.b.c"]));
        assert_eq!(n.patterns, vec!["wCstld", "wFrench_01"]);
        assert_eq!(n.advices, vec!["a_b_c"]);
    }

    #[test]
    fn clashes_are_escaped_without_new_clashes() {
        let n = Names::new(&program(
            &["begin", "che.begin", "01", "w", "KingPos", "End", "main"],
            &["GoodSqrs", "centre", ".x", "IsEndgame", "che.01"],
        ));
        assert_eq!(
            n.patterns,
            vec![
                "che_begin_2",
                "che_begin",
                "che_01_2",
                "che_w",
                "che_KingPos",
                "che_End",
                "che_main"
            ]
        );
        assert_eq!(
            n.advices,
            vec![
                "che_GoodSqrs",
                "che_centre",
                "_x",
                "che_IsEndgame",
                "che_01"
            ]
        );
    }
}
