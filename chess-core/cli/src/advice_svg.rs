//! The advice table as a picture, for `che advice --svg FILE`.
//!
//! One SVG document (no script, no external resource, so it shows the same in a browser, an image
//! viewer and a document):
//!
//! * the main board with the position, the move bonuses as arrows (green for a bonus, red for a
//!   penalty, wider for larger values, solid for White's moves and dashed for Black's) and the
//!   control bonuses as dots in the squares' corners (blue for White's pieces, purple for
//!   Black's);
//! * a heat map per piece kind and colour that has any square bonus: green squares gain, red
//!   squares lose, the stronger the colour the larger the value, the value written in the square;
//! * a legend, the piece value changes, the style overrides and the program's output lines.
//!
//! Every mark carries its data for tools and tests: `class` (`arrow`, `heat`, `control`, `piece`)
//! and `data-` attributes (`data-move="e2e4" data-side="w" data-bonus="20"`, `data-piece="wN"
//! data-square="f3"`), and a `<title>` shown as a tooltip.

use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;
use cvm::OutputLine;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::style::STYLE_PARAMS;
use std::fmt::Write as _;

const COLOURS: [char; 2] = ['w', 'b'];
const KINDS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];
const KIND_NAMES: [&str; 6] = ["pawns", "knights", "bishops", "rooks", "queens", "king"];
const SIDE_NAMES: [&str; 2] = ["White", "Black"];

/// Side of a square on the main board, in pixels.
const SQ: i32 = 56;
/// Side of a square on a heat-map board.
const HEAT_SQ: i32 = 28;
const MARGIN: i32 = 20;
const TOP: i32 = 64;
const LEGEND_X: i32 = MARGIN + 8 * SQ + 40;
const LEGEND_W: i32 = 330;
const HEAT_PER_ROW: i32 = 3;
const HEAT_GAP: i32 = 44;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const GAIN: &str = "#2e7d32";
const LOSS: &str = "#c62828";
const WHITE_CONTROL: &str = "#1565c0";
const BLACK_CONTROL: &str = "#8e24aa";

/// Escapes text for XML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn square_name(sq: usize) -> String {
    Square::from_index_masked(sq as u8).to_string()
}

/// Top-left corner of `sq` on a board drawn at (`x`, `y`) with squares of `size`, White at the
/// bottom.
fn corner(sq: usize, x: i32, y: i32, size: i32) -> (i32, i32) {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    (x + file * size, y + (7 - rank) * size)
}

fn is_light(sq: usize) -> bool {
    (sq % 8 + sq / 8) % 2 == 1
}

fn glyph(kind: PieceKind) -> char {
    match kind {
        PieceKind::King => '\u{265A}',
        PieceKind::Queen => '\u{265B}',
        PieceKind::Rook => '\u{265C}',
        PieceKind::Bishop => '\u{265D}',
        PieceKind::Knight => '\u{265E}',
        PieceKind::Pawn => '\u{265F}',
    }
}

fn signed(v: i32) -> String {
    format!("{v:+}")
}

/// The squares and coordinates of a board.
fn board_squares(svg: &mut String, x: i32, y: i32, size: i32, font: i32) {
    for sq in 0..64 {
        let (sx, sy) = corner(sq, x, y, size);
        let fill = if is_light(sq) { LIGHT } else { DARK };
        let _ = writeln!(
            svg,
            r#"<rect x="{sx}" y="{sy}" width="{size}" height="{size}" fill="{fill}"/>"#
        );
    }
    for i in 0..8 {
        let file = (b'a' + i as u8) as char;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="{font}" text-anchor="middle" fill="dimgray">{file}</text>"#,
            x + i * size + size / 2,
            y + 8 * size + font + 2
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="{font}" text-anchor="end" fill="dimgray">{}</text>"#,
            x - 4,
            y + (7 - i) * size + size / 2 + font / 3,
            i + 1
        );
    }
}

/// The largest absolute value of `values`, at least 1.
fn scale<'a>(values: impl Iterator<Item = &'a i32>) -> i32 {
    values.map(|v| v.saturating_abs()).max().unwrap_or(0).max(1)
}

/// The pieces of `pos` on the main board.
fn pieces(svg: &mut String, pos: &Position) {
    svg.push_str("<g id=\"pieces\" font-family=\"DejaVu Sans, Segoe UI Symbol, Noto Sans Symbols 2, sans-serif\" text-anchor=\"middle\">\n");
    for sq in 0..64usize {
        let Some(piece) = pos.piece_on(Square::from_index_masked(sq as u8)) else {
            continue;
        };
        let (sx, sy) = corner(sq, MARGIN, TOP, SQ);
        let (fill, stroke) = match piece.colour {
            Colour::White => ("#ffffff", "#000000"),
            Colour::Black => ("#000000", "#000000"),
        };
        let code = format!(
            "{}{}",
            COLOURS[piece.colour.index()],
            KINDS[piece.kind.index()]
        );
        let _ = writeln!(
            svg,
            r#"<text class="piece" data-piece="{code}" data-square="{}" x="{}" y="{}" font-size="{}" fill="{fill}" stroke="{stroke}" stroke-width="1.2">{}</text>"#,
            square_name(sq),
            sx + SQ / 2,
            sy + SQ - 10,
            SQ - 12,
            glyph(piece.kind)
        );
    }
    svg.push_str("</g>\n");
}

