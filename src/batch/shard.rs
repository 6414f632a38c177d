//! Which share of a folder a shard of a batch reads.
//!
//! A file belongs to shard `⌊h × N / 2⁶⁴⌋` of `N`, where `h` is the 64-bit
//! FNV-1a hash of its path relative to the batch folder: its bytes as the
//! file system holds them, components joined by `/`. The assignment depends
//! on that path and on `N` alone, so adding or removing files never moves the
//! others, the shards are disjoint, and together they hold every file. The
//! multiply-and-shift (rather than `h mod N`) uses the hash's high bits, which
//! FNV-1a mixes well. Changing `N` moves most files: keep it fixed for a
//! conversion (resumes included).
//!
//! The same assignment in Python, for checking by hand:
//! ```text
//! h = 0xcbf29ce484222325
//! for b in os.fsencode(relative_path): h = ((h ^ b) * 0x100000001b3) % 2**64
//! shard = (h * n) >> 64
//! ```

use std::{fmt, path::Path, str::FromStr};

/// The environment variable a Kubernetes Indexed Job sets to each pod's
/// completion index (0-based), read with `--shard-count`.
pub const INDEX_VARIABLE: &str = "JOB_COMPLETION_INDEX";

/// One shard of `count`: the files whose [`shard_of`] is `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based, below `count`.
    pub index: u64,
    /// At least 1.
    pub count: u64,
}

impl Shard {
    /// Shard `index` of `count`, or a message saying what is wrong.
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range: indexes are 0-based, so with {count} shard{} the index is 0 to {}",
                if count == 1 { "" } else { "s" },
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// Shard `index` of `count` with the index as an Indexed Job gives it
    /// ([`INDEX_VARIABLE`]); `index` is `None` when the variable is not set.
    pub fn from_job_index(count: u64, index: Option<&str>) -> Result<Shard, String> {
        let index = index.ok_or_else(|| {
            format!("--shard-count takes the shard index from {INDEX_VARIABLE}, which is not set (outside an Indexed Job, give --shard I/N)")
        })?;
        let parsed = index.trim().parse::<u64>().map_err(|_| {
            format!("{INDEX_VARIABLE}={index:?} is not a shard index (a whole number from 0)")
        })?;
        Shard::new(parsed, count)
    }

    /// Whether the file at `relative` (its path relative to the batch
    /// folder) belongs to this shard.
    pub fn takes(&self, relative: &Path) -> bool {
        shard_of(relative, self.count) == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, as in `3/8`: shard `I` (0-based) of `N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || {
            format!("{text:?} is not a shard: write I/N, the 0-based shard index I of N shards, as in 0/4")
        };
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let number = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(usage());
            }
            s.parse::<u64>().map_err(|_| usage())
        };
        Shard::new(number(index)?, number(count)?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard, below `count`, of the file at `relative` (relative to the batch
/// folder; see the module documentation).
pub fn shard_of(relative: &Path, count: u64) -> u64 {
    ((u128::from(path_hash(relative)) * u128::from(count)) >> 64) as u64
}

/// FNV-1a 64 of a relative path's components joined by `/`.
pub fn path_hash(relative: &Path) -> u64 {
    let mut hash = Fnv1a::new();
    for (i, component) in relative.iter().enumerate() {
        if i > 0 {
            hash.write(b"/");
        }
        hash.write(&os_bytes(component));
    }
    hash.0
}

#[cfg(unix)]
fn os_bytes(text: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(text.as_bytes())
}

#[cfg(not(unix))]
fn os_bytes(text: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    match text.to_string_lossy() {
        std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
    }
}

/// The 64-bit FNV-1a hash (Fowler, Noll, Vo).
struct Fnv1a(u64);

impl Fnv1a {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Fnv1a {
        Fnv1a(Self::OFFSET_BASIS)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Self::PRIME);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fnv(bytes: &[u8]) -> u64 {
        let mut hash = Fnv1a::new();
        hash.write(bytes);
        hash.0
    }

    #[test]
    fn fnv1a_64_matches_the_published_test_vectors() {
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_assignment_is_pinned() {
        // Values from the Python in the module documentation: a change here
        // moves files between the shards of a conversion already under way.
        assert_eq!(path_hash(Path::new("a.png")), 0xa292_05b5_6ba8_5779);
        assert_eq!(path_hash(Path::new("book/p001.png")), 0x3204_d83c_9e1c_f353);
        for (path, by_count) in [
            ("a.png", [1, 1, 5]),
            ("book/p001.png", [0, 0, 1]),
            ("01-pychess-cburnett-lichess-brown-white.png", [0, 0, 1]),
        ] {
            for (count, expected) in [2, 3, 8].into_iter().zip(by_count) {
                assert_eq!(
                    shard_of(Path::new(path), count),
                    expected,
                    "{path} of {count}"
                );
            }
        }
    }

    #[test]
    fn separators_and_dot_components_do_not_change_the_shard() {
        let plain = path_hash(Path::new("book/p001.png"));
        assert_eq!(path_hash(Path::new("book//p001.png")), plain);
        assert_eq!(path_hash(Path::new("book/./p001.png")), plain);
        assert_ne!(path_hash(Path::new("bookp001.png")), plain);
    }

    #[test]
    fn every_file_is_in_exactly_one_shard_and_the_shards_are_even() {
        let paths: Vec<String> = (0..6000)
            .map(|i| format!("scans/vol-{}/page-{i:05}.png", i % 7))
            .collect();
        for count in 1..=9u64 {
            let mut sizes = vec![0usize; count as usize];
            for path in &paths {
                let owners: Vec<u64> = (0..count)
                    .filter(|&i| Shard::new(i, count).unwrap().takes(Path::new(path)))
                    .collect();
                assert_eq!(owners.len(), 1, "{path} of {count}: {owners:?}");
                sizes[owners[0] as usize] += 1;
            }
            let even = paths.len() / count as usize;
            for (i, size) in sizes.iter().enumerate() {
                assert!(
                    size.abs_diff(even) * 10 < even,
                    "shard {i}/{count} holds {size} of {}: {sizes:?}",
                    paths.len()
                );
            }
        }
    }

    #[test]
    fn shards_parse_as_index_slash_count() {
        assert_eq!("0/1".parse(), Ok(Shard { index: 0, count: 1 }));
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!("2/3".parse::<Shard>().unwrap().to_string(), "2/3");
        let err = "3/3".parse::<Shard>().unwrap_err();
        assert!(
            err.contains("out of range") && err.contains("0 to 2"),
            "{err}"
        );
        let err = "0/0".parse::<Shard>().unwrap_err();
        assert!(err.contains("at least 1"), "{err}");
        for bad in [
            "x", "", "1", "1/", "/3", "-1/3", "+1/3", " 1/3", "1/3/4", "a/b", "1.0/3",
        ] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains("write I/N"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn the_job_index_comes_from_the_environment_text() {
        assert_eq!(
            Shard::from_job_index(8, Some("7")),
            Ok(Shard { index: 7, count: 8 })
        );
        let err = Shard::from_job_index(8, Some("8")).unwrap_err();
        assert!(err.contains("out of range"), "{err}");
        let err = Shard::from_job_index(8, None).unwrap_err();
        assert!(
            err.contains("JOB_COMPLETION_INDEX") && err.contains("not set"),
            "{err}"
        );
        let err = Shard::from_job_index(8, Some("one")).unwrap_err();
        assert!(err.contains("not a shard index"), "{err}");
        assert!(Shard::from_job_index(0, Some("0")).is_err());
    }
}
