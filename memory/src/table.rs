//! The recorder's live table and the blocks it holds: fixed open addressing (linear
//! probing) keyed by address, with backward-shift deletion so churn leaves no tombstones
//! that would lengthen later probes. Sized once before recording; a load ceiling keeps an
//! empty slot, so probes always terminate.

use std::collections::TryReserveError;

use crate::domain::Domain;
use crate::site::Site;

/// A block's identity: `(epoch, seq)`, never reused; a reused address starts a new one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LifetimeId {
    /// The capture that saw the allocation (one per successful `begin`).
    pub epoch: u64,
    /// Order of the lifetime within the epoch, from 1.
    pub seq: u64,
}

/// A live block as the table holds it and checkpoints copy it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveBlock {
    pub address: usize,
    pub lifetime: LifetimeId,
    /// Operation sequence of the allocation.
    pub alloc_seq: u64,
    pub domain: Domain,
    pub site: Site,
    /// Requested bytes.
    pub size: usize,
    pub align: usize,
    /// The allocating thread's number (not an OS id).
    pub thread: u32,
    /// The capture clock at the allocation.
    pub time: u64,
}

impl LiveBlock {
    pub(crate) const EMPTY: Self = Self {
        address: 0,
        lifetime: LifetimeId { epoch: 0, seq: 0 },
        alloc_seq: 0,
        domain: Domain::UNKNOWN,
        site: Site::UNKNOWN,
        size: 0,
        align: 0,
        thread: 0,
        time: 0,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InsertError {
    /// `max_live` blocks are already live.
    Full,
    /// The address is already live: an ownership contract was broken.
    Duplicate,
}

#[derive(Debug)]
pub(crate) struct LiveTable {
    slots: Vec<LiveBlock>,
    shift: u32,
    len: usize,
    max_live: usize,
}

impl LiveTable {
    /// Room for `max_live` blocks at a 3/4 load ceiling.
    pub(crate) fn with_capacity(max_live: usize) -> Result<Self, TryReserveError> {
        let wanted = max_live.saturating_mul(4) / 3 + 1;
        let count = wanted.max(2).checked_next_power_of_two().unwrap_or(usize::MAX);
        let mut slots = Vec::new();
        slots.try_reserve_exact(count)?;
        slots.resize(count, LiveBlock::EMPTY);
        let shift = 64 - count.trailing_zeros();
        Ok(Self { slots, shift, len: 0, max_live })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn home(&self, address: usize) -> usize {
        // Fibonacci hashing: allocator addresses share low bits, the product spreads them.
        ((address as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    pub(crate) fn insert(&mut self, block: LiveBlock) -> Result<(), InsertError> {
        debug_assert_ne!(block.address, 0, "address 0 marks an empty slot");
        let mut slot = self.home(block.address);
        loop {
            let here = self.slots[slot].address;
            if here == 0 {
                break;
            }
            if here == block.address {
                // Keep the newer lifetime: the caller records the broken contract.
                self.slots[slot] = block;
                return Err(InsertError::Duplicate);
            }
            slot = (slot + 1) & self.mask();
        }
        if self.len == self.max_live {
            return Err(InsertError::Full);
        }
        self.slots[slot] = block;
        self.len += 1;
        Ok(())
    }

    pub(crate) fn remove(&mut self, address: usize) -> Option<LiveBlock> {
        let mask = self.mask();
        let mut slot = self.home(address);
        loop {
            match self.slots[slot].address {
                0 => return None,
                here if here == address => break,
                _ => slot = (slot + 1) & mask,
            }
        }
        let removed = self.slots[slot];
        // Backward shift: pull each later entry of the run into the hole unless doing so
        // would move it before its home slot.
        let mut hole = slot;
        let mut next = (slot + 1) & mask;
        while self.slots[next].address != 0 {
            let home = self.home(self.slots[next].address);
            if (next.wrapping_sub(home) & mask) >= (next.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.slots[hole] = LiveBlock::EMPTY;
        self.len -= 1;
        Some(removed)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &LiveBlock> {
        self.slots.iter().filter(|block| block.address != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(address: usize, seq: u64) -> LiveBlock {
        LiveBlock { address, lifetime: LifetimeId { epoch: 1, seq }, size: seq as usize, ..LiveBlock::EMPTY }
    }

    #[test]
    fn colliding_churn_matches_a_model() {
        // Addresses 1 << 20 apart collide often in a small table; churn must keep every
        // live entry findable and never leave a tombstone that blocks a later probe.
        let mut table = LiveTable::with_capacity(48).expect("small");
        let mut model = std::collections::BTreeMap::new();
        let mut state = 0x1234_5678_u64;
        for step in 0..200_000u64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let address = ((state % 96) as usize + 1) << 20;
            if model.contains_key(&address) {
                let removed = table.remove(address).expect("live entry is found");
                assert_eq!(removed.lifetime.seq, model.remove(&address).expect("in model"));
            } else if model.len() < 48 {
                table.insert(block(address, step)).expect("room");
                model.insert(address, step);
            } else {
                assert_eq!(table.insert(block(address, step)), Err(InsertError::Full));
            }
            assert_eq!(table.len(), model.len());
        }
        let mut seen: Vec<_> = table.iter().map(|b| (b.address, b.lifetime.seq)).collect();
        seen.sort_unstable();
        assert_eq!(seen, model.into_iter().collect::<Vec<_>>());
    }

    #[test]
    fn missing_address_is_none_and_duplicate_is_reported() {
        let mut table = LiveTable::with_capacity(4).expect("small");
        assert_eq!(table.remove(64), None);
        table.insert(block(64, 1)).expect("room");
        assert_eq!(table.insert(block(64, 2)), Err(InsertError::Duplicate));
        assert_eq!(table.len(), 1);
        assert_eq!(table.remove(64).map(|b| b.lifetime.seq), Some(2));
        assert_eq!(table.len(), 0);
    }
}
