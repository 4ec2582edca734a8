//! Summary statistics and the Elo difference of a match score.

/// The median (NaN for no values; NaNs are ignored).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The smallest value (NaN for none).
pub fn min(values: &[f64]) -> f64 {
    values
        .iter()
        .copied()
        .filter(|x| !x.is_nan())
        .min_by(f64::total_cmp)
        .unwrap_or(f64::NAN)
}

/// The arithmetic mean (NaN for none).
pub fn mean(values: &[f64]) -> f64 {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The Elo difference that predicts `score` (0..1) by the logistic formula
/// `score = 1 / (1 + 10^(-elo/400))`; infinite at 0 and 1.
pub fn elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// A match result from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// Elo difference with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The score, 0..1.
    pub score: f64,
    /// The Elo difference of the score.
    pub elo: f64,
    /// The Elo difference at the lower end of the score's 95% interval.
    pub low: f64,
    /// ... and at the upper end.
    pub high: f64,
}

impl Score {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score (wins plus half the draws, per game); NaN without games.
    pub fn fraction(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return f64::NAN;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// The Elo difference and its 95% interval: the score's standard error from the per-game
    /// variance of the results (1, 1/2, 0), the interval `score ± 1.96 se` turned into Elo by the
    /// logistic formula (so it is not symmetric around the estimate).
    pub fn elo(&self) -> EloEstimate {
        let n = f64::from(self.games());
        let s = self.fraction();
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        let se = (var / n).sqrt();
        EloEstimate {
            score: s,
            elo: elo(s),
            low: elo(s - 1.96 * se),
            high: elo(s + 1.96 * se),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_means() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(min(&[3.0, f64::NAN, 1.5]), 1.5);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
    }

    #[test]
    fn elo_by_the_logistic_formula() {
        assert_eq!(elo(0.5), 0.0);
        // 10^(1/2) odds: score 0.75 is 400*log10(3) = 190.85 Elo.
        assert!((elo(0.75) - 190.848).abs() < 0.01);
        assert!((elo(0.25) + 190.848).abs() < 0.01);
        assert_eq!(elo(1.0), f64::INFINITY);
    }

    #[test]
    fn the_error_bar_of_a_match() {
        // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance
        // (60*0.09 + 20*0.04 + 20*0.49)/100 = 0.16, se = 0.04, interval 0.6216..0.7784.
        let s = Score {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = s.elo();
        assert!((e.score - 0.7).abs() < 1e-12);
        assert!((e.elo - elo(0.7)).abs() < 1e-9);
        assert!((e.low - elo(0.6216)).abs() < 1e-6);
        assert!((e.high - elo(0.7784)).abs() < 1e-6);
        assert!(e.low < e.elo && e.elo < e.high);
        // All draws: no spread, the interval is the point.
        let d = Score {
            wins: 0,
            draws: 10,
            losses: 0,
        }
        .elo();
        assert_eq!((d.low, d.elo, d.high), (0.0, 0.0, 0.0));
    }
}
