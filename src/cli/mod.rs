//! The command line: one file per command, and what the commands share — typed values
//! ([`values`]), the printed report ([`print`]), output-file checks and host-memory checks
//! ([`guard`]), progress bars ([`progress`]) — and the exit status ([`exit_status`]).
//!
//! This layer sits above every other: it may use the whole library; nothing imports it. The
//! library's root hands the binary its one door, [`run_cli`] ([`app`]: the arguments and the
//! dispatch).

mod app;
pub mod bench;
pub mod check;
pub mod demo;
pub mod figures;
pub mod guard;
pub mod info;
pub mod knobs;
pub mod methods;
pub mod model;
pub mod multiply;
pub mod operands;
pub mod precision_ladder;
pub mod print;
pub mod progress;
pub mod reach;
pub mod tour;
pub mod tune;
pub mod values;

pub use app::run_cli;

/// A run that finished but whose result failed its check against the f64 CPU reference
/// (exit status 1): not the user's mistake, not a fault the GPU reported, not a file.
#[derive(Debug)]
pub struct CheckFailed(pub String);

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckFailed {}

/// `Err(CheckFailed)` with a formatted message, as `bail!` makes any other error.
macro_rules! check_failed {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::cli::CheckFailed(format!($($arg)*))))
    };
}
pub(crate) use check_failed;

/// The exit statuses, for `--help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  a result failed its check against the f64 CPU reference (multiply --check, check)
  2  a mistake in the request: an unknown name, a bad option, impossible sizes, shapes that
     do not multiply, a size past the adapter's limits or the memory budget (clap's own
     usage errors are 2 as well)
  3  the GPU or its driver: no adapter, no device, a missing feature, a wgpu error, a lost
     device, a failed readback
  4  a file: missing, unreadable, malformed, or an output that cannot be written (standard
     output included: a full device)
  70 a bug in rendermm: an internal invariant broke; not the request's fault, please report it
  141 the reader of standard output closed the pipe (`| head`): the program ends quietly";

/// The exit status an error calls for: the first typed error in its chain decides (a library
/// [`crate::Error`] by its [`Kind`](crate::error::Kind), a file system error, a failed check); an untyped
/// message is a refused request.
pub fn exit_status(e: &anyhow::Error) -> i32 {
    for cause in e.chain() {
        if let Some(err) = cause.downcast_ref::<crate::Error>() {
            return err.kind().exit_status();
        }
        if cause.downcast_ref::<CheckFailed>().is_some() {
            return 1;
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return 4;
        }
    }
    2
}

/// An error as one line: its chain joined by `: `, line breaks folded into spaces.
pub fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A panic ends the program by the exit-status table, never with Rust's 101. Standard output or
/// standard error that cannot be written (`println!`'s panic): a reader that closed the pipe
/// early (`rendermm methods | head`) ends it quietly with the status a shell gives a process
/// killed by SIGPIPE (141); a full or failing stream (`> /dev/full`) is a file that cannot be
/// written, 4, said in one line on standard error when the stream that failed was standard
/// output. Any other panic is a broken invariant, a bug in rendermm: one line naming it and where,
/// and 70 (with `RUST_BACKTRACE` set, the default report and its backtrace come first).
pub fn quiet_stream_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let (code, line) = match stream_failure_status(message) {
            Some(code) => (
                code,
                message
                    .strip_prefix("failed printing to stdout: ")
                    .filter(|_| code == 4)
                    .map(|why| format!("error: cannot write to standard output: {why}")),
            ),
            None => {
                if std::env::var_os("RUST_BACKTRACE").is_some() {
                    default(info);
                }
                let at = info
                    .location()
                    .map(|l| format!(" (at {}:{})", l.file(), l.line()))
                    .unwrap_or_default();
                (70, Some(bug_line(message, &at)))
            }
        };
        if let Some(line) = line {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{line}");
        }
        // exit() unwinds nothing: the temporary file of a write under way is removed here.
        crate::io::remove_unfinished_temporaries();
        std::process::exit(code);
    }));
}

/// The one line of a panic that is not a stream's failure: a bug, said as the exit table says it.
fn bug_line(message: &str, at: &str) -> String {
    let message = message.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    format!(
        "error: a bug in rendermm, an internal invariant broke: {message}{at}; please report it"
    )
}

/// The exit status for the panic `message` of a failed `print!`/`eprint!`, if it is one: 141 for
/// a closed pipe, 4 for any other failure to write.
pub fn stream_failure_status(message: &str) -> Option<i32> {
    if !message.starts_with("failed printing to stdout")
        && !message.starts_with("failed printing to stderr")
    {
        return None;
    }
    Some(if message.contains("Broken pipe") {
        141
    } else {
        4
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_ends_by_the_exit_table() {
        let full = "failed printing to stdout: No space left on device (os error 28)";
        assert_eq!(stream_failure_status(full), Some(4));
        let closed = "failed printing to stdout: Broken pipe (os error 32)";
        assert_eq!(stream_failure_status(closed), Some(141));
        assert_eq!(
            stream_failure_status("failed printing to stderr: x"),
            Some(4)
        );
        // Any other panic is a bug: not a stream's status, and one line that says so.
        assert_eq!(stream_failure_status("a readback shorter than C"), None);
        let line = bug_line("a readback\nshorter than C", " (at src/x.rs:3)");
        assert_eq!(line.lines().count(), 1);
        assert!(
            line.starts_with("error: a bug in rendermm") && line.contains("src/x.rs:3"),
            "{line}"
        );
    }
}
