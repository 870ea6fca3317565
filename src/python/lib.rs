//! The Python package `pgn_audit` (issue 29): the audit of the command
//! line, run in the caller's process, its reports handed over as Arrow
//! tables through the Arrow PyCapsule interface (`__arrow_c_stream__`), so
//! that pyarrow, polars, DuckDB and pandas take them without a copy.
//!
//! - `audit(inputs, threads=None, quirks=False, progress=False)` runs
//!   `pgn-audit INPUT... --format parquet` into a temporary folder, with the
//!   GIL released; the rows are read back into Arrow batches. Ctrl-C stops
//!   the reader (as the command line's first signal does) and raises
//!   KeyboardInterrupt; an input that cannot be read raises `AuditError`
//!   with the command line's message.
//! - `audit_game(text)` audits one game's PGN text with the core crate's
//!   `audit_game`, its findings as dicts named as the reports' columns.

use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, StringArray};
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList, PyString};

use pgn_audit::app::{LibraryEnd, LibraryRun};
use pgn_audit_core::{GameClass, GameReport};
use pgn_audit_report::rows::{
    CastlingRow, ClaimRow, ErrorRow, MissedDrawRow, QuirkRow, ReportRow, ResultRow,
};
use pgn_audit_report::{Format, table};

pyo3::create_exception!(
    pgn_audit,
    AuditError,
    PyException,
    "An input that cannot be read, or reports that cannot be written: the message is the command line's, `PATH: CAUSE`."
);

/// How often the waiting thread looks for a signal (Ctrl-C) while the
/// audit runs without the GIL.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// One report as an Arrow table: the contract's columns, integers as
/// int64, text as UTF-8.
#[pyclass(frozen, module = "pgn_audit")]
struct Table {
    /// The report's name: `castling`, `claims`, …
    name: String,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl Table {
    /// The table as an Arrow C stream (the Arrow PyCapsule interface);
    /// `requested_schema` is ignored: the table has one schema.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").expect("no NUL in the name");
        PyCapsule::new(py, stream, Some(name))
    }

    /// How many rows the table has.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The column names, in the contract's order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("<pgn_audit.Table {}: {} rows>", self.name, self.num_rows())
    }
}

/// The reports of one audit.
#[pyclass(frozen, module = "pgn_audit")]
struct Audit {
    /// castling.csv's rows.
    #[pyo3(get)]
    castling: Py<Table>,
    /// claims.csv's rows.
    #[pyo3(get)]
    claims: Py<Table>,
    /// missed_draws.csv's rows.
    #[pyo3(get)]
    missed_draws: Py<Table>,
    /// results.csv's rows.
    #[pyo3(get)]
    results: Py<Table>,
    /// errors.csv's rows.
    #[pyo3(get)]
    errors: Py<Table>,
    /// quirks.csv's rows with `quirks=True`, else None.
    #[pyo3(get)]
    quirks: Option<Py<Table>>,
    /// summary.json as a dict.
    #[pyo3(get)]
    summary: Py<PyAny>,
}

#[pymethods]
impl Audit {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = self.summary.bind(py);
        let get = |k: &str| -> PyResult<String> { Ok(s.get_item(k)?.str()?.to_string()) };
        Ok(format!(
            "<pgn_audit.Audit: {} games, {} clean, {} flagged, {} incomplete>",
            get("games")?,
            get("clean")?,
            get("flagged")?,
            get("incomplete")?
        ))
    }
}

/// One input of `audit`: a path, or PGN text written to a file of the
/// temporary folder, named `<text N>` in the reports.
enum Input {
    Path(String),
    Text(Vec<u8>),
}

/// The inputs as given: one or a list of paths (str or os.PathLike) and
/// PGN texts (bytes, or a str that holds a line end or starts with `[`).
fn inputs(given: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    let one = |item: &Bound<'_, PyAny>| -> PyResult<Input> {
        if let Ok(b) = item.cast::<PyBytes>() {
            return Ok(Input::Text(b.as_bytes().to_vec()));
        }
        if let Ok(s) = item.cast::<PyString>() {
            let s = s.to_str()?;
            return Ok(match s.contains('\n') || s.starts_with('[') {
                true => Input::Text(s.as_bytes().to_vec()),
                false => Input::Path(s.to_owned()),
            });
        }
        let os = item.py().import("os")?;
        let path = os.call_method1("fspath", (item,))?;
        Ok(Input::Path(path.extract::<String>()?))
    };
    if given.cast::<PyString>().is_ok() || given.cast::<PyBytes>().is_ok() {
        return Ok(vec![one(given)?]);
    }
    if given.hasattr("__fspath__")? {
        return Ok(vec![one(given)?]);
    }
    let mut all = Vec::new();
    for item in given.try_iter()? {
        all.push(one(&item?)?);
    }
    Ok(all)
}

