//! Position identity for repetitions (FIDE 9.2.3).
//!
//! Two positions are the same when the same side is to move, the same pieces
//! stand on the same squares, the castling rights are the same (an unmoved
//! king and rook, which is what shakmaty's castles are) and the same
//! en-passant capture is actually possible. That strict key is shakmaty's
//! Zobrist hash with [`EnPassantMode::Legal`]. The claim verdicts also need
//! looser keys (castling rights ignored, en passant ignored, both, placement
//! alone); they are derived by XOR-ing those components back out of the
//! strict hash, so each position is hashed once.
//!
//! A capture or a pawn move can never be undone, so no position before it can
//! stand again, under any of the keys: only the positions since the last such
//! move are kept. Losing a castling right resets nothing (Karpov–Miles,
//! Tilburg 1986: the rights differ, the placement recurs).

use std::collections::HashMap;
use std::sync::LazyLock;

use nohash_hasher::BuildNoHashHasher;
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Square,
    zobrist::{Zobrist64, ZobristValue},
};

/// The components of one position's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The ply after which the position stood (0: the start position).
    pub(crate) ply: u32,
    /// The FIDE key: Zobrist hash with legal en passant.
    pub(crate) strict: u64,
    /// Castling rights, one bit per [`right_bit`].
    pub(crate) rights: u8,
    /// The square of a legal en-passant capture, if any.
    pub(crate) ep: Option<Square>,
    /// The side to move.
    pub(crate) turn: Color,
}

/// How loosely two positions are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Identity {
    /// FIDE 9.2.3.
    Strict,
    /// Castling rights ignored.
    NoCastling,
    /// En-passant rights ignored.
    NoEnPassant,
    /// Castling and en-passant rights ignored: placement and side to move.
    NoRights,
    /// The placement of the pieces alone.
    Placement,
}

/// The bit of one castling right in [`Entry::rights`].
pub(crate) fn right_bit(color: Color, side: CastlingSide) -> u8 {
    1 << (usize::from(color.is_black()) * 2 + usize::from(side.is_queen_side()))
}

/// The castling rights of `pos`, one bit per [`right_bit`].
fn rights_of(pos: &Chess) -> u8 {
    let castles = pos.castles();
    // Most positions of a game come after both sides have lost or used
    // their rights; this is asked once per ply.
    if castles.is_empty() {
        return 0;
    }
    let mut rights = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                rights |= right_bit(color, side);
            }
        }
    }
    rights
}

/// What [`next_key`] needs of the position before a move: the parts of
/// its key that are not pieces. Recorded instead of a copy of the whole
/// position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyBefore {
    turn: Color,
    /// The squares of the rooks that keep a castling right.
    castles: Bitboard,
    rights: u8,
    ep: Option<Square>,
}

impl KeyBefore {
    /// `ep` is the square of the legal en-passant capture in `pos`, if
    /// any, as [`next_key`] gave it for the move that led to `pos`.
    pub(crate) fn of(pos: &Chess, ep: Option<Square>) -> KeyBefore {
        debug_assert_eq!(ep, legal_ep(pos));
        KeyBefore {
            turn: pos.turn(),
            castles: pos.castles().castling_rights(),
            rights: rights_of(pos),
            ep,
        }
    }
}

/// The strict key of `after`, which is the position `before` describes
/// with the move `m` played, from `key`, the strict key of that position:
/// only what the move changes is XOR-ed in and out (pieces, side to move,
/// castling rights, the legal en-passant file). Castles too (king and rook
/// off their squares, onto their targets; in Chess960 a piece that stays
/// is XOR-ed out and back in), so no move but a drop is hashed from scratch.
/// With the key, the square of the legal en-passant capture in `after`.
pub(crate) fn next_key(
    before: &KeyBefore,
    key: u64,
    m: Move,
    after: &Chess,
) -> (u64, Option<Square>) {
    let piece = |sq, piece| Zobrist64::zobrist_for_piece(sq, piece).0;
    let turn = before.turn;
    let mut z = key ^ Zobrist64::zobrist_for_white_turn().0;
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            z ^= piece(from, role.of(turn)) ^ piece(to, promotion.unwrap_or(role).of(turn));
            if let Some(captured) = capture {
                z ^= piece(to, captured.of(!turn));
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            z ^= piece(from, turn.pawn()) ^ piece(to, turn.pawn()) ^ piece(taken, (!turn).pawn());
        }
        Move::Castle { king, rook } => {
            let side = if rook > king {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            z ^= piece(king, turn.king())
                ^ piece(rook, turn.rook())
                ^ piece(side.king_to(turn), turn.king())
                ^ piece(side.rook_to(turn), turn.rook());
        }
        Move::Put { .. } => {
            return (
                after.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
                legal_ep(after),
            );
        }
    }
    // The same rook squares keep the same rights: a right changes side
    // only with a king move, which loses them all.
    if before.castles != after.castles().castling_rights() {
        z ^= z_rights(before.rights ^ rights_of(after));
    }
    let ep = legal_ep(after);
    z ^= z_ep(before.ep) ^ z_ep(ep);
    (z, ep)
}

