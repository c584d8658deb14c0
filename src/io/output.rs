//! Where an output goes and how it gets there. A regular file is written to a temporary file
//! beside it that is renamed into place, so that a failed or interrupted run never leaves a
//! partial file; a device or a pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written in place,
//! since renaming over it would replace the device with a regular file. A symbolic link is
//! followed: the file it names is replaced, the link stays. Whether a file may be written is
//! asked of the operating system (`faccessat`), as `open` would answer, not read from the
//! permission bits.

use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, ErrorKind};
use std::path::{Path, PathBuf};

/// Longest file name most file systems take (`NAME_MAX`), in bytes.
#[cfg_attr(not(unix), allow(dead_code))]
const NAME_MAX: usize = 255;

/// How an output path is written.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// Absent or a regular file: through a temporary file renamed onto this path (the file a
    /// symbolic link names, for a link).
    Replace(PathBuf),
    /// A character device or a FIFO: opened for writing and written in place.
    InPlace,
}

fn output_error(path: &Path, kind: ErrorKind, message: String) -> Error {
    Error::io(path, std::io::Error::new(kind, message))
}

/// The folder and file name of an output path (the folder `.` for a bare name).
pub(super) fn split_output(path: &Path) -> Result<(&Path, &std::ffi::OsStr)> {
    let name = path.file_name().ok_or_else(|| {
        Error::Invalid(format!(
            "cannot write '{}': it does not name a file",
            path.display()
        ))
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

mod temps;
#[cfg(unix)]
use temps::remove_stale_temps;
use temps::temp_beside;

/// Whether the operating system lets this process write `path` (for a folder with `search`:
/// create files in it), asked with the effective ids as `open` would use them.
#[cfg(target_os = "linux")]
fn may_write(path: &Path, search: bool) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(ErrorKind::InvalidInput, "the path holds a NUL byte"))?;
    let mode = libc::W_OK | if search { libc::X_OK } else { 0 };
    // SAFETY: a valid NUL-terminated path; faccessat only reads it.
    let r = unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), mode, libc::AT_EACCESS) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn may_write(path: &Path, _search: bool) -> std::io::Result<()> {
    match fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => Err(std::io::Error::new(
            ErrorKind::PermissionDenied,
            "read-only",
        )),
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// How `path` is written, refusing what must not be: a folder, a read-only file, a file this
/// user may not write, a dangling symbolic link, a socket, a block device.
fn resolve(path: &Path) -> Result<Target> {
    split_output(path)?;
    let link = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Target::Replace(path.into())),
        Err(e) => return Err(Error::io(path, e)),
    };
    let (real, meta) = if link.file_type().is_symlink() {
        match fs::metadata(path) {
            // A descriptor of this process (`/dev/stdout` when the shell redirected it to a
            // file): written through the descriptor, as `> file` promised, not renamed over.
            Ok(m) if !m.is_dir() && names_a_descriptor(path) => return Ok(Target::InPlace),
            Ok(m) => (fs::canonicalize(path).map_err(|e| Error::io(path, e))?, m),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let to = fs::read_link(path).unwrap_or_default();
                return Err(output_error(
                    path,
                    ErrorKind::NotFound,
                    format!(
                        "is a symbolic link to {}, which does not exist; refusing to write through a dangling link",
                        to.display()
                    ),
                ));
            }
            Err(e) => return Err(Error::io(path, e)),
        }
    } else {
        (path.to_path_buf(), link)
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(output_error(
            path,
            ErrorKind::IsADirectory,
            "is a directory; give a file name for the output".into(),
        ));
    }
    let in_place = special(path, &ft)?;
    if !in_place && let Some(why) = locked(&real, false) {
        return Err(output_error(path, ErrorKind::PermissionDenied, why.into()));
    }
    if meta.permissions().readonly() && !in_place {
        return Err(output_error(
            path,
            ErrorKind::PermissionDenied,
            "the file is read-only; refusing to replace it (make it writable or remove it first)"
                .into(),
        ));
    }
    if let Err(e) = may_write(&real, false) {
        return Err(output_error(
            path,
            e.kind(),
            format!("this user may not write it ({e}); refusing to replace it"),
        ));
    }
    #[cfg(unix)]
    if !in_place && let Some(why) = sticky_elsewhere(&real, &meta) {
        return Err(output_error(path, ErrorKind::PermissionDenied, why));
    }
    Ok(if in_place {
        Target::InPlace
    } else {
        Target::Replace(real)
    })
}

