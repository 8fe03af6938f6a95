//! Plain-text tables for the terminal.

use syncmut_mutator::Catalogue;

/// The catalogue as one row per mutant, grouped by site.
pub fn catalogue(catalogue: &Catalogue) -> String {
    let rows: Vec<[String; 4]> = catalogue
        .mutants
        .iter()
        .map(|m| {
            let file = std::path::Path::new(&m.file).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            [m.id.clone(), format!("{file}:{}:{}", m.line, m.col), m.operator.slug().to_string(), m.description.clone()]
        })
        .collect();
    let mut out = render(["mutant", "location", "operator", "description"], &rows);
    out.push_str(&format!("{} sites, {} mutants\n", catalogue.sites.len(), catalogue.mutants.len()));
    out
}

/// Left-aligned columns separated by two spaces.
fn render<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(std::array::from_fn(|i| row[i].as_str())));
    }
    out
}
