//! Files that must not be touched, through the `rendermm` binary: a device node, FIFO or socket
//! given as an output is never replaced by a regular file; an output that is one of the inputs
//! is refused; a file this user may not write is refused as the operating system would; a
//! signal in the middle of a write leaves no temporary file, and a dead process's temporary file
//! is removed by the next write; a replaced file keeps its mode and owner; an append-only or
//! immutable output is refused before work; a legal long name works; `figure --out` writes
//! where it was told or says why not; a tour or bench that fails leaves no folder of its own. And the readers' numbers: a value past
//! f32's range is named, and `--allow-nonfinite --check` holds C to the inputs as given.

#![cfg(target_os = "linux")]

mod common;
use common::assert_clean_error;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_rendermm")
}

fn rendermm_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

/// A fresh folder under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("rendermm-outputs-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
    fn run(&self, args: &[&str]) -> Output {
        rendermm_in(&self.0, args)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_ok(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} failed: {}", stderr(out));
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A character device node at `path` with the given numbers (`mknod`, root only); `false` with
/// a printed reason where it cannot be made.
fn mknod(path: &Path, major: u32, minor: u32) -> bool {
    if !is_root() {
        common::skip("making a device node needs root");
        return false;
    }
    let ok = Command::new("mknod")
        .arg(path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        common::skip(&format!(
            "mknod {} c {major} {minor} failed here",
            path.display()
        ));
    }
    ok
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success(), "mkfifo {}", path.display());
}

fn assert_char_device(path: &Path, rdev: u64, what: &str) {
    let m = fs::symlink_metadata(path).unwrap();
    assert!(
        m.file_type().is_char_device(),
        "{what}: {} is no longer a character device",
        path.display()
    );
    assert_eq!(m.rdev(), rdev, "{what}: device numbers changed");
}

/// The commands that write one output each, `OUT` standing for the output's path: multiply
/// --out, demo --gif and --screenshot, figure, reach --out, bench --json.
const WRITERS: &[(&str, &[&str])] = &[
    (
        "multiply --out",
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "4x4x4",
            "--out",
            "OUT.npy",
        ],
    ),
    (
        "demo --gif",
        &[
            "demo",
            "lm",
            "--headless",
            "--random",
            "4x4x4",
            "--gif",
            "OUT.gif",
        ],
    ),
    (
        "demo --screenshot",
        &[
            "demo",
            "lm",
            "--headless",
            "--random",
            "4x4x4",
            "--screenshot",
            "OUT.png",
        ],
    ),
    ("figure", &["figure", "lm-fig2", "--out", "OUT.png"]),
    (
        "reach --out",
        &["reach", "--graph", "g.txt", "--closure", "--out", "OUT.csv"],
    ),
    (
        "bench --json",
        &[
            "bench",
            "--soak",
            "1",
            "--soak-size",
            "16",
            "--json",
            "OUT.json",
        ],
    ),
];

/// `args` with `OUT` replaced by `name` (keeping the extension that follows it).
fn with_out(args: &[&str], name: &str) -> (Vec<String>, String) {
    let mut file = String::new();
    let v = args
        .iter()
        .map(|a| {
            if let Some(ext) = a.strip_prefix("OUT") {
                file = format!("{name}{ext}");
                file.clone()
            } else {
                a.to_string()
            }
        })
        .collect();
    (v, file)
}

fn graph(dir: &Scratch) {
    fs::write(dir.path("g.txt"), "0 1\n1 2\n3 4\n").unwrap();
}

#[test]
fn a_char_device_given_as_output_stays_a_device() {
    let dir = Scratch::new("chardev");
    graph(&dir);
    for (what, args) in WRITERS {
        let (args, file) = with_out(args, "node");
        let node = dir.path(&file);
        // A copy of /dev/null (1, 3): writes vanish, the node must stay.
        if !mknod(&node, 1, 3) {
            return;
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dir.run(&argv);
        assert_ok(&out, what);
        assert_char_device(&node, libc::makedev(1, 3), what);
        fs::remove_file(&node).unwrap();
    }
    assert!(
        !dir.names().iter().any(|n| n.contains(".tmp-")),
        "{:?}",
        dir.names()
    );
}

#[test]
fn a_fifo_given_as_output_is_written_through_and_stays_a_fifo() {
    let dir = Scratch::new("fifo");
    graph(&dir);
    for (what, args) in WRITERS {
        let (args, file) = with_out(args, "pipe");
        let fifo = dir.path(&file);
        mkfifo(&fifo);
        let reader_path = fifo.clone();
        let reader = std::thread::spawn(move || fs::read(&reader_path).unwrap_or_default());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dir.run(&argv);
        let still_fifo = fs::symlink_metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo());
        // (A replaced FIFO leaves its reader waiting for good; the failure ends the test.)
        assert!(
            still_fifo,
            "{what}: the FIFO was replaced by a regular file"
        );
        if !out.status.success() {
            // Unblock the reader before failing.
            let _ = fs::OpenOptions::new().write(true).open(&fifo);
        }
        let got = reader.join().unwrap();
        assert_ok(&out, what);
        let head: &[u8] = match file.rsplit('.').next().unwrap() {
            "npy" => b"\x93NUMPY",
            "gif" => b"GIF89a",
            "png" => b"\x89PNG",
            "csv" => b"node,",
            _ => b"{",
        };
        assert!(
            got.starts_with(head),
            "{what}: the reader got {} bytes",
            got.len()
        );
        fs::remove_file(&fifo).unwrap();
    }
}

