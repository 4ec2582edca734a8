//! `report`: assembles `docs/experiments.md` from a run's CSVs.
//!
//! The text around the results (questions, methods, reading) is the template
//! `benches/lab/experiments.md.in`; each `{{NAME}}` line in it is replaced by experiment NAME's
//! section, drawn afresh from `NAME.csv` of the run directory. The CSVs and plots are copied next
//! to the report (`docs/experiments/`), so every number in it comes from a CSV beside it.

use super::error::LabError;
use super::experiment::Experiment;
use super::runner::{files, provenance, read_csv};
use std::path::{Path, PathBuf};

/// The template of the report.
pub fn template() -> PathBuf {
    crate::crate_dir().join("lab").join("experiments.md.in")
}

/// Writes the report `to` (and its folder of CSVs and plots, `to` without `.md`) from the run
/// in `from`. Returns the experiments included.
pub fn report(
    experiments: &[Box<dyn Experiment>],
    from: &Path,
    to: &Path,
) -> Result<Vec<&'static str>, LabError> {
    let template_path = template();
    let text =
        std::fs::read_to_string(&template_path).map_err(|e| LabError::io(&template_path, e))?;
    let assets = to.with_extension("");
    std::fs::create_dir_all(&assets).map_err(|e| LabError::io(&assets, e))?;
    let folder = assets
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = text;
    let mut included = Vec::new();
    for e in experiments {
        let placeholder = format!("{{{{{}}}}}", e.name());
        let section = match read_csv(e.as_ref(), from)? {
            Some(table) => {
                let [csv, svg, _] = files(&assets, e.name());
                table.write(&csv)?;
                let link = format!("{folder}/{}.svg", e.name());
                let body = e.render(&table, &svg, &link)?;
                included.push(e.name());
                format!(
                    "{}{body}\nRaw data: [{folder}/{name}.csv]({folder}/{name}.csv).\n",
                    provenance(&table),
                    name = e.name()
                )
            }
            None => format!(
                "*Not measured in this run (no `{}.csv` in {}).*\n",
                e.name(),
                from.display()
            ),
        };
        out = out.replace(&placeholder, section.trim_end());
    }
    std::fs::write(to, out).map_err(|e| LabError::io(to, e))?;
    Ok(included)
}
