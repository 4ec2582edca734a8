//! The engine's settings: one table of options shared by UCI (`option name ...`, `setoption`) and
//! the terminal game.
//!
//! Besides the usual engine options (hash size, time overhead) the table holds the advice program
//! settings — Nimzo's `CheCodeName` became `CheProgram` — and the style parameters of section IV.6
//! of the Che++ document, the "engine parameter dialog" whose values `GetStyle` reports and whose
//! per-position overrides `SetStyle` makes. Parsing a value never panics: a bad value is a typed
//! [`OptionError`].

use crate::advisor::{AdviceMode, Backend, ProgramSource};
use crate::endgame::EndgameSource;
use crate::eval::StyleSettings;
use cvm_chess::style;
use std::fmt;

/// The type and range of an option, as UCI declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin {
        /// The default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// On or off.
    Check {
        /// The default.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The default.
        default: &'static str,
        /// The allowed words.
        values: &'static [&'static str],
    },
    /// Free text.
    Text {
        /// The default.
        default: &'static str,
    },
    /// An action without a value.
    Button,
}

/// One option: its UCI name, kind and a line of help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name (matched case-insensitively).
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
    /// What it does.
    pub help: &'static str,
}

const fn spin(
    name: &'static str,
    default: i64,
    min: i64,
    max: i64,
    help: &'static str,
) -> OptionSpec {
    OptionSpec {
        name,
        kind: OptionKind::Spin { default, min, max },
        help,
    }
}

const fn check(name: &'static str, default: bool, help: &'static str) -> OptionSpec {
    OptionSpec {
        name,
        kind: OptionKind::Check { default },
        help,
    }
}

/// Every option, in the order UCI lists them.
pub const OPTIONS: &[OptionSpec] = &[
    spin("Hash", 16, 1, 4096, "transposition table size in MiB"),
    OptionSpec {
        name: "Clear Hash",
        kind: OptionKind::Button,
        help: "forget the transposition table",
    },
    spin("Move Overhead", 20, 0, 5000, "milliseconds kept in reserve per move for communication"),
    OptionSpec {
        name: "CheProgram",
        kind: OptionKind::Text { default: "<shanny>" },
        help: "the advice program: a .che, .cmp or .asm file, or <shanny> (the bundled example) or <shanny-eval> (the example with an Evaluate() leaf hook)",
    },
    OptionSpec {
        name: "CheBackend",
        kind: OptionKind::Combo {
            default: "auto",
            values: &["interp", "jit", "auto"],
        },
        help: "the VM that runs the advice program and the endgame program (auto: interpret, compile what is hot)",
    },
    OptionSpec {
        name: "EndgameProgram",
        kind: OptionKind::Text { default: "" },
        help: "a CHEG endgame program that takes over when its ENTRY matches: a .cheg file, <kqk>, <krk>, <kbnk>, <kpk>, <kpkp> (the shipped ones), or <all> (every shipped one, the first that matches); empty or off: none",
    },
    OptionSpec {
        name: "AdviceMode",
        kind: OptionKind::Combo {
            default: "root",
            values: &["off", "root", "node"],
        },
        help: "off; root: run main() before each search; node: also call Evaluate() at every evaluation",
    },
    check("CheVerbose", false, "report the program's output and suggested moves as info strings"),
    check("OwnBook", false, "play from the opening book while the position is in it"),
    OptionSpec {
        name: "BookFile",
        kind: OptionKind::Text { default: "<che>" },
        help: "the opening book: a Polyglot .bin file, or <che> (the bundled book)",
    },
    check("NullMove", true, "null-move pruning"),
    check("LateMoveReductions", true, "late-move reductions"),
    check("Random", false, "choose at random among equally good moves"),
    spin("RandomSeed", 1, 0, i64::MAX, "seed of the random choice"),
    spin("RandomMargin", 0, 0, 200, "centipawns below the best that still count as equally good"),
    spin("MidgameMobility", 100, 0, 400, "ST_MIDGAMEMOB: middlegame mobility weight, percent"),
    spin("EndgameMobility", 100, 0, 400, "ST_ENDGAMEMOB: endgame mobility weight, percent"),
    spin("KingSafety", 100, 0, 400, "ST_KINGSAFTY: king safety weight, percent"),
    spin("PawnStructure", 100, 0, 400, "ST_PAWNEVAL: pawn structure weight, percent"),
    spin("PawnValue", 100, 10, 1000, "ST_PAWNMAT: material value of a pawn"),
    spin("KnightValue", 300, 10, 3000, "ST_KNIGHTMAT: material value of a knight"),
    spin("BishopValue", 325, 10, 3000, "ST_BISHOPMAT: material value of a bishop"),
    spin("RookValue", 500, 10, 3000, "ST_ROOKMAT: material value of a rook"),
    spin("QueenValue", 900, 10, 5000, "ST_QUEENMAT: material value of a queen"),
    check("PieceThreat", true, "ST_PIECETHREAT: extend when the null move reveals a mate threat"),
    check("FewMovesThreat", true, "ST_FEWMVSTHREAT: extend when only one legal move exists"),
    check("Futility1", true, "ST_FUTIL1CUTOFF: futility pruning one ply before the horizon"),
    check("Futility2", true, "ST_FUTIL2CUTOFF: futility pruning two plies before the horizon"),
];

