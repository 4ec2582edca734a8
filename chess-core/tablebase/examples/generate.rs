//! Generates every table, prints how long each took and its statistics, and optionally writes
//! the cache to DIR and times reading it back: `cargo run --release -p che-tablebase --example
//! generate [-- DIR]`.

use che_tablebase::{Material, Outcome, Side, Table};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let dir = std::env::args_os().nth(1).map(PathBuf::from);
    for material in Material::ALL {
        let start = Instant::now();
        let table = Table::generate(material);
        let seconds = start.elapsed().as_secs_f64();
        println!("{material}: generated in {seconds:.3} s");
        for side in Side::BOTH {
            let counts = table.counts(side);
            let deepest = table.deepest(side).map(|(pos, outcome)| {
                let moves = outcome.moves().unwrap_or(0);
                let plies = match outcome {
                    Outcome::Win { plies } | Outcome::Loss { plies } => plies,
                    Outcome::Draw => 0,
                };
                format!("{plies} plies ({moves} moves), e.g. {}", pos.to_fen())
            });
            println!(
                "  {side:?} side to move: {} positions (symmetry classes), {} won, {} drawn, {} lost; deepest {}",
                counts.total(),
                counts.wins(),
                counts.draws,
                counts.losses(),
                deepest.unwrap_or_else(|| "-".to_owned())
            );
        }
        if let Some(dir) = &dir {
            if let Err(error) = table.save(dir) {
                eprintln!("{error}");
                std::process::exit(1);
            }
            let start = Instant::now();
            match Table::load(material, dir) {
                Ok(_) => println!(
                    "  written; read back in {:.3} s",
                    start.elapsed().as_secs_f64()
                ),
                Err(error) => {
                    eprintln!("{error}");
                    std::process::exit(1);
                }
            }
        }
    }
}