/// Another user's file in a sticky folder (`/tmp`, mode 1777): this user may write into it but
/// not rename over it or remove it, which replacing it takes (the rename would fail with
/// "Operation not permitted" after the work). Root may; so may the file's or the folder's owner.
#[cfg(unix)]
fn sticky_elsewhere(real: &Path, meta: &fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let (dir, _) = split_output(real).ok()?;
    let folder = fs::metadata(dir).ok()?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    #[allow(clippy::unnecessary_cast)] // mode_t is u32 on Linux, u16 elsewhere
    let sticky = folder.mode() & libc::S_ISVTX as u32 != 0;
    (sticky && me != 0 && meta.uid() != me && folder.uid() != me).then(|| {
        format!(
            "is another user's file in {}, a sticky folder (mode {:o}): it may be written into but not replaced or removed by this user; write the result to another name",
            dir.display(),
            folder.mode() & 0o7777
        )
    })
}

/// Refuse an existing `path` that [`write_atomic`] would not write (see [`resolve`]).
pub(super) fn check_existing(path: &Path) -> Result<()> {
    resolve(path).map(|_| ())
}

/// Whether `path` is a character device or FIFO (links followed), or reaches a file through
/// one of this process's descriptors (`/dev/stdout`): what outputs are written into in place.
pub fn is_device_or_pipe(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| {
        special(path, &m.file_type()).unwrap_or(false) || (!m.is_dir() && names_a_descriptor(path))
    })
}

/// Whether `path` reaches a file through one of this process's descriptors: `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` (or a link to one of them).
fn names_a_descriptor(path: &Path) -> bool {
    let through_proc = |p: &Path| {
        p.starts_with("/proc")
            || p.starts_with("/dev/fd")
            || p.starts_with("/dev/stdout")
            || p.starts_with("/dev/stderr")
    };
    through_proc(path) || fs::read_link(path).is_ok_and(|t| through_proc(&t))
}

/// Whether an existing non-folder is a device or pipe written in place (`false`: a regular
/// file); a socket or a block device is refused.
#[cfg(unix)]
fn special(path: &Path, ft: &fs::FileType) -> Result<bool> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_socket() {
        return Err(output_error(
            path,
            ErrorKind::InvalidInput,
            "is a socket; a result goes to a file, a character device or a pipe".into(),
        ));
    }
    if ft.is_block_device() {
        return Err(output_error(
            path,
            ErrorKind::InvalidInput,
            "is a block device; refusing to write a result over a disk".into(),
        ));
    }
    Ok(ft.is_char_device() || ft.is_fifo())
}

#[cfg(not(unix))]
fn special(_path: &Path, ft: &fs::FileType) -> Result<bool> {
    Ok(!ft.is_file())
}

mod locks;
use locks::{Lock, lock_of, locked};

/// Refuse a folder `dir` no output `path` can be renamed into (append-only or immutable),
/// naming why.
fn refuse_locked_folder(path: &Path, dir: &Path) -> Result<()> {
    let why = match locked(dir, true) {
        None => return Ok(()),
        Some(why) if path == dir => why.to_string(),
        Some(why) => format!("{} {why}", dir.display()),
    };
    Err(output_error(path, ErrorKind::PermissionDenied, why))
}

/// Removes the temporary file when dropped while armed: a panic inside `fill` that unwinds (an
/// error is handled by [`write_atomic`] itself, which says so when the removal fails). The
/// registration covers signals, and [`remove_unfinished_temporaries`](super::remove_unfinished_temporaries)
/// a panic hook that exits without unwinding.
struct TempGuard {
    path: Option<PathBuf>,
    #[cfg(target_os = "linux")]
    _registered: super::signals::Registered,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = fs::remove_file(p);
        }
    }
}