/// The Zobrist values of the castling rights `rights`, XOR-ed together (so
/// `z_rights(a ^ b)` is `z_rights(a) ^ z_rights(b)`).
fn z_rights(rights: u8) -> u64 {
    if rights == 0 {
        return 0;
    }
    let mut z = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if rights & right_bit(color, side) != 0 {
                z ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    z
}

fn z_ep(ep: Option<Square>) -> u64 {
    ep.map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

fn z_turn(turn: Color) -> u64 {
    if turn.is_white() {
        Zobrist64::zobrist_for_white_turn().0
    } else {
        0
    }
}

impl Entry {
    /// The identity components of `pos`, which stood after `ply`.
    pub(crate) fn of(pos: &Chess, ply: u32) -> Entry {
        Entry {
            ply,
            strict: strict_key(pos),
            rights: rights_of(pos),
            ep: legal_ep(pos),
            turn: pos.turn(),
        }
    }

    /// The key of this position under `identity`.
    pub(crate) fn key(&self, identity: Identity) -> u64 {
        match identity {
            Identity::Strict => self.strict,
            Identity::NoCastling => self.strict ^ z_rights(self.rights),
            Identity::NoEnPassant => self.strict ^ z_ep(self.ep),
            Identity::NoRights => self.strict ^ z_rights(self.rights) ^ z_ep(self.ep),
            Identity::Placement => {
                self.strict ^ z_rights(self.rights) ^ z_ep(self.ep) ^ z_turn(self.turn)
            }
        }
    }
}

/// The positions of a game since its last capture or pawn move, with how
/// often each stood under the strict FIDE key.
///
/// Per position only the strict key is kept; the rest of an [`Entry`]
/// follows from the window: the positions are those after consecutive
/// plies, so the side to move alternates; a legal en-passant capture
/// exists only right after a double pawn step, a zeroing move, so only the
/// first position can have one; castling rights are only ever lost, so a
/// game has at most five sets of them, recorded where they change.
#[derive(Debug, Clone)]
pub(crate) struct Repetitions {
    /// The strict keys, oldest first.
    keys: Vec<u64>,
    /// The ply after which the first position stood.
    first_ply: u32,
    /// The side to move in the first position.
    first_turn: Color,
    /// The legal en-passant square of the first position, if any.
    first_ep: Option<Square>,
    /// From which ply on the game had which castling rights (one bit per
    /// [`right_bit`]), oldest first: `rights_len` of them. A right is only
    /// ever lost, never gained (FIDE 3.8.2.1), and each change loses at
    /// least one of the four, so five entries hold any game.
    rights: [(u32, u8); 5],
    rights_len: usize,
    /// The castling-rights squares of the last position pushed, to notice
    /// a change cheaply.
    rights_mask: Bitboard,
    /// The strict counts, kept only while the window is longer than
    /// [`SCAN_LIMIT`] (`indexed`); a short window is scanned instead.
    /// Keyed by Zobrist hashes, uniformly random already: not hashed again.
    counts: HashMap<u64, u32, BuildNoHashHasher<u64>>,
    indexed: bool,
}

/// Up to this many positions since the last capture or pawn move (most
/// windows), counting by a scan beats keeping a hash table.
const SCAN_LIMIT: usize = 48;

/// Above this many slots, storage is given back when a capture or pawn move
/// empties it, so memory follows the current window, not the longest one.
const KEEP_CAPACITY: usize = 256;

impl Repetitions {
    /// The window of a game starting at `start`, whose strict key is `strict`.
    pub(crate) fn new(start: &Chess, strict: u64) -> Repetitions {
        let mut r = Repetitions {
            // Room for a window the scan handles, so most games never
            // grow it.
            keys: Vec::with_capacity(SCAN_LIMIT),
            first_ply: 0,
            first_turn: start.turn(),
            first_ep: None,
            rights: [(0, 0); 5],
            rights_len: 1,
            rights_mask: start.castles().castling_rights(),
            counts: HashMap::default(),
            indexed: false,
        };
        r.rights[0] = (0, rights_of(start));
        r.push_keyed(start, 0, true, strict, legal_ep(start));
        r
    }

    /// Adds the position after `ply`; `zeroing` when that move was a capture
    /// or a pawn move. Returns how often this position has now stood under
    /// FIDE identity. O(1) amortised. The tests' way in; the replay calls
    /// [`Repetitions::push_keyed`].
    #[cfg(test)]
    pub(crate) fn push(&mut self, pos: &Chess, ply: u32, zeroing: bool) -> u32 {
        self.push_keyed(pos, ply, zeroing, strict_key(pos), legal_ep(pos))
    }

    /// [`Repetitions::push`] with the strict key and the legal en-passant
    /// square already known, as the replay keeps them up to date move by
    /// move. Inlined into the replay for its common cases: a new window,
    /// or one too short to repeat.
    #[inline]
    pub(crate) fn push_keyed(
        &mut self,
        pos: &Chess,
        ply: u32,
        zeroing: bool,
        strict: u64,
        ep: Option<Square>,
    ) -> u32 {
        if zeroing {
            self.restart(pos, ply, ep);
        }
        if self.rights_mask.any() && pos.castles().castling_rights() != self.rights_mask {
            self.rights_changed(pos, ply);
        }
        self.keys.push(strict);
        // Only a position at least four plies back can be the same.
        if self.keys.len() < 5 {
            return 1;
        }
        self.count_last(strict)
    }

    /// Empties the window for the position after a capture or pawn move,
    /// whose legal en-passant square is `ep`.
    #[inline]
    fn restart(&mut self, pos: &Chess, ply: u32, ep: Option<Square>) {
        debug_assert_eq!(ep, legal_ep(pos));
        self.keys.clear();
        self.first_ply = ply;
        self.first_turn = pos.turn();
        self.first_ep = ep;
        if self.indexed {
            self.unindex();
        }
    }

    /// Drops the index of a long window, and storage past `KEEP_CAPACITY`
    /// (only an indexed window grows past it).
    #[cold]
    #[inline(never)]
    fn unindex(&mut self) {
        self.counts.clear();
        self.indexed = false;
        if self.keys.capacity() > KEEP_CAPACITY {
            self.keys.shrink_to(KEEP_CAPACITY / 4);
        }
        if self.counts.capacity() > KEEP_CAPACITY {
            self.counts.shrink_to(KEEP_CAPACITY / 4);
        }
    }

    #[cold]
    #[inline(never)]
    fn rights_changed(&mut self, pos: &Chess, ply: u32) {
        self.rights_mask = pos.castles().castling_rights();
        let rights = rights_of(pos);
        if rights != self.rights[self.rights_len - 1].1 {
            self.rights[self.rights_len] = (ply, rights);
            self.rights_len += 1;
        }
    }

    /// How often the last key pushed, `key`, has stood. Two positions of
    /// one window can only be the same an even number of plies apart (the
    /// same side to move) and at least four (each side moved a piece away
    /// and back), so only every other key from the fifth last on is looked
    /// at.
    #[inline(never)]
    fn count_last(&mut self, key: u64) -> u32 {
        let n = self.keys.len();
        if self.indexed || n > SCAN_LIMIT {
            return self.count_indexed(key);
        }
        let earlier = &self.keys[(n - 1) % 2..n - 3];
        let same = earlier.chunks_exact(2).filter(|pair| pair[0] == key);
        #[allow(
            clippy::cast_possible_truncation,
            reason = "the window holds one key per ply, and plies are u32"
        )]
        let count = same.count() as u32;
        1 + count
    }

    /// [`Repetitions::count_last`] in a window longer than [`SCAN_LIMIT`]:
    /// by the index, built on the first call.
    #[cold]
    #[inline(never)]
    fn count_indexed(&mut self, key: u64) -> u32 {
        if !self.indexed {
            for &k in &self.keys[..self.keys.len() - 1] {
                *self.counts.entry(k).or_insert(0) += 1;
            }
            self.indexed = true;
        }
        let count = self.counts.entry(key).or_insert(0);
        *count += 1;
        *count
    }

    /// How often the position with this strict key stood since the last
    /// capture or pawn move.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the window holds one key per ply, and plies are u32"
    )]
    pub(crate) fn strict_count(&self, key: u64) -> u32 {
        if self.indexed {
            self.counts.get(&key).copied().unwrap_or(0)
        } else {
            self.keys.iter().filter(|&&k| k == key).count() as u32
        }
    }

    /// Whether some position of the window has stood at least twice.
    pub(crate) fn any_repeated(&self) -> bool {
        if self.indexed {
            self.counts.values().any(|&n| n >= 2)
        } else {
            self.keys
                .iter()
                .enumerate()
                .any(|(i, k)| self.keys[i + 1..].contains(k))
        }
    }

    /// The ply after which the first position of the window stood: the
    /// last capture or pawn move, or 0.
    pub(crate) fn first_ply(&self) -> u32 {
        self.first_ply
    }

    /// The castling rights after `ply`.
    fn rights_at(&self, ply: u32) -> u8 {
        self.rights[..self.rights_len]
            .iter()
            .rev()
            .find(|&&(from, _)| from <= ply)
            .map_or(0, |&(_, rights)| rights)
    }

    /// The positions since the last capture or pawn move, oldest first.
    pub(crate) fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.keys.iter().enumerate().map(|(i, &strict)| {
            #[allow(
                clippy::cast_possible_truncation,
                reason = "the window holds one key per ply, and plies are u32"
            )]
            let ply = self.first_ply + i as u32;
            Entry {
                ply,
                strict,
                rights: self.rights_at(ply),
                ep: if i == 0 { self.first_ep } else { None },
                turn: if i % 2 == 0 {
                    self.first_turn
                } else {
                    !self.first_turn
                },
            }
        })
    }

    /// The last position pushed.
    pub(crate) fn last(&self) -> Entry {
        self.entries()
            .last()
            .expect("the start position is always pushed")
    }

    /// The entries that equal `of` under `identity`, oldest first.
    pub(crate) fn matching(
        &self,
        of: &Entry,
        identity: Identity,
    ) -> impl Iterator<Item = Entry> + '_ {
        let key = of.key(identity);
        self.entries().filter(move |e| e.key(identity) == key)
    }

    /// How many entries equal `of` under `identity`.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the window holds one entry per ply, and plies are u32"
    )]
    pub(crate) fn count(&self, of: &Entry, identity: Identity) -> u32 {
        self.matching(of, identity).count() as u32
    }
}

