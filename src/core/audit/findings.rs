//! What an audit finds, with the stable codes of the report contract.

use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, fen::Fen, san::SanPlus};

/// How the comment that `--fix` writes before a corrected result token
/// begins: the tool's own annotation, which claims nothing (the claims
/// audit passes over a comment that begins so).
pub const COMMENT_PREFIX: &str = "pgn-audit:";

/// The FEN of a position, as the reports' `fen` columns write it: en
/// passant only where a capture is legal.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A move as the reports' sentences name it, the way a reader finds it:
/// `26.Nb5` (White's 26th move) or `25...Ra8` (Black's 25th), its text as
/// written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveName<'a> {
    /// The move number.
    pub number: u32,
    /// Whether White makes the move.
    pub white: bool,
    /// The move as written.
    pub text: &'a str,
}

impl std::fmt::Display for MoveName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dots = if self.white { "." } else { "..." };
        write!(f, "{}{dots}{}", self.number, self.text)
    }
}

impl<'a> MoveName<'a> {
    /// The name at the start of `text`, up to the first blank: its number,
    /// its dots, its move (a move written with its `e.p.` apart keeps only
    /// the part before the blank).
    pub fn read(text: &'a str) -> Option<MoveName<'a>> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let number = text[..digits].parse().ok()?;
        let rest = &text[digits..];
        let (white, rest) = match rest.strip_prefix("...") {
            Some(rest) => (false, rest),
            None => (true, rest.strip_prefix('.')?),
        };
        let text = rest.split(' ').next().filter(|t| !t.is_empty())?;
        Some(MoveName {
            number,
            white,
            text,
        })
    }
}

/// How a claim's detail (claims.csv) begins: the position the claim is
/// judged on, named by the move that made it, `the position after 26.Nb5`,
/// or `the start position` in a game without moves. The audit's sentences
/// begin so, and report.html reads the move back from them
/// ([`claimed_move`]): claims.csv has no column of its own for it.
pub fn claimed_position(last: Option<MoveName>) -> String {
    match last {
        Some(mv) => format!("{CLAIMED_AFTER}{mv}"),
        None => "the start position".to_owned(),
    }
}

/// How [`claimed_position`] names a position after a move.
const CLAIMED_AFTER: &str = "the position after ";

/// The move a claim's detail names its position by ([`claimed_position`]);
/// `None` for the start position, or a detail that does not begin so.
pub fn claimed_move(detail: &str) -> Option<MoveName<'_>> {
    MoveName::read(detail.strip_prefix(CLAIMED_AFTER)?)
}

/// Standard chess or Chess960 (FIDE Guidelines II).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// Standard chess: castling only from the standard array (3.8.2).
    #[default]
    Standard,
    /// Chess960: castling from any start array (Guidelines II.3).
    Chess960,
}

impl Variant {
    /// The report contract's code: `standard` or `chess960`.
    pub fn code(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        }
    }
}

macro_rules! codes {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $code:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every value, in the contract's canonical order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The stable code written in the reports.
            pub fn code(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)*
                }
            }
        }
    };
}

codes! {
    /// Why a castling move breaks FIDE Laws 3.8.2, in the contract's order.
    CastlingReason {
        /// The king left its start square earlier (3.8.2.1), even if it came back.
        KingMoved => "king_moved",
        /// This side's rook left its start square earlier (3.8.2.1).
        RookMoved => "rook_moved",
        /// This side's rook was captured earlier.
        RookCaptured => "rook_captured",
        /// The starting FEN withholds the right and the game does not say why.
        NoRightInFen => "no_right_in_fen",
        /// The king is not on its start square now.
        KingDisplaced => "king_displaced",
        /// No rook on this side's rook square, but another rook on that side.
        RookDisplaced => "rook_displaced",
        /// No rook of the mover on the back rank on that side of the king.
        NoRook => "no_rook",
        /// Something other than king and rook stands on their way (3.8.2.2).
        PathBlocked => "path_blocked",
        /// The king is in check (3.8.2.2).
        InCheck => "in_check",
        /// The king passes over an attacked square (3.8.2.2).
        ThroughCheck => "through_check",
        /// The king ends in check (3.8.2.2 and 3.9).
        IntoCheck => "into_check",
    }
}

