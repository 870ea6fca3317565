//! What the run does on Ctrl-C, SIGTERM and SIGHUP. Before the output
//! folder is touched, a signal ends the run at once with
//! [`Exit::Interrupted`]: there is nothing to finish. Once the reports are
//! begun, the first signal stops the reader; the batches in flight are
//! finished and every report is completed and renamed. A second one ends
//! the process at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use super::{Exit, say};

/// The interrupt flags, shared with the handler.
pub(super) struct Signals {
    /// Set by a signal, and when a report cannot be written: the reader
    /// stops.
    pub(super) interrupted: Arc<AtomicBool>,
    /// Set by a signal only.
    pub(super) signalled: Arc<AtomicBool>,
    /// [`STARTING`], [`WRITING`] or [`STOPPED`].
    stage: Arc<AtomicU8>,
}

/// Before the output folder is touched.
const STARTING: u8 = 0;
/// The reports are begun.
const WRITING: u8 = 1;
/// Interrupted while starting: the process is ending.
const STOPPED: u8 = 2;

impl Signals {
    /// Installs the handler, the first thing a run does, so that a signal
    /// is honoured from the start.
    pub(super) fn install() -> Result<Signals, ctrlc::Error> {
        let signals = Signals {
            interrupted: Arc::new(AtomicBool::new(false)),
            signalled: Arc::new(AtomicBool::new(false)),
            stage: Arc::new(AtomicU8::new(STARTING)),
        };
        let (flag, signal, stage) = (
            signals.interrupted.clone(),
            signals.signalled.clone(),
            signals.stage.clone(),
        );
        ctrlc::set_handler(move || {
            flag.store(true, Ordering::SeqCst);
            if signal.swap(true, Ordering::SeqCst) {
                say("interrupted twice: stopping now, the reports are left unfinished");
                std::process::exit(i32::from(Exit::Interrupted.status()));
            }
            if stage
                .compare_exchange(STARTING, STOPPED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                say("interrupted before any report was begun");
                std::process::exit(i32::from(Exit::Interrupted.status()));
            }
        })?;
        Ok(signals)
    }

    /// The flags of a run embedded in another program, which owns the
    /// process's signals: no handler; `stop` stops the reader as a first
    /// signal does, and the run counts as interrupted.
    pub(super) fn external(stop: Arc<AtomicBool>) -> Signals {
        Signals {
            interrupted: stop.clone(),
            signalled: stop,
            stage: Arc::new(AtomicU8::new(STARTING)),
        }
    }

    /// Moves on to writing the reports. When a signal came first, its
    /// handler is ending the process with [`Exit::Interrupted`], and this
    /// waits for that.
    pub(super) fn begin_reports(&self) {
        while self
            .stage
            .compare_exchange(STARTING, WRITING, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            std::thread::park();
        }
    }

    /// Whether a signal came.
    pub(super) fn signalled(&self) -> bool {
        self.signalled.load(Ordering::SeqCst)
    }
}
