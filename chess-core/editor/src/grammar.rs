//! TextMate grammars for the three languages (syntax colouring in editors
//! that read them, VS Code among them), made from the tables that define
//! the languages: the intrinsic table, the standard library, the Che
//! function table and CHEG's instruction and condition tables. The files in
//! `chess-core/editor/grammars/` are these grammars; a test keeps them equal
//! (`CHE_WRITE_GRAMMARS=1` rewrites them).

use crate::analysis::{builtin_words, stdlib_symbols, BuiltinKind, Language, SymbolKind};
use serde_json::{json, Value};

/// The file name of a language's grammar.
pub fn file_name(language: Language) -> &'static str {
    match language {
        Language::Chepp => "che.tmLanguage.json",
        Language::Che3 => "che3.tmLanguage.json",
        Language::Cheg => "cheg.tmLanguage.json",
    }
}

/// `\b(?:a|b|...)\b` over words that are identifiers.
fn words(list: impl IntoIterator<Item = String>) -> String {
    let mut list: Vec<String> = list.into_iter().collect();
    list.sort();
    list.dedup();
    // Longer first, so that a word never stops at a prefix that is a word.
    list.sort_by_key(|w| std::cmp::Reverse(w.len()));
    format!("\\b(?:{})\\b", list.join("|"))
}

/// An alternation of literal texts (regex characters escaped), between
/// separators of CHEG's argument lists.
fn cheg_words(list: impl IntoIterator<Item = String>) -> String {
    let mut list: Vec<String> = list
        .into_iter()
        .map(|w| {
            w.chars()
                .map(|c| {
                    // Only the metacharacters: `\<` and `\>` are word
                    // boundaries in Oniguruma.
                    if "\\.+*?()|[]{}^$".contains(c) {
                        format!("\\{c}")
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    list.sort();
    list.dedup();
    list.sort_by_key(|w| std::cmp::Reverse(w.len()));
    format!("(?:^|(?<=[\\s,]))(?:{})(?=$|[\\s,;])", list.join("|"))
}

fn builtins(language: Language, kind: BuiltinKind) -> impl Iterator<Item = String> {
    builtin_words(language)
        .iter()
        .filter(move |b| b.kind == kind)
        .map(|b| b.name.clone())
}

/// Chess literals: squares, moves, pieces, columns, rows, board sides and
/// square colours.
const CHESS_LITERAL: &str = "(?<![A-Za-z0-9_.?])(?:[a-h.][1-8.][a-h.][1-8.]|[a-h.][1-8.]|[wb?][PNBRQKO?]|[a-h.]line|row[1-8]|kkside|qqside|kside|qside|centre|lsqr|dsqr|\\?sqr)(?![A-Za-z0-9_.?])";

/// The grammar of `language`.
pub fn textmate(language: Language) -> Value {
    match language {
        Language::Chepp => chepp(),
        Language::Che3 => che3(),
        Language::Cheg => cheg(),
    }
}

fn chepp() -> Value {
    let routines = stdlib_symbols()
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Procedure))
        .map(|s| s.name.clone());
    let constants = stdlib_symbols()
        .iter()
        .filter(|s| s.kind == SymbolKind::Constant)
        .map(|s| s.name.clone())
        .chain(builtins(Language::Chepp, BuiltinKind::StyleConstant));
    json!({
        "name": "Che++",
        "scopeName": "source.che",
        "fileTypes": ["che"],
        "patterns": [
            {"include": "#comment"},
            {"include": "#string"},
            {"include": "#keyword"},
            {"include": "#intrinsic"},
            {"include": "#stdlib-routine"},
            {"include": "#stdlib-constant"},
            {"include": "#chess-literal"},
            {"include": "#number"}
        ],
        "repository": {
            "comment": {"name": "comment.line.number-sign.che", "match": "#.*$"},
            "string": {"name": "string.quoted.double.che", "begin": "\"", "end": "\""},
            "keyword": {
                "name": "keyword.control.che",
                "match": words(builtins(Language::Chepp, BuiltinKind::Keyword))
            },
            "intrinsic": {
                "name": "support.function.intrinsic.che",
                "match": words(builtins(Language::Chepp, BuiltinKind::Intrinsic))
            },
            "stdlib-routine": {"name": "support.function.stdlib.che", "match": words(routines)},
            "stdlib-constant": {"name": "support.constant.stdlib.che", "match": words(constants)},
            "chess-literal": {"name": "constant.other.chess.che", "match": CHESS_LITERAL},
            "number": {"name": "constant.numeric.che", "match": "\\b[0-9]+\\b"}
        }
    })
}

fn che3() -> Value {
    json!({
        "name": "Che (Nimzo 3)",
        "scopeName": "source.che3",
        "fileTypes": ["che3"],
        "patterns": [
            {"include": "#comment"},
            {"include": "#string"},
            {"include": "#keyword"},
            {"include": "#function"},
            {"include": "#chess-literal"},
            {"include": "#negation"}
        ],
        "repository": {
            "comment": {"name": "comment.line.number-sign.che3", "match": "#.*$"},
            "string": {"name": "string.quoted.double.che3", "begin": "\"", "end": "\""},
            "keyword": {
                "name": "keyword.control.che3",
                "match": words(builtins(Language::Che3, BuiltinKind::Keyword))
            },
            "function": {
                "name": "support.function.che3",
                "match": words(builtins(Language::Che3, BuiltinKind::CheFunction))
            },
            "chess-literal": {"name": "constant.other.chess.che3", "match": CHESS_LITERAL},
            "negation": {"name": "keyword.operator.logical.che3", "match": "!"}
        }
    })
}

fn cheg() -> Value {
    json!({
        "name": "CHEG",
        "scopeName": "source.cheg",
        "fileTypes": ["cheg"],
        "patterns": [
            {"include": "#comment"},
            {"include": "#tag"},
            {"include": "#entry"},
            {"include": "#instruction"},
            {"include": "#literal"},
            {"include": "#condition"},
            {"include": "#predefined"}
        ],
        "repository": {
            "comment": {"name": "comment.line.semicolon.cheg", "match": ";.*$"},
            "tag": {"name": "entity.name.label.cheg", "match": "^[^\\s;:]+:"},
            "entry": {"name": "keyword.other.entry.cheg", "match": "(?:^|(?<=\\s))ENTRY(?=\\s|$)"},
            "instruction": {
                "name": "keyword.control.instruction.cheg",
                "match": cheg_words(builtins(Language::Cheg, BuiltinKind::Instruction))
            },
            "literal": {
                "name": "constant.other.literal.cheg",
                "match": "\"(?:\\([^;]*?\\)|[^\\s,;]+)"
            },
            "condition": {
                "name": "keyword.operator.condition.cheg",
                "match": cheg_words(builtins(Language::Cheg, BuiltinKind::Condition))
            },
            "predefined": {
                "name": "variable.language.cheg",
                "match": cheg_words(builtins(Language::Cheg, BuiltinKind::Predefined))
            }
        }
    })
}