codes! {
    /// Which draw a claim asks for (FIDE 9.2 or 9.3).
    ClaimKind {
        /// Threefold repetition (9.2).
        Threefold => "threefold",
        /// The fifty-move rule (9.3).
        FiftyMoves => "fifty_moves",
    }
}

codes! {
    /// Where the claim was read.
    ClaimSource {
        /// The Termination tag says repetition, or fifty/50 moves.
        Termination => "termination",
        /// A comment after the last move says so.
        Comment => "comment",
        /// No words: the game is drawn and its final position bears a claim.
        Implied => "implied",
    }
}

codes! {
    /// The judgement on a claim, the first that applies.
    ClaimVerdict {
        /// The claim holds on the final position (9.2.1.2, 9.3.2).
        Valid => "valid",
        /// The claim holds on a move announced from the final position
        /// (9.2.1.1, 9.3.1).
        ValidOnAnnouncedMove => "valid_on_announced_move",
        /// The count reaches 3 only when castling rights are ignored (9.2.3).
        FalseCastlingRights => "false_castling_rights",
        /// The count reaches 3 only when en-passant rights are ignored (9.2.3).
        FalseEnPassant => "false_en_passant",
        /// The pieces stood the same 3 times, not with the same side to
        /// move (9.2.3).
        FalseSideToMove => "false_side_to_move",
        /// No repetition bears the claim out.
        FalseNotRepeated => "false_not_repeated",
        /// Fewer than 50 moves of each side without capture or pawn move
        /// (9.3).
        FalseFiftyMoves => "false_fifty_moves",
    }
}

codes! {
    /// The automatic draws of FIDE 9.6.
    DrawRule {
        /// The same position has stood five times (9.6.1).
        Fivefold => "fivefold",
        /// 75 moves of each side without capture or pawn move (9.6.2).
        SeventyFiveMoves => "seventy_five_moves",
        /// Neither side can mate by any series of legal moves (5.2.2):
        /// insufficient material, or a helpmate analysis, shows it.
        DeadPosition => "dead_position",
    }
}

codes! {
    /// What shows that a side cannot mate by any series of legal moves
    /// (5.2.2, 6.9): the `basis` column.
    Basis {
        /// The material alone (shakmaty's insufficient-material test).
        InsufficientMaterial => "insufficient_material",
        /// A helpmate analysis (chasolver) proves that no series of legal
        /// moves ends in a mate.
        HelpmateAnalysis => "helpmate_analysis",
    }
}

codes! {
    /// The codes whose question the helpmate analysis could not decide for
    /// a game: summary.json's `undecided`.
    Undecided {
        /// Whether the game played on past a dead position.
        DeadPosition => "dead_position",
        /// Whether the final position of a game scored a win is dead.
        DeadPositionNotDrawn => "dead_position_not_drawn",
        /// Whether the winner on time can mate.
        TimeoutWithoutMatingMaterial => "timeout_without_mating_material",
    }
}

codes! {
    /// Why a recorded result contradicts the final position or the Laws,
    /// in the contract's order.
    ResultCode {
        /// The Result tag and the movetext's result token differ.
        ResultMismatch => "result_mismatch",
        /// The final position is checkmate and the mating side is not
        /// scored the win (5.1.1).
        CheckmateNotScored => "checkmate_not_scored",
        /// The final position is stalemate and the game is not drawn (5.2.1).
        StalemateNotDrawn => "stalemate_not_drawn",
        /// The final position is dead (insufficient material, or proven by
        /// a helpmate analysis) and the game is scored a win (5.2.2).
        DeadPositionNotDrawn => "dead_position_not_drawn",
        /// Lost on time, but the winner cannot mate by any series of legal
        /// moves: a draw (6.9).
        TimeoutWithoutMatingMaterial => "timeout_without_mating_material",
    }
}

