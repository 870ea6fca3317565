//! A Parquet file's footer, read before the parquet crate decodes it: how
//! deep its schema nests. The crate builds a schema's tree (and Arrow's
//! schema from it) by recursion, one call per level, so that a schema
//! nested some thousands of levels deep (a 16 KB file) overflows the
//! stack of the thread that opens it; the footer's schema is a flat list
//! of elements in depth-first order, each with its number of children,
//! whose depth is counted here without recursion.
//!
//! The footer is Thrift's compact protocol (the Parquet format's
//! `FileMetaData`, field 2 its `list<SchemaElement>`, field 5 of an
//! element its `num_children`); only what leads to the schema is read,
//! everything else is skipped.

/// How deep the elements of a Thrift structure skipped here may nest
/// (the parquet crate's own limit for the fields it skips).
const SKIP_DEPTH: usize = 64;

/// Thrift's compact types, as a field's or a list's header gives them.
const STOP: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

/// How a footer's schema reads.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Its deepest element is this many levels below the root (a
    /// top-level column is at level 1).
    Levels(usize),
    /// It nests deeper than the limit it was read with.
    Beyond,
}

/// The depth of the schema in the footer `footer` (the Thrift bytes of a
/// Parquet `FileMetaData`), counted up to `limit` levels: `None` where the
/// footer cannot be read as one.
pub(crate) fn schema_depth(footer: &[u8], limit: usize) -> Option<Depth> {
    let mut r = Compact {
        bytes: footer,
        at: 0,
    };
    let mut last = 0;
    loop {
        let (kind, id) = r.field(&mut last)?;
        match (kind, id) {
            (STOP, _) => return None,
            (LIST, 2) => return r.schema(limit),
            _ => r.skip(kind, SKIP_DEPTH)?,
        }
    }
}

/// A reader of Thrift's compact protocol over a footer's bytes.
struct Compact<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Compact<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// An unsigned variable-length integer (at most 64 bits).
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    /// A zigzag-coded signed integer.
    fn signed(&mut self) -> Option<i64> {
        let v = self.varint()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn advance(&mut self, n: u64) -> Option<()> {
        let n = usize::try_from(n).ok()?;
        let end = self.at.checked_add(n)?;
        (end <= self.bytes.len()).then(|| self.at = end)
    }

    /// The next field's type and id (`last`: the id of the field before
    /// it in its structure, which a short header counts from).
    fn field(&mut self, last: &mut i16) -> Option<(u8, i16)> {
        let header = self.byte()?;
        let kind = header & 0x0f;
        if kind == STOP {
            return Some((STOP, 0));
        }
        let delta = header >> 4;
        let id = match delta {
            0 => i16::try_from(self.signed()?).ok()?,
            d => last.checked_add(i16::from(d))?,
        };
        *last = id;
        Some((kind, id))
    }

    /// A list's (or set's) element type and length.
    fn list(&mut self) -> Option<(u8, u64)> {
        let header = self.byte()?;
        let len = match header >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        Some((header & 0x0f, len))
    }

    /// Skips a value of type `kind`, its elements nested at most `depth`
    /// deep.
    fn skip(&mut self, kind: u8, depth: usize) -> Option<()> {
        let depth = depth.checked_sub(1)?;
        match kind {
            TRUE | FALSE => Some(()),
            BYTE => self.advance(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.advance(8),
            BINARY => {
                let len = self.varint()?;
                self.advance(len)
            }
            LIST | SET => {
                let (element, len) = self.list()?;
                for _ in 0..len {
                    match element {
                        // A boolean in a list is a byte of its own.
                        TRUE | FALSE => self.advance(1)?,
                        _ => self.skip(element, depth)?,
                    }
                }
                Some(())
            }
            MAP => {
                let len = self.varint()?;
                if len == 0 {
                    return Some(());
                }
                let kinds = self.byte()?;
                for _ in 0..len {
                    self.skip(kinds >> 4, depth)?;
                    self.skip(kinds & 0x0f, depth)?;
                }
                Some(())
            }
            STRUCT => {
                let mut last = 0;
                loop {
                    let (kind, _) = self.field(&mut last)?;
                    if kind == STOP {
                        return Some(());
                    }
                    self.skip(kind, depth)?;
                }
            }
            _ => None,
        }
    }

    /// The depth of the `list<SchemaElement>` that starts here, counted up
    /// to `limit` levels. The elements come in depth-first order, each
    /// followed by its children: `open` holds, for each element above the
    /// next one, how many of its children are still to come.
    fn schema(&mut self, limit: usize) -> Option<Depth> {
        let (element, len) = self.list()?;
        if element != STRUCT {
            return None;
        }
        let mut open: Vec<u64> = Vec::new();
        let mut deepest = 0;
        for _ in 0..len {
            let level = open.len();
            if level > limit {
                return Some(Depth::Beyond);
            }
            deepest = deepest.max(level);
            let children = self.children()?;
            if let Some(left) = open.last_mut() {
                *left -= 1;
            }
            if children > 0 {
                open.push(children);
            }
            while open.last() == Some(&0) {
                open.pop();
            }
        }
        Some(Depth::Levels(deepest))
    }

    /// Reads a `SchemaElement`: its number of children (none for a
    /// column, and for a negative number, which the crate refuses).
    fn children(&mut self) -> Option<u64> {
        let mut last = 0;
        let mut children = 0;
        loop {
            let (kind, id) = self.field(&mut last)?;
            match (kind, id) {
                (STOP, _) => return Some(children),
                (I32, 5) => children = u64::try_from(self.signed()?).unwrap_or(0),
                _ => self.skip(kind, SKIP_DEPTH)?,
            }
        }
    }
}