/// The move bonuses as arrows.
fn arrows(svg: &mut String, table: &AdviceTable) {
    let max = scale(table.move_bonus.iter().flatten().flatten());
    svg.push_str("<g id=\"arrows\" opacity=\"0.8\">\n");
    for (c, froms) in table.move_bonus.iter().enumerate() {
        for (from, tos) in froms.iter().enumerate() {
            for (to, &v) in tos.iter().enumerate() {
                if v == 0 || from == to {
                    continue;
                }
                let (fx, fy) = corner(from, MARGIN, TOP, SQ);
                let (tx, ty) = corner(to, MARGIN, TOP, SQ);
                let (x1, y1) = (f64::from(fx + SQ / 2), f64::from(fy + SQ / 2));
                let (x2, y2) = (f64::from(tx + SQ / 2), f64::from(ty + SQ / 2));
                // End short of the centre so that the head sits in the square.
                let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
                let cut = f64::from(SQ) * 0.25;
                let (ex, ey) = (x2 - (x2 - x1) * cut / len, y2 - (y2 - y1) * cut / len);
                let width = 3.0 + 9.0 * f64::from(v.saturating_abs()) / f64::from(max);
                let (colour, marker) = if v > 0 {
                    (GAIN, "head-gain")
                } else {
                    (LOSS, "head-loss")
                };
                let dash = if c == 0 {
                    ""
                } else {
                    r#" stroke-dasharray="10 5""#
                };
                let mv = format!("{}{}", square_name(from), square_name(to));
                let _ = writeln!(
                    svg,
                    r#"<line class="arrow" data-move="{mv}" data-side="{}" data-bonus="{v}" x1="{x1:.1}" y1="{y1:.1}" x2="{ex:.1}" y2="{ey:.1}" stroke="{colour}" stroke-width="{width:.1}" stroke-linecap="round" marker-end="url(#{marker})"{dash}><title>{} move {mv}: {}</title></line>"#,
                    COLOURS[c],
                    SIDE_NAMES[c],
                    signed(v)
                );
            }
        }
    }
    svg.push_str("</g>\n");
}

