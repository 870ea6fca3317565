//! The counts of summary.json. Every game is exactly one of clean, flagged
//! or incomplete, so `games = clean + flagged + incomplete`.

use serde_json::{Map, Value, json};

use crate::audit::{
    CastlingReason, ClaimVerdict, DrawRule, ErrorKind, GameClass, GameReport, ResultCode,
};

/// Counters of a run; two summaries of disjoint inputs merge by adding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub games: u64,
    pub clean: u64,
    pub flagged: u64,
    pub incomplete: u64,
    pub castling: [u64; 11],
    pub claims: [u64; 7],
    pub missed_draws: [u64; 3],
    pub errors: [u64; 6],
    /// results.csv rows by code.
    pub results: [u64; 5],
    pub notation_quirks: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub threads: usize,
    pub sources: Vec<String>,
    pub interrupted: bool,
}

impl Summary {
    /// Counts one audited game.
    pub fn add_game(&mut self, report: &GameReport, class: GameClass) {
        self.games += 1;
        match class {
            GameClass::Clean => self.clean += 1,
            GameClass::Flagged => self.flagged += 1,
            GameClass::Incomplete => self.incomplete += 1,
        }
        for c in &report.castling {
            for r in c.reasons.iter() {
                self.castling[r as usize] += 1;
            }
        }
        for c in &report.claims {
            self.claims[c.verdict as usize] += 1;
        }
        for m in &report.missed_draws {
            self.missed_draws[m.rule as usize] += 1;
        }
        if let Some(e) = &report.error {
            self.errors[e.kind as usize] += 1;
        }
        for r in &report.results {
            self.results[r.code as usize] += 1;
        }
        self.notation_quirks += u64::from(report.notation_quirks);
    }

    /// summary.json, pretty-printed, keys in contract order.
    pub fn to_json(&self) -> String {
        fn counts<T: Copy>(all: &[T], code: fn(T) -> &'static str, n: &[u64]) -> Value {
            Value::Object(
                all.iter()
                    .zip(n)
                    .map(|(k, v)| (code(*k).to_owned(), json!(v)))
                    .collect::<Map<_, _>>(),
            )
        }
        let mut v = json!({
            "games": self.games,
            "clean": self.clean,
            "flagged": self.flagged,
            "incomplete": self.incomplete,
            "castling": counts(CastlingReason::ALL, CastlingReason::code, &self.castling),
            "claims": counts(ClaimVerdict::ALL, ClaimVerdict::code, &self.claims),
            "missed_draws": counts(DrawRule::ALL, DrawRule::code, &self.missed_draws),
            "errors": counts(ErrorKind::ALL, ErrorKind::code, &self.errors),
            "notation_quirks": self.notation_quirks,
            "bytes": self.bytes,
            "seconds": (self.seconds * 1000.0).round() / 1000.0,
            "threads": self.threads,
            "sources": self.sources,
            "results": counts(ResultCode::ALL, ResultCode::code, &self.results),
        });
        if self.interrupted {
            v["interrupted"] = json!(true);
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads a summary.json written by [`Summary::to_json`]; `None` when a
    /// key it writes (version 2's `results` included) is missing or
    /// malformed.
    pub fn from_json(text: &str) -> Option<Summary> {
        let v: Value = serde_json::from_str(text).ok()?;
        let int = |k: &str| v.get(k)?.as_u64();
        fn counts<T: Copy, const N: usize>(
            v: &Value,
            key: &str,
            all: &[T],
            code: fn(T) -> &'static str,
        ) -> Option<[u64; N]> {
            let obj = v.get(key)?.as_object()?;
            let mut out = [0u64; N];
            if obj.len() != all.len() || all.len() != N {
                return None;
            }
            for (slot, k) in out.iter_mut().zip(all) {
                *slot = obj.get(code(*k))?.as_u64()?;
            }
            Some(out)
        }
        Some(Summary {
            games: int("games")?,
            clean: int("clean")?,
            flagged: int("flagged")?,
            incomplete: int("incomplete")?,
            castling: counts(&v, "castling", CastlingReason::ALL, CastlingReason::code)?,
            claims: counts(&v, "claims", ClaimVerdict::ALL, ClaimVerdict::code)?,
            missed_draws: counts(&v, "missed_draws", DrawRule::ALL, DrawRule::code)?,
            errors: counts(&v, "errors", ErrorKind::ALL, ErrorKind::code)?,
            results: counts(&v, "results", ResultCode::ALL, ResultCode::code)?,
            notation_quirks: int("notation_quirks")?,
            bytes: int("bytes")?,
            seconds: v.get("seconds")?.as_f64()?,
            threads: usize::try_from(int("threads")?).ok()?,
            sources: v
                .get("sources")?
                .as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()?,
            interrupted: v
                .get("interrupted")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    /// Adds the counts of a summary of other, disjoint inputs that come
    /// after these: counts and seconds add up, sources follow in order.
    pub fn merge(&mut self, other: &Summary) {
        self.games += other.games;
        self.clean += other.clean;
        self.flagged += other.flagged;
        self.incomplete += other.incomplete;
        let add = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.castling, &other.castling);
        add(&mut self.claims, &other.claims);
        add(&mut self.missed_draws, &other.missed_draws);
        add(&mut self.errors, &other.errors);
        add(&mut self.results, &other.results);
        self.notation_quirks += other.notation_quirks;
        self.bytes += other.bytes;
        self.seconds += other.seconds;
        self.threads = self.threads.max(other.threads);
        self.sources.extend(other.sources.iter().cloned());
        self.interrupted |= other.interrupted;
    }

    /// A short table for standard error.
    pub fn table(&self) -> String {
        let rate = if self.seconds > 0.0 {
            self.games as f64 / self.seconds
        } else {
            0.0
        };
        let mut s = format!(
            "games {:>12}\n  clean {:>10}\n  flagged {:>8}\n  incomplete {:>5}\n",
            self.games, self.clean, self.flagged, self.incomplete
        );
        let sum = |a: &[u64]| a.iter().sum::<u64>();
        s += &format!(
            "illegal castles {}, claims audited {}, missed draws {}, errors {}, notation quirks {}\n",
            self.castling_rows_hint(),
            sum(&self.claims),
            sum(&self.missed_draws),
            sum(&self.errors),
            self.notation_quirks
        );
        s += &format!(
            "results: {}\nmissed draws: {}\n",
            every(ResultCode::ALL, ResultCode::code, &self.results),
            every(DrawRule::ALL, DrawRule::code, &self.missed_draws),
        );
        s += &format!(
            "{:.1} MiB in {:.2} s ({:.0} games/s, {} threads)\n",
            self.bytes as f64 / (1 << 20) as f64,
            self.seconds,
            rate,
            self.threads
        );
        if self.interrupted {
            s += "interrupted: the reports cover the games done so far\n";
        }
        s
    }

    fn castling_rows_hint(&self) -> String {
        nonzero(CastlingReason::ALL, CastlingReason::code, &self.castling)
    }
}

/// `code n` for every code counted at least once, or `none`.
fn nonzero<T: Copy>(all: &[T], code: fn(T) -> &'static str, n: &[u64]) -> String {
    let parts: Vec<String> = all
        .iter()
        .zip(n)
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{} {n}", code(*k)))
        .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

/// `code n` for every code, zeros included.
fn every<T: Copy>(all: &[T], code: fn(T) -> &'static str, n: &[u64]) -> String {
    all.iter()
        .zip(n)
        .map(|(k, n)| format!("{} {n}", code(*k)))
        .collect::<Vec<_>>()
        .join(", ")
}
