//! `--shard K/N`: the deterministic split of every experiment's work over N machines.
//!
//! An experiment numbers its units of work 0, 1, 2, ... in a fixed order; shard K of N
//! (1-based) measures the units whose number is K-1 modulo N. Every unit lands in exactly one
//! shard, and the same command gives the same split on every machine, so a Slurm job array or
//! GNU parallel runs `run --all --shard $K/$N` and `merge` puts the CSVs back together.

use std::fmt;
use std::str::FromStr;

/// Shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based index.
    pub index: u32,
    /// Number of shards, at least 1.
    pub count: u32,
}

impl Shard {
    /// The whole work in one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether unit number `unit` belongs to this shard.
    pub fn owns(&self, unit: usize) -> bool {
        unit % self.count as usize == self.index as usize
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 <= K <= N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard expects K/N with 1 <= K <= N, not `{s}`");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard {
            index: k - 1,
            count: n,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_in_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for unit in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.owns(unit)).count(), 1);
        }
        assert!(Shard::ALL.owns(7));
        assert_eq!(shards[1].to_string(), "2/3");
    }

    #[test]
    fn malformed_shards_are_refused() {
        for bad in ["0/3", "4/3", "1/0", "1", "a/b", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
