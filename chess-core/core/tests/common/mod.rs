//! The reference positions two test files read: the 127-position `perft.epd` suite and
//! python-chess's tricky positions (`tricky.perft`), with their published perft counts (see
//! `data/README.md`).

const SUITE: &str = include_str!("../data/perft.epd");
const TRICKY: &str = include_str!("../data/tricky.perft");

/// A named position with its published (depth, nodes) pairs.
pub type Case = (String, String, Vec<(u32, u64)>);

/// (FEN, [(depth, nodes)]) from `perft.epd`.
pub fn suite_cases() -> Vec<(String, Vec<(u32, u64)>)> {
    SUITE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().expect("fen").trim().to_owned();
            let counts = parts
                .map(|p| {
                    let mut w = p.split_whitespace();
                    let depth = w.next().expect("depth")[1..].parse().expect("depth");
                    let nodes = w.next().expect("nodes").parse().expect("nodes");
                    (depth, nodes)
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

/// Entries whose published counts assume Chess960 castling: the `xfen-*` positions, and one more
/// whose black king stands on h8 yet keeps a queen-side right (python-chess counts it with its
/// Chess960 rules; see `inconsistent_castling_rights_in_standard_chess` for the standard counts).
fn needs_chess960(id: &str) -> bool {
    id.starts_with("xfen") || id == "asymmetrical-and-king-on-h"
}

/// (id, FEN, [(depth, nodes)]) from `tricky.perft`, without the Chess960 entries.
pub fn tricky_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in TRICKY.lines() {
        if let Some(id) = line.strip_prefix("id ") {
            cases.push((id.to_owned(), String::new(), Vec::new()));
        } else if let Some(epd) = line.strip_prefix("epd ") {
            cases.last_mut().expect("id first").1 = epd.to_owned();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut w = rest.split_whitespace();
            let depth = w.next().expect("depth").parse().expect("depth");
            let nodes = w.next().expect("nodes").parse().expect("nodes");
            cases.last_mut().expect("id first").2.push((depth, nodes));
        }
    }
    cases.retain(|(id, _, _)| !needs_chess960(id));
    cases
}
