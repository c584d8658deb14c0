//! What the canvas shows of a run: the passes captured on the GPU for a replay (no readback per
//! pass), then the last pass or the result, drawn with the demo's renderer.

use super::*;

/// Keeps the passes for the replay while the method runs: a GPU copy of the running sum after
/// each kept pass, nothing read back and nothing drawn (the replay draws them afterwards).
pub(crate) struct Capture {
    pub(crate) kind: Kind,
    /// (pass, running sums after it: [the one it wrote, the one before]).
    pub(crate) snapshots: Vec<(usize, [wgpu::Texture; 2])>,
    /// The running sum after the last pass seen (what the next pass of a ping-pong method reads).
    pub(crate) last: Option<wgpu::Texture>,
    pub(crate) passes: usize,
}

impl Observer for Capture {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()> {
        self.passes = passes;
        // Keep every pass up to MAX_SNAPSHOTS (and SNAPSHOT_BYTES of GPU memory, two sums a pass
        // for a ping-pong method), else an even spread, the first and the last.
        let per_pass = if self.kind.ping_pong() { 2 } else { 1 };
        let bytes = (acc.rows * acc.cols) as u64 * acc.bytes_per_texel() as u64 * per_pass;
        let room = (SNAPSHOT_BYTES / bytes.max(1)).clamp(2, MAX_SNAPSHOTS as u64) as usize;
        let every = passes.div_ceil(room).max(1);
        let keep = pass.is_multiple_of(every) || pass == passes || pass == 1;
        // A frame shows the sum the pass read too: the one after the pass before a kept one.
        let before_kept = (pass + 1).is_multiple_of(every) || pass + 1 == passes;
        if !keep && !before_kept {
            self.last = None;
            return Ok(());
        }
        let snap = frame::snapshot_texture(ctx, acc)?;
        if keep {
            let before = match self.last.take() {
                Some(t) => t,
                None => frame::blank_like(ctx, acc)?,
            };
            self.snapshots.push((pass, [snap.clone(), before]));
        }
        self.last = Some(snap);
        Ok(())
    }
}

/// What the canvas shows of a finished run: its last pass (or its result), then the replay.
pub(crate) struct Show {
    pub(crate) gpu: Rc<Gpu>,
    pub(crate) page: Page,
    pub(crate) req: Request,
    /// The method whose kernel ran (the one asked, or the one it handed the product to).
    pub(crate) ran: Method,
    pub(crate) id: u64,
    pub(crate) inputs: Inputs,
    /// The f64 product where the run was checked in full (the picture's C), else none.
    pub(crate) reference: Option<Rc<rendermm::check::Reference>>,
    pub(crate) c: Matrix,
    pub(crate) passes: usize,
    pub(crate) capture: Capture,
    /// The status's plain line, drawn at the bottom of the last frame.
    pub(crate) status: String,
}

impl Show {
    /// Draw the result, or replay the passes. The caller holds the page busy (`Busy::show`)
    /// from before this task is spawned until it ends.
    pub(crate) async fn run(mut self) -> Result<()> {
        let current = |id: u64| LATEST.with(|l| l.get()) == id;
        let ctx = self.gpu.ctx.clone();
        // The picture's product: the f64 reference where there is one, else C itself (a large
        // product checked on sampled elements).
        let product = match &self.reference {
            Some(r) => Matrix {
                rows: self.req.m,
                cols: self.req.n,
                data: r.c.iter().map(|&v| v as f32).collect(),
            },
            None => self.c.clone(),
        };
        let scene = Scene::build(
            &ctx,
            // The block that ran, so the frame's labels name it; the method whose kernel ran.
            &Settings {
                kind: Kind::of(self.ran),
                block: block_for(&self.req),
                ..settings_for(&self.req)
            },
            &self.inputs,
            self.req.precision,
            Some(&product),
        )?;
        let screen = frame::Screen {
            ctx: ctx.clone(),
            canvas2d: self.page.canvas2d()?,
            size: CANVAS,
        };
        let mut snapshots = std::mem::take(&mut self.capture.snapshots);
        let passes = if snapshots.is_empty() {
            // Not watched pass by pass (no replay, or frag-mrt and the compute era): C itself,
            // laid out as the method keeps its sum (Hall's packed method: the four quadrants in
            // the four channels, eq. 8), so the frame shows it as a replay's last pass would.
            let c = if scene.settings.kind == Kind::Packed {
                rendermm::methods::hall_common::upload_packed(&ctx, "page C (packed)", &self.c)?
            } else {
                MatrixTexture::upload(&ctx, "page C", &self.c, ScalarFormat::R32Float)?
            };
            snapshots.push((self.passes, [c.texture.clone(), c.texture]));
            self.passes
        } else {
            self.capture.passes
        };
        let draw = |p: usize, sums: &[wgpu::Texture; 2]| -> Result<()> {
            let slot = scene.settings.kind.shown_slot(p);
            let mut shown = [&sums[1], &sums[1]];
            shown[slot] = &sums[0];
            let mut frame = scene.frame(shown, p, passes);
            if p >= passes {
                frame.status = Some(self.status.clone());
            }
            let mut renderer = self.gpu.renderer.borrow_mut();
            if renderer.is_none() {
                *renderer = Some(Renderer::new(&ctx)?);
            }
            let r = renderer.as_mut().expect("built above");
            screen.show(r, &frame)?;
            self.page.mark(p, passes);
            Ok(())
        };
        if !self.req.replays() {
            if let Some((p, sums)) = snapshots.last() {
                draw(*p, sums)?;
            }
            self.mark_when_shown("done").await;
            return Ok(());
        }
        // The replay: the kept passes, `pace` ms each, stopping at pass `hold` if given.
        let (pace, hold) = (self.req.pace, self.req.hold);
        for (p, sums) in &snapshots {
            if !current(self.id) || hold.is_some_and(|h| *p > h) {
                break;
            }
            draw(*p, sums)?;
            if hold == Some(*p) {
                self.mark_when_shown("held").await;
                return Ok(());
            }
            sleep(pace.max(16)).await;
        }
        self.mark_when_shown("done").await;
        Ok(())
    }

    /// Let the frames drawn so far reach the canvas (at most 5 s), then mark it `state`, if
    /// this is still the latest run: a test that reads the canvas once it says `done` or `held`
    /// sees the frame that state names.
    async fn mark_when_shown(&self, state: &str) {
        for _ in 0..500 {
            if frame::pending() == 0 {
                break;
            }
            sleep(10).await;
        }
        sleep(50).await;
        if LATEST.with(|l| l.get()) == self.id {
            canvas_state(&self.page, state);
        }
    }
}
