//! Printing results: aligned human tables, JSON, CSV. Every command builds typed rows (serde `Serialize`)
//! once and chooses the rendering here, so the three forms never disagree.

use anyhow::Result;
use serde::Serialize;
use std::io::Write;

/// How a command prints its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

impl Format {
    pub fn from_flags(json: bool, csv: bool) -> Format {
        if json {
            Format::Json
        } else if csv {
            Format::Csv
        } else {
            Format::Table
        }
    }
}

/// An aligned text table. A header written `">name"` makes its column right-aligned (numbers).
pub struct Table {
    headers: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|s| s.trim_start_matches('>').to_string()).collect(),
            right: headers.iter().map(|s| s.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        assert_eq!(cells.len(), self.headers.len(), "table row has the wrong number of cells");
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        let mut width = vec![0usize; n];
        for r in std::iter::once(&self.headers).chain(self.rows.iter()) {
            for (i, c) in r.iter().enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if self.right[i] {
                        format!("{c:>w$}", w = width[i])
                    } else {
                        format!("{c:<w$}", w = width[i])
                    }
                })
                .collect();
            out.push_str(parts.join("  ").trim_end());
            out.push('\n');
        };
        line(&self.headers, &mut out);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join("  "));
        out.push('\n');
        for r in &self.rows {
            line(r, &mut out);
        }
        out
    }
}

/// JSON: one pretty object (or array) on stdout.
pub fn print_json<T: Serialize>(value: &T) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// CSV with a header row from the struct's field names (flat structs only).
pub fn print_csv<T: Serialize>(rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_numbers_right() {
        let mut t = Table::new(&["policy", ">misses"]);
        t.row(vec!["2q".into(), "5".into()]);
        t.row(vec!["arc".into(), "12345".into()]);
        assert_eq!(t.render(), "policy  misses\n------  ------\n2q           5\narc      12345\n");
    }
}
