//! The typed cells of the report rows: the domain's values (a side, a
//! wing, a variant, a reason, a verdict, a rule, a basis, a set of codes,
//! a list of plies) as the report contract writes them, each code's text
//! defined once ([`Code::code`], which for the audit's codes is the
//! audit's own `code()`), and read back through that one definition: a
//! cell that holds no code of the contract is an error, never a default.

use std::fmt;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, Serializer};
use shakmaty::{CastlingSide, Color};

use pgn_audit_core::audit::fix::CorrectionCode;
use pgn_audit_core::audit::{
    Basis, CastlingReason, ClaimKind, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, QuirkCode,
    Quirks, Reasons, ResultCode, Variant,
};

/// A value that a report writes as one of a fixed list of codes.
pub trait Code: Copy + Eq + 'static {
    /// Every value, in the contract's canonical order.
    const ALL: &'static [Self];

    /// The value's code, as the reports write it.
    fn code(self) -> &'static str;

    /// The value whose code is `text`, if any.
    fn from_code(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.code() == text)
    }
}

/// The audit's codes: their texts are the audit's `code()`.
macro_rules! audit_codes {
    ($($t:ident),* $(,)?) => {
        $(impl Code for $t {
            const ALL: &'static [$t] = $t::ALL;
            fn code(self) -> &'static str {
                $t::code(self)
            }
        })*
    };
}

audit_codes!(
    CastlingReason,
    ClaimKind,
    ClaimSource,
    ClaimVerdict,
    DrawRule,
    Basis,
    ResultCode,
    ErrorKind,
    QuirkCode,
);

/// corrections.csv's `code`: the rule or results code whose correction
/// `--fix` made, written as that code's own text.
impl Code for CorrectionCode {
    const ALL: &'static [CorrectionCode] = CorrectionCode::ALL;
    fn code(self) -> &'static str {
        CorrectionCode::code(self)
    }
}

impl Code for Variant {
    const ALL: &'static [Variant] = &[Variant::Standard, Variant::Chess960];
    fn code(self) -> &'static str {
        Variant::code(self)
    }
}

/// castling.csv's `side`: the side that castles.
impl Code for Color {
    const ALL: &'static [Color] = &[Color::White, Color::Black];
    fn code(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// castling.csv's `castle`: `kingside` (O-O, towards the h-file in
/// Chess960) or `queenside` (O-O-O, towards the a-file).
impl Code for CastlingSide {
    const ALL: &'static [CastlingSide] = &[CastlingSide::KingSide, CastlingSide::QueenSide];
    fn code(self) -> &'static str {
        match self {
            CastlingSide::KingSide => "kingside",
            CastlingSide::QueenSide => "queenside",
        }
    }
}

/// The value of `T` whose code is `text`; where it is none, an error
/// naming the text and the codes it could be (which tells the column).
fn read_code<T: Code, E: serde::de::Error>(text: &str) -> Result<T, E> {
    T::from_code(text).ok_or_else(|| {
        let codes: Vec<&str> = T::ALL.iter().map(|c| c.code()).collect();
        match codes.split_last() {
            Some((last, [])) => E::custom(format_args!("{text:?} is not {last}")),
            Some((last, rest)) => E::custom(format_args!(
                "{text:?} is not {} or {last}",
                rest.join(", ")
            )),
            None => E::custom(format_args!("{text:?} is no code")),
        }
    })
}

/// A cell of one code (`#[serde(with = "code")]`).
pub(crate) mod code {
    use super::*;

    pub(crate) fn serialize<T: Code, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.code())
    }

    pub(crate) fn deserialize<'de, T: Code, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        read_code(&String::deserialize(d)?)
    }
}

/// A cell of one code or none (`""`), as `basis` (`#[serde(with =
/// "optional_code")]`).
pub(crate) mod optional_code {
    use super::*;

    pub(crate) fn serialize<T: Code, S: Serializer>(
        v: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.map_or("", Code::code))
    }

    pub(crate) fn deserialize<'de, T: Code, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "" => Ok(None),
            t => read_code(t).map(Some),
        }
    }
}

