//! META: the capture's context, written first.
//!
//! ```text
//! payload: level u8 (0 timing, 1 structure, 2 workload, 3 verbose), then a UTF-8 JSON
//!          object with the fields of `Meta` (keys in SGPT_FORMAT.md); unknown keys are kept
//! ```
//!
//! Context is written once and read by people, so it is JSON: extensible without a
//! version bump, and exactly what `sgpt info --json` shows.

use crate::error::DecodeError;
use crate::model::{Level, Meta};
use crate::wire::Cursor;

pub fn encode(out: &mut Vec<u8>, meta: &Meta) {
    out.push(meta.level.unwrap_or(Level::Timing).to_byte());
    // Serialising plain strings, numbers and maps into a Vec cannot fail.
    serde_json::to_writer(&mut *out, meta).unwrap_or_default();
}

/// JSON has no NaN or infinity (serde_json would write `null`, which reads back as an
/// error), so a writer refuses them up front.
pub fn validate(meta: &Meta) -> Result<(), &'static str> {
    if !meta.limits.iter().chain(&meta.scene).all(|named| named.value.is_finite()) {
        return Err("META limits and scene values must be finite numbers");
    }
    if !meta.extra.is_empty() {
        // An extra key spelled like a known one would be written twice, and a reader
        // refuses duplicate keys; `level` is the first byte's, not the JSON's.
        let known = serde_json::to_value(Meta::default()).unwrap_or_default();
        if meta.extra.keys().any(|key| key == "level" || known.get(key).is_some()) {
            return Err("META extra keys must not repeat a known key or name the level");
        }
    }
    Ok(())
}

pub fn decode(cursor: &mut Cursor<'_>) -> Result<Meta, DecodeError> {
    let at = cursor.offset();
    let level = Level::from_byte(cursor.u8("level")?).ok_or_else(|| DecodeError::new(at, "level"))?;
    // Any JSON problem (syntax, a BOM, an escaped lone surrogate, `1.0` or 2^64 where an
    // integer is due, a wrong type, a repeated key) is reported at the JSON's first byte:
    // where a parser notices a problem inside the text differs between parsers, and this
    // offset is the one every reader agrees on (SGPT_FORMAT.md §3.2, §7.1).
    let json_at = cursor.offset();
    let json = cursor.bytes(cursor.remaining(), "META JSON")?;
    let mut meta: Meta = serde_json::from_slice(json).map_err(|_| DecodeError::new(json_at, "META JSON"))?;
    // The level lives in the first byte; a JSON key of that name is not ours to keep.
    meta.extra.remove("level");
    meta.level = Some(level);
    Ok(meta)
}