#[test]
fn a_full_device_gives_one_no_space_line_and_stays() {
    let dir = Scratch::new("full");
    let node = dir.path("full.npy");
    // A copy of /dev/full (1, 7).
    if !mknod(&node, 1, 7) {
        return;
    }
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "64x64x64",
        "--out",
        "full.npy",
    ]);
    assert_clean_error(&out, "no space left");
    assert_char_device(&node, libc::makedev(1, 7), "multiply --out full");
    assert_eq!(dir.names(), ["full.npy"]);
}

#[test]
fn a_socket_given_as_output_is_refused_and_stays() {
    let dir = Scratch::new("socket");
    let sock = dir.path("s.npy");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "4x4x4",
        "--out",
        "s.npy",
    ]);
    assert_clean_error(&out, "socket");
    assert!(fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
}

#[test]
fn a_symlink_output_writes_the_file_it_names_and_stays_a_link() {
    let dir = Scratch::new("symlink");
    fs::create_dir(dir.path("data")).unwrap();
    fs::write(dir.path("data/real.npy"), b"old").unwrap();
    std::os::unix::fs::symlink("data/real.npy", dir.path("link.npy")).unwrap();
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x4x5",
        "--out",
        "link.npy",
    ]);
    assert_ok(&out, "multiply --out link");
    assert!(
        fs::symlink_metadata(dir.path("link.npy"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let c = rendermm::io::read_matrix(&dir.path("data/real.npy")).unwrap();
    assert_eq!(c.shape(), (3, 5));
    assert_eq!(dir.names(), ["data", "link.npy"]);
    assert_eq!(fs::read_dir(dir.path("data")).unwrap().count(), 1);

    // A link to nothing is refused rather than followed into a new file.
    std::os::unix::fs::symlink("data/none.npy", dir.path("dangling.npy")).unwrap();
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x4x5",
        "--out",
        "dangling.npy",
    ]);
    assert_clean_error(&out, "dangling");
    assert!(!dir.path("data/none.npy").exists());
}

#[test]
fn an_output_that_is_one_of_the_inputs_is_refused_before_work() {
    let dir = Scratch::new("sameinput");
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "4x4x4",
        "--out",
        "X.npy",
    ]);
    assert_ok(&out, "writing X.npy");
    fs::write(dir.path("X.csv"), "1,2\n3,4\n").unwrap();
    fs::hard_link(dir.path("X.npy"), dir.path("H.npy")).unwrap();
    std::os::unix::fs::symlink("X.npy", dir.path("S.npy")).unwrap();
    let x = fs::read(dir.path("X.npy")).unwrap();
    let xcsv = fs::read(dir.path("X.csv")).unwrap();
    let cases: &[&[&str]] = &[
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--a",
            "X.npy",
            "--b",
            "X.npy",
            "--out",
            "./X.npy",
        ],
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--a",
            "X.npy",
            "--b",
            "X.npy",
            "--out",
            "H.npy",
        ],
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--a",
            "X.npy",
            "--b",
            "X.npy",
            "--out",
            "S.npy",
        ],
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--a",
            "X.csv",
            "--b",
            "X.csv",
            "--out",
            "X.csv",
        ],
        &[
            "demo",
            "lm",
            "--headless",
            "--a",
            "X.npy",
            "--b",
            "X.npy",
            "--gif",
            "X.npy",
        ],
    ];
    for args in cases {
        let out = dir.run(args);
        assert_clean_error(&out, "is the input");
        assert!(
            !stderr(&out).contains("adapter:"),
            "{args:?}: refused only after work"
        );
    }
    // A graph read as a .npy adjacency matrix.
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x3x3",
        "--out",
        "G.npy",
    ]);
    assert_ok(&out, "writing G.npy");
    let g = fs::read(dir.path("G.npy")).unwrap();
    let out = dir.run(&["reach", "--graph", "G.npy", "--closure", "--out", "G.npy"]);
    assert_clean_error(&out, "is the input");
    assert_eq!(fs::read(dir.path("G.npy")).unwrap(), g);
    assert_eq!(fs::read(dir.path("X.npy")).unwrap(), x);
    assert_eq!(fs::read(dir.path("X.csv")).unwrap(), xcsv);
}