/// Write a file atomically: `fill` writes into a temporary file beside `path`, which is renamed
/// onto `path` only if `fill` succeeds; on failure, or on a signal that would end the process
/// once [`install_signal_cleanup`](super::install_signal_cleanup) has run, the temporary file is
/// removed (and where removing it fails, the error says which file was left).
///
/// The temporary file is `.{file name}.tmp-{pid}-{counter}` in the same directory (the name cut
/// short to fit `NAME_MAX`), so the rename never crosses file systems; those of this target left
/// by processes no longer alive (killed by SIGKILL) are removed first. It takes the mode, owner
/// and group of the file it replaces (as far as this user may) before any data is written. The
/// data is flushed and synced before the rename. An existing file at `path` is replaced unless
/// it is read-only (like `cp` without `-f`, even to a user whose rights would allow the rename),
/// this user may not write it, or it or its folder is append-only or immutable (`chattr +a`,
/// `+i`). A symbolic link is followed (the file it names is replaced, the link stays); a
/// character device or FIFO is written in place, never replaced; a socket, a block device or a
/// folder is refused.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let real = match resolve(path)? {
        Target::InPlace => return write_in_place(path, fill),
        Target::Replace(real) => real,
    };
    #[cfg_attr(not(unix), allow(unused_variables))]
    let (dir, _) = split_output(&real)?;
    refuse_locked_folder(path, dir)?;
    // The file being replaced: its mode, owner and group go to the new one.
    #[cfg_attr(not(unix), allow(unused_variables))]
    let old = fs::metadata(&real).ok().filter(|m| m.is_file());
    #[cfg(unix)]
    remove_stale_temps(&real);
    let tmp = temp_beside(&real)?;
    let mut guard = TempGuard {
        #[cfg(target_os = "linux")]
        _registered: super::signals::register(&tmp),
        path: None,
    };
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    // Never more open than the file it replaces, from the first moment (the umask may only take
    // bits away); `keep_owner_and_mode` then sets the mode exactly, before any data is written.
    #[cfg(unix)]
    if let Some(old) = &old {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(old.permissions().mode() & 0o777);
    }
    let file = options.open(&tmp).map_err(|e| Error::io(path, e))?;
    guard.path = Some(tmp.clone());

    let written = (|| {
        #[cfg(unix)]
        if let Some(old) = &old {
            keep_owner_and_mode(&file, old);
        }
        let mut writer = BufWriter::with_capacity(1 << 16, file);
        fill(&mut writer)?;
        let file: File = writer
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
        drop(file);
        fs::rename(&tmp, &real).map_err(|e| Error::io(path, e))
    })();
    guard.path = None;
    if let Err(e) = written {
        // The error line names a temporary file that could not be removed (an append-only
        // folder, a file system gone read-only), rather than leave it unsaid.
        return Err(match fs::remove_file(&tmp) {
            Err(why) if why.kind() != ErrorKind::NotFound => with_note(
                e,
                &format!(
                    "the temporary file {} is left behind: removing it failed ({why}); remove it by hand",
                    tmp.display()
                ),
            ),
            _ => e,
        });
    }

    // Make the rename itself durable where the platform allows it; failure here is harmless.
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Give the new file the owner, group and permission bits of the one it replaces (a 0600 file
/// stays 0600), as far as this user may: the owner and group where the system allows it (root;
/// a group this user is in), else they stay this user's, silently. The owner first, since a
/// change of owner clears the set-user-ID bit that the mode then sets again.
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let fd = file.as_raw_fd();
    // SAFETY: fchown on a descriptor we own; a failure only leaves the ids as they were.
    unsafe {
        if libc::fchown(fd, old.uid(), old.gid()) != 0 {
            libc::fchown(fd, libc::uid_t::MAX, old.gid());
        }
    }
    let _ = file.set_permissions(fs::Permissions::from_mode(
        old.permissions().mode() & 0o7777,
    ));
}

/// `e` with `note` added to its message, its kind (and so the exit status) kept.
fn with_note(e: Error, note: &str) -> Error {
    let add = |s: String| format!("{s}; {note}");
    match e {
        Error::Io { path, error } => Error::io(
            path,
            std::io::Error::new(error.kind(), add(error.to_string())),
        ),
        Error::Format { path, message } => Error::Format {
            path,
            message: add(message),
        },
        Error::Invalid(s) => Error::Invalid(add(s)),
        Error::Internal(s) => Error::Internal(add(s)),
        Error::DeviceLost(s) => Error::DeviceLost(add(s)),
        Error::Readback(s) => Error::Readback(add(s)),
        Error::Wgpu {
            kind,
            during,
            message,
        } => Error::Wgpu {
            kind,
            during,
            message: add(message),
        },
        Error::NoAdapter { detail } => Error::NoAdapter {
            detail: add(detail),
        },
        Error::RequestDevice { adapter, reason } => Error::RequestDevice {
            adapter,
            reason: add(reason),
        },
        Error::MissingFeature {
            adapter,
            feature,
            needed_for,
        } => Error::MissingFeature {
            adapter,
            feature,
            needed_for: add(needed_for),
        },
        Error::FormatCapability {
            adapter,
            backend,
            method,
            format,
            capability,
            hint,
        } => Error::FormatCapability {
            adapter,
            backend,
            method,
            format,
            capability,
            hint: add(hint),
        },
        // The rest are the request's mistakes, said whole with the note after.
        e => Error::Invalid(add(e.to_string())),
    }
}

