//! A folder or a glob read as many splits: every file under the folder
//! (or matching the glob) is one split, read once to its end, in name
//! order. Names starting with `.` or `_` are skipped, at any depth, as
//! Flink's filesystem source skips them (hidden and temporary files such
//! as `_SUCCESS` or a writer's `.part` files). With a monitor interval,
//! files that appear later are found and read as new splits; a file is
//! never read twice.

use super::read::FileReader;
use crate::connectors::split::{Split, SplitDiscovery};
use crate::formats::{open_decoder, Ending};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tidemark_common::catalog::TableDef;
use tidemark_common::{Error, Result, SqlType};

/// Whether `path` (as written) names several files: a folder, or a glob
/// (`logs/*.csv`, `logs/**/*.json`) — unless a file has that very name.
pub fn names_several(path: &Path, written: &str) -> bool {
    !path.is_file() && (path.is_dir() || written.contains(['*', '?', '[']))
}

/// The files of a folder or glob, found so far and to come.
pub struct Folder {
    /// The glob the files are listed by (`folder/**/*` for a folder).
    pattern: String,
    /// The folder or glob as the table writes it.
    written: String,
    /// The folder the files are listed below, resolved and as written.
    root: PathBuf,
    written_root: PathBuf,
    seen: BTreeSet<PathBuf>,
    table: String,
}

impl Folder {
    pub fn new(table: &TableDef, written: &str, resolved: &Path) -> Result<Self> {
        let pattern = if resolved.is_dir() {
            resolved.join("**").join("*")
        } else {
            resolved.to_path_buf()
        };
        let pattern = pattern.to_str().map(str::to_string).ok_or_else(|| {
            Error::Input(format!(
                "table {}: the path '{written}' is not valid UTF-8",
                table.name
            ))
        })?;
        glob::Pattern::new(&pattern).map_err(|e| {
            Error::Input(format!(
                "table {}: 'path' = '{written}' is not a valid glob: {e}",
                table.name
            ))
        })?;
        let (root, written_root) = if resolved.is_dir() {
            (resolved.to_path_buf(), PathBuf::from(written))
        } else {
            (glob_root(resolved), glob_root(Path::new(written)))
        };
        Ok(Folder {
            pattern,
            written: written.to_string(),
            root,
            written_root,
            seen: BTreeSet::new(),
            table: table.name.clone(),
        })
    }

    /// The files not listed before, in name order: skipping names that
    /// start with `.` or `_` below the folder, and anything not a file.
    pub fn new_files(&mut self) -> Result<Vec<PathBuf>> {
        let listed = glob::glob(&self.pattern).map_err(|e| {
            Error::Input(format!(
                "table {}: 'path' = '{}' is not a valid glob: {e}",
                self.table, self.written
            ))
        })?;
        let mut found = Vec::new();
        for entry in listed {
            let path = entry.map_err(|e| {
                let what = e.path().display().to_string();
                Error::io(
                    format!("table {}: cannot list '{what}'", self.table),
                    std::io::Error::from(e),
                )
            })?;
            if !path.is_file() || self.hidden(&path) || self.seen.contains(&path) {
                continue;
            }
            found.push(path);
        }
        found.sort();
        self.seen.extend(found.iter().cloned());
        Ok(found)
    }

    /// Whether a name below the folder starts with `.` or `_`.
    fn hidden(&self, path: &Path) -> bool {
        let below = path.strip_prefix(&self.root).unwrap_or(path);
        below.components().any(|c| {
            let name = c.as_os_str().to_string_lossy();
            (name.starts_with('.') && name != "." && name != "..") || name.starts_with('_')
        })
    }

    /// How messages name `file`: the folder as written, then the file's
    /// path below it.
    pub fn display(&self, file: &Path) -> String {
        let below = file.strip_prefix(&self.root).unwrap_or(file);
        if below.as_os_str().is_empty() {
            // The path names the file itself.
            return self.written.clone();
        }
        self.written_root.join(below).display().to_string()
    }