/// A scratch folder of `mode` holding a copy of the binary that `nobody` can run, and a
/// root-owned `c.npy` of `file_mode` holding "root's file"; `None` (with the reason printed)
/// where the test cannot run as another user: not root, no `setpriv`, or folders above the
/// scratch that `nobody` may not pass.
fn nobody_beside_roots_file(name: &str, mode: u32, file_mode: u32) -> Option<(Scratch, PathBuf)> {
    if !is_root() {
        common::skip("needs root, to run the binary as nobody against a root-owned file");
        return None;
    }
    if Command::new("setpriv")
        .arg("--help")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        common::skip("setpriv is not installed");
        return None;
    }
    let dir = Scratch::new(name);
    fs::set_permissions(&dir.0, fs::Permissions::from_mode(mode)).unwrap();
    let exe = dir.path("rendermm");
    fs::copy(bin(), &exe).unwrap();
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    let target = dir.path("c.npy");
    fs::write(&target, b"root's file").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(file_mode)).unwrap();
    if !as_nobody(&dir, &["--version"]).status.success() {
        common::skip(&format!(
            "nobody cannot run a binary in {}",
            dir.0.display()
        ));
        return None;
    }
    Some((dir, target))
}

/// The copy of the binary in `dir` run as `nobody` with `args`, in `dir`.
fn as_nobody(dir: &Scratch, args: &[&str]) -> std::process::Output {
    Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(dir.path("rendermm"))
        .args(args)
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", &dir.0)
        .output()
        .unwrap()
}

#[test]
fn a_file_this_user_may_not_write_is_refused_as_the_os_would() {
    let Some((dir, target)) = nobody_beside_roots_file("nobody", 0o777, 0o600) else {
        return;
    };
    let out = as_nobody(
        &dir,
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "4x4x4",
            "--out",
            "c.npy",
        ],
    );
    assert_clean_error(&out, "may not write");
    assert_eq!(fs::read(&target).unwrap(), b"root's file");
    assert_eq!(fs::metadata(&target).unwrap().uid(), 0);
    assert_eq!(dir.names(), ["c.npy", "rendermm"]);
}

/// Another user's 0666 file in a sticky folder (mode 1777, as /tmp): this user may write into it
/// but may not rename over it, which replacing it takes, so it is refused before the work in
/// one line (it used to be computed, then refused by the rename as "Operation not permitted").
#[test]
fn another_users_file_in_a_sticky_folder_is_refused_before_work() {
    let Some((dir, target)) = nobody_beside_roots_file("sticky", 0o1777, 0o666) else {
        return;
    };
    let started = std::time::Instant::now();
    let out = as_nobody(
        &dir,
        &[
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "1500x1500x1500",
            "--out",
            "c.npy",
        ],
    );
    let line = assert_clean_error(&out, "sticky folder");
    assert!(line.contains("not replaced"), "{line}");
    // Refused before the product, which takes seconds here.
    assert!(
        started.elapsed().as_secs_f64() < 2.0,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(fs::read(&target).unwrap(), b"root's file");
    assert_eq!(dir.names(), ["c.npy", "rendermm"]);
}

/// The signals whose default action ends a process that the handler must catch: all but SIGKILL,
/// SIGSTOP's kin, the faults Rust's runtime handles, and SIGPIPE, which Rust's runtime ignores.
const CAUGHT: &[(i32, &str)] = &[
    (libc::SIGINT, "SIGINT"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGXFSZ, "SIGXFSZ"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGUSR2, "SIGUSR2"),
    (libc::SIGALRM, "SIGALRM"),
    (libc::SIGVTALRM, "SIGVTALRM"),
    (libc::SIGPROF, "SIGPROF"),
    (libc::SIGXCPU, "SIGXCPU"),
    (libc::SIGIO, "SIGIO"),
    (libc::SIGPWR, "SIGPWR"),
    (libc::SIGSYS, "SIGSYS"),
    (libc::SIGTRAP, "SIGTRAP"),
    (libc::SIGABRT, "SIGABRT"),
    (libc::SIGSTKFLT, "SIGSTKFLT"),
];

/// The signal numbers a `SigCgt:` or `SigIgn:` line of `/proc/PID/status` holds.
fn signal_set(status: &str, key: &str) -> Vec<i32> {
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|v| u64::from_str_radix(v.trim(), 16).unwrap())
        .unwrap_or_else(|| panic!("no {key} in {status}"));
    (1..=64).filter(|s| mask >> (s - 1) & 1 == 1).collect()
}

