//! Which process wrote a temp file of gitmem's atomic writes, and whether it still runs. A
//! temp file's name carries its writer's stamp, `<pid>-<start>`: the process id and the time
//! the process started. The leftovers of a killed writer are known at once, whatever their
//! age, and a process id the system has since given to another process does not pass for the
//! writer, because that process started later.

use std::sync::OnceLock;

/// This process's stamp, for the names of the temp files it writes.
pub fn stamp() -> &'static str {
    static STAMP: OnceLock<String> = OnceLock::new();
    STAMP.get_or_init(|| {
        let pid = std::process::id();
        format!("{pid}-{}", start_time(pid).unwrap_or(0))
    })
}

/// Whether the writer a stamp names still runs; `None` when the stamp is not one (a temp file
/// of an older gitmem) or the system cannot tell.
pub fn alive(stamp: &str) -> Option<bool> {
    let (pid, start) = stamp.split_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    let start: u64 = start.parse().ok()?;
    if std::path::Path::new("/proc/self/stat").exists() {
        // Where /proc is, a process that is gone has no entry, and one that took the id later
        // has another start time.
        return Some(start_time(pid) == Some(start));
    }
    process_exists(pid)
}

/// When process `pid` started, in clock ticks since boot (Linux's `/proc/<pid>/stat`).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: the fields follow the last ')'.
    let fields = &stat[stat.rfind(')')? + 1..];
    // `state` is field 3 and `starttime` field 22.
    fields.split_whitespace().nth(22 - 3)?.parse().ok()
}

#[cfg(unix)]
fn process_exists(pid: u32) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // Signal 0 checks only that the process exists and may be signalled.
    // SAFETY: kill with signal 0 sends nothing and touches no memory.
    let answer = unsafe { libc::kill(pid, 0) };
    Some(answer == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

#[cfg(not(unix))]
fn process_exists(_pid: u32) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_says_whether_its_writer_runs() {
        let dead = std::process::Command::new("true")
            .spawn()
            .and_then(|mut child| {
                let pid = child.id();
                child.wait().map(|_| pid)
            })
            .unwrap();
        let cases = [
            (stamp().to_string(), Some(true)),
            (
                format!("{dead}-{}", start_time(dead).unwrap_or(1)),
                Some(false),
            ),
            // Our own id with another start time: the id was given to us after that writer.
            (format!("{}-1", std::process::id()), Some(false)),
            ("0123456789abcdef".to_string(), None),
            ("12-x".to_string(), None),
        ];
        for (stamp, expected) in cases {
            assert_eq!(alive(&stamp), expected, "{stamp}");
        }
    }
}
