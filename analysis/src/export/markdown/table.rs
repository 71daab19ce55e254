//! The markdown table every writer draws with: comfy-table's markdown preset, aligned for a
//! terminal and valid on a forge. Headers and cells arrive as text; a writer says only from
//! which column on the cells are right-aligned (figures), never how a cell is padded.

use comfy_table::{CellAlignment, Table, presets::ASCII_MARKDOWN};

/// An empty markdown table under `header`.
pub(crate) fn new_table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN).set_header(header);
    t
}

/// Right-aligns the columns `columns` of `t` (those that exist).
pub(crate) fn right_align(t: &mut Table, columns: impl IntoIterator<Item = usize>) {
    for i in columns {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// A plain markdown table (`header`, then `rows`), columns from `right_from` on
/// right-aligned: for tables that are not sample tables (instruction counts, …).
pub fn plain_table(header: &[&str], rows: Vec<Vec<String>>, right_from: usize) -> String {
    let mut t = new_table(header.iter().map(|h| h.to_string()).collect());
    for r in rows {
        t.add_row(r);
    }
    let columns = t.column_count();
    right_align(&mut t, right_from..columns);
    t.to_string()
}