/// Start `args` in `dir`, wait until its temporary file appears, send `sig`, and check that it
/// ended by that signal with no temporary file left and the old target untouched. The child
/// starts with every signal at its default action (a shell's background job would have SIGINT
/// and SIGQUIT ignored, which the program rightly leaves ignored) and dumps no core.
fn interrupt_a_write(sig: i32, name: &str) {
    use std::os::unix::process::CommandExt;
    let dir = Scratch::new(&format!("signal-{sig}"));
    let target = dir.path("big.csv");
    fs::write(&target, b"old contents").unwrap();
    let mut cmd = Command::new(bin());
    // SAFETY: signal and setrlimit are async-signal-safe; nothing else runs before exec.
    unsafe {
        cmd.pre_exec(|| {
            for &(s, _) in CAUGHT {
                libc::signal(s, libc::SIG_DFL);
            }
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let mut child = cmd
        .args([
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "3000x8x3000",
            "--out",
            "big.csv",
        ])
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    loop {
        if dir.names().iter().any(|n| n.contains(".tmp-")) {
            break;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!("{name}: the write finished ({st}) before its temporary file was seen");
        }
        assert!(
            t.elapsed().as_secs() < 120,
            "{name}: no temporary file appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // Every signal that would end it is caught (while the write is under way); SIGPIPE stays
    // ignored, as Rust's runtime set it: a closed pipe is an error the program answers itself.
    let status = fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let caught = signal_set(&status, "SigCgt:");
    let missing: Vec<&str> = CAUGHT
        .iter()
        .filter(|(s, _)| !caught.contains(s))
        .map(|(_, n)| *n)
        .collect();
    assert!(missing.is_empty(), "{name}: not caught: {missing:?}");
    assert!(
        (libc::SIGRTMIN()..=libc::SIGRTMAX()).all(|s| caught.contains(&s)),
        "{name}: the real-time signals are not caught: {caught:?}"
    );
    assert!(
        signal_set(&status, "SigIgn:").contains(&libc::SIGPIPE) && !caught.contains(&libc::SIGPIPE),
        "{name}: SIGPIPE is no longer ignored"
    );
    let st = Command::new("kill")
        .args([&format!("-{sig}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(sig), "{name}: ended by {status}");
    let left: Vec<String> = dir
        .names()
        .into_iter()
        .filter(|n| n != "big.csv" && !n.starts_with("core"))
        .collect();
    assert!(left.is_empty(), "{name}: left behind {left:?}");
    assert_eq!(fs::read(&target).unwrap(), b"old contents", "{name}");
}

#[test]
fn a_signal_during_a_write_leaves_no_temporary_file() {
    for (sig, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGXFSZ, "SIGXFSZ"),
    ] {
        interrupt_a_write(sig, name);
    }
}

/// Every other signal whose default action ends the process removes the temporary file too,
/// and the process still ends by that signal: SIGQUIT (`Ctrl-\`), SIGUSR1, SIGUSR2, the timers
/// SIGALRM, SIGVTALRM and SIGPROF, and the CPU-time limit SIGXCPU.
#[test]
fn every_signal_that_ends_the_process_leaves_no_temporary_file() {
    for (sig, name) in [
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGXCPU, "SIGXCPU"),
    ] {
        interrupt_a_write(sig, name);
    }
}

/// A temporary file left by a process that no handler could clean up after (SIGKILL, a power
/// cut) is removed by the next write of the same target; a live process's temporary file, names
/// that only look like one, another target's and anything not a regular file stay.
#[test]
fn a_dead_processs_temporary_file_is_removed_by_the_next_write() {
    let dir = Scratch::new("stale");
    // A process id no process has now: a child that ran and was reaped.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    // This test's own process: alive, and never writing into this folder itself.
    let live = std::process::id();
    fs::write(dir.path("c.npy"), b"old").unwrap();
    let long = format!("{}.csv", "n".repeat(246));
    // The temporary name of the 250-character target, cut to fit NAME_MAX as the writer cuts it.
    let suffix = format!(".tmp-{dead}-0");
    let long_tmp = format!(
        ".{}{suffix}",
        &long[..long.len().min(255 - 1 - suffix.len())]
    );
    let stale = [
        format!(".c.npy.tmp-{dead}-0"),
        format!(".c.npy.tmp-{dead}-12"),
        long_tmp,
    ];
    let kept = [
        format!(".c.npy.tmp-{live}-3"),
        format!(".c.npy.tmp-{dead}-07"),
        format!(".c.npy.tmp-0{dead}-1"),
        format!(".c.npy.tmp-{dead}-0.bak"),
        format!("c.npy.tmp-{dead}-0"),
        format!(".d.npy.tmp-{dead}-0"),
        format!(".c.npy.tmp-{dead}"),
    ];
    for name in stale.iter().chain(&kept) {
        fs::write(dir.path(name), b"partial").unwrap();
    }
    // Named like a temporary file, but a link and a folder: not the writer's.
    std::os::unix::fs::symlink("c.npy", dir.path(&format!(".c.npy.tmp-{dead}-5"))).unwrap();
    fs::create_dir(dir.path(&format!(".c.npy.tmp-{dead}-6"))).unwrap();
    for out in ["c.npy", long.as_str()] {
        let run = dir.run(&[
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "2x3x4",
            "--out",
            out,
        ]);
        assert_ok(&run, &format!("multiply --out {out}"));
    }
    let mut want: Vec<String> = kept.to_vec();
    want.extend([
        "c.npy".to_string(),
        long.clone(),
        format!(".c.npy.tmp-{dead}-5"),
        format!(".c.npy.tmp-{dead}-6"),
    ]);
    want.sort();
    assert_eq!(dir.names(), want, "dead pid {dead}, live pid {live}");
}

/// `rendermm` run in `dir` with the given umask.
fn run_with_umask(dir: &Scratch, umask: libc::mode_t, args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(bin());
    // SAFETY: umask is async-signal-safe; nothing else runs before exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(umask);
            Ok(())
        });
    }
    cmd.args(args)
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap()
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().mode() & 0o7777
}

/// Replacing an output keeps the permission bits of the file it replaces (a private 0600 file
/// does not become 0644, a 0666 one is not narrowed by the umask), and its owner and group where
/// this user may set them (root); the temporary file holds that mode while the data is written
/// into it, so no moment has the data more readable than the target; a new file gets the mode
/// the umask gives.
#[test]
fn replacing_an_output_keeps_its_mode_and_owner() {
    let dir = Scratch::new("mode");
    let multiply = |out: &str| {
        [
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "3x3x3",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_string()])
        .collect::<Vec<String>>()
    };
    for mode in [0o600, 0o640, 0o604, 0o666] {
        let name = format!("m{mode:o}.npy");
        fs::write(dir.path(&name), b"old").unwrap();
        fs::set_permissions(dir.path(&name), fs::Permissions::from_mode(mode)).unwrap();
        let args = multiply(&name);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_ok(&run_with_umask(&dir, 0o022, &argv), &name);
        assert_eq!(
            mode_of(&dir.path(&name)),
            mode,
            "{name}: mode {:o}",
            mode_of(&dir.path(&name))
        );
        assert_eq!(
            rendermm::io::read_matrix(&dir.path(&name)).unwrap().shape(),
            (3, 3)
        );
    }
    for (umask, mode) in [(0o022, 0o644), (0o077, 0o600)] {
        let name = format!("new{umask:o}.npy");
        let args = multiply(&name);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_ok(&run_with_umask(&dir, umask, &argv), &name);
        assert_eq!(
            mode_of(&dir.path(&name)),
            mode,
            "{name} under umask {umask:o}"
        );
    }
    // While a large result is being written, its temporary file has the target's mode already.
    let big = dir.path("big.csv");
    fs::write(&big, b"old").unwrap();
    fs::set_permissions(&big, fs::Permissions::from_mode(0o600)).unwrap();
    let mut child = Command::new(bin())
        .args([
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "3000x8x3000",
            "--out",
            "big.csv",
        ])
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = None;
    while child.try_wait().unwrap().is_none() && seen.is_none() {
        seen = dir
            .names()
            .iter()
            .filter(|n| n.starts_with(".big.csv.tmp-"))
            .find_map(|n| fs::metadata(dir.path(n)).ok())
            .map(|m| (m.mode() & 0o7777, m.len()));
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(child.wait().unwrap().success());
    let (tmp_mode, len) = seen.expect("the write finished before its temporary file was seen");
    assert_eq!(
        tmp_mode, 0o600,
        "the temporary file had mode {tmp_mode:o} at {len} bytes"
    );
    assert_eq!(mode_of(&big), 0o600);
    if !is_root() {
        common::skip("the owner: giving a file to another user needs root");
        return;
    }
    let theirs = dir.path("theirs.npy");
    fs::write(&theirs, b"old").unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    fs::set_permissions(&theirs, fs::Permissions::from_mode(0o640)).unwrap();
    let args = multiply("theirs.npy");
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_ok(&dir.run(&argv), "multiply --out theirs.npy");
    let m = fs::metadata(&theirs).unwrap();
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (65534, 65534, 0o640));
}

/// Files and folders given `chattr +a` or `+i`, taken off again when dropped (also when the test
/// fails), so that the scratch folder can be removed.
struct Attrs(Vec<PathBuf>);

impl Attrs {
    /// `chattr {flag} path`; false, with the reason printed, where chattr is missing or fails
    /// (a file system without these flags).
    fn set(&mut self, flag: &str, path: &Path) -> bool {
        match Command::new("chattr").arg(flag).arg(path).output() {
            Ok(o) if o.status.success() => {
                self.0.push(path.to_path_buf());
                true
            }
            Ok(o) => {
                common::skip(&format!(
                    "chattr {flag} {} failed here: {}",
                    path.display(),
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
                false
            }
            Err(e) => {
                common::skip(&format!("chattr cannot be run here ({e})"));
                false
            }
        }
    }
}

impl Drop for Attrs {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            let _ = Command::new("chattr").args(["-a", "-i"]).arg(p).status();
        }
    }
}

/// An output in an append-only folder (`chattr +a`: a file in it can be created but never
/// renamed or removed), in an immutable one, or onto an append-only or immutable file, is refused
/// before any work in one line that says why (the rename would fail only after the work, and
/// leave a temporary file no one may remove); `tour --out` into such a folder too. Nothing there
/// changes.
#[test]
fn an_append_only_or_immutable_output_is_refused_before_work() {
    let dir = Scratch::new("chattr");
    let mut attrs = Attrs(vec![]);
    for d in ["ao", "im"] {
        fs::create_dir(dir.path(d)).unwrap();
    }
    fs::write(dir.path("ao/old.npy"), b"old").unwrap();
    fs::write(dir.path("f.npy"), b"append-only").unwrap();
    fs::write(dir.path("g.npy"), b"immutable").unwrap();
    if !(attrs.set("+a", &dir.path("ao"))
        && attrs.set("+i", &dir.path("im"))
        && attrs.set("+a", &dir.path("f.npy"))
        && attrs.set("+i", &dir.path("g.npy")))
    {
        return;
    }
    let cases = [
        (
            "ao/old.npy",
            "ao is append-only (chattr +a): a file in it can be created but never",
        ),
        ("ao/new.npy", "ao is append-only (chattr +a)"),
        ("f.npy", "f.npy: is append-only (chattr +a)"),
        ("g.npy", "g.npy: is immutable (chattr +i)"),
        ("im/x.npy", "im is immutable (chattr +i)"),
    ];
    for (out, why) in cases {
        let run = dir.run(&[
            "multiply", "--method", "lm", "--random", "4x4x4", "--out", out,
        ]);
        let line = assert_clean_error(&run, why);
        assert!(line.contains("write it elsewhere"), "{line}");
        assert!(
            !stderr(&run).contains("adapter:"),
            "{out}: refused only after work"
        );
    }
    for (out, why) in [("ao", "ao: is append-only"), ("im/sub", "im is immutable")] {
        let run = dir.run(&["tour", "--size", "9x7x5", "--out", out]);
        assert_clean_error(&run, why);
        assert!(
            !String::from_utf8_lossy(&run.stdout).contains("adapter:"),
            "tour --out {out}: refused only after work"
        );
    }
    assert_eq!(fs::read(dir.path("ao/old.npy")).unwrap(), b"old");
    assert_eq!(fs::read(dir.path("f.npy")).unwrap(), b"append-only");
    assert_eq!(fs::read(dir.path("g.npy")).unwrap(), b"immutable");
    assert_eq!(fs::read_dir(dir.path("ao")).unwrap().count(), 1);
    assert_eq!(fs::read_dir(dir.path("im")).unwrap().count(), 0);
}

/// Where the temporary file cannot be removed after a failure (its folder was made append-only
/// while the result was being written, so neither the rename nor the removal may happen), the
/// one error line names the file left behind instead of leaving it unsaid.
#[test]
fn a_temporary_file_that_cannot_be_removed_is_named_in_the_error() {
    let dir = Scratch::new("leftover");
    let mut attrs = Attrs(vec![]);
    let w = dir.path("w");
    fs::create_dir(&w).unwrap();
    fs::write(w.join("big.csv"), b"old contents").unwrap();
    let child = Command::new(bin())
        .args([
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "3000x8x3000",
            "--out",
            "w/big.csv",
        ])
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    let tmp = loop {
        let names: Vec<String> = fs::read_dir(&w)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        if let Some(n) = names.into_iter().find(|n| n.contains(".tmp-")) {
            break n;
        }
        assert!(t.elapsed().as_secs() < 120, "no temporary file appeared");
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let locked = attrs.set("+a", &w);
    let out = child.wait_with_output().unwrap();
    if !locked {
        return;
    }
    let line = assert_clean_error(&out, "is left behind: removing it failed");
    assert!(
        line.contains(&tmp) && line.contains("remove it by hand"),
        "{line}"
    );
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(fs::read(w.join("big.csv")).unwrap(), b"old contents");
    assert!(w.join(&tmp).exists(), "{tmp} is named but not there");
}

/// `tour --out` names a folder: a file (or a link to nothing) given there is refused before any
/// work in one line and stays as it was. A tour or a bench in which nothing ran (coop on an adapter without
/// cooperative matrices) fails with the status `multiply` gives for that cause (3, where bench
/// said 2) and leaves no folder it made: not `tour --out`, not `bench --plots`, `--json` or
/// `--csv`'s folders.
#[test]
fn a_tour_or_bench_that_fails_leaves_no_folder_of_its_own() {
    let dir = Scratch::new("tourout");
    fs::write(dir.path("A.npy"), b"keep").unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path("dangling")).unwrap();
    for (out, why) in [
        (
            "A.npy",
            "A.npy: is a file, not a folder: tour --out names the folder",
        ),
        ("A.npy/sub", "A.npy is not a folder"),
        ("dangling", "dangling: is a symbolic link to nowhere"),
        ("dangling/sub", "dangling is a symbolic link to nowhere"),
    ] {
        let run = dir.run(&["tour", "--size", "9x7x5", "--out", out]);
        assert_clean_error(&run, why);
        assert_eq!(run.status.code(), Some(4), "{out}");
        assert!(
            !String::from_utf8_lossy(&run.stdout).contains("adapter:"),
            "tour --out {out}: refused only after work"
        );
    }
    assert_eq!(fs::read(dir.path("A.npy")).unwrap(), b"keep");
    let multiply = dir.run(&["multiply", "--method", "coop", "--random", "9x7x5"]);
    if multiply.status.success() {
        println!("note: this adapter runs coop; no tour or bench fails here for want of it");
        return;
    }
    let tour = dir.run(&[
        "tour", "--method", "coop", "--size", "9x7x5", "--out", "t/u",
    ]);
    assert_clean_error(&tour, "tour: nothing ran; coop");
    assert_eq!(tour.status.code(), multiply.status.code(), "tour");
    let bench = dir.run(&[
        "bench",
        "--quick",
        "--methods",
        "coop",
        "--sizes",
        "8",
        "--plots",
        "p/plots",
        "--json",
        "j/x.json",
        "--csv",
        "c/d/x.csv",
    ]);
    assert_clean_error(&bench, "bench: nothing ran");
    assert_eq!(bench.status.code(), multiply.status.code(), "bench");
    assert_eq!(
        dir.names(),
        ["A.npy", "dangling"],
        "a failed run left folders behind"
    );
}

/// A replot of a sweep in which no row ran says so before anything is written: no `--json`
/// file, and none of the folders `--plots` and `--json` would have gone into.
#[test]
fn a_replot_of_a_sweep_where_nothing_ran_writes_nothing() {
    let dir = Scratch::new("replot-none");
    fs::write(
        dir.path("none.json"),
        r#"{"adapter": "x", "backend": "Vulkan", "rows": []}"#,
    )
    .unwrap();
    let run = dir.run(&[
        "bench",
        "--replot",
        "none.json",
        "--plots",
        "p/plots",
        "--json",
        "j/x.json",
    ]);
    assert_clean_error(&run, "nothing to plot");
    assert_eq!(
        dir.names(),
        ["none.json"],
        "a failed replot left files or folders behind"
    );
}

#[test]
fn a_signal_during_a_demo_gif_leaves_no_file() {
    // The GIF is built in memory while the demo renders: a signal mid-render leaves nothing.
    let dir = Scratch::new("signal-gif");
    let mut child = Command::new(bin())
        .args([
            "demo",
            "cube",
            "--headless",
            "--random",
            "24x24x24",
            "--gif",
            "d.gif",
        ])
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it is rendering (the adapter line comes first), then a little into the render.
    let mut err = child.stderr.take().unwrap();
    let mut first = [0u8; 8];
    use std::io::Read;
    let _ = err.read_exact(&mut first);
    std::thread::sleep(std::time::Duration::from_millis(800));
    let running = child.try_wait().unwrap().is_none();
    let _ = Command::new("kill")
        .args(["-15", &child.id().to_string()])
        .status();
    let _ = child.wait();
    if running {
        assert!(dir.names().is_empty(), "left behind {:?}", dir.names());
    } else {
        println!("note: the demo finished before the signal; nothing to interrupt");
    }
}

#[test]
fn a_legal_250_character_output_name_works() {
    let dir = Scratch::new("longname");
    let name = format!("{}.csv", "n".repeat(246));
    assert_eq!(name.len(), 250);
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "2x3x4",
        "--out",
        &name,
    ]);
    assert_ok(&out, "multiply --out <250 chars>");
    assert_eq!(
        rendermm::io::read_matrix(&dir.path(&name)).unwrap().shape(),
        (2, 4)
    );
    assert_eq!(dir.names(), [name]);
}

