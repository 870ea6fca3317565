//! Multi-phase winnability analysis, coordinating search and static analysis.
//!
//! Designed for White as the intended winner; see [`super`] for how a
//! Black-intended-winner query is mirrored before reaching this module.

use chess::{Board, Piece, EMPTY};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::{
    deduction::{is_statically_unwinnable, Analysis},
    search::{
        check_chain_search, compute_bishop_distances, compute_punishable, iterative_deepening,
        play_forced_moves, probe_non_pawn_moves, Search,
    },
    winnability::fast::exhaustively_unwinnable,
    Winnability,
};

/// Runs a multi-phase helpmate search, escalating from cheap to expensive
/// techniques until the position is resolved or all phases are exhausted.
///
/// Designed for White as the intended winner.
pub(crate) fn analysis(board: &Board) -> Option<Winnability> {
    analysis_within(board, u64::MAX, usize::MAX).0
}

/// [`analysis`] with a budget of `budget` positions explored (nodes) by all
/// its phases together, and the nodes it explored. A phase that would
/// exceed the budget stops short, as the last one stops at its own node
/// limit: the search explores no more than the budget (plus one static
/// analysis per legal move where the last phase starts), and keeps at most
/// one transposition-table entry per node, and at most `table_entries`. The
/// phases after a search cut short still run, each within what is left.
pub(crate) fn analysis_within(
    board: &Board,
    budget: u64,
    table_entries: usize,
) -> (Option<Winnability>, u64) {
    let mut search = Search::new();
    search.budget = budget;
    search.table_limit = table_entries;
    let result = phases(board, &mut search);
    (result, search.spent)
}

fn phases(board: &Board, search: &mut Search) -> Option<Winnability> {
    let mut pos = *board;

    // Phase 1: Play forced moves.
    pos = play_forced_moves(&pos, search);
    search.charge(search.moves.len() as u64);

    if search.interrupted {
        return Some(Winnability::Unwinnable);
    }

    // Phase 2: Depth-1 search with heuristics that selectively extend promising
    // variations beyond depth 1, to catch trivial positions quickly.
    search.depth_node_limit = 1000;
    search.transposition_table = None;
    search.reset_global_nodes();
    let result = iterative_deepening(&pos, search, 1..=1);
    if let Some(result) = result {
        return Some(result);
    }

    // Phase 3: Early static analysis. Skipped for positions with queens or
    // rooks, where it is less likely to be relevant; deferred to phase 5 in
    // that case. (Vendored: the published crate defers it for knights too;
    // a locked structure with a knight is proven here in microseconds, where
    // phase 4 spends hundreds of thousands of nodes, more than a budget
    // may give.)
    let has_queens_or_rooks = (pos.pieces(Piece::Queen) | pos.pieces(Piece::Rook)) != EMPTY;
    if !has_queens_or_rooks && is_statically_unwinnable(&pos) {
        return Some(Winnability::Unwinnable);
    }

    // Phase 4: Iterative deepening with transposition table.
    search.depth_node_limit = 7000;
    search.transposition_table =
        Some(FxHashMap::with_capacity_and_hasher(search.table_limit.min(1_000), Default::default()));
    search.reset_global_nodes();
    let result = iterative_deepening(&pos, search, 2..=128);
    if let Some(result) = result {
        return Some(result);
    }

    // Phase 5: Static analysis (only for positions that skipped phase 3).
    if has_queens_or_rooks && is_statically_unwinnable(&pos) {
        return Some(Winnability::Unwinnable);
    }

    // Phase 6: Exhaustive unwinnability check for positions where at least
    // one side can only move pawns (no non-pawn move observed within a
    // 1000-node probe).
    // (Within the budget: each step below is skipped once it is spent.)
    if search.is_spent() {
        return None;
    }
    let mut non_pawn_seen = [false; 2];
    let mut probed = 0;
    probe_non_pawn_moves(&pos, &mut non_pawn_seen, &mut probed, 1_000);
    search.charge(probed);
    if non_pawn_seen.iter().any(|&seen| !seen) {
        let (unwinnable, positions) = exhaustively_unwinnable(&pos);
        search.charge(positions);
        if unwinnable {
            return Some(Winnability::Unwinnable);
        }
    }

    // Phase 7: Follow all check chains; evaluate non-check leaves statically.
    let mut visited: FxHashSet<Board> = FxHashSet::with_capacity_and_hasher(64, Default::default());
    let mut chained = 0;
    let left = search.budget.saturating_sub(search.spent);
    let result = check_chain_search(&pos, &mut visited, 0, &mut chained, left);
    search.charge(chained);
    if let Some(result) = result {
        return Some(result);
    }

    if search.is_spent() {
        return None;
    }

    // Phase 8: Guided deep search using bishop distances and punishable moves.
    let mut analysis = Analysis::new(pos);
    analysis.saturate();

    search.bishop_distances = Some(compute_bishop_distances(&pos, analysis.steady));
    search.punishable = Some(compute_punishable(&pos));

    search.depth_node_limit = u64::MAX;
    search.global_node_limit = 1 << 24;
    search.transposition_table =
        Some(FxHashMap::with_capacity_and_hasher(search.table_limit.min(1 << 16), Default::default()));
    search.reset_global_nodes();
    iterative_deepening(&pos, search, 2..=128)
}
