//! `pgn-audit merge`: report folders made from disjoint inputs, merged into
//! the folder that one run over all those inputs, in the order given, would
//! have written. Rows of a source all live in one folder, so the merge is a
//! concatenation in folder order; the summary counts add up.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::audit::{ClaimSource, ClaimVerdict};
use crate::report::folder::OutFolder;
use crate::report::html::HtmlReport;
use crate::report::{
    CSV_REPORTS, Findings, IDENTITY, Options, OutputError, QUIRKS_REPORT, Summary, VERSION,
    header_line,
};

/// Why a merge cannot be done, said in one line: `PATH: CAUSE`.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A folder given to merge, or one of its files, that cannot be
    /// merged.
    #[error("{}: {cause}", path.display())]
    Refused {
        path: PathBuf,
        cause: String,
        /// The error behind the cause, where there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The merged folder cannot be written.
    #[error(transparent)]
    Output(#[from] OutputError),
}

fn fail(path: &Path, cause: impl Into<String>) -> MergeError {
    MergeError::Refused {
        path: path.to_path_buf(),
        cause: cause.into(),
        source: None,
    }
}

/// A folder's file that cannot be read, or a CSV row in it.
fn unreadable(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> MergeError {
    MergeError::Refused {
        path: path.to_path_buf(),
        cause: e.to_string(),
        source: Some(Box::new(e)),
    }
}

/// The split PGN files, present in every folder or in none.
const SPLIT: [&str; 2] = ["clean.pgn", "rejected.pgn"];

/// One report folder, read and checked.
struct Shard {
    dir: PathBuf,
    summary: Summary,
    /// The bytes of each CSV report after its header line.
    rows: Vec<Vec<u8>>,
    /// quirks.csv's rows after its header, where the run wrote it.
    quirks: Option<Vec<u8>>,
    split: Option<[Vec<u8>; 2]>,
}

fn read(path: &Path) -> Result<Vec<u8>, MergeError> {
    fs::read(path).map_err(|e| MergeError::Refused {
        path: path.to_path_buf(),
        cause: crate::input::io_cause(&e),
        source: Some(Box::new(e)),
    })
}

fn read_shard(dir: &Path) -> Result<Shard, MergeError> {
    if !dir.is_dir() {
        return Err(fail(dir, "not a report folder"));
    }
    let mut summary = read_summary(dir)?;
    let rows = CSV_REPORTS
        .into_iter()
        .map(|report| csv_body(dir, report))
        .collect::<Result<Vec<_>, _>>()?;
    let quirks = match summary.options.quirks {
        true => Some(csv_body(dir, QUIRKS_REPORT)?),
        false => None,
    };
    summary.findings = findings(dir, &rows)?;
    let present: Vec<bool> = SPLIT.iter().map(|n| dir.join(n).exists()).collect();
    let split = match present[..] {
        [true, true] => Some([read(&dir.join(SPLIT[0]))?, read(&dir.join(SPLIT[1]))?]),
        [false, false] => None,
        _ => {
            let missing = SPLIT[usize::from(present[0])];
            return Err(fail(&dir.join(missing), "missing (its pair is there)"));
        }
    };
    Ok(Shard {
        dir: dir.to_path_buf(),
        summary,
        rows,
        quirks,
        split,
    })
}

/// A folder's summary.json: of this version, and of a run that completed.
fn read_summary(dir: &Path) -> Result<Summary, MergeError> {
    let summary_path = dir.join("summary.json");
    if !summary_path.exists() {
        return Err(fail(
            &summary_path,
            "missing: not a complete pgn-audit report folder",
        ));
    }
    let text =
        String::from_utf8(read(&summary_path)?).map_err(|_| fail(&summary_path, "not UTF-8"))?;
    check_version(dir, &summary_path, &text)?;
    let summary = Summary::from_json(&text).ok_or_else(|| {
        fail(
            &summary_path,
            "not a summary of version 2 of the report contract",
        )
    })?;
    if summary.interrupted {
        return Err(fail(
            &summary_path,
            "the run was interrupted: its reports cover only part of its input",
        ));
    }
    Ok(summary)
}

/// The rows of CSV report `name` in `dir`, after its header line, which
/// must be the contract's `columns`.
fn csv_body(dir: &Path, (name, columns): (&str, &[&str])) -> Result<Vec<u8>, MergeError> {
    let path = dir.join(name);
    if !path.exists() {
        return Err(fail(&path, "missing"));
    }
    let bytes = read(&path)?;
    let header = header_line(columns);
    match bytes.strip_prefix(header.as_bytes()) {
        Some(body) => Ok(body.to_vec()),
        None => Err(fail(
            &path,
            "its columns are not those of version 2 of the report contract",
        )),
    }
}

/// Refuses a summary.json that another version of pgn-audit wrote: one
/// without `version` is of contract v1; one of another version may judge
/// games otherwise, so its rows cannot stand next to this version's.
fn check_version(dir: &Path, path: &Path, text: &str) -> Result<(), MergeError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| MergeError::Refused {
        path: path.to_path_buf(),
        cause: format!("not JSON: {e}"),
        source: Some(Box::new(e)),
    })?;
    match v.get("version") {
        None => Err(fail(dir, "a report folder of contract v1 (no version)")),
        Some(serde_json::Value::String(found)) if found == VERSION => Ok(()),
        Some(found) => Err(fail(
            dir,
            format!(
                "written by pgn-audit {}, not by this version ({VERSION}): \
                 audit its input again",
                found.as_str().unwrap_or("of an unknown version")
            ),
        )),
    }
}