/// Write into a device or FIFO as it is: opened for writing, neither created nor truncated.
fn write_in_place(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let file = match shared_descriptor(path) {
        Some(file) => file,
        None => OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?,
    };
    let mut writer = BufWriter::with_capacity(1 << 16, file);
    fill(&mut writer)?;
    writer
        .into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?;
    Ok(())
}

/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` as a copy of that descriptor,
/// which shares its position: written after what the process printed there, not over it from
/// the start (as opening the path anew would, where the shell redirected it to a file).
#[cfg(target_os = "linux")]
fn shared_descriptor(path: &Path) -> Option<File> {
    use std::os::fd::FromRawFd;
    let s = path.to_str()?;
    let fd: i32 = match s {
        "/dev/stdout" => 1,
        "/dev/stderr" => 2,
        _ => s
            .strip_prefix("/dev/fd/")
            .or_else(|| s.strip_prefix("/proc/self/fd/"))?
            .parse()
            .ok()?,
    };
    // SAFETY: dup of a descriptor number; a failure is -1, and the copy is ours to own.
    let copy = unsafe { libc::dup(fd) };
    (copy >= 0).then(|| unsafe { File::from_raw_fd(copy) })
}

#[cfg(not(target_os = "linux"))]
fn shared_descriptor(_path: &Path) -> Option<File> {
    None
}

/// Check before any work that a result can be written to `path`: its folder exists, is neither
/// append-only nor immutable (`chattr +a`, `+i`) and this user may create files in it, and what
/// is at `path` is one [`write_atomic`] writes (not a folder, a read-only, append-only or
/// immutable file, a file this user may not write, a dangling link, a socket or a block device). Writes through [`write_atomic`] refuse the same cases; this only tells sooner,
/// before the ten seconds of computing that would be lost. Nothing is created.
pub fn check_output(path: &Path) -> Result<()> {
    let (dir, _) = split_output(path)?;
    check_folder(path, dir)?;
    if let Target::Replace(real) = resolve(path)? {
        let (real_dir, _) = split_output(&real)?;
        check_folder(path, real_dir)?;
        refuse_locked_folder(path, real_dir)?;
        if let Err(e) = may_write(real_dir, true) {
            return Err(output_error(
                path,
                e.kind(),
                format!("cannot create files in {}: {e}", real_dir.display()),
            ));
        }
    }
    Ok(())
}

/// The folder of an output exists and is a folder.
fn check_folder(path: &Path, dir: &Path) -> Result<()> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(output_error(
            path,
            ErrorKind::NotADirectory,
            format!("{} is not a directory", dir.display()),
        )),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(output_error(
            path,
            ErrorKind::NotFound,
            format!("the directory {} does not exist", dir.display()),
        )),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Check before any work that files can be written into the folder `dir` (the `--out` of a
/// command that writes several): it is a folder (links followed) that is neither append-only nor
/// immutable and in which this user may create files, or it does not exist yet and the nearest
/// folder above it that does is one where this user may create it. Anything else that is there
/// (a file) is refused in one line naming `label`, the option that gave it. Nothing is created.
pub fn check_output_folder(dir: &Path, label: &str) -> Result<()> {
    let refuse = |at: &Path, kind: ErrorKind, why: String| {
        Err(Error::io(at, std::io::Error::new(kind, why)))
    };
    let mut at = dir;
    loop {
        match fs::metadata(at) {
            Ok(m) if m.is_dir() => break,
            Ok(_) if at == dir => {
                return refuse(
                    dir,
                    ErrorKind::NotADirectory,
                    format!(
                        "is a file, not a folder: {label} names the folder the files go into (give a folder, or a path that does not exist yet)"
                    ),
                );
            }
            Ok(_) => {
                return refuse(
                    dir,
                    ErrorKind::NotADirectory,
                    format!("{} is not a folder", at.display()),
                );
            }
            // A link to nothing: making the folder would fail after the work.
            Err(_) if fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink()) => {
                let to = fs::read_link(at).unwrap_or_default();
                let which = if at == dir {
                    String::new()
                } else {
                    format!("{} ", at.display())
                };
                return refuse(
                    dir,
                    ErrorKind::NotFound,
                    format!(
                        "{which}is a symbolic link to {}, which does not exist; refusing to make a folder through a dangling link",
                        to.display()
                    ),
                );
            }
            // Missing, or under a file (`A.npy/sub`): the folders above say which.
            Err(e)
                if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
                    && at != Path::new(".") => {}
            Err(e) => return Err(Error::io(at, e)),
        }
        at = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            Some(_) => Path::new("."),
            None => return Err(Error::io(at, ErrorKind::NotFound.into())),
        };
    }
    // A new folder inside an append-only one can be made, and written; an immutable one takes
    // nothing.
    if at == dir || lock_of(at) == Some(Lock::Immutable) {
        refuse_locked_folder(dir, at)?;
    }
    if let Err(e) = may_write(at, true) {
        return refuse(
            dir,
            e.kind(),
            format!("cannot create files in {}: {e}", at.display()),
        );
    }
    Ok(())
}

/// Refuse an output that is one of the inputs: the same file by device and inode (so whatever
/// the spelling: `./X.npy`, a hard link, a symbolic link), before any work. `inputs` pairs each
/// input's path with how the user named it (`--a`, `--graph`). An output that does not exist yet
/// is no input.
pub fn refuse_same_file(out: &Path, out_label: &str, inputs: &[(&str, &Path)]) -> Result<()> {
    let Some(o) = identity(out) else {
        return Ok(());
    };
    for (label, input) in inputs {
        if identity(input).as_ref() == Some(&o) {
            let same = if input == &out {
                String::new()
            } else {
                format!(" ({})", input.display())
            };
            return Err(Error::Invalid(format!(
                "{out_label} {} is the input {label}{same}; refusing to overwrite an input (write the result to another file)",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file (links followed): `/dev/stdout` and the file or
/// pipe standard output is redirected to, say.
pub fn same_file(a: &Path, b: &Path) -> bool {
    identity(a).is_some_and(|x| identity(b).as_ref() == Some(&x))
}

/// Device and inode of the file a path names (links followed), if it exists.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

#[cfg(test)]
mod tests {
    use super::temps::{temp_name, temp_owner};
    use super::*;

    #[test]
    fn temporary_names_fit_name_max_for_a_legal_long_name() {
        let name = "a".repeat(250) + ".csv";
        let name = &name[name.len() - 250..];
        let tmp = temp_beside(&Path::new("/tmp").join(name)).unwrap();
        let len = tmp.file_name().unwrap().len();
        assert!(len <= NAME_MAX, "temporary name of {len} bytes");
        assert!(tmp.starts_with("/tmp"));
    }

    #[cfg(unix)]
    #[test]
    fn a_temporary_name_is_known_as_its_writers_and_nothing_else_is() {
        use std::ffi::OsStr;
        let long = "b".repeat(250);
        for name in ["c.npy", "a-1.tmp-2-3", long.as_str()] {
            let name = OsStr::new(name);
            for (pid, n) in [(1, 0), (4_194_304, 17), (u32::MAX, u64::MAX)] {
                let tmp = temp_name(name, pid, n);
                assert!(tmp.len() <= NAME_MAX);
                assert_eq!(temp_owner(&tmp, name), Some(pid), "{tmp:?}");
            }
        }
        let c = OsStr::new("c.npy");
        for other in [
            ".c.npy.tmp-12-07",
            ".c.npy.tmp-012-7",
            ".c.npy.tmp-12-7.bak",
            ".c.npy.tmp-12",
            ".c.npy.tmp--7",
            ".c.npy.tmp-+12-7",
            "c.npy.tmp-12-7",
            ".d.npy.tmp-12-7",
            ".c.npy.tmp-99999999999-7",
            ".c.npy.TMP-12-7",
        ] {
            assert_eq!(temp_owner(OsStr::new(other), c), None, "{other}");
        }
    }

    #[test]
    fn a_missing_output_is_replaced_and_a_folder_refused() {
        let missing = std::env::temp_dir().join(format!("rendermm-missing-{}", std::process::id()));
        assert_eq!(resolve(&missing).unwrap(), Target::Replace(missing.clone()));
        assert!(resolve(&std::env::temp_dir()).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn dev_null_is_written_in_place() {
        // Only asked, never written here: the binary's tests write into device nodes of their own.
        assert_eq!(resolve(Path::new("/dev/null")).unwrap(), Target::InPlace);
        assert!(is_device_or_pipe(Path::new("/dev/null")));
    }
}