codes! {
    /// Why a game could not be audited to its end.
    ErrorKind {
        /// A move that names no legal move.
        IllegalMove => "illegal_move",
        /// A move that names more than one legal move.
        AmbiguousMove => "ambiguous_move",
        /// A castle that cannot be played as written.
        UnplayableCastle => "unplayable_castle",
        /// A FEN tag that is no legal position.
        BadFen => "bad_fen",
        /// A Variant tag other than standard chess or Chess960.
        UnsupportedVariant => "unsupported_variant",
        /// The movetext cannot be read as PGN.
        ParseError => "parse_error",
    }
}

codes! {
    /// How accepted notation departs from the standard (PGN standard 8.1
    /// for tags, 8.2.3 for SAN) while it still means exactly one thing, in
    /// the order quirks.csv writes them.
    QuirkCode {
        /// `0-0` for `O-O`.
        CastlingWithZeros => "castling_with_zeros",
        /// `o-o` for `O-O`.
        LowercaseCastling => "lowercase_castling",
        /// `g1f3`, `e7e8q`: the squares of departure and arrival (UCI, old
        /// programs), not SAN.
        CoordinateNotation => "coordinate_notation",
        /// A capture written without `x`.
        MissingCaptureMark => "missing_capture_mark",
        /// A move to an empty square written with `x`.
        ExtraCaptureMark => "extra_capture_mark",
        /// `xd5`: a pawn capture without the file it comes from.
        PawnCaptureWithoutFile => "pawn_capture_without_file",
        /// A file or rank of departure that SAN does not write (`Ng1f3`,
        /// `e5xd6`, `N1d2` where `Nbd2` tells).
        NeedlessDisambiguation => "needless_disambiguation",
        /// `e8Q` for `e8=Q`.
        PromotionWithoutEquals => "promotion_without_equals",
        /// `exd6e.p.`, `exd6ep`, `exd6 e.p.`.
        EnPassantSuffix => "en_passant_suffix",
        /// A check or mate written without `+` or `#`.
        MissingCheckMark => "missing_check_mark",
        /// `+` or `#` where the move gives no check, or the other one.
        WrongCheckMark => "wrong_check_mark",
        /// `++`, the old sign of a double check.
        DoubleCheckMark => "double_check_mark",
        /// A tag value with quotes inside it not escaped.
        UnescapedTagQuotes => "unescaped_tag_quotes",
        /// A tag line that cannot be read, skipped.
        UnreadableTagLine => "unreadable_tag_line",
        /// A FEN castling right whose king or rook is not where it needs
        /// them, dropped.
        ImpossibleCastlingRight => "impossible_castling_right",
        /// (v3) An evaluation glyph standing alone in the movetext (`+-`,
        /// `=`, `±`, `!?`), read as annotation like a NAG.
        AnnotationGlyph => "annotation_glyph",
        /// (v3) A FEN en-passant square that no double step can have made
        /// (no pawn of the side that just moved in front of it, or the
        /// square behind it occupied), dropped.
        ImpossibleEnPassantSquare => "impossible_en_passant_square",
        /// (v3) A move written with German, French, Spanish or Dutch piece
        /// letters (`Sf3`, `Cf3`), the whole game in one set.
        ForeignPieceLetters => "foreign_piece_letters",
    }
}

/// A set of [`QuirkCode`]s, written in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Quirks(u32);