#[test]
fn figure_out_names_the_file_written_or_says_why_not() {
    let dir = Scratch::new("figure");
    fs::create_dir(dir.path("DIR")).unwrap();
    let out = dir.run(&["figure", "lm-fig2", "--out", "DIR"]);
    assert_clean_error(&out, "is a directory");
    let out = dir.run(&["figure", "lm-fig2", "--out", "x.gif"]);
    assert_clean_error(&out, ".png");
    let out = dir.run(&["figure", "lm-fig2", "--out", "noext"]);
    assert_clean_error(&out, ".png");
    let out = dir.run(&["figure", "hall-table1", "--out", "t.png"]);
    assert_clean_error(&out, ".md");
    assert_eq!(dir.names(), ["DIR"], "a figure was written elsewhere");
    assert_eq!(fs::read_dir(dir.path("DIR")).unwrap().count(), 0);
    // The name given is the name written, its case kept.
    let out = dir.run(&["figure", "hall-table1", "--out", "T.MD"]);
    assert_ok(&out, "figure hall-table1 --out T.MD");
    assert_eq!(dir.names(), ["DIR", "T.MD"]);
}

/// A float64 .npy file (format 1.0) of shape (rows, cols).
fn npy_f64(path: &Path, rows: usize, cols: usize, vals: &[f64]) {
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    fs::write(path, common::npy_with_header(&dict, &data)).unwrap();
}

