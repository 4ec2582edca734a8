//! `che advice prog.che --fen FEN --svg out.svg`: the picture is parsed as XML (roxmltree, an
//! independent parser) and its marks are compared with what the program asks for, written out by
//! hand, and with the JSON advice table the same command prints (a separate code path).

use std::collections::BTreeSet;
use std::process::Command;

const PROGRAM: &str = "text note \"a & b < c\";\nprocedure main()\nbegin\n  SetSqrs(wN, 30, f3);\n  SetSqrs(wN, -20, h3);\n  SetSqrs(bP, 15, e5 d5);\n  SetMvs(w, 40, e2e4);\n  SetMvs(w, -25, a2a4);\n  SetMvs(b, 10, e7e5);\n  CtrlSqrs(wN, 40, c3 f3);\n  TextOut(note);\nend;\n";

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("che-svg-{}-{name}", std::process::id()))
}

/// (class, key, square or move, bonus) for every mark of the picture.
fn marks(svg: &str) -> BTreeSet<(String, String, String, i32)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(
        doc.root_element().tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let mut set = BTreeSet::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let class = node.attribute("class").unwrap_or("");
        let bonus = || -> i32 {
            node.attribute("data-bonus")
                .and_then(|b| b.parse().ok())
                .expect("data-bonus")
        };
        match class {
            "arrow" => {
                set.insert((
                    "arrow".into(),
                    node.attribute("data-side").expect("side").into(),
                    node.attribute("data-move").expect("move").into(),
                    bonus(),
                ));
            }
            "heat" | "control" => {
                set.insert((
                    class.into(),
                    node.attribute("data-piece").expect("piece").into(),
                    node.attribute("data-square").expect("square").into(),
                    bonus(),
                ));
            }
            _ => {}
        }
    }
    set
}

#[test]
fn the_picture_shows_the_advice_table() {
    let src = temp("prog.che");
    std::fs::write(&src, PROGRAM).expect("write program");
    let out = temp("out.svg");
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let run = Command::new(env!("CARGO_BIN_EXE_che"))
        .arg("advice")
        .arg(&src)
        .args(["--fen", fen, "--svg"])
        .arg(&out)
        .output()
        .expect("run che advice");
    assert!(run.status.success(), "{run:?}");
    let svg = std::fs::read_to_string(&out).expect("the SVG file");
    let found = marks(&svg);

    let s = |a: &str, b: &str, c: &str, v: i32| (a.to_string(), b.to_string(), c.to_string(), v);
    let expected: BTreeSet<_> = [
        s("heat", "wN", "f3", 30),
        s("heat", "wN", "h3", -20),
        s("heat", "bP", "e5", 15),
        s("heat", "bP", "d5", 15),
        s("arrow", "w", "e2e4", 40),
        s("arrow", "w", "a2a4", -25),
        s("arrow", "b", "e7e5", 10),
        s("control", "wN", "c3", 40),
        s("control", "wN", "f3", 40),
    ]
    .into_iter()
    .collect();
    assert_eq!(found, expected);

    // The same marks from the JSON table on standard output.
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let mut from_json = BTreeSet::new();
    for (table, class) in [("square_bonus", "heat"), ("control_bonus", "control")] {
        for (piece, squares) in json[table].as_object().expect("object") {
            for (sq, v) in squares.as_object().expect("object") {
                from_json.insert(s(class, piece, sq, v.as_i64().expect("int") as i32));
            }
        }
    }
    for (side, moves) in json["move_bonus"].as_object().expect("object") {
        for (mv, v) in moves.as_object().expect("object") {
            from_json.insert(s("arrow", side, mv, v.as_i64().expect("int") as i32));
        }
    }
    assert_eq!(found, from_json);

    // The position: 32 pieces, the white king on e1; one heat map per piece kind with entries;
    // the output line escaped; a legend.
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let pieces: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("piece"))
        .collect();
    assert_eq!(pieces.len(), 32);
    assert!(pieces.iter().any(
        |n| n.attribute("data-piece") == Some("wK") && n.attribute("data-square") == Some("e1")
    ));
    let maps: BTreeSet<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("heatmap"))
        .filter_map(|n| n.attribute("data-piece"))
        .collect();
    assert_eq!(maps, ["bP", "wN"].into_iter().collect());
    assert!(doc
        .descendants()
        .any(|n| n.text() == Some("Output: a & b < c")));
    assert!(doc
        .descendants()
        .any(|n| n.attribute("id") == Some("legend")));
    let _ = std::fs::remove_file(src);
    let _ = std::fs::remove_file(out);
}

#[test]
fn a_position_without_advice_still_draws_and_bad_fen_fails() {
    let src = temp("empty.che");
    std::fs::write(&src, "procedure main()\nbegin\nend;\n").expect("write");
    let out = temp("empty.svg");
    let run = Command::new(env!("CARGO_BIN_EXE_che"))
        .arg("advice")
        .arg(&src)
        .args(["--fen", "8/8/8/4k3/8/8/8/4K3 w - - 0 1", "--svg"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(run.status.success(), "{run:?}");
    let svg = std::fs::read_to_string(&out).expect("svg");
    assert!(marks(&svg).is_empty());
    assert!(svg.contains("No square bonuses."));
    let bad = Command::new(env!("CARGO_BIN_EXE_che"))
        .arg("advice")
        .arg(&src)
        .args(["--fen", "not a fen", "--svg"])
        .arg(temp("bad.svg"))
        .output()
        .expect("run");
    assert!(!bad.status.success());
    assert!(!temp("bad.svg").exists());
    let _ = std::fs::remove_file(src);
    let _ = std::fs::remove_file(out);
}
