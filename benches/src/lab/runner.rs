//! Runs experiments (with progress bars), writes their files, merges shards.

use super::error::LabError;
use super::experiment::{Config, Context, Experiment};
use super::meta::{RunMeta, META_COLUMNS};
use super::table::Table;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::path::Path;

/// The files of experiment `name` in `dir`: CSV, SVG plot, Markdown section.
pub fn files(dir: &Path, name: &str) -> [std::path::PathBuf; 3] {
    [
        dir.join(format!("{name}.csv")),
        dir.join(format!("{name}.svg")),
        dir.join(format!("{name}.md")),
    ]
}

/// The columns of an experiment's CSV: provenance, then its own.
pub fn header(e: &dyn Experiment) -> Vec<&'static str> {
    META_COLUMNS.iter().copied().chain(e.columns()).collect()
}

/// Runs `experiments` under `config`: each writes `NAME.csv`, `NAME.svg` and `NAME.md` into
/// `config.out`. Progress goes to standard error (drawn only on a terminal).
pub fn run(experiments: &[Box<dyn Experiment>], config: &Config) -> Result<(), LabError> {
    std::fs::create_dir_all(&config.out).map_err(|e| LabError::io(&config.out, e))?;
    let meta = RunMeta::now(config.seed);
    let ctx = Context {
        config,
        meta: &meta,
    };
    let bars = MultiProgress::new();
    let style = ProgressStyle::with_template(
        "{prefix:>10} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
    )
    .map_err(|e| LabError::Usage(e.to_string()))?
    .progress_chars("=> ");
    for e in experiments {
        let units = e.units(config);
        let owned: Vec<usize> = (0..units.len()).filter(|&u| config.shard.owns(u)).collect();
        let bar = bars.add(ProgressBar::new(owned.len() as u64));
        bar.set_style(style.clone());
        bar.set_prefix(e.name());
        let mut table = Table::new(&header(e.as_ref()));
        if !owned.is_empty() {
            bar.set_message("preparing");
            e.prepare(&ctx)?;
        }
        for &u in &owned {
            bar.set_message(units[u].clone());
            for row in e.measure(&ctx, u)? {
                let mut full = vec![
                    meta.commit.clone(),
                    meta.machine.clone(),
                    meta.date.clone(),
                    meta.seed.to_string(),
                    config.shard.to_string(),
                ];
                full.extend(row);
                table.rows.push(full);
            }
            bar.inc(1);
        }
        bar.finish_with_message("done");
        let [csv, _, _] = files(&config.out, e.name());
        table.write(&csv)?;
        write_section(e.as_ref(), &table, &config.out)?;
    }
    Ok(())
}

/// One line saying where the rows came from: commits, machines, dates, seeds, shards.
pub fn provenance(table: &Table) -> String {
    let list = |c: &str| {
        let mut v: Vec<&str> = Vec::new();
        for r in &table.rows {
            let x = table.get(r, c);
            if !v.contains(&x) {
                v.push(x);
            }
        }
        v.join(", ")
    };
    format!(
        "*{} rows; commit {}; machine {}; date {}; seed {}; shards {}.*\n\n",
        table.rows.len(),
        list("commit"),
        list("machine"),
        list("date"),
        list("seed"),
        list("shard")
    )
}

/// Draws the plot `NAME.svg` and writes the section `NAME.md` of `table` into `dir`.
pub fn write_section(e: &dyn Experiment, table: &Table, dir: &Path) -> Result<String, LabError> {
    let [_, svg, md] = files(dir, e.name());
    let link = format!("{}.svg", e.name());
    let body = e.render(table, &svg, &link)?;
    let section = format!("## {}\n\n{}{}", e.title(), provenance(table), body);
    std::fs::write(&md, &section).map_err(|err| LabError::io(&md, err))?;
    Ok(section)
}

/// Reads the CSV of `e` from `dir`, checking its columns; `None` when the file is missing.
pub fn read_csv(e: &dyn Experiment, dir: &Path) -> Result<Option<Table>, LabError> {
    let [csv, _, _] = files(dir, e.name());
    if !csv.exists() {
        return Ok(None);
    }
    let table = Table::read(&csv)?;
    if table.header != header(e) {
        return Err(LabError::Csv {
            path: csv,
            message: format!("the columns are not those of `{}`", e.name()),
        });
    }
    Ok(Some(table))
}

/// Combines the shards' CSVs in `inputs` into `out` (rows in input order) and draws every
/// experiment's plot and section from the combined CSV. Experiments found in no input are
/// skipped; returns the names merged.
pub fn merge(
    experiments: &[Box<dyn Experiment>],
    inputs: &[std::path::PathBuf],
    out: &Path,
) -> Result<Vec<&'static str>, LabError> {
    std::fs::create_dir_all(out).map_err(|e| LabError::io(out, e))?;
    let mut merged = Vec::new();
    for e in experiments {
        let mut all = Table::default();
        let mut found = false;
        for dir in inputs {
            if let Some(t) = read_csv(e.as_ref(), dir)? {
                found = true;
                all.append(t).map_err(|message| LabError::Csv {
                    path: dir.clone(),
                    message,
                })?;
            }
        }
        if !found {
            continue;
        }
        let [csv, _, _] = files(out, e.name());
        all.write(&csv)?;
        write_section(e.as_ref(), &all, out)?;
        merged.push(e.name());
    }
    Ok(merged)
}
