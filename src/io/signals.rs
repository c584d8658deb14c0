//! Temporary files that a signal must not leave behind. An output is written to a temporary file
//! that is renamed into place at the end; a signal that ends the process in between (Ctrl-C,
//! `Ctrl-\`, `kill`, a closed terminal, a file-size or CPU-time limit, a timer, `abort`) would
//! leave it lying beside the target. Every signal whose default action ends the process is
//! covered but SIGKILL, which no handler sees (its leftovers are removed by the next write of
//! the same target), and the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL), the signs of a broken
//! program, which Rust's runtime partly handles itself. The temporary paths live in a fixed
//! table the handler can walk without allocating or locking, and the handler removes them,
//! restores the signal's default action and raises it again, so the process still ends by that
//! signal.

use std::ffi::{CString, c_char, c_int};
use std::path::Path;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Temporary files being written at once (one per output; more than a few is unusual). A write
/// past this many still works, it is only not cleaned up by a signal.
const SLOTS: usize = 64;

/// Absolute paths of the temporary files being written, as C strings owned by whoever swaps the
/// pointer out of its slot.
static PENDING: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];

/// The signals that end a process by default (terminate or dump core) and can arrive in the
/// middle of a write, besides the real-time ones (see [`signals`]). SIGPIPE is among them, but
/// Rust's runtime ignores it before `main`, so in the `rendermm` binary it stays ignored (a
/// closed pipe is an `EPIPE` error there, exit 141) and a handler is installed only for a host
/// program that left it at its default.
const SIGNALS: [c_int; 18] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGXFSZ,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGPIPE,
    libc::SIGIO, // = SIGPOLL
    libc::SIGPWR,
    libc::SIGSYS,
    libc::SIGTRAP,
    libc::SIGABRT,
    libc::SIGSTKFLT,
];

/// [`SIGNALS`] and the real-time signals the C library leaves to programs (`SIGRTMIN` to
/// `SIGRTMAX`), whose default action ends the process too.
fn signals() -> impl Iterator<Item = c_int> {
    SIGNALS
        .into_iter()
        .chain(libc::SIGRTMIN()..=libc::SIGRTMAX())
}

/// A temporary file's entry in the table, removed from it when dropped.
pub(super) struct Registered(Option<usize>);

/// Enter `path` in the table (before the file is created, so that no moment is uncovered).
pub(super) fn register(path: &Path) -> Registered {
    use std::os::unix::ffi::OsStrExt;
    let Ok(abs) = std::path::absolute(path) else {
        return Registered(None);
    };
    let Ok(c) = CString::new(abs.as_os_str().as_bytes()) else {
        return Registered(None);
    };
    let p = c.into_raw();
    for (i, slot) in PENDING.iter().enumerate() {
        if slot
            .compare_exchange(null_mut(), p, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return Registered(Some(i));
        }
    }
    // SAFETY: `p` came from `into_raw` above and was stored nowhere.
    drop(unsafe { CString::from_raw(p) });
    Registered(None)
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(i) = self.0.take() {
            // Whoever swaps the pointer out owns it: the handler (which only unlinks) or this.
            let p = PENDING[i].swap(null_mut(), Ordering::SeqCst);
            if !p.is_null() {
                // SAFETY: `p` came from `CString::into_raw` in `register` and is ours alone now.
                drop(unsafe { CString::from_raw(p) });
            }
        }
    }
}

/// Remove every registered temporary file, then end the process by the same signal (the
/// handler was installed with `SA_RESETHAND`, so the default action is back). Only
/// async-signal-safe calls: atomic swaps, `unlink`, `raise`.
extern "C" fn remove_and_reraise(sig: c_int) {
    remove_all();
    // SAFETY: raising a signal is async-signal-safe; its default action ends the process.
    unsafe { libc::raise(sig) };
}

/// Remove every registered temporary file (each once: whoever swaps a path out of its slot
/// removes it). Async-signal-safe: atomic swaps and `unlink` only. Also for a panic hook that
/// ends the process without unwinding, so that no write's guard would ever run.
pub(super) fn remove_all() {
    for slot in &PENDING {
        let p = slot.swap(null_mut(), Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: a NUL-terminated path from `register`; it is leaked, never freed here.
            unsafe { libc::unlink(p) };
        }
    }
}

/// Install the handlers (once; later calls do nothing). A signal that is ignored (`nohup`;
/// SIGPIPE, which Rust's runtime ignores) or already has a handler of someone else's is left as
/// it is.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in signals() {
            // SAFETY: plain sigaction calls on zero-initialised structs; the handler above only
            // makes async-signal-safe calls.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = remove_and_reraise as extern "C" fn(c_int) as usize;
                libc::sigemptyset(&mut act.sa_mask);
                act.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
                libc::sigaction(sig, &act, std::ptr::null_mut());
            }
        }
    });
}