    /// One split per file of `files`, each read once to its end by the
    /// table's format.
    pub fn splits(
        &self,
        table: &TableDef,
        files: Vec<PathBuf>,
        columns: &[(String, SqlType)],
        batch_size: usize,
    ) -> Result<Vec<Split>> {
        let mut splits = Vec::with_capacity(files.len());
        for path in files {
            let display = self.display(&path);
            let file = std::fs::File::open(&path).map_err(|e| {
                Error::io(format!("table {}: cannot open '{display}'", table.name), e)
            })?;
            let decoder = open_decoder(
                &table.options,
                Box::new(file),
                display.clone(),
                columns.to_vec(),
                batch_size,
                Ending::Final,
            )?;
            let reader = FileReader {
                decoder: decoder.reader,
                path,
                display: display.clone(),
                table: table.name.clone(),
                follows: false,
            };
            splits.push(Split::new(display, Box::new(reader)));
        }
        Ok(splits)
    }
}

/// The files that appear in a followed folder, each a new split.
pub struct FolderDiscovery {
    pub folder: Folder,
    pub table: TableDef,
    pub columns: Vec<(String, SqlType)>,
    pub batch_size: usize,
    pub interval_ms: i64,
}

impl SplitDiscovery for FolderDiscovery {
    fn new_splits(&mut self) -> Result<Vec<Split>> {
        let files = self.folder.new_files()?;
        self.folder
            .splits(&self.table, files, &self.columns, self.batch_size)
    }

    fn interval_ms(&self) -> i64 {
        self.interval_ms
    }
}

/// The folder a glob lists below: its path up to the first component with
/// a wildcard.
fn glob_root(pattern: &Path) -> PathBuf {
    let mut root = PathBuf::new();
    for c in pattern.components() {
        if c.as_os_str().to_string_lossy().contains(['*', '?', '[']) {
            break;
        }
        root.push(c);
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidemark_common::Schema;

    fn table(dir: &Path) -> TableDef {
        TableDef {
            name: "logs".into(),
            schema: Schema::new(vec![]),
            kinds: vec![],
            watermark: None,
            options: Default::default(),
            base_dir: dir.to_path_buf(),
            primary_key: vec![],
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tidemark-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("logs/deep")).unwrap();
        std::fs::create_dir_all(dir.join("logs/_tmp")).unwrap();
        for f in [
            "b.csv",
            "a.csv",
            "deep/c.csv",
            ".hidden.csv",
            "_SUCCESS",
            "_tmp/x.csv",
        ] {
            std::fs::write(dir.join("logs").join(f), "").unwrap();
        }
        dir
    }

    #[test]
    fn a_folder_lists_its_files_in_name_order_skipping_hidden_names() -> Result<()> {
        let dir = scratch("list");
        let t = table(&dir);
        let mut folder = Folder::new(&t, "logs/", &dir.join("logs"))?;
        let files = folder.new_files()?;
        let shown: Vec<String> = files.iter().map(|f| folder.display(f)).collect();
        assert_eq!(shown, ["logs/a.csv", "logs/b.csv", "logs/deep/c.csv"]);
        // Listed again, only files not seen before come.
        assert!(folder.new_files()?.is_empty());
        std::fs::write(dir.join("logs/0.csv"), "").unwrap();
        let again: Vec<String> = folder
            .new_files()?
            .iter()
            .map(|f| folder.display(f))
            .collect();
        assert_eq!(again, ["logs/0.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
        Ok(())
    }

    #[test]
    fn a_glob_lists_the_files_it_matches() -> Result<()> {
        let dir = scratch("glob");
        let t = table(&dir);
        let written = "logs/*.csv";
        let mut folder = Folder::new(&t, written, &dir.join(written))?;
        let shown: Vec<String> = folder
            .new_files()?
            .iter()
            .map(|f| folder.display(f))
            .collect();
        assert_eq!(shown, ["logs/a.csv", "logs/b.csv"]);
        assert!(names_several(&dir.join(written), written));
        assert!(!names_several(&dir.join("logs/a.csv"), "logs/a.csv"));
        std::fs::remove_dir_all(&dir).unwrap();
        Ok(())
    }
}
