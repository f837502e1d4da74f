//! A scanner that does what a web worker does with a job's pieces: it gets the share as
//! JSON, each piece as a copy of its encoded entries and bytes, and answers as the share
//! says, so nothing it does borrows the capture; with a behaviour that tests the job's
//! side (answers out of order, failed, for the wrong frames, or never).

use std::collections::VecDeque;

use sgpt_format::FramePiece;
use sgpt_format::analysis::scan::PieceScanner;
use sgpt_format::analysis::scan::piece::{PieceShare, decode_entries, encode_entries};

#[path = "budget.rs"]
mod budget;
// Tests that drive a scanner step their jobs by the same budget.
pub use budget::budget;

/// What the scanner does to the pieces it is sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Behaviour {
    /// Answers every piece, the latest first.
    Reversed,
    /// Fails every third piece.
    FailsSome,
    /// Answers piece 1 with piece 0's figures.
    Mixes,
    /// Never answers: the job must scan them all itself once it is stepped without it.
    Silent,
}

/// A piece as a worker holds it: copies of everything.
#[derive(Debug)]
struct Copied {
    number: usize,
    first: usize,
    base: u64,
    entries: Vec<u8>,
    bytes: Vec<u8>,
}

#[derive(Debug)]
pub struct Scanner {
    behaviour: Behaviour,
    pub share: Option<String>,
    queue: Vec<Copied>,
    answers: VecDeque<(usize, Result<Vec<u8>, String>)>,
    room: usize,
    pub sent: usize,
    generation: u64,
}

impl Scanner {
    pub fn new(behaviour: Behaviour, room: usize) -> Self {
        Self { behaviour, share: None, queue: Vec::new(), answers: VecDeque::new(), room, sent: 0, generation: 0 }
    }

    /// Scans what is queued, as a worker would, and queues the answers in the behaviour's order.
    pub fn work(&mut self) {
        let Some(share) = &self.share else { return };
        let share = PieceShare::from_json(share).expect("the share parses");
        let mut answers: Vec<(usize, Result<Vec<u8>, String>)> = Vec::new();
        for piece in self.queue.drain(..) {
            let entries = decode_entries(&piece.entries).expect("entries decode");
            let answer = match self.behaviour {
                Behaviour::FailsSome if piece.number % 3 == 1 => Err("the worker stopped".to_owned()),
                _ => Ok(share.answer(&FramePiece::new(piece.first, &entries, piece.base, &piece.bytes))),
            };
            answers.push((piece.number, answer));
        }
        if self.behaviour == Behaviour::Mixes
            && let Some(first) = answers.iter().find(|(number, _)| *number == 0).map(|(_, answer)| answer.clone())
            && let Some(second) = answers.iter_mut().find(|(number, _)| *number == 1)
        {
            second.1 = first;
        }
        if self.behaviour == Behaviour::Reversed {
            answers.reverse();
        }
        if self.behaviour != Behaviour::Silent {
            self.answers.extend(answers);
        }
    }
}

impl PieceScanner for Scanner {
    fn begin(&mut self, share: &PieceShare) {
        self.share = Some(share.to_json());
        self.answers.clear();
        self.queue.clear();
        self.generation += 1;
    }

    fn generation(&self) -> u64 {
        self.generation
    }

    fn has_room(&self) -> bool {
        self.queue.len() + self.answers.len() < self.room
    }

    fn send(&mut self, number: usize, piece: &FramePiece<'_>) {
        self.sent += 1;
        self.queue.push(Copied {
            number,
            first: piece.first(),
            base: piece.base(),
            entries: encode_entries(piece.entries()),
            bytes: piece.bytes().to_vec(),
        });
    }

    fn receive(&mut self) -> Option<(usize, Result<Vec<u8>, String>)> {
        self.answers.pop_front()
    }
}

/// Steps a job `units` at a time until it is done, handing it `scanner` for its first
/// `keep` steps; the scanner works between steps, as workers do between the page's tasks.
/// `step` steps the job and says whether it is done, and whether it waits for the scanner.
pub fn drive(
    scanner: &mut Scanner,
    units: usize,
    keep: usize,
    mut step: impl FnMut(Option<&mut dyn PieceScanner>, &mut dyn FnMut() -> bool) -> (bool, bool),
) {
    for at in 0.. {
        let mut more = budget(units);
        let with = (at < keep).then_some(&mut *scanner as &mut dyn PieceScanner);
        let (done, waiting) = step(with, &mut more);
        if done {
            return;
        }
        assert!(at < 1_000_000, "the job ends");
        assert!(!waiting || at < keep, "a job without a scanner never waits");
        scanner.work();
    }
}
