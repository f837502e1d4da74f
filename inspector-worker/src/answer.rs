//! What the worker does with a message, apart from the browser: keep the job's share,
//! and answer a piece as it says (its encoded figures, or its frames' checks) or say why
//! it could not.

use sgpt_format::FramePiece;
use sgpt_format::analysis::scan::piece::{PieceShare, decode_entries};

/// The job the worker scans for: its generation and its share, or why the share did not parse.
#[derive(Debug, Default)]
pub struct Answerer {
    job: Option<(u32, Result<PieceShare, String>)>,
}

impl Answerer {
    /// Takes job `generation`'s share, as JSON.
    pub fn begin(&mut self, generation: u32, share: &str) {
        self.job = Some((generation, PieceShare::from_json(share).map_err(|error| error.to_string())));
    }

    /// The encoded answer to piece `first..` of job `generation`, from its encoded
    /// entries and its bytes (starting at file offset `base`), or why there is none.
    pub fn answer(
        &self,
        generation: u32,
        first: usize,
        base: u64,
        entries: &[u8],
        bytes: &[u8],
    ) -> Result<Vec<u8>, String> {
        match &self.job {
            Some((current, share)) if *current == generation => {
                answer_piece(share.as_ref().map_err(Clone::clone)?, first, base, entries, bytes)
            }
            _ => Err(format!("no share for job {generation}")),
        }
    }
}

/// Piece `first..` answered as `share` says, encoded.
pub fn answer_piece(
    share: &PieceShare,
    first: usize,
    base: u64,
    entries: &[u8],
    bytes: &[u8],
) -> Result<Vec<u8>, String> {
    let entries = decode_entries(entries).map_err(|error| error.to_string())?;
    Ok(share.answer(&FramePiece::new(first, &entries, base, bytes)))
}