/// The square of a legal en-passant capture in `pos`, if any. Inlined for
/// the common answer, none: only right after a double pawn step is there
/// a square to test, out of line.
#[inline]
pub(crate) fn legal_ep(pos: &Chess) -> Option<Square> {
    pos.maybe_ep_square().and_then(|_| legal_ep_square(pos))
}

#[inline(never)]
fn legal_ep_square(pos: &Chess) -> Option<Square> {
    pos.ep_square(EnPassantMode::Legal)
}

/// The strict key of `pos` (FIDE 9.2.3), hashed from scratch.
pub(crate) fn strict_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The strict key of the standard start position, which most games start
/// from, hashed once. (A Chess960 game without a FEN starts from it too:
/// the key names castling rights by side, not by rook square.)
pub(crate) fn initial_key() -> u64 {
    static KEY: LazyLock<u64> = LazyLock::new(|| strict_key(&Chess::default()));
    *KEY
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, FromSetup, Setup, fen::Fen, san::San};

    /// The move-by-move key equals the key hashed from scratch, and its
    /// en-passant square the legal one, after every
    /// move of random games (castles, en passant, promotions, rook
    /// captures) from the standard and a Chess960 start.
    #[test]
    fn next_key_matches_a_fresh_hash() {
        let full = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let starts = [
            Chess::default(),
            Fen::from_ascii(b"bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1")
                .unwrap()
                .into_position(CastlingMode::Chess960)
                .unwrap(),
            pos("r3k2r/1p4p1/8/2pP4/8/8/1P4P1/R3K2R w KQkq c6 0 1"),
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut moves_checked = 0;
        for game in 0..600 {
            let mut p = starts[game % starts.len()].clone();
            let mut key = full(&p);
            for _ in 0..160 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Prefer captures, castles and pawn moves now and then.
                let special: Vec<_> = legal
                    .iter()
                    .filter(|m| m.is_capture() || m.is_castle() || m.role() == shakmaty::Role::Pawn)
                    .collect();
                let m = if seed.is_multiple_of(3) && !special.is_empty() {
                    *special[(seed / 3) as usize % special.len()]
                } else {
                    legal[(seed / 3) as usize % legal.len()]
                };
                let before = p.clone();
                p.play_unchecked(m);
                let ep;
                (key, ep) = next_key(&KeyBefore::of(&before, legal_ep(&before)), key, m, &p);
                assert_eq!(key, full(&p), "after {m:?} from {before:?}");
                assert_eq!(ep, legal_ep(&p), "after {m:?} from {before:?}");
                moves_checked += 1;
            }
        }
        assert!(moves_checked > 50_000);
    }

    #[test]
    fn the_initial_key_is_the_start_positions_in_either_castling_mode() {
        let chess960 = Chess::from_setup(Setup::initial(), CastlingMode::Chess960).unwrap();
        assert_eq!(initial_key(), strict_key(&Chess::default()));
        assert_eq!(initial_key(), strict_key(&chess960));
    }

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn derived_keys_agree_with_a_fresh_hash() {
        // Same placement, different rights: the derived keys must coincide.
        let a = Entry::of(&pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), 0);
        let b = Entry::of(&pos("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"), 0);
        let c = Entry::of(&pos("r3k2r/8/8/8/8/8/8/R3K2R b - - 0 1"), 0);
        assert_ne!(a.key(Identity::Strict), b.key(Identity::Strict));
        assert_eq!(a.key(Identity::NoCastling), b.key(Identity::Strict));
        assert_eq!(a.key(Identity::NoRights), b.key(Identity::NoRights));
        assert_ne!(b.key(Identity::NoRights), c.key(Identity::NoRights));
        assert_eq!(b.key(Identity::Placement), c.key(Identity::Placement));
    }

    #[test]
    fn en_passant_counts_only_when_legal() {
        // After 1.e4 no black pawn can take on e3: same as without the square.
        let a = Entry::of(
            &pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
            1,
        );
        let b = Entry::of(
            &pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
            1,
        );
        assert_eq!(a.strict, b.strict);
        assert_eq!(a.ep, None);
        let c = Entry::of(&pos("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"), 1);
        let d = Entry::of(&pos("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1"), 1);
        assert_ne!(c.strict, d.strict);
        assert_eq!(c.key(Identity::NoEnPassant), d.strict);
    }

    /// The counts from the parity-and-distance scan and from the index of
    /// long windows agree with counting every earlier position, and
    /// `any_repeated` with whether some count reached two.
    #[test]
    fn counts_agree_with_a_naive_count() {
        let mut p = Chess::default();
        let mut reps = Repetitions::new(&p, strict_key(&p));
        let mut seen = vec![strict_key(&p)];
        let mut most = 1;
        assert!(!reps.any_repeated());
        let tour = ["Nf3", "Nf6", "Nc3", "Nc6", "Nb1", "Nb8", "Ng1", "Ng8"];
        for (i, san) in tour.iter().cycle().take(60).enumerate() {
            let m = san.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            let key = strict_key(&p);
            let naive = 1 + u32::try_from(seen.iter().filter(|&&k| k == key).count()).unwrap();
            seen.push(key);
            assert_eq!(
                reps.push(&p, u32::try_from(i + 1).unwrap(), false),
                naive,
                "ply {}",
                i + 1
            );
            most = most.max(naive);
            assert_eq!(reps.any_repeated(), most >= 2);
        }
        assert!(reps.any_repeated());
        assert_eq!(reps.strict_count(strict_key(&p)), 8);
    }

    /// Side to move, en passant and castling rights, which the window
    /// derives rather than keeps, are those of each position.
    #[test]
    fn entries_are_those_of_the_positions() {
        let mut p = pos("r3k2r/1p4p1/8/2pP4/8/8/1P4P1/R3K2R w KQkq c6 0 1");
        let mut reps = Repetitions::new(&p, strict_key(&p));
        let mut window = vec![Entry::of(&p, 0)];
        let moves = [
            "Ra2", "Ra7", "Ra1", "Ra8", "Kf1", "Kf8", "Rb1", "c4", "b4", "Ke8", "Rh2", "Kd8",
            "Rh1", "Ke8",
        ];
        for (i, san) in moves.iter().enumerate() {
            let m = san.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            let ply = u32::try_from(i + 1).unwrap();
            if m.is_zeroing() {
                window.clear();
            }
            window.push(Entry::of(&p, ply));
            reps.push(&p, ply, m.is_zeroing());
            assert_eq!(reps.entries().collect::<Vec<_>>(), window, "after {san}");
        }
        assert!(window[0].ep.is_some(), "b4 allows cxb3 en passant");
        assert_eq!(reps.first_ply(), 9);
    }

    #[test]
    fn window_resets_on_zeroing_moves_only() {
        let mut p = Chess::default();
        let mut reps = Repetitions::new(&p, strict_key(&p));
        let mut last = 0;
        for (ply, san) in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]
            .iter()
            .enumerate()
        {
            let m = san.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            last = reps.push(&p, u32::try_from(ply + 1).unwrap(), false);
        }
        assert_eq!(last, 3);
        assert_eq!(reps.entries().count(), 9);
        let m = "e4".parse::<San>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(m);
        assert_eq!(reps.push(&p, 9, true), 1);
        assert_eq!(reps.entries().count(), 1);
    }
}