/// The style id each style option sets.
const STYLE_OPTIONS: &[(&str, i32)] = &[
    ("MidgameMobility", style::ST_MIDGAMEMOB),
    ("EndgameMobility", style::ST_ENDGAMEMOB),
    ("KingSafety", style::ST_KINGSAFTY),
    ("PawnStructure", style::ST_PAWNEVAL),
    ("PawnValue", style::ST_PAWNMAT),
    ("KnightValue", style::ST_KNIGHTMAT),
    ("BishopValue", style::ST_BISHOPMAT),
    ("RookValue", style::ST_ROOKMAT),
    ("QueenValue", style::ST_QUEENMAT),
    ("PieceThreat", style::ST_PIECETHREAT),
    ("FewMovesThreat", style::ST_FEWMVSTHREAT),
    ("Futility1", style::ST_FUTIL1CUTOFF),
    ("Futility2", style::ST_FUTIL2CUTOFF),
];

/// Why a `setoption` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option `{0}`")]
    Unknown(String),
    /// The value does not fit the option.
    #[error("invalid value `{value}` for option {name}: {expected}")]
    Value {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
}

/// What changed with a successful `set`, so the engine can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing beyond the stored value.
    Plain,
    /// The hash size.
    Hash,
    /// The `Clear Hash` button.
    ClearHash,
    /// The advice program.
    Program,
    /// The backend.
    Backend,
    /// The opening book file.
    Book,
    /// The endgame program.
    Endgame,
}

/// Current values of every option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size, MiB.
    pub hash_mb: usize,
    /// Reserve per move, milliseconds.
    pub move_overhead_ms: u64,
    /// The advice program.
    pub program: ProgramSource,
    /// The VM of the advice program and of the endgame program.
    pub backend: Backend,
    /// The CHEG endgame program.
    pub endgame: EndgameSource,
    /// When the program is consulted.
    pub advice_mode: AdviceMode,
    /// Report program output and suggested moves.
    pub verbose: bool,
    /// Play from the opening book.
    pub own_book: bool,
    /// The opening book: a path or `<che>`.
    pub book_file: String,
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Random choice among equally good moves.
    pub random: bool,
    /// Its seed.
    pub random_seed: u64,
    /// Its margin, centipawns.
    pub random_margin: i32,
    /// The style parameters (the user's settings, before any `SetStyle`).
    pub styles: StyleSettings,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: 16,
            move_overhead_ms: 20,
            program: ProgramSource::Shanny,
            backend: Backend::Auto,
            endgame: EndgameSource::Off,
            advice_mode: AdviceMode::Root,
            verbose: false,
            own_book: false,
            book_file: crate::book::BUNDLED_NAME.to_string(),
            null_move: true,
            lmr: true,
            random: false,
            random_seed: 1,
            random_margin: 0,
            styles: StyleSettings::standard(),
        }
    }
}

/// The spec of the option called `name` (case-insensitive).
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name.trim()))
}

fn parse_bool(spec: &'static OptionSpec, value: &str) -> Result<bool, OptionError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Ok(true),
        "false" | "off" | "0" | "no" => Ok(false),
        _ => Err(OptionError::Value {
            name: spec.name,
            value: value.to_string(),
            expected: "true or false".into(),
        }),
    }
}

fn parse_spin(spec: &'static OptionSpec, value: &str) -> Result<i64, OptionError> {
    let OptionKind::Spin { min, max, .. } = spec.kind else {
        return Err(OptionError::Unknown(spec.name.into()));
    };
    match value.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(OptionError::Value {
            name: spec.name,
            value: value.to_string(),
            expected: format!("an integer from {min} to {max}"),
        }),
    }
}

fn parse_combo<T: std::str::FromStr<Err: std::fmt::Display>>(
    spec: &'static OptionSpec,
    value: &str,
) -> Result<T, OptionError> {
    value
        .trim()
        .parse()
        .map_err(|e: T::Err| OptionError::Value {
            name: spec.name,
            value: value.to_string(),
            expected: e.to_string(),
        })
}

impl EngineOptions {
    /// The options of a lone run of an endgame program on one position, on `backend`: a
    /// small table and no advice program. `che run prog.cheg` and the debugger run CHEG
    /// programs with them, so both value the moves the program tries alike.
    pub fn endgame_run(backend: Backend) -> EngineOptions {
        EngineOptions {
            hash_mb: 4,
            backend,
            advice_mode: AdviceMode::Off,
            ..EngineOptions::default()
        }
    }

