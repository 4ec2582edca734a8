//! What every CSV row records about the run that measured it: commit, machine, date and seed.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The provenance of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunMeta {
    /// `git describe`-style commit: the short hash, `-dirty` when the tree has changes.
    pub commit: String,
    /// Host name, CPU model and the number of CPUs.
    pub machine: String,
    /// UTC date and time the run started, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// The seed of everything random in the run.
    pub seed: u64,
}

/// The columns [`RunMeta`] adds in front of every row.
pub const META_COLUMNS: [&str; 5] = ["commit", "machine", "date", "seed", "shard"];

impl RunMeta {
    /// The provenance of a run starting now, in the current directory's repository.
    pub fn now(seed: u64) -> RunMeta {
        RunMeta {
            commit: commit(),
            machine: machine(),
            date: utc_date(SystemTime::now()),
            seed,
        }
    }
}

fn git(args: &[&str]) -> Option<String> {
    let dir = crate::crate_dir();
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The short commit hash, with `-dirty` when tracked files differ from it; `unknown` outside a
/// repository.
pub fn commit() -> String {
    let Some(hash) = git(&["rev-parse", "--short=10", "HEAD"]) else {
        return "unknown".to_string();
    };
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{hash}-dirty")
    } else {
        hash
    }
}

/// `host/CPU model/N cpus`, from the kernel's files (Linux); parts that cannot be read are
/// `unknown`.
pub fn machine() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "unknown".to_string());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{host}/{cpu}/{cpus} cpus")
}

/// A UTC date `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(utc_date(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC (a leap day) is 951827696 seconds after the epoch.
        let t = UNIX_EPOCH + Duration::from_secs(951_827_696);
        assert_eq!(utc_date(t), "2000-02-29T12:34:56Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_798_761_599);
        assert_eq!(utc_date(t), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn machine_names_three_parts() {
        assert_eq!(machine().split('/').count(), 3);
    }
}
