//! NOTE: a free-form annotation on a frame.
//!
//! ```text
//! payload: frame_number varint, text (varint length, UTF-8)
//! ```

use crate::error::DecodeError;
use crate::model::Note;
use crate::wire::{Cursor, put_str, put_varint};

pub fn encode(out: &mut Vec<u8>, note: &Note) {
    put_varint(out, note.frame_number);
    put_str(out, &note.text);
}

pub fn decode(cursor: &mut Cursor<'_>) -> Result<Note, DecodeError> {
    Ok(Note { frame_number: cursor.varint("note frame")?, text: cursor.str("note text")?.to_owned() })
}
