//! The temporary file beside an output: its name, and the removal of those a dead writer left.

#[cfg(unix)]
use super::NAME_MAX;
use super::split_output;
use crate::error::Result;
#[cfg(unix)]
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `.{file name}.tmp-{pid}-{counter}` beside `path`, the file name cut short where the whole
/// would pass `NAME_MAX` (a legal 250-byte name still gets a temporary file).
pub(super) fn temp_beside(path: &Path) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (dir, name) = split_output(path)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(temp_name(name, std::process::id(), n)))
}

/// The name of the temporary file that process `pid` writes, as its `n`th, for the file `name`:
/// `.{name}.tmp-{pid}-{n}`, the name cut short where the whole would pass `NAME_MAX`.
pub(super) fn temp_name(name: &std::ffi::OsStr, pid: u32, n: u64) -> std::ffi::OsString {
    let suffix = format!(".tmp-{pid}-{n}");
    let mut tmp_name = std::ffi::OsString::from(".");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let room = NAME_MAX - 1 - suffix.len();
        let bytes = name.as_bytes();
        tmp_name.push(std::ffi::OsStr::from_bytes(&bytes[..bytes.len().min(room)]));
    }
    #[cfg(not(unix))]
    tmp_name.push(name);
    tmp_name.push(suffix);
    tmp_name
}

/// The process whose temporary file for `name` the file `entry` is, if it is named exactly as
/// [`temp_name`] names one (`.{name}.tmp-{pid}-{n}`, cut to fit, digits as written by it).
#[cfg(unix)]
pub(super) fn temp_owner(entry: &std::ffi::OsStr, name: &std::ffi::OsStr) -> Option<u32> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = entry.as_bytes();
    let digits = |b: &[u8]| -> Option<u64> {
        if b.is_empty() || b.len() > 20 || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(b).ok()?.parse().ok()
    };
    let dash = bytes.iter().rposition(|&c| c == b'-')?;
    let n = digits(&bytes[dash + 1..])?;
    let head = &bytes[..dash];
    let dash = head.iter().rposition(|&c| c == b'-')?;
    let pid = u32::try_from(digits(&head[dash + 1..])?).ok()?;
    // Rebuilt the way the writer built it: anything else (another counter spelling, another
    // name, a name cut elsewhere) is not one of ours.
    (temp_name(name, pid, n) == entry).then_some(pid)
}

/// Whether process `pid` is alive here: `kill(pid, 0)` fails with `ESRCH` only for none (a
/// process of another user answers `EPERM`, and counts as alive).
#[cfg(unix)]
pub(super) fn process_lives(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Remove the temporary files of `target` that processes no longer alive left beside it (one
/// killed by SIGKILL, or by a power cut, which no handler sees): regular files named exactly as
/// [`temp_name`] names them for this target, whose process is gone. Another live process's
/// temporary file, and every other file, stays. Best effort: a folder that cannot be listed, or
/// a file that cannot be removed, is left as it is.
#[cfg(unix)]
pub(super) fn remove_stale_temps(target: &Path) {
    let Ok((dir, name)) = split_output(target) else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = temp_owner(&entry.file_name(), name) else {
            continue;
        };
        // `file_type` does not follow links: a link or a folder of that name is not ours.
        if entry.file_type().is_ok_and(|t| t.is_file()) && !process_lives(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}