/// The control bonuses as dots in the squares' top-right corners (White's) and top-left corners
/// (Black's), one per piece kind with a bonus on the square.
fn controls(svg: &mut String, table: &AdviceTable) {
    let max = scale(table.control_bonus.iter().flatten().flatten());
    svg.push_str("<g id=\"control\">\n");
    for (c, kinds) in table.control_bonus.iter().enumerate() {
        for (k, squares) in kinds.iter().enumerate() {
            for (sq, &v) in squares.iter().enumerate() {
                if v == 0 {
                    continue;
                }
                let (sx, sy) = corner(sq, MARGIN, TOP, SQ);
                let offset = 7 + 9 * k as i32;
                let cx = if c == 0 {
                    sx + SQ - offset
                } else {
                    sx + offset
                };
                let r = 3.0 + 3.0 * f64::from(v.saturating_abs()) / f64::from(max);
                let fill = if c == 0 { WHITE_CONTROL } else { BLACK_CONTROL };
                let hollow = if v < 0 {
                    format!(r#" fill-opacity="0.15" stroke="{fill}" stroke-width="1.5""#)
                } else {
                    String::new()
                };
                let piece = format!("{}{}", COLOURS[c], KINDS[k]);
                let _ = writeln!(
                    svg,
                    r#"<circle class="control" data-piece="{piece}" data-square="{}" data-bonus="{v}" cx="{cx}" cy="{}" r="{r:.1}" fill="{fill}"{hollow}><title>control bonus {piece} on {}: {}</title></circle>"#,
                    square_name(sq),
                    sy + 7,
                    square_name(sq),
                    signed(v)
                );
            }
        }
    }
    svg.push_str("</g>\n");
}

/// One heat map: the square bonuses of colour `c`, kind `k`, at (`x`, `y`).
fn heat_map(svg: &mut String, table: &AdviceTable, c: usize, k: usize, x: i32, y: i32) {
    let squares = &table.square_bonus[c][k];
    let max = scale(squares.iter());
    let piece = format!("{}{}", COLOURS[c], KINDS[k]);
    let _ = writeln!(
        svg,
        r#"<g class="heatmap" data-piece="{piece}"><text x="{x}" y="{}" font-size="14" font-weight="bold">{} {}: square bonus</text>"#,
        y - 8,
        SIDE_NAMES[c],
        KIND_NAMES[k]
    );
    board_squares(svg, x, y, HEAT_SQ, 9);
    for (sq, &v) in squares.iter().enumerate() {
        if v == 0 {
            continue;
        }
        let (sx, sy) = corner(sq, x, y, HEAT_SQ);
        let colour = if v > 0 { GAIN } else { LOSS };
        let opacity = 0.2 + 0.7 * f64::from(v.saturating_abs()) / f64::from(max);
        let _ = writeln!(
            svg,
            r#"<rect class="heat" data-piece="{piece}" data-square="{}" data-bonus="{v}" x="{sx}" y="{sy}" width="{HEAT_SQ}" height="{HEAT_SQ}" fill="{colour}" fill-opacity="{opacity:.2}"><title>{piece} on {}: {}</title></rect>"#,
            square_name(sq),
            square_name(sq),
            signed(v)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="9" text-anchor="middle" fill="{}">{v}</text>"#,
            sx + HEAT_SQ / 2,
            sy + HEAT_SQ / 2 + 3,
            if opacity > 0.55 { "#fff" } else { "#000" }
        );
    }
    svg.push_str("</g>\n");
}

/// The legend and the table's other contents, as lines of text.
fn legend_lines(table: &AdviceTable, output: &[OutputLine]) -> Vec<String> {
    let mut lines = Vec::new();
    let values: Vec<String> = table
        .piece_value
        .iter()
        .enumerate()
        .flat_map(|(c, kinds)| {
            kinds
                .iter()
                .enumerate()
                .filter(|(_, &v)| v != 0)
                .map(move |(k, &v)| format!("{}{} {}", COLOURS[c], KINDS[k], signed(v)))
        })
        .collect();
    lines.push(format!(
        "Piece values: {}",
        if values.is_empty() {
            "unchanged".to_string()
        } else {
            values.join(", ")
        }
    ));
    let styles: Vec<String> = STYLE_PARAMS
        .iter()
        .enumerate()
        .filter_map(|(id, p)| table.style_override(id).map(|v| format!("{} {v}", p.name)))
        .collect();
    lines.push(format!(
        "Style: {}",
        if styles.is_empty() {
            "no overrides".to_string()
        } else {
            styles.join(", ")
        }
    ));
    if table.style_defaults != 0 {
        lines.push("Style reset to the defaults (ST_DEFAULTVALUES)".to_string());
    }
    for line in output.iter().take(12) {
        lines.push(format!("Output: {line}"));
    }
    if output.len() > 12 {
        lines.push(format!("... and {} more output lines", output.len() - 12));
    }
    lines
}

/// The legend box at the right of the main board; returns its height.
fn legend(svg: &mut String, table: &AdviceTable, output: &[OutputLine]) -> i32 {
    let x = LEGEND_X;
    let mut y = TOP;
    svg.push_str("<g id=\"legend\" font-size=\"13\">\n");
    let _ = writeln!(
        svg,
        r#"<text x="{x}" y="{}" font-size="15" font-weight="bold">Legend</text>"#,
        y + 4
    );
    y += 26;
    let arrow = |svg: &mut String, y: i32, colour: &str, marker: &str, dash: &str, text: &str| {
        let _ = writeln!(
            svg,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="5" marker-end="url(#{marker})"{dash}/><text x="{}" y="{}">{}</text>"#,
            x + 40,
            x + 56,
            y + 4,
            esc(text)
        );
    };
    arrow(
        svg,
        y,
        GAIN,
        "head-gain",
        "",
        "White move bonus (SetMvs, SetPMvs)",
    );
    y += 22;
    arrow(
        svg,
        y,
        GAIN,
        "head-gain",
        r#" stroke-dasharray="10 5""#,
        "Black move bonus (dashed)",
    );
    y += 22;
    arrow(
        svg,
        y,
        LOSS,
        "head-loss",
        "",
        "move penalty; width grows with size",
    );
    y += 24;
    for (colour, text) in [
        (GAIN, "square bonus (heat maps below)"),
        (LOSS, "square penalty; darker = larger"),
    ] {
        let _ = writeln!(
            svg,
            r#"<rect x="{}" y="{}" width="16" height="16" fill="{colour}" fill-opacity="0.7"/><text x="{}" y="{}">{text}</text>"#,
            x + 12,
            y - 8,
            x + 56,
            y + 4
        );
        y += 22;
    }
    for (colour, text) in [
        (WHITE_CONTROL, "control bonus of a White piece (CtrlSqrs)"),
        (BLACK_CONTROL, "control bonus of a Black piece"),
    ] {
        let _ = writeln!(
            svg,
            r#"<circle cx="{}" cy="{y}" r="6" fill="{colour}"/><text x="{}" y="{}">{text}</text>"#,
            x + 20,
            x + 56,
            y + 4
        );
        y += 22;
    }
    y += 8;
    for line in legend_lines(table, output) {
        // Long lines are cut to the legend's width (about 44 characters at this size).
        let mut text: String = line.chars().take(46).collect();
        if line.chars().count() > 46 {
            text.push('\u{2026}');
        }
        let _ = writeln!(
            svg,
            r#"<text class="note" x="{x}" y="{y}"><title>{}</title>{}</text>"#,
            esc(&line),
            esc(&text)
        );
        y += 18;
    }
    svg.push_str("</g>\n");
    y - TOP
}

/// The picture of `table`, the advice a program gave on `pos`, with the lines it printed.
pub fn advice_svg(pos: &Position, table: &AdviceTable, output: &[OutputLine]) -> String {
    let maps: Vec<(usize, usize)> = (0..2)
        .flat_map(|c| (0..6).map(move |k| (c, k)))
        .filter(|&(c, k)| table.square_bonus[c][k].iter().any(|&v| v != 0))
        .collect();
    let mut body = String::new();
    board_squares(&mut body, MARGIN, TOP, SQ, 13);
    pieces(&mut body, pos);
    controls(&mut body, table);
    arrows(&mut body, table);
    let legend_height = legend(&mut body, table, output);
    let mut y = TOP + (8 * SQ).max(legend_height) + 60;
    if maps.is_empty() {
        let _ = writeln!(
            body,
            r#"<text x="{MARGIN}" y="{y}" font-size="14">No square bonuses.</text>"#
        );
        y += 20;
    } else {
        body.push_str("<g id=\"heatmaps\">\n");
        for (i, &(c, k)) in maps.iter().enumerate() {
            let col = i as i32 % HEAT_PER_ROW;
            let row = i as i32 / HEAT_PER_ROW;
            let x = MARGIN + 12 + col * (8 * HEAT_SQ + HEAT_GAP);
            let hy = y + row * (8 * HEAT_SQ + HEAT_GAP + 16);
            heat_map(&mut body, table, c, k, x, hy);
        }
        body.push_str("</g>\n");
        let rows = (maps.len() as i32 + HEAT_PER_ROW - 1) / HEAT_PER_ROW;
        y += rows * (8 * HEAT_SQ + HEAT_GAP + 16);
    }
    let width = (LEGEND_X + LEGEND_W).max(MARGIN + 12 + HEAT_PER_ROW * (8 * HEAT_SQ + HEAT_GAP));
    let height = y + MARGIN;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(
        svg,
        r#"<title>Che++ advice on {}</title>"#,
        esc(&pos.to_fen())
    );
    svg.push_str("<defs>\n");
    for (id, colour) in [("head-gain", GAIN), ("head-loss", LOSS)] {
        let _ = writeln!(
            svg,
            r#"<marker id="{id}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{colour}"/></marker>"#
        );
    }
    svg.push_str("</defs>\n");
    let _ = writeln!(
        svg,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{MARGIN}" y="28" font-size="18" font-weight="bold">Che++ advice</text><text x="{MARGIN}" y="48" font-size="12" fill="dimgray">{}</text>"#,
        esc(&pos.to_fen())
    );
    svg.push_str(&body);
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_carry_their_data() {
        let mut t = AdviceTable::default();
        t.add_square(0, 1, 21, 15); // wN f3
        t.add_square(1, 0, 36, -8); // bP e5
        t.add_move(0, 12, 28, 20); // e2e4
        t.add_move(1, 52, 36, -5); // e7e5
        t.add_control(0, 3, 3, 7); // wR d1
        let svg = advice_svg(&Position::startpos(), &t, &[OutputLine::Text("a<b".into())]);
        assert!(svg.contains(r#"class="arrow" data-move="e2e4" data-side="w" data-bonus="20""#));
        assert!(svg.contains(r#"class="arrow" data-move="e7e5" data-side="b" data-bonus="-5""#));
        assert!(svg.contains(r#"class="heat" data-piece="wN" data-square="f3" data-bonus="15""#));
        assert!(svg.contains(r#"class="heat" data-piece="bP" data-square="e5" data-bonus="-8""#));
        assert!(svg.contains(r#"class="control" data-piece="wR" data-square="d1" data-bonus="7""#));
        assert_eq!(svg.matches(r#"class="piece""#).count(), 32);
        assert!(svg.contains("Output: a&lt;b"));
        assert_eq!(svg.matches("class=\"heatmap\"").count(), 2);
    }
}