#[test]
fn a_float64_value_past_f32_range_is_named_not_called_infinite() {
    let dir = Scratch::new("pastf32");
    npy_f64(&dir.path("A.npy"), 1, 2, &[1.0, 1e300]);
    npy_f64(&dir.path("B.npy"), 2, 1, &[1.0, 1.0]);
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--a",
        "A.npy",
        "--b",
        "B.npy",
    ]);
    assert_clean_error(&out, "past f32's range");
    assert!(stderr(&out).contains("1e300"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("non-finite"), "{}", stderr(&out));
    fs::write(dir.path("A.csv"), "1,2\n3,1e39\n").unwrap();
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--a",
        "A.csv",
        "--b",
        "A.csv",
    ]);
    assert_clean_error(
        &out,
        "line 2: column 2: \"1e39\" is past f32's range (largest ≈3.4e38)",
    );
}

#[test]
fn allow_nonfinite_check_holds_c_to_the_inputs_as_given() {
    let dir = Scratch::new("asgiven");
    // 1e300 · 1e-300 = 1: in f32 the inputs are inf and 0, whose product is NaN. A reference
    // built from the f32 inputs is NaN too and "agrees"; the true product does not.
    npy_f64(&dir.path("A.npy"), 1, 1, &[1e300]);
    npy_f64(&dir.path("B.npy"), 1, 1, &[1e-300]);
    npy_f64(&dir.path("one.npy"), 1, 1, &[1.0]);
    for method in ["cpu-naive", "cs-naive", "lm"] {
        for (b, why) in [
            ("B.npy", None),
            ("one.npy", Some("a float32 C cannot hold it")),
        ] {
            let out = dir.run(&[
                "multiply",
                "--method",
                method,
                "--a",
                "A.npy",
                "--b",
                b,
                "--allow-nonfinite",
                "--check",
                "--json",
            ]);
            let what = format!("{method} A · {b}");
            assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(r["check_passed"], false, "{what}: {r}");
            let notes = r["notes"].to_string();
            assert!(notes.contains("as given"), "{what}: {notes}");
            if let Some(why) = why {
                assert!(
                    notes.contains(why) && notes.contains("1e300"),
                    "{what}: {notes}"
                );
            }
        }
    }
    // Where the product as given is itself an infinity (1e300 · 1e300 overflows float64 too,
    // as numpy gives), an infinite C is right, and the check says so.
    let out = dir.run(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--a",
        "A.npy",
        "--b",
        "A.npy",
        "--allow-nonfinite",
        "--check",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["check_passed"], true, "{r}");
}