impl Quirks {
    /// Adds `q`.
    pub fn insert(&mut self, q: QuirkCode) {
        self.0 |= 1 << q as u32;
    }
    /// Takes `q` out.
    pub fn remove(&mut self, q: QuirkCode) {
        self.0 &= !(1 << q as u32);
    }
    /// Whether `q` is in the set.
    pub fn contains(self, q: QuirkCode) -> bool {
        self.0 & (1 << q as u32) != 0
    }
    /// Whether the set has no code.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The codes joined with `;`, as in quirks.csv.
    pub fn codes(self) -> String {
        QuirkCode::ALL
            .iter()
            .filter(|q| self.contains(**q))
            .map(|q| q.code())
            .collect::<Vec<_>>()
            .join(";")
    }
}

impl From<QuirkCode> for Quirks {
    fn from(q: QuirkCode) -> Quirks {
        let mut set = Quirks::default();
        set.insert(q);
        set
    }
}

/// What an accepted quirk was written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// A move or tag line: its byte range in the game.
    Text(u32, u32),
    /// A FEN castling right, as its FEN letter (`Q`, or the rook's file in
    /// Chess960).
    CastlingRight(char),
    /// (v3) A FEN en-passant square, as the FEN names it (`g6`).
    EnPassantSquare(shakmaty::Square),
}

/// Notation that was accepted though sloppy: one row of quirks.csv, and one
/// of the game's `notation_quirks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotationQuirk {
    /// The move's ply; 0 for a tag line or a FEN castling right.
    pub ply: u32,
    /// What is sloppy about it.
    pub codes: Quirks,
    /// Where it is written.
    pub written: Written,
    /// The move in standard SAN; `None` for a tag line or castling right.
    pub standard: Option<SanPlus>,
}

impl ClaimVerdict {
    /// A verdict that upholds the claim.
    pub fn is_valid(self) -> bool {
        matches!(
            self,
            ClaimVerdict::Valid | ClaimVerdict::ValidOnAnnouncedMove
        )
    }
}

impl ClaimSource {
    /// Whether a claim read here with `verdict` flags its game: a false
    /// claim made in words; an implied claim flags nothing (the players may
    /// simply have agreed a draw).
    pub fn flags(self, verdict: ClaimVerdict) -> bool {
        self != ClaimSource::Implied && !verdict.is_valid()
    }
}

/// A set of [`CastlingReason`]s, written in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Reasons(u16);

impl Reasons {
    /// Adds `r`.
    pub fn insert(&mut self, r: CastlingReason) {
        self.0 |= 1 << r as u16;
    }
    /// Whether `r` is in the set.
    pub fn contains(self, r: CastlingReason) -> bool {
        self.0 & (1 << r as u16) != 0
    }
    /// Whether the set has no reason.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The reasons in canonical order.
    pub fn iter(self) -> impl Iterator<Item = CastlingReason> {
        CastlingReason::ALL
            .iter()
            .copied()
            .filter(move |r| self.contains(*r))
    }
    /// The codes joined with `;`, as in castling.csv.
    pub fn codes(self) -> String {
        self.iter()
            .map(CastlingReason::code)
            .collect::<Vec<_>>()
            .join(";")
    }
}

impl FromIterator<CastlingReason> for Reasons {
    fn from_iter<I: IntoIterator<Item = CastlingReason>>(iter: I) -> Self {
        let mut r = Reasons::default();
        for x in iter {
            r.insert(x);
        }
        r
    }
}

/// A castling move that breaks FIDE Laws 3.8.2: one row of castling.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CastlingViolation {
    /// The castle's ply.
    pub ply: u32,
    /// Its PGN move number (following the FEN's fullmove counter).
    pub move_number: u32,
    /// The side that castles.
    pub side: Color,
    /// The move exactly as written.
    pub san: String,
    /// Towards which side it castles.
    pub castle: CastlingSide,
    /// The rules of 3.8.2 it breaks.
    pub reasons: Reasons,
    /// The reasons in words, with the moves and squares that show them.
    pub detail: String,
    /// The position before the move.
    pub fen: String,
}

