//! All four endings together, for callers that meet any of them.

use crate::cache::CacheError;
use crate::material::Material;
use crate::outcome::Outcome;
use crate::table::Table;
use chess_core::{Move, Position};
use std::path::Path;

/// The KQK, KRK, KBNK and KPK tables, probed by whichever ending a position belongs to.
#[derive(Clone, Debug)]
pub struct Tablebase {
    /// One table per ending, in [`Material::ALL`] order.
    tables: Vec<Table>,
}

impl Tablebase {
    /// Generates all four tables; KQK, KRK and KBNK on their own threads, then KPK from the KQK
    /// and KRK just made.
    pub fn generate() -> Tablebase {
        let (kqk, krk, kbnk) = std::thread::scope(|scope| {
            let kqk = scope.spawn(|| Table::generate(Material::Kqk));
            let krk = scope.spawn(|| Table::generate(Material::Krk));
            let kbnk = Table::generate(Material::Kbnk);
            // A panic inside a generator thread is a bug in this crate; pass it on unchanged.
            let join = |handle: std::thread::ScopedJoinHandle<'_, Table>| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            };
            (join(kqk), join(krk), kbnk)
        });
        let kpk = Table::solve(Material::Kpk, vec![kqk.clone(), krk.clone()]);
        Tablebase {
            tables: vec![kqk, krk, kbnk, kpk],
        }
    }

    /// Loads every table from `dir`, generating and writing those that are missing or stale
    /// (see [`Table::load_or_generate`]).
    pub fn load_or_generate(dir: &Path) -> Result<Tablebase, CacheError> {
        let tables = Material::ALL
            .into_iter()
            .map(|material| Table::load_or_generate(material, dir))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tablebase { tables })
    }

    /// The table of one ending.
    pub fn table(&self, material: Material) -> &Table {
        let slot = match material {
            Material::Kqk => 0,
            Material::Krk => 1,
            Material::Kbnk => 2,
            Material::Kpk => 3,
        };
        &self.tables[slot]
    }

    /// The value of `pos` for its side to move if it is one of the four endings; a draw if it has
    /// insufficient material (bare kings, king and minor piece); otherwise `None`.
    pub fn probe(&self, pos: &Position) -> Option<Outcome> {
        match Material::identify(pos) {
            Some((material, _)) => self.table(material).probe(pos),
            None => pos.is_insufficient_material().then_some(Outcome::Draw),
        }
    }

    /// The best move in `pos` if it is one of the four endings (see [`Table::best_move`]).
    pub fn best_move(&self, pos: &Position) -> Option<Move> {
        let (material, _) = Material::identify(pos)?;
        self.table(material).best_move(pos)
    }
}
