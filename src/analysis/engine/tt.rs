//! Lock-free shared transposition table.
//!
//! Each slot is two `AtomicU64`s: the entry data and `key ^ data`. A torn
//! write from a racing thread makes the check `stored_key ^ data == key`
//! fail, so a reader never trusts a mixed entry (the "xor trick"). All
//! accesses are `Relaxed`; a lost or stale entry only costs search effort.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use cozy_chess::{Move, Piece, Square};

/// How a stored score bounds the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at least the stored one (fail high).
    Lower = 1,
    /// The true score is at most the stored one (fail low).
    Upper = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mv: Option<Move>,
    /// Score relative to the stored node (see [`super::score::to_tt`]).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// The shared table; one per engine, used by every search thread.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    age: AtomicU8,
}

/// Default size in MiB.
pub const DEFAULT_MB: usize = 16;

impl TranspositionTable {
    /// A table of about `mb` MiB (at least one slot).
    pub fn new(mb: usize) -> Self {
        let len = (mb * 1024 * 1024 / std::mem::size_of::<Slot>()).max(1);
        let mut slots = Vec::with_capacity(len);
        advise_huge_pages(slots.as_mut_ptr(), len * std::mem::size_of::<Slot>());
        slots.resize_with(len, Slot::default);
        Self {
            slots,
            age: AtomicU8::new(0),
        }
    }

    /// Empties the table.
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.key.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search generation so that old entries get replaced first.
    pub fn new_search(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age.store((age + 1) & 63, Ordering::Relaxed);
    }

    fn slot(&self, key: u64) -> &Slot {
        let idx = ((u128::from(key) * self.slots.len() as u128) >> 64) as usize;
        &self.slots[idx]
    }

    /// Asks the CPU to start loading `key`'s slot into the cache, so that
    /// the probe of a child position made now does not wait on memory.
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Slot = self.slot(key);
            // SAFETY: SSE is part of every x86_64 CPU, and a prefetch is only
            // a hint: it reads nothing into the program and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let stored = slot.key.load(Ordering::Relaxed);
        if data == 0 || stored ^ data != key {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Entry {
            mv: decode_move(data as u16),
            score: i32::from((data >> 16) as i16),
            eval: i32::from((data >> 32) as i16),
            depth: i32::from((data >> 48) as u8),
            bound,
        })
    }

    /// Stores an entry, preferring to keep deeper entries of the current
    /// search for other positions. A missing move keeps the old one.
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let slot = self.slot(key);
        let age = u64::from(self.age.load(Ordering::Relaxed));
        let old = slot.data.load(Ordering::Relaxed);
        let old_key = slot.key.load(Ordering::Relaxed) ^ old;
        let same = old_key == key;
        let old_depth = ((old >> 48) & 0xFF) as i32;
        let old_age = old >> 58;
        if old != 0 && !same && old_age == age && bound != Bound::Exact && depth + 2 < old_depth {
            return;
        }
        let mv_bits = match mv {
            Some(mv) => encode_move(mv),
            None if same => old as u16,
            None => 0,
        };
        let data = u64::from(mv_bits)
            | (u64::from(score as i16 as u16) << 16)
            | (u64::from(eval as i16 as u16) << 32)
            | (u64::from(depth.clamp(0, 255) as u8) << 48)
            | ((bound as u64) << 56)
            | (age << 58);
        slot.data.store(data, Ordering::Relaxed);
        slot.key.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of slots filled in the current generation.
    pub fn hashfull(&self) -> u32 {
        let age = u64::from(self.age.load(Ordering::Relaxed));
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && d >> 58 == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// Packs a move into 16 bits: from (6), to (6), promotion (3). Zero is
/// reserved for "no move" (a1a1 is never a move).
fn encode_move(mv: Move) -> u16 {
    let promo = mv.promotion.map_or(0, |p| p as u16 + 1);
    mv.from as u16 | (mv.to as u16) << 6 | promo << 12
}

/// Asks Linux to back the not yet touched allocation at `ptr` with 2 MiB
/// pages (transparent huge pages, where the system allows them on request).
/// Table probes land on random addresses, and with 4 KiB pages nearly every
/// probe of a table larger than the caches also misses the TLB. Only the
/// whole 2 MiB pages inside the allocation are advised; failure is harmless.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(ptr: *mut T, bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside the live allocation at `ptr`, and
        // MADV_HUGEPAGE only changes how its pages are backed, not their
        // contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_ptr: *mut T, _bytes: usize) {}

fn decode_move(bits: u16) -> Option<Move> {
    if bits == 0 {
        return None;
    }
    let promotion = match bits >> 12 {
        0 => None,
        n => Some(Piece::index(usize::from(n - 1))),
    };
    Some(Move {
        from: Square::index(usize::from(bits & 63)),
        to: Square::index(usize::from((bits >> 6) & 63)),
        promotion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let mv: Move = "e7e8n".parse().unwrap();
        tt.store(0xDEAD_BEEF, Some(mv), -31_000 + 5, 42, 7, Bound::Lower);
        let e = tt.probe(0xDEAD_BEEF).unwrap();
        assert_eq!(e.mv, Some(mv));
        assert_eq!(e.score, -31_000 + 5);
        assert_eq!(e.eval, 42);
        assert_eq!(e.depth, 7);
        assert_eq!(e.bound, Bound::Lower);
        assert!(tt.probe(0xDEAD_BEEF ^ 1).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF).is_none());
    }

    #[test]
    fn move_packing_round_trips() {
        for s in ["a1h8", "e1h1", "b7b8q", "h2h1r", "a7a8b"] {
            let mv: Move = s.parse().unwrap();
            assert_eq!(decode_move(encode_move(mv)), Some(mv));
        }
    }
}