/// A set of codes, written in canonical order joined with `;`.
pub trait CodeSet: Copy + Default {
    /// The codes of the set.
    type Code: Code;
    /// Whether `c` is in the set.
    fn has(self, c: Self::Code) -> bool;
    /// Adds `c`.
    fn add(&mut self, c: Self::Code);
    /// The codes joined with `;` (the audit's one join).
    fn joined(self) -> String;
    /// The codes in canonical order.
    fn each(self) -> impl Iterator<Item = Self::Code> {
        Self::Code::ALL
            .iter()
            .copied()
            .filter(move |c| self.has(*c))
    }
}

/// The audit's sets of codes: their join is the audit's `codes()`.
macro_rules! audit_code_sets {
    ($($set:ident of $code:ident),* $(,)?) => {
        $(impl CodeSet for $set {
            type Code = $code;
            fn has(self, c: $code) -> bool {
                self.contains(c)
            }
            fn add(&mut self, c: $code) {
                self.insert(c);
            }
            fn joined(self) -> String {
                self.codes()
            }
        })*
    };
}

audit_code_sets!(Reasons of CastlingReason, Quirks of QuirkCode);

/// A cell of a set of codes joined with `;`: at least one, each a code
/// (`#[serde(with = "code_set")]`).
pub(crate) mod code_set {
    use super::*;

    pub(crate) fn serialize<T: CodeSet, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.joined())
    }

    pub(crate) fn deserialize<'de, T: CodeSet, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        let mut set = T::default();
        for part in text.split(';') {
            set.add(read_code(part)?);
        }
        Ok(set)
    }
}

/// claims.csv's `plies`: plies joined with `;`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plies(pub Vec<u32>);

impl fmt::Display for Plies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(";")?;
            }
            f.write_str(itoa::Buffer::new().format(*p))?;
        }
        Ok(())
    }
}

impl Serialize for Plies {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Plies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Plies, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(Plies(Vec::new()));
        }
        text.split(';')
            .map(|p| {
                p.parse::<u32>()
                    .map_err(|_| D::Error::custom(format_args!("{p:?} is no ply")))
            })
            .collect::<Result<_, _>>()
            .map(Plies)
    }
}

/// The `variant` identity column: standard chess or Chess960, or, for a
/// game with an `unsupported_variant` error, the Variant tag's value in
/// lower case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantColumn<S = String> {
    /// A variant the audit plays.
    Known(Variant),
    /// The Variant tag's value (lowercased) of an unsupported variant.
    Unsupported(S),
}

impl<S: AsRef<str>> VariantColumn<S> {
    /// The cell's text.
    pub fn as_str(&self) -> &str {
        match self {
            VariantColumn::Known(v) => v.code(),
            VariantColumn::Unsupported(s) => s.as_ref(),
        }
    }
}

impl<S: Serialize> Serialize for VariantColumn<S> {
    fn serialize<Ser: Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        match self {
            VariantColumn::Known(v) => s.serialize_str(v.code()),
            VariantColumn::Unsupported(text) => text.serialize(s),
        }
    }
}

impl<'de, S: Deserialize<'de> + AsRef<str>> Deserialize<'de> for VariantColumn<S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<VariantColumn<S>, D::Error> {
        let text = S::deserialize(d)?;
        Ok(match Variant::from_code(text.as_ref()) {
            Some(v) => VariantColumn::Known(v),
            None => VariantColumn::Unsupported(text),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each code reads back as its value, in the contract's order; any
    /// other text is no code.
    #[test]
    fn codes_read_back_through_their_one_text() {
        fn round<T: Code + fmt::Debug>() {
            for v in T::ALL {
                assert_eq!(T::from_code(v.code()), Some(*v));
            }
            assert_eq!(T::from_code("nonsense"), None);
            assert_eq!(T::from_code(""), None);
        }
        round::<CastlingReason>();
        round::<ClaimKind>();
        round::<ClaimSource>();
        round::<ClaimVerdict>();
        round::<DrawRule>();
        round::<Basis>();
        round::<ResultCode>();
        round::<ErrorKind>();
        round::<QuirkCode>();
        round::<Variant>();
        round::<Color>();
        round::<CastlingSide>();
        assert_eq!(Color::Black.code(), "black");
        assert_eq!(CastlingSide::QueenSide.code(), "queenside");
        let e = read_code::<Color, serde::de::value::Error>("left").unwrap_err();
        assert_eq!(e.to_string(), "\"left\" is not white or black");
        assert_eq!(Plies(vec![32, 36, 40]).to_string(), "32;36;40");
        assert_eq!(Plies(Vec::new()).to_string(), "");
    }
}
