//! The command line: one file per command, and what the commands share — typed values
//! ([`values`]), the printed report ([`print`]), output-file checks and host-memory checks
//! ([`guard`]), progress bars ([`progress`]) — and the exit status ([`exit_status`]).
//!
//! This layer sits above every other: it may use the whole library; nothing imports it.

pub mod bench;
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
  1  a result failed its check against the f64 CPU reference
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
/// [`rendermm::Error`] by its [`Kind`](rendermm::error::Kind), a file system error, a failed check); an untyped
/// message is a refused request.
pub fn exit_status(e: &anyhow::Error) -> i32 {
    for cause in e.chain() {
        if let Some(err) = cause.downcast_ref::<rendermm::Error>() {
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

/// Standard output or standard error that cannot be written ends the program by the exit-status
/// table, never by a panic (101) from `println!`: a reader that closed the pipe early
/// (`rendermm methods | head`) ends it quietly with the status a shell gives a process killed by
/// SIGPIPE (141); a full or failing stream (`> /dev/full`) is a file that cannot be written, 4,
/// said in one line on standard error when the stream that failed was standard output. Any other
/// panic goes to the default hook.
pub fn quiet_stream_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(code) = stream_failure_status(message) {
            if let Some(why) = message.strip_prefix("failed printing to stdout: ") {
                use std::io::Write;
                if code == 4 {
                    let _ = writeln!(
                        std::io::stderr(),
                        "error: cannot write to standard output: {why}"
                    );
                }
            }
            std::process::exit(code);
        }
        default(info);
    }));
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
