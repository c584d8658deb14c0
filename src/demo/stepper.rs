//! Runs the real method one pass at a time on a worker thread, for the demos to show.
//!
//! The method is the library's own [`plan::multiply`] with an [`Observer`]: after pass p the
//! observer waits until the demo asks for pass p (the rendezvous), copies the accumulation texture
//! into the demo's `shown` texture on the GPU, reports, and returns, so the method goes on to
//! compute pass p + 1 while the demo draws pass p. Nothing here re-implements a pass: what the
//! demos draw is the framebuffer the method itself rendered into.
//!
//! Ping-pong (Hall–Carr–Hart §3): pass p (1-based) reads texture (p − 1) mod 2 and writes
//! texture p mod 2, so the observer copies the written one into `shown[p mod 2]`; `shown[(p + 1)
//! mod 2]` still holds what the previous pass wrote, which is exactly what pass p read.

use super::Kind;
use crate::check::Verdict;
use crate::error::{Error, Result};
use crate::gpu::submit::submit;
use crate::gpu::texture::extent;
use crate::gpu::{GpuContext, MatrixTexture};
use crate::matrix::Matrix;
use crate::methods::{Accumulate, Method, Observer};
use crate::plan::{self, Options};
use crate::precision::Precision;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// What one run of a method is asked to do.
#[derive(Clone, Debug)]
pub struct Job {
    pub method: Method,
    pub a: Matrix,
    pub b: Matrix,
    pub precision: Precision,
    pub scale_by_depth: bool,
    /// Hall–Carr–Hart block size.
    pub block: Option<u32>,
}

/// What the worker reports.
#[derive(Debug)]
enum Report {
    /// Pass `pass` of `passes` is in `shown[slot]`.
    Shown { pass: usize, passes: usize },
    /// The run finished; its result checked against the CPU.
    Finished(Box<Verdict>),
    /// The run failed (or was stopped).
    Failed(String),
}

/// How a stepped run stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// Waiting for the next pass.
    Running,
    /// All passes shown and the result checked.
    Done,
    /// The method returned an error.
    Failed(String),
}

/// A method running pass by pass on its own thread.
pub struct Stepper {
    go: Option<Sender<()>>,
    reports: Receiver<Report>,
    handle: Option<JoinHandle<()>>,
    /// Passes shown so far.
    pub pass: usize,
    /// Passes of the whole run, once the first pass has reported (0 before).
    pub passes: usize,
    pub progress: Progress,
    /// The check against the f64 CPU reference, once done.
    pub verdict: Option<Verdict>,
}

struct ShowObserver {
    go: Receiver<()>,
    reports: Sender<Report>,
    shown: [wgpu::Texture; 2],
    kind: Kind,
}

impl Observer for ShowObserver {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()> {
        // The rendezvous: the demo asks for each pass. A closed channel means it went away.
        self.go
            .recv()
            .map_err(|_| Error::Invalid("demo stopped before the last pass".into()))?;
        let dst = &self.shown[self.kind.shown_slot(pass)];
        if dst.format() != acc.format
            || (dst.width() as usize, dst.height() as usize) != (acc.cols, acc.rows)
        {
            return Err(Error::Internal(format!(
                "demo: pass {pass} left a {:?} {}x{} texture, the demo expected {:?} {}x{}",
                acc.format,
                acc.cols,
                acc.rows,
                dst.format(),
                dst.width(),
                dst.height()
            )));
        }
        ctx.scoped("copying the running sum for the demo", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.copy_texture_to_texture(
                acc.texture.as_image_copy(),
                dst.as_image_copy(),
                extent(acc.rows, acc.cols),
            );
            submit(ctx, [enc.finish()]);
            Ok(())
        })?;
        let _ = self.reports.send(Report::Shown { pass, passes });
        Ok(())
    }
}

impl Stepper {
    /// Start `job` on a worker thread. Its passes land in `shown` (`shown[0]` only, unless the
    /// method ping-pongs), which must have the format and size of the method's accumulation
    /// texture. Pass 1 is computed at once and shown when [`Stepper::step`] first asks.
    pub fn start(ctx: Arc<GpuContext>, job: Job, shown: [wgpu::Texture; 2]) -> Result<Self> {
        let (go_tx, go_rx) = mpsc::channel();
        let (rep_tx, rep_rx) = mpsc::channel();
        let kind = Kind::of(job.method);
        let handle = std::thread::Builder::new()
            .name("rendermm demo method".into())
            .spawn(move || {
                let mut obs = ShowObserver {
                    go: go_rx,
                    reports: rep_tx.clone(),
                    shown,
                    kind,
                };
                let opts = Options {
                    precision: job.precision,
                    scale_by_depth: job.scale_by_depth,
                    block: job.block,
                    accumulate: Accumulate::PingPong,
                    ..Default::default()
                };
                let req = plan::Request::new(job.method, &job.a, &job.b)
                    .options(opts)
                    .observed(&mut obs);
                let report = match plan::multiply(Some(&ctx), req) {
                    Ok(out) => Report::Finished(Box::new(out.verdict(&job.a, &job.b))),
                    Err(e) => Report::Failed(e.to_string()),
                };
                let _ = rep_tx.send(report);
            })
            .map_err(|e| {
                Error::Invalid(format!("could not start the demo's worker thread: {e}"))
            })?;
        Ok(Self {
            go: Some(go_tx),
            reports: rep_rx,
            handle: Some(handle),
            pass: 0,
            passes: 0,
            progress: Progress::Running,
            verdict: None,
        })
    }

    /// Ask for the next pass and wait (up to `timeout`) until it is in the shown texture.
    /// Returns whether a new pass is shown.
    pub fn step(&mut self, timeout: Duration) -> bool {
        if self.progress != Progress::Running || (self.passes > 0 && self.pass >= self.passes) {
            return false;
        }
        if let Some(go) = &self.go {
            let _ = go.send(());
        }
        loop {
            match self.reports.recv_timeout(timeout) {
                Ok(r) => {
                    let shown = matches!(r, Report::Shown { .. });
                    self.apply(r);
                    if shown || self.progress != Progress::Running {
                        return shown;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.progress =
                        Progress::Failed(format!("no pass reported within {timeout:?}"));
                    return false;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.progress =
                        Progress::Failed("the method's thread ended without a result".into());
                    return false;
                }
            }
        }
    }

    /// Take in reports that arrived meanwhile (the verdict after the last pass).
    pub fn poll(&mut self) {
        while let Ok(r) = self.reports.try_recv() {
            self.apply(r);
        }
    }

    /// Wait up to `timeout` for the run to finish after its last pass.
    pub fn wait_done(&mut self, timeout: Duration) -> &Progress {
        while self.progress == Progress::Running {
            match self.reports.recv_timeout(timeout) {
                Ok(r) => self.apply(r),
                Err(_) => {
                    self.progress = Progress::Failed(format!("no result within {timeout:?}"));
                }
            }
        }
        &self.progress
    }

    fn apply(&mut self, r: Report) {
        match r {
            Report::Shown { pass, passes } => {
                self.pass = pass;
                self.passes = passes;
            }
            Report::Finished(v) => {
                self.verdict = Some(*v);
                self.progress = Progress::Done;
            }
            Report::Failed(msg) => self.progress = Progress::Failed(msg),
        }
    }
}

impl Drop for Stepper {
    fn drop(&mut self) {
        // Closing the channel makes the observer return an error, which ends the run.
        self.go = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