/// An audited draw claim: one row of claims.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimAudit {
    /// Which draw is claimed.
    pub claim: ClaimKind,
    /// Where the claim was read.
    pub source: ClaimSource,
    /// The judgement on it.
    pub verdict: ClaimVerdict,
    /// The final ply, where the claim is judged.
    pub ply: u32,
    /// How often the final position stood (9.2.3 identity).
    pub occurrences: u32,
    /// How often its pieces stood so with the same side to move, castling
    /// and en-passant rights ignored.
    pub occurrences_ignoring_rights: u32,
    /// The plies at which that looser position stood.
    pub plies: Vec<u32>,
    /// The final position.
    pub fen: String,
    /// The verdict in words.
    pub detail: String,
}

/// A game played on after an automatic draw: one row of missed_draws.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissedDraw {
    /// Which automatic draw.
    pub rule: DrawRule,
    /// The ply that made the draw.
    pub ply: u32,
    /// Plies played after it, at least 1.
    pub plies_after: u32,
    /// The position after `ply`.
    pub fen: String,
    /// What shows a dead position dead; `None` for the other rules.
    pub basis: Option<Basis>,
}

/// A result that contradicts the final position or the Laws: one row of
/// results.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultFinding {
    /// What is wrong with the result.
    pub code: ResultCode,
    /// The game's last ply.
    pub ply: u32,
    /// The result the row is about: the Result tag, or the result token
    /// where the tag is missing.
    pub recorded: String,
    /// The result the Laws give; empty for a mismatch.
    pub expected: &'static str,
    /// The finding in words.
    pub detail: String,
    /// The final position; empty where the game was not replayed to its end.
    pub fen: String,
    /// What shows that a side cannot mate, for `dead_position_not_drawn`
    /// and `timeout_without_mating_material`; `None` for the other codes.
    pub basis: Option<Basis>,
}

/// Why the replay stopped: one row of errors.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// The ply of the move that stopped the replay (0 where nothing was
    /// played).
    pub ply: u32,
    /// That move exactly as written.
    pub san: String,
    /// Why the replay stopped.
    pub kind: ErrorKind,
    /// The cause in words.
    pub detail: String,
    /// The position before `san`, empty where there is none.
    pub fen: String,
}

/// Everything the audit of one game found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameReport {
    /// The game's variant.
    pub variant: Variant,
    /// The castles that break 3.8.2, in game order.
    pub castling: Vec<CastlingViolation>,
    /// The audited draw claims.
    pub claims: Vec<ClaimAudit>,
    /// The automatic draws (9.6) the game played on after.
    pub missed_draws: Vec<MissedDraw>,
    /// The findings on the result.
    pub results: Vec<ResultFinding>,
    /// Why the replay stopped, if it did.
    pub error: Option<GameError>,
    /// Notation accepted though sloppy, in game order (tag lines and FEN
    /// castling rights at ply 0 first).
    pub quirks: Vec<NotationQuirk>,
    /// How many: `quirks.len()`.
    pub notation_quirks: u32,
    /// Plies replayed.
    pub plies: u32,
    /// The questions the helpmate analysis could not decide (no row).
    pub undecided: Vec<Undecided>,
    /// The time the helpmate analysis took, in nanoseconds.
    pub analysis_nanos: u64,
}

/// The summary class of a game (every game is exactly one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameClass {
    /// Nothing to report.
    Clean,
    /// A castling row, a false claim in words, a missed draw or a results
    /// row.
    Flagged,
    /// The replay stopped: an errors.csv row.
    Incomplete,
}

impl GameReport {
    /// Incomplete with an error row; flagged with a castling row, a false
    /// claim from the Termination tag or a comment, a missed draw or a
    /// results row.
    pub fn class(&self) -> GameClass {
        if self.error.is_some() {
            GameClass::Incomplete
        } else if !self.castling.is_empty()
            || !self.missed_draws.is_empty()
            || !self.results.is_empty()
            || self.claims.iter().any(|c| c.source.flags(c.verdict))
        {
            GameClass::Flagged
        } else {
            GameClass::Clean
        }
    }
}