/// The table's findings in a folder's rows: castling.csv rows and their
/// games, claims.csv rows with a false verdict.
fn findings(dir: &Path, rows: &[Vec<u8>]) -> Result<Findings, MergeError> {
    let mut f = Findings::default();
    let column = |k: usize, name: &str| {
        IDENTITY.len()
            + CSV_REPORTS[k]
                .1
                .iter()
                .position(|c| *c == name)
                .unwrap_or(0)
    };
    let mut last_game: Option<(String, String)> = None;
    for record in csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&rows[0][..])
        .into_records()
    {
        let record = record.map_err(|e| unreadable(&dir.join(CSV_REPORTS[0].0), e))?;
        let game = (record[0].to_owned(), record[1].to_owned());
        f.castles += 1;
        if last_game.as_ref() != Some(&game) {
            f.castle_games += 1;
            last_game = Some(game);
        }
    }
    let (source_at, verdict_at) = (column(1, "claim_source"), column(1, "verdict"));
    for record in csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&rows[1][..])
        .into_records()
    {
        let record = record.map_err(|e| unreadable(&dir.join(CSV_REPORTS[1].0), e))?;
        let source = ClaimSource::ALL
            .iter()
            .find(|c| record.get(source_at) == Some(c.code()));
        let verdict = ClaimVerdict::ALL
            .iter()
            .find(|c| record.get(verdict_at) == Some(c.code()));
        let (Some(source), Some(verdict)) = (source, verdict) else {
            return Err(fail(
                &dir.join(CSV_REPORTS[1].0),
                "a row whose claim_source or verdict is no code of the report contract",
            ));
        };
        f.add_claim(*source, *verdict);
    }
    Ok(f)
}

/// Joins split PGN files: one blank line between non-empty parts.
fn join_pgn(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(b'\n');
        }
        out.extend_from_slice(part);
    }
    out
}

/// report.html of the merged CSV reports (`csv`, as [`CSV_REPORTS`] orders
/// them) and summary.json: the page that a run over all the inputs writes,
/// as [`crate::report::html::from_report_dir`] builds it from a folder.
fn html_page(csv: &[(&str, Vec<u8>)], json: &str) -> Result<String, String> {
    let mut page = HtmlReport::default();
    let add: [fn(&mut HtmlReport, &[&str]); CSV_REPORTS.len()] = [
        |h, r| h.add_castling(r),
        |h, r| h.add_claim(r),
        |h, r| h.add_missed_draw(r),
        |h, r| h.add_error(r),
        |h, r| h.add_result(r),
    ];
    for ((_, bytes), add) in csv.iter().zip(add) {
        let mut reader = csv::Reader::from_reader(&bytes[..]);
        let mut record = csv::StringRecord::new();
        while reader.read_record(&mut record).map_err(|e| e.to_string())? {
            let row: Vec<&str> = record.iter().collect();
            add(&mut page, &row);
        }
    }
    let summary = Summary::from_json(json).ok_or("summary.json cannot be read back")?;
    Ok(page.render(&summary))
}