/// Run `args` in `dir` with at most 1 GiB of address space and 20 s, as a reader that reads
/// a whole endless input would need more of both.
fn run_bounded(dir: &Scratch, args: &[&str]) -> (Output, std::time::Duration) {
    use std::os::unix::process::CommandExt;
    let t = std::time::Instant::now();
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            let cpu = libc::rlimit {
                rlim_cur: 20,
                rlim_max: 20,
            };
            libc::setrlimit(libc::RLIMIT_CPU, &cpu);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    (out, t.elapsed())
}

#[test]
fn inputs_of_zeros_are_refused_after_a_few_bytes() {
    let dir = Scratch::new("zeros");
    std::os::unix::fs::symlink("/dev/zero", dir.path("z.npy")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path("z.csv")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path("z.txt")).unwrap();
    // 3 GiB of zeros (sparse: no disk used).
    for name in ["big.npy", "big.csv"] {
        fs::File::create(dir.path(name))
            .unwrap()
            .set_len(3 << 30)
            .unwrap();
    }
    fs::write(dir.path("b.csv"), "1\n").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "multiply",
                "--method",
                "cpu-naive",
                "--a",
                "z.npy",
                "--b",
                "b.csv",
            ],
            "not a .npy file",
        ),
        (
            &[
                "multiply",
                "--method",
                "cpu-naive",
                "--a",
                "big.npy",
                "--b",
                "b.csv",
            ],
            "not a .npy file",
        ),
        (
            &[
                "multiply",
                "--method",
                "cpu-naive",
                "--a",
                "z.csv",
                "--b",
                "b.csv",
            ],
            "NUL",
        ),
        (
            &[
                "multiply",
                "--method",
                "cpu-naive",
                "--a",
                "big.csv",
                "--b",
                "b.csv",
            ],
            "NUL",
        ),
        (
            &["reach", "--graph", "z.npy", "--closure"],
            "not a .npy file",
        ),
        (&["reach", "--graph", "z.txt", "--closure"], "NUL"),
    ];
    for (args, needle) in cases {
        let (out, took) = run_bounded(&dir, args);
        assert_clean_error(&out, needle);
        assert!(took.as_secs_f64() < 5.0, "{args:?} took {took:?}");
    }
}

#[test]
fn an_output_through_a_descriptor_is_written_after_what_was_printed_there() {
    // `--out /dev/fd/1` with stdout redirected to a file: C goes into that file through the
    // shell's descriptor (never a rename over it, never over the report from its start).
    let dir = Scratch::new("descriptor");
    let log = dir.path("stdout.txt");
    let file = fs::File::create(&log).unwrap();
    let ino = fs::metadata(&log).unwrap().ino();
    let out = Command::new(bin())
        .args([
            "multiply",
            "--method",
            "cpu-naive",
            "--random",
            "2x3x2",
            "--out",
            "/dev/fd/1",
        ])
        .current_dir(&dir.0)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::from(file))
        .output()
        .unwrap();
    assert_ok(&out, "multiply --out /dev/fd/1");
    assert_eq!(fs::metadata(&log).unwrap().ino(), ino);
    let text = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() > 2 && lines[..2].iter().all(|l| l.split(',').count() == 2),
        "C's two rows first: {text}"
    );
    assert!(
        text.contains("wrote") && text.contains("cpu-naive"),
        "{text}"
    );
    assert_eq!(dir.names(), ["stdout.txt"]);
}
