//! Handing an LMDB map's pages back during and after a bulk commit. Both environments are mapped shared
//! and read-only (LMDB writes with `pwrite`, no `WRITE_MAP`), so every page the process touched
//! stays in its resident set until the map is closed: during a 100,000-note load that was
//! 2.5 GB of the peak RSS, all of it clean page cache. `MADV_DONTNEED` on such a map drops the
//! process's mappings only; the pages stay in the page cache, and a reader that touches one
//! again (in this thread or another, in this transaction or a later one) faults it back in from
//! there, so no reader can see other bytes than before.

use std::path::Path;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;

/// How often a long commit hands the maps' pages back. One commit of a bulk load touches up to
/// a gigabyte of them (at 100,000 notes); released only between commits, they still set the
/// peak; every second it was 1.6 GB, every half second 1.58 GB on an idle machine, every
/// quarter 1.45 GB. A short commit (one note's) ends before the first release.
const RELEASE_EVERY: Duration = Duration::from_millis(250);

/// Runs `work` while a helper thread releases the maps of the environments in `dirs` every
/// `RELEASE_EVERY`; the caller holds them open until it returns.
pub(super) fn releasing_while<T>(dirs: &[&Path], work: impl FnOnce() -> T) -> T {
    let (done, finished) = crossbeam_channel::bounded::<()>(0);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(RELEASE_EVERY) {
                for dir in dirs {
                    release_map(dir);
                }
            }
        });
        let result = work();
        drop(done);
        result
    })
}

/// Drops the pages of the LMDB map of the environment in `dir`. The map is found by its file in
/// `/proc/self/maps`: milli keeps its `Env` private, and the address LMDB reports for the
/// graph's (`mdb_env_info`) is that of a fixed map only, null otherwise. The caller must hold
/// the environment open, so that the range found is still its map when it is released.
pub(super) fn release_map(dir: &Path) {
    let Ok(file) = dir.join("data.mdb").canonicalize() else {
        return;
    };
    for (start, end) in mapped_ranges(&file) {
        release(start, end - start);
    }
}

#[cfg(target_os = "linux")]
fn release(start: usize, len: usize) {
    // SAFETY: the range is a shared, read-only map of an environment the caller holds open (see
    // the module comment): dropping its page table entries loses no data and invalidates no
    // pointer, the next access faults the same page back in from the page cache.
    let failed = unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    if failed != 0 {
        tracing::debug!(
            "releasing mapped index pages failed: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn release(_start: usize, _len: usize) {}

/// The address ranges at which this process maps `file` (shared and read-only ones only).
pub(super) fn mapped_ranges(file: &Path) -> Vec<(usize, usize)> {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Vec::new();
    };
    let Some(file) = file.to_str() else {
        return Vec::new();
    };
    maps.lines()
        .filter_map(|line| map_line(line, file))
        .collect()
}

/// The range of one `/proc/self/maps` line when it maps `file` shared and read-only:
/// `start-end perms offset dev inode path`.
fn map_line(line: &str, file: &str) -> Option<(usize, usize)> {
    let mut fields = line.splitn(6, ' ');
    let range = fields.next()?;
    let perms = fields.next()?;
    let path = fields.nth(3)?.trim_start();
    if path != file || !perms.starts_with("r-") || !perms.ends_with('s') {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    Some((
        usize::from_str_radix(start, 16).ok()?,
        usize::from_str_radix(end, 16).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_maps_line_gives_the_range_of_the_file_mapped_shared_and_read_only() {
        let file = "/root/index/search/data.mdb";
        let shared =
            "7f0000000000-7f0800000000 r--s 00000000 08:01 1234    /root/index/search/data.mdb";
        assert_eq!(
            map_line(shared, file),
            Some((0x7f00_0000_0000, 0x7f08_0000_0000))
        );
        let writable =
            "7f0000000000-7f0800000000 rw-s 00000000 08:01 1234 /root/index/search/data.mdb";
        assert_eq!(
            map_line(writable, file),
            None,
            "a writable map is left alone"
        );
        let private =
            "7f0000000000-7f0800000000 r--p 00000000 08:01 1234 /root/index/search/data.mdb";
        assert_eq!(map_line(private, file), None, "a private map is left alone");
        let other = "7f0000000000-7f0800000000 r--s 00000000 08:01 1234 /root/index/graph/data.mdb";
        assert_eq!(map_line(other, file), None);
    }
}