    /// Sets option `name` to `value` (ignored for buttons).
    pub fn set(&mut self, name: &str, value: &str) -> Result<Change, OptionError> {
        let spec = find(name).ok_or_else(|| OptionError::Unknown(name.trim().to_string()))?;
        if let Some(&(_, id)) = STYLE_OPTIONS.iter().find(|(n, _)| *n == spec.name) {
            let v = match spec.kind {
                OptionKind::Check { .. } => i64::from(parse_bool(spec, value)?),
                _ => parse_spin(spec, value)?,
            };
            self.styles.set(id, v as i32);
            return Ok(Change::Plain);
        }
        match spec.name {
            "Hash" => {
                self.hash_mb = parse_spin(spec, value)? as usize;
                Ok(Change::Hash)
            }
            "Clear Hash" => Ok(Change::ClearHash),
            "Move Overhead" => {
                self.move_overhead_ms = parse_spin(spec, value)? as u64;
                Ok(Change::Plain)
            }
            "CheProgram" => {
                self.program = ProgramSource::parse(value);
                Ok(Change::Program)
            }
            "CheBackend" => {
                self.backend = parse_combo(spec, value)?;
                Ok(Change::Backend)
            }
            "EndgameProgram" => {
                self.endgame = EndgameSource::parse(value).map_err(|e| OptionError::Value {
                    name: spec.name,
                    value: value.to_string(),
                    expected: e,
                })?;
                Ok(Change::Endgame)
            }
            "AdviceMode" => {
                self.advice_mode = parse_combo(spec, value)?;
                Ok(Change::Plain)
            }
            "CheVerbose" => {
                self.verbose = parse_bool(spec, value)?;
                Ok(Change::Plain)
            }
            "OwnBook" => {
                self.own_book = parse_bool(spec, value)?;
                Ok(Change::Plain)
            }
            "BookFile" => {
                self.book_file = value.trim().to_string();
                Ok(Change::Book)
            }
            "NullMove" => {
                self.null_move = parse_bool(spec, value)?;
                Ok(Change::Plain)
            }
            "LateMoveReductions" => {
                self.lmr = parse_bool(spec, value)?;
                Ok(Change::Plain)
            }
            "Random" => {
                self.random = parse_bool(spec, value)?;
                Ok(Change::Plain)
            }
            "RandomSeed" => {
                self.random_seed = parse_spin(spec, value)? as u64;
                Ok(Change::Plain)
            }
            "RandomMargin" => {
                self.random_margin = parse_spin(spec, value)? as i32;
                Ok(Change::Plain)
            }
            other => Err(OptionError::Unknown(other.to_string())),
        }
    }
}

/// The UCI declaration of an option: `option name Hash type spin default 16 min 1 max 4096`.
pub struct Declaration<'a>(pub &'a OptionSpec);

impl fmt::Display for Declaration<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.0;
        write!(f, "option name {} type ", spec.name)?;
        match spec.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::Combo { default, values } => {
                write!(f, "combo default {default}")?;
                for v in values {
                    write!(f, " var {v}")?;
                }
                Ok(())
            }
            OptionKind::Text { default } => write!(f, "string default {default}"),
            OptionKind::Button => write!(f, "button"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm_chess::style::STYLE_PARAMS;

    #[test]
    fn style_option_defaults_match_the_cvm_table() {
        for &(name, id) in STYLE_OPTIONS {
            let spec = find(name).unwrap();
            let default = match spec.kind {
                OptionKind::Spin { default, .. } => default,
                OptionKind::Check { default } => i64::from(default),
                _ => panic!("style option {name} has no default"),
            };
            assert_eq!(
                default,
                i64::from(STYLE_PARAMS[id as usize].default),
                "{name}"
            );
        }
    }

    #[test]
    fn setting_and_errors() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("hash", "64"), Ok(Change::Hash));
        assert_eq!(o.hash_mb, 64);
        assert!(matches!(o.set("Hash", "0"), Err(OptionError::Value { .. })));
        assert!(matches!(
            o.set("Hash", "lots"),
            Err(OptionError::Value { .. })
        ));
        assert!(matches!(
            o.set("Nonsense", "1"),
            Err(OptionError::Unknown(_))
        ));
        assert_eq!(o.set("KingSafety", "150"), Ok(Change::Plain));
        assert_eq!(o.styles.get(style::ST_KINGSAFTY), 150);
        assert_eq!(o.set("Futility1", "false"), Ok(Change::Plain));
        assert_eq!(o.styles.get(style::ST_FUTIL1CUTOFF), 0);
        assert_eq!(o.set("AdviceMode", "node"), Ok(Change::Plain));
        assert_eq!(o.advice_mode, AdviceMode::Node);
        assert!(o.set("CheBackend", "llvm").is_err());
        assert_eq!(o.set("EndgameProgram", "<krk>"), Ok(Change::Endgame));
        assert_eq!(o.endgame, EndgameSource::Builtin("krk"));
        assert!(o.set("EndgameProgram", "<nothing>").is_err());
        assert_eq!(o.set("EndgameProgram", "<ALL>"), Ok(Change::Endgame));
        assert_eq!(o.endgame, EndgameSource::All);
        assert_eq!(o.set("EndgameProgram", "off"), Ok(Change::Endgame));
        assert_eq!(o.endgame, EndgameSource::Off);
        assert_eq!(
            Declaration(find("CheBackend").unwrap()).to_string(),
            "option name CheBackend type combo default auto var interp var jit var auto"
        );
    }
}
