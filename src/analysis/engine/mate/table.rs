//! The solver's transposition table: for each position, the shortest mate
//! proven from it and the longest proven not to exist.
//!
//! Within one solve the side to move decides what a position is (the
//! attacker's turn or the defender's), so one table holds both kinds. An
//! entry is exact for any path to the position: the search ignores
//! repetitions and the fifty-move rule, as problem solving does.

/// An always-replace table indexed by the low bits of the key, which
/// starts at [`START_SLOTS`] and doubles (up to its size limit) whenever
/// half of it is filled, so that small searches stay cheap to set up.
///
/// A slot is `[key, data]`; `data` holds, in attacker moves, the smallest
/// `k` proven to mate within `k` (low byte; 0 when none is known) and the
/// largest `k` proven not to (next byte; 0 when none is known).
pub struct MateTable {
    slots: Vec<[u64; 2]>,
    mask: usize,
    /// Slots in use.
    filled: usize,
    /// The most slots the table may grow to.
    max_slots: usize,
}

/// Slots a table starts with (1 MiB).
const START_SLOTS: usize = 1 << 16;

impl MateTable {
    /// A table that grows to about `mb` MiB at most (at least 1 MiB; a
    /// power of two of slots).
    pub fn new(mb: usize) -> Self {
        let wanted = mb.max(1) * 1024 * 1024 / 16;
        let max_slots = (wanted + 1).next_power_of_two() / 2;
        let len = START_SLOTS.min(max_slots);
        Self {
            slots: vec![[0; 2]; len],
            mask: len - 1,
            filled: 0,
            max_slots,
        }
    }

    /// Doubles the table, keeping every entry.
    fn grow(&mut self) {
        let len = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![[0; 2]; len]);
        self.mask = len - 1;
        self.filled = 0;
        for [key, data] in old {
            if data != 0 {
                let slot = &mut self.slots[key as usize & self.mask];
                self.filled += usize::from(slot[1] == 0);
                *slot = [key, data];
            }
        }
    }

    /// What is known of "mate within `k`" for the position `key`.
    pub fn probe(&self, key: u64, k: u32) -> Option<bool> {
        let [stored, data] = self.slots[key as usize & self.mask];
        if stored != key || data == 0 {
            return None;
        }
        let (mates, fails) = (data & 0xff, data >> 8 & 0xff);
        let k = u64::from(k.min(255));
        if mates != 0 && mates <= k {
            Some(true)
        } else if fails >= k {
            Some(false)
        } else {
            None
        }
    }

    /// Records that the position `key` does (`mates`) or does not mate within `k`.
    pub fn store(&mut self, key: u64, k: u32, mates: bool) {
        if self.filled * 2 >= self.slots.len() && self.slots.len() < self.max_slots {
            self.grow();
        }
        let k = u64::from(k.clamp(1, 255));
        let slot = &mut self.slots[key as usize & self.mask];
        self.filled += usize::from(slot[1] == 0);
        if slot[0] != key {
            *slot = [key, 0];
        }
        let (mut m, mut f) = (slot[1] & 0xff, slot[1] >> 8 & 0xff);
        if mates {
            if m == 0 || k < m {
                m = k;
            }
        } else {
            f = f.max(k);
        }
        slot[1] = m | f << 8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_answer_every_depth_they_cover() {
        let mut table = MateTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        assert_eq!(table.probe(key, 2), None);
        table.store(key, 2, false);
        assert_eq!(table.probe(key, 1), Some(false));
        assert_eq!(table.probe(key, 2), Some(false));
        assert_eq!(table.probe(key, 3), None);
        table.store(key, 4, true);
        assert_eq!(table.probe(key, 3), None);
        assert_eq!(table.probe(key, 5), Some(true));
        assert_eq!(table.probe(key ^ 1, 5), None);
    }

    #[test]
    fn growing_keeps_every_entry() {
        let mut table = MateTable::new(4);
        let keys: Vec<u64> = (1..=START_SLOTS as u64 * 2)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for &key in &keys {
            table.store(key, 3, true);
        }
        assert!(table.slots.len() > START_SLOTS);
        assert!(table.slots.len() <= table.max_slots);
        let kept = keys
            .iter()
            .filter(|&&k| table.probe(k, 3) == Some(true))
            .count();
        // Always-replace: a collision loses the older entry, nothing else.
        assert!(kept > keys.len() * 3 / 4, "{kept} of {}", keys.len());
    }
}