/// Reads the Parquet report of `R` in `dir` as a table named `name`.
fn read_table<R: ReportRow>(dir: &Path, name: &str, texts: &[(String, String)]) -> PyResult<Table> {
    let path = dir.join(table::file_name(R::FILE, Format::Parquet));
    let fail = |e: &dyn std::fmt::Display| AuditError::new_err(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(&path).map_err(|e| fail(&e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(table::BATCH_ROWS).build())
        .map_err(|e| fail(&e))?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| fail(&e))?;
        batches.push(renamed(batch, texts).map_err(|e| fail(&e))?);
    }
    Ok(Table {
        name: name.to_owned(),
        schema,
        batches,
    })
}

/// `batch` with the temporary files of text inputs named as given
/// (`texts`: (file, name)) in its `source` column.
fn renamed(
    batch: RecordBatch,
    texts: &[(String, String)],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    if texts.is_empty() {
        return Ok(batch);
    }
    let Some(source) = batch.column(0).as_any().downcast_ref::<StringArray>() else {
        return Ok(batch);
    };
    let named: StringArray = source
        .iter()
        .map(|s| {
            s.map(|s| {
                texts
                    .iter()
                    .find(|(file, _)| file == s)
                    .map_or(s, |(_, name)| name.as_str())
            })
        })
        .collect();
    let mut columns = batch.columns().to_vec();
    columns[0] = Arc::new(named);
    RecordBatch::try_new(batch.schema(), columns)
}

/// Audits `inputs` as `pgn-audit INPUT...` does and returns its reports
/// as Arrow tables and its summary.json as a dict.
#[pyfunction]
#[pyo3(signature = (inputs, threads = None, quirks = false, progress = false))]
fn audit(
    py: Python<'_>,
    inputs: &Bound<'_, PyAny>,
    threads: Option<u16>,
    quirks: bool,
    progress: bool,
) -> PyResult<Audit> {
    let given = self::inputs(inputs)?;
    if given.is_empty() {
        return Err(AuditError::new_err("no input given"));
    }
    if threads == Some(0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "threads must be at least 1",
        ));
    }
    let folder = tempfile::tempdir().map_err(|e| AuditError::new_err(e.to_string()))?;
    let out = folder.path().join("reports");
    let mut paths = Vec::new();
    let mut texts = Vec::new();
    for (k, input) in given.into_iter().enumerate() {
        match input {
            Input::Path(p) => paths.push(p),
            Input::Text(bytes) => {
                let file = folder.path().join(format!("text-{}.pgn", k + 1));
                std::fs::write(&file, bytes).map_err(|e| AuditError::new_err(e.to_string()))?;
                let file = file.to_string_lossy().into_owned();
                paths.push(file.clone());
                texts.push((file, format!("<text {}>", texts.len() + 1)));
            }
        }
    }
    let run = LibraryRun {
        inputs: paths,
        out: out.clone(),
        threads,
        quirks,
        progress,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (done, ended) = mpsc::channel();
    let worker_stop = stop.clone();
    let worker = std::thread::spawn(move || {
        let _ = done.send(run.run(worker_stop));
    });
    let end = loop {
        match py.detach(|| ended.recv_timeout(SIGNAL_POLL)) {
            Ok(end) => break end,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    py.detach(|| {
                        let _ = ended.recv();
                        let _ = worker.join();
                    });
                    return Err(signal);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(AuditError::new_err(
                    "internal error: the audit thread failed",
                ));
            }
        }
    };
    let _ = worker.join();
    match end {
        Ok(LibraryEnd::Completed) => {}
        Ok(LibraryEnd::Interrupted) => {
            return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
                "interrupted",
            ));
        }
        Err(message) => {
            let mut message = message;
            for (file, name) in &texts {
                message = message.replace(file.as_str(), name);
            }
            return Err(AuditError::new_err(message));
        }
    }
    let table = |t: Table| Py::new(py, t);
    let summary = std::fs::read_to_string(out.join("summary.json"))
        .map_err(|e| AuditError::new_err(format!("{}: {e}", out.display())))?;
    let mut summary_json: serde_json::Value =
        serde_json::from_str(&summary).map_err(|e| AuditError::new_err(e.to_string()))?;
    rename_sources(&mut summary_json, &texts);
    let summary = py
        .import("json")?
        .call_method1("loads", (summary_json.to_string(),))?
        .unbind();
    Ok(Audit {
        castling: table(read_table::<CastlingRow>(&out, "castling", &texts)?)?,
        claims: table(read_table::<ClaimRow>(&out, "claims", &texts)?)?,
        missed_draws: table(read_table::<MissedDrawRow>(&out, "missed_draws", &texts)?)?,
        results: table(read_table::<ResultRow>(&out, "results", &texts)?)?,
        errors: table(read_table::<ErrorRow>(&out, "errors", &texts)?)?,
        quirks: match quirks {
            true => Some(table(read_table::<QuirkRow>(&out, "quirks", &texts)?)?),
            false => None,
        },
        summary,
    })
}

