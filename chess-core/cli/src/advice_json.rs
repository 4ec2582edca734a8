//! The advice table as JSON, for `che advice`.
//!
//! The table is mostly zeros (8192 move entries alone), so the JSON lists
//! every table with its full set of keys but only the non-zero entries of
//! each square or move map; a missing square means 0. Keys are the Che++
//! spellings (`wP`, `e4`, `e2e4`, `ST_KINGSAFTY`), so the output reads like
//! the program that produced it:
//!
//! ```json
//! {
//!   "control_bonus": { "bB": {}, ..., "wR": { "d1": 20, ... }, ... },
//!   "move_bonus": { "b": {}, "w": { "e2e4": 20 } },
//!   "output": [ "white Colle Position" ],
//!   "piece_value": { "bB": 0, ..., "wB": 20, ... },
//!   "square_bonus": { "bB": {}, ..., "wP": { "e4": 20 }, ... },
//!   "style": { "ST_KINGSAFTY": 120, "ST_PAWNMAT": null, ... },
//!   "style_defaults": false,
//!   "verbose": false
//! }
//! ```
//!
//! `output` holds the lines the run printed (`write` and `TextOut`, and the
//! verbose-mode reports), in order.

use cvm::OutputLine;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::lit;
use cvm_chess::style::STYLE_PARAMS;
use serde_json::{Map, Value};

const COLOURS: [char; 2] = ['w', 'b'];
const KINDS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

fn square(sq: usize) -> String {
    lit::square_name(sq as i32).unwrap_or_default()
}

/// `{"wP": {"e4": 20, ...}, ...}` for a `[colour][kind][square]` table.
fn per_piece_squares(table: &[[[i32; 64]; 6]; 2]) -> Value {
    let mut pieces = Map::new();
    for (c, kinds) in table.iter().enumerate() {
        for (k, squares) in kinds.iter().enumerate() {
            let entries: Map<String, Value> = squares
                .iter()
                .enumerate()
                .filter(|(_, &v)| v != 0)
                .map(|(sq, &v)| (square(sq), Value::from(v)))
                .collect();
            pieces.insert(
                format!("{}{}", COLOURS[c], KINDS[k]),
                Value::Object(entries),
            );
        }
    }
    Value::Object(pieces)
}

/// The advice table (and the run's output lines) as a JSON value.
pub fn advice_json(table: &AdviceTable, output: &[OutputLine]) -> Value {
    let mut root = Map::new();
    root.insert(
        "square_bonus".into(),
        per_piece_squares(&table.square_bonus),
    );
    root.insert(
        "control_bonus".into(),
        per_piece_squares(&table.control_bonus),
    );

    let mut moves = Map::new();
    for (c, froms) in table.move_bonus.iter().enumerate() {
        let mut entries = Map::new();
        for (from, tos) in froms.iter().enumerate() {
            for (to, &v) in tos.iter().enumerate() {
                if v != 0 {
                    entries.insert(format!("{}{}", square(from), square(to)), Value::from(v));
                }
            }
        }
        moves.insert(COLOURS[c].to_string(), Value::Object(entries));
    }
    root.insert("move_bonus".into(), Value::Object(moves));

    let mut values = Map::new();
    for (c, kinds) in table.piece_value.iter().enumerate() {
        for (k, &v) in kinds.iter().enumerate() {
            values.insert(format!("{}{}", COLOURS[c], KINDS[k]), Value::from(v));
        }
    }
    root.insert("piece_value".into(), Value::Object(values));

    let style: Map<String, Value> = STYLE_PARAMS
        .iter()
        .enumerate()
        .map(|(id, p)| {
            (
                p.name.to_string(),
                table.style_override(id).map_or(Value::Null, Value::from),
            )
        })
        .collect();
    root.insert("style".into(), Value::Object(style));
    root.insert(
        "style_defaults".into(),
        Value::Bool(table.style_defaults != 0),
    );
    root.insert("verbose".into(), Value::Bool(table.verbose != 0));
    root.insert(
        "output".into(),
        Value::Array(
            output
                .iter()
                .map(|l| Value::String(l.to_string()))
                .collect(),
        ),
    );
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_entries_with_full_keys() {
        let mut t = AdviceTable::default();
        t.add_square(0, 0, 28, 20);
        t.add_move(1, 52, 36, -5);
        t.add_piece_value(0, 2, 15);
        t.add_control(1, 3, 3, 7);
        t.style[2] = 120;
        t.style_set = 1 << 2;
        let j = advice_json(&t, &[OutputLine::Value(-1), OutputLine::Text("hi".into())]);
        assert_eq!(j["square_bonus"]["wP"]["e4"], 20);
        assert_eq!(j["square_bonus"]["bK"], Value::Object(Map::new()));
        assert_eq!(j["square_bonus"].as_object().map(Map::len), Some(12));
        assert_eq!(j["move_bonus"]["b"]["e7e5"], -5);
        assert_eq!(j["move_bonus"]["w"], Value::Object(Map::new()));
        assert_eq!(j["piece_value"]["wB"], 15);
        assert_eq!(j["piece_value"]["bQ"], 0);
        assert_eq!(j["control_bonus"]["bR"]["d1"], 7);
        assert_eq!(j["style"]["ST_KINGSAFTY"], 120);
        assert_eq!(j["style"]["ST_PAWNMAT"], Value::Null);
        assert_eq!(j["style_defaults"], false);
        assert_eq!(j["output"], serde_json::json!(["-1 0xFFFFFFFF", "hi"]));
    }
}