/// Merges `dirs`, in order, into `out`. Returns the merged summary.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Summary, MergeError> {
    let shards = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<Vec<_>, _>>()?;
    let options = check_shards(&shards, out)?;
    let split = shards.iter().any(|s| s.split.is_some());
    let folder = OutFolder::claim(out, &merged_names(options, split))?;
    let mut files = merged_files(&shards, options, split);
    let mut summary = Summary {
        options,
        ..Summary::default()
    };
    for shard in &shards {
        summary.merge(&shard.summary);
    }
    let json = summary
        .to_json()
        .map_err(|e| unreadable(&folder.path("summary.json"), e))?;
    if options.html {
        let page = html_page(&files[..CSV_REPORTS.len()], &json)
            .map_err(|e| fail(&folder.path("report.html"), e))?;
        files.push(("report.html", page.into_bytes()));
    }
    let written = files
        .iter()
        .map(|(name, bytes)| folder.write(name, bytes))
        .collect::<Result<Vec<_>, _>>()?;
    folder.finish(written, &json)?;
    Ok(summary)
}

/// Checks that the folders can be merged: no source in two of them, the
/// split files in all or none, the same options in all, and none of them
/// the output folder `out`. Returns their options.
fn check_shards(shards: &[Shard], out: &Path) -> Result<Options, MergeError> {
    let Some(first) = shards.first() else {
        return Err(fail(out, "no report folder to merge"));
    };
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    for shard in shards {
        for source in &shard.summary.sources {
            if let Some(first) = seen.insert(source, &shard.dir) {
                return Err(fail(
                    &shard.dir,
                    format!(
                        "source {source} is also in {}: the folders overlap",
                        first.display()
                    ),
                ));
            }
        }
    }
    let with_split = shards.iter().filter(|s| s.split.is_some()).count();
    if let Some(odd) = shards
        .iter()
        .find(|s| s.split.is_none())
        .filter(|_| with_split != 0)
    {
        return Err(fail(
            &odd.dir,
            "has no clean.pgn and rejected.pgn while other folders have them",
        ));
    }
    let options = first.summary.options;
    if let Some(odd) = shards.iter().find(|s| s.summary.options != options) {
        return Err(fail(
            &odd.dir,
            format!(
                "written with other options than {} ({}): merge folders written with the same options",
                first.dir.display(),
                options_differ(options, odd.summary.options)
            ),
        ));
    }
    if let Ok(out_canon) = out.canonicalize()
        && let Some(s) = shards
            .iter()
            .find(|s| s.dir.canonicalize().ok().as_ref() == Some(&out_canon))
    {
        return Err(fail(&s.dir, "is also the output folder"));
    }
    Ok(options)
}

/// The files a merge writes, summary.json last.
fn merged_names(options: Options, split: bool) -> Vec<&'static str> {
    let mut names: Vec<&str> = CSV_REPORTS.iter().map(|(name, _)| *name).collect();
    if options.quirks {
        names.push(QUIRKS_REPORT.0);
    }
    if split {
        names.extend(SPLIT);
    }
    if options.html {
        names.push("report.html");
    }
    names.push("summary.json");
    names
}

/// The merged CSV reports (as [`CSV_REPORTS`] orders them), quirks.csv
/// and the split files: each folder's part in folder order.
fn merged_files(shards: &[Shard], options: Options, split: bool) -> Vec<(&'static str, Vec<u8>)> {
    let mut files = Vec::new();
    for (k, (name, columns)) in CSV_REPORTS.iter().enumerate() {
        let mut bytes = header_line(columns).into_bytes();
        for shard in shards {
            bytes.extend_from_slice(&shard.rows[k]);
        }
        files.push((*name, bytes));
    }
    if options.quirks {
        let mut bytes = header_line(QUIRKS_REPORT.1).into_bytes();
        for shard in shards {
            bytes.extend_from_slice(shard.quirks.as_deref().unwrap_or_default());
        }
        files.push((QUIRKS_REPORT.0, bytes));
    }
    if split {
        for (k, name) in SPLIT.iter().enumerate() {
            let parts: Vec<&[u8]> = shards
                .iter()
                .filter_map(|s| s.split.as_ref().map(|p| &p[k][..]))
                .collect();
            files.push((*name, join_pgn(&parts)));
        }
    }
    files
}

/// Which options differ: `--split here, not there`.
fn options_differ(there: Options, here: Options) -> String {
    [
        ("--split", here.split, there.split),
        ("--quirks", here.quirks, there.quirks),
        ("--no-html", !here.html, !there.html),
    ]
    .iter()
    .filter(|(_, a, b)| a != b)
    .map(|(flag, a, _)| {
        if *a {
            format!("{flag} here, not there")
        } else {
            format!("{flag} there, not here")
        }
    })
    .collect::<Vec<_>>()
    .join(", ")
}