/// summary.json's `sources` and `source_details` with the temporary files
/// of text inputs named as given.
fn rename_sources(summary: &mut serde_json::Value, texts: &[(String, String)]) {
    let name = |v: &mut serde_json::Value| {
        if let Some((_, n)) = texts.iter().find(|(file, _)| v.as_str() == Some(file)) {
            *v = serde_json::Value::String(n.clone());
        }
    };
    if let Some(sources) = summary["sources"].as_array_mut() {
        sources.iter_mut().for_each(name);
    }
    if let Some(details) = summary["source_details"].as_array_mut() {
        for d in details {
            name(&mut d["name"]);
        }
    }
}

/// Audits one game's PGN text: its class (`clean`, `flagged`,
/// `incomplete`), plies, variant, notation quirks, and its findings, each
/// a dict named as the reports' columns (`castling`, `claims`,
/// `missed_draws`, `results`, and `error`, a dict or None).
#[pyfunction]
fn audit_game<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let bytes: Vec<u8> = match text.cast::<PyBytes>() {
        Ok(b) => b.as_bytes().to_vec(),
        Err(_) => text.extract::<String>()?.into_bytes(),
    };
    let report = py.detach(|| {
        let game = pgn_audit_core::Game::parse(&bytes);
        pgn_audit_core::audit_game_caught(&game)
    });
    game_dict(py, &report)
}

/// A game's report as a dict.
fn game_dict<'py>(py: Python<'py>, report: &GameReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(
        "class",
        match report.class() {
            GameClass::Clean => "clean",
            GameClass::Flagged => "flagged",
            GameClass::Incomplete => "incomplete",
        },
    )?;
    d.set_item("plies", report.plies)?;
    d.set_item(
        "variant",
        match report.variant {
            pgn_audit_core::Variant::Chess960 => "chess960",
            _ => "standard",
        },
    )?;
    d.set_item("notation_quirks", report.notation_quirks)?;
    let castling = PyList::empty(py);
    for c in &report.castling {
        let row = PyDict::new(py);
        row.set_item("ply", c.ply)?;
        row.set_item("move_number", c.move_number)?;
        row.set_item("side", if c.side.is_white() { "white" } else { "black" })?;
        row.set_item("san", &c.san)?;
        row.set_item(
            "castle",
            match c.castle {
                shakmaty::CastlingSide::KingSide => "kingside",
                shakmaty::CastlingSide::QueenSide => "queenside",
            },
        )?;
        row.set_item("reasons", c.reasons.codes())?;
        row.set_item("detail", &c.detail)?;
        row.set_item("fen", &c.fen)?;
        castling.append(row)?;
    }
    d.set_item("castling", castling)?;
    let claims = PyList::empty(py);
    for c in &report.claims {
        let row = PyDict::new(py);
        row.set_item("claim", c.claim.code())?;
        row.set_item("claim_source", c.source.code())?;
        row.set_item("verdict", c.verdict.code())?;
        row.set_item("ply", c.ply)?;
        row.set_item("occurrences", c.occurrences)?;
        row.set_item("occurrences_ignoring_rights", c.occurrences_ignoring_rights)?;
        row.set_item("plies", c.plies.clone())?;
        row.set_item("fen", &c.fen)?;
        row.set_item("detail", &c.detail)?;
        claims.append(row)?;
    }
    d.set_item("claims", claims)?;
    let missed = PyList::empty(py);
    for m in &report.missed_draws {
        let row = PyDict::new(py);
        row.set_item("rule", m.rule.code())?;
        row.set_item("ply", m.ply)?;
        row.set_item("plies_after", m.plies_after)?;
        row.set_item("fen", &m.fen)?;
        missed.append(row)?;
    }
    d.set_item("missed_draws", missed)?;
    let results = PyList::empty(py);
    for r in &report.results {
        let row = PyDict::new(py);
        row.set_item("ply", r.ply)?;
        row.set_item("code", r.code.code())?;
        row.set_item("recorded", &r.recorded)?;
        row.set_item("expected", r.expected)?;
        row.set_item("detail", &r.detail)?;
        row.set_item("fen", &r.fen)?;
        results.append(row)?;
    }
    d.set_item("results", results)?;
    match &report.error {
        Some(e) => {
            let row = PyDict::new(py);
            row.set_item("ply", e.ply)?;
            row.set_item("san", &e.san)?;
            row.set_item("kind", e.kind.code())?;
            row.set_item("detail", &e.detail)?;
            row.set_item("fen", &e.fen)?;
            d.set_item("error", row)?;
        }
        None => d.set_item("error", py.None())?,
    }
    Ok(d)
}

/// The module: `audit`, `audit_game`, `Audit`, `Table`, `AuditError`.
#[pymodule(name = "pgn_audit")]
fn module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(audit_game, m)?)?;
    m.add_class::<Audit>()?;
    m.add_class::<Table>()?;
    m.add("AuditError", m.py().get_type::<AuditError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
