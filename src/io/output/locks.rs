//! Files and folders no rename may replace or take a name from: `chattr +a` and `chattr +i`.

#[cfg(target_os = "linux")]
use std::fs::OpenOptions;
use std::path::Path;

/// `FS_APPEND_FL` and `FS_IMMUTABLE_FL` of `linux/fs.h`: `chattr +a` and `chattr +i`.
#[cfg(target_os = "linux")]
const FS_APPEND_FL: libc::c_int = 0x20;
#[cfg(target_os = "linux")]
const FS_IMMUTABLE_FL: libc::c_int = 0x10;

/// The inode flags of a regular file or folder (`FS_IOC_GETFLAGS`, what `lsattr` shows), or
/// `None` where they cannot be asked: a file system without them (tmpfs before Linux 6.0 answers
/// `ENOTTY`), a file this user may not open. Opened read-only, non-blocking and never as a
/// terminal, so that asking has no effect even if the path was swapped for a device meanwhile.
#[cfg(target_os = "linux")]
pub(super) fn inode_flags(path: &Path) -> Option<libc::c_int> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    let mut flags: libc::c_int = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one int (the kernel's `unsigned int`) through the pointer.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) };
    (r == 0).then_some(flags)
}

/// A file or folder that no rename may replace or take a name from, even root's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) enum Lock {
    /// `chattr +a`.
    AppendOnly,
    /// `chattr +i`.
    Immutable,
}

/// The lock of a regular file or folder, if it has one; `None` also where its flags cannot be
/// asked (the output is then written as before, and the rename says what the system says).
#[cfg(target_os = "linux")]
pub(super) fn lock_of(path: &Path) -> Option<Lock> {
    let flags = inode_flags(path)?;
    if flags & FS_IMMUTABLE_FL != 0 {
        Some(Lock::Immutable)
    } else if flags & FS_APPEND_FL != 0 {
        Some(Lock::AppendOnly)
    } else {
        None
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn lock_of(_path: &Path) -> Option<Lock> {
    None
}

/// Why no output can be renamed onto an existing regular file (`folder` false) or into a folder
/// (`folder` true), if so: it is append-only or immutable. Said of itself ("is append-only ..."),
/// for a line that names it first.
pub(super) fn locked(path: &Path, folder: bool) -> Option<&'static str> {
    Some(match (folder, lock_of(path)?) {
        (true, Lock::Immutable) => {
            "is immutable (chattr +i): no file in it can be created, replaced or removed; write it elsewhere"
        }
        (true, Lock::AppendOnly) => {
            "is append-only (chattr +a): a file in it can be created but never replaced or removed; write it elsewhere"
        }
        (false, Lock::Immutable) => {
            "is immutable (chattr +i): it can never be changed, replaced or removed; write it elsewhere"
        }
        (false, Lock::AppendOnly) => {
            "is append-only (chattr +a): it can be added to but never replaced or removed; write it elsewhere"
        }
    })
}
