//! CSV tables: one header line, one line per measured run. Hand-written (RFC 4180 quoting: a
//! field with a comma, a quote or a line break is quoted, quotes doubled), so that the files
//! open in any spreadsheet, R or pandas.

use super::error::LabError;
use std::path::Path;

/// A table of text cells under named columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// The index of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The cell of `row` in column `name` (empty when the column is missing).
    pub fn get<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        self.column(name)
            .and_then(|i| row.get(i))
            .map_or("", String::as_str)
    }

    /// The cell of `row` in column `name` as a number (NaN when missing or not a number).
    pub fn num(&self, row: &[String], name: &str) -> f64 {
        self.get(row, name).parse().unwrap_or(f64::NAN)
    }

    /// The CSV text.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for line in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<String> = line.iter().map(|c| quote(c)).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }

    /// Parses CSV text; every row must have as many cells as the header.
    pub fn from_csv(text: &str) -> Result<Table, String> {
        let mut records = parse(text)?.into_iter();
        let header = records.next().ok_or("empty file: no header line")?;
        let mut rows = Vec::new();
        for (i, r) in records.enumerate() {
            if r.len() != header.len() {
                return Err(format!(
                    "row {} has {} cells, the header {}",
                    i + 1,
                    r.len(),
                    header.len()
                ));
            }
            rows.push(r);
        }
        Ok(Table { header, rows })
    }

    /// Writes the table to `path`.
    pub fn write(&self, path: &Path) -> Result<(), LabError> {
        std::fs::write(path, self.to_csv()).map_err(|e| LabError::io(path, e))
    }

    /// Reads a table from `path`.
    pub fn read(path: &Path) -> Result<Table, LabError> {
        let text = std::fs::read_to_string(path).map_err(|e| LabError::io(path, e))?;
        Table::from_csv(&text).map_err(|message| LabError::Csv {
            path: path.to_path_buf(),
            message,
        })
    }

    /// Appends the rows of `other`, which must have the same columns.
    pub fn append(&mut self, other: Table) -> Result<(), String> {
        if self.header.is_empty() {
            *self = other;
            return Ok(());
        }
        if other.header != self.header {
            return Err(format!(
                "the columns differ: {:?} against {:?}",
                other.header, self.header
            ));
        }
        self.rows.extend(other.rows);
        Ok(())
    }
}

fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

/// The records of a CSV text (a final line break is optional; empty lines are skipped).
fn parse(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = false,
                _ => {
                    if c == '\n' {
                        line += 1;
                    }
                    cell.push(c);
                }
            }
            continue;
        }
        match c {
            '"' if cell.is_empty() => quoted = true,
            '"' => return Err(format!("line {line}: a quote inside an unquoted cell")),
            ',' => record.push(std::mem::take(&mut cell)),
            '\r' => {}
            '\n' => {
                line += 1;
                record.push(std::mem::take(&mut cell));
                if !(record.len() == 1 && record[0].is_empty()) {
                    records.push(std::mem::take(&mut record));
                }
                record.clear();
            }
            _ => cell.push(c),
        }
    }
    if quoted {
        return Err(format!("line {line}: an unterminated quoted cell"));
    }
    if !cell.is_empty() || !record.is_empty() {
        record.push(cell);
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        let mut t = Table::new(&["a", "b"]);
        t.rows.push(vec!["x,y".into(), "say \"hi\"".into()]);
        t.rows.push(vec!["two\nlines".into(), "".into()]);
        let text = t.to_csv();
        assert_eq!(text, "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n\"two\nlines\",\n");
        assert_eq!(Table::from_csv(&text), Ok(t));
    }

    #[test]
    fn ragged_rows_and_stray_quotes_are_errors() {
        assert!(Table::from_csv("a,b\n1\n").is_err());
        assert!(Table::from_csv("a\nx\"y\n").is_err());
        assert!(Table::from_csv("a\n\"open\n").is_err());
        assert!(Table::from_csv("").is_err());
    }

    #[test]
    fn append_needs_the_same_columns() {
        let mut t = Table::new(&["a"]);
        t.rows.push(vec!["1".into()]);
        let mut u = t.clone();
        u.append(t.clone()).unwrap();
        assert_eq!(u.rows.len(), 2);
        assert!(u.append(Table::new(&["b"])).is_err());
        assert_eq!(t.num(&t.rows[0], "a"), 1.0);
        assert!(t.num(&t.rows[0], "zz").is_nan());
    }
}
