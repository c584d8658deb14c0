//! The blocks of a tiled product, run one after another: cut a tile of A and B out, multiply it
//! by the method's own way of summing a block's chunks of k on the GPU
//! ([`crate::methods::Method::chunks`]) or, for a method without one, a whole multiply per
//! chunk summed on the host in f64 ([`generic_block`]), and place the block of C.

use super::*;

/// The `rows × cols` block of `x` at (r0, c0).
pub(super) fn sub(x: &Matrix, r0: usize, rows: usize, c0: usize, cols: usize) -> Matrix {
    let mut data = Vec::with_capacity(rows * cols);
    for i in r0..r0 + rows {
        data.extend_from_slice(&x.data[i * x.cols + c0..i * x.cols + c0 + cols]);
    }
    Matrix {
        rows,
        cols,
        data: data.into(),
    }
}

/// Copy `blk` into `c` at (r0, c0).
pub(super) fn place(c: &mut Matrix, blk: &Matrix, r0: usize, c0: usize) {
    for i in 0..blk.rows {
        let at = (r0 + i) * c.cols + c0;
        c.data[at..at + blk.cols].copy_from_slice(&blk.data[i * blk.cols..(i + 1) * blk.cols]);
    }
}

/// One block of C by any other method: each chunk a whole multiply of the method; the chunks
/// summed on the host in f64.
pub(super) async fn generic_block(
    ctx: &GpuContext,
    method: Method,
    a: &[Matrix],
    b: &[Matrix],
    opts: &Options,
) -> Result<RunOutput> {
    let (m, n) = (a[0].rows, b[0].cols);
    let mut sum = vec![0f64; m * n];
    let mut t = Timings::default();
    let mut device = Some(0.0);
    let mut passes = 0;
    let mut notes = vec![];
    let mut last = None;
    let mut kernel: Option<RanKernel> = None;
    for (x, y) in a.iter().zip(b) {
        // Each tile fits whole (the plan chose it so): the method's own run, not tiled again.
        let o = Options {
            allow_nonfinite: true,
            ..opts.clone()
        };
        let out = super::super::run_whole(Some(ctx), method, x, y, &o, None, Vec::new()).await?;
        t.upload_ms += out.timings.upload_ms;
        t.compute_ms += out.timings.compute_ms;
        t.copy_ms += out.timings.copy_ms;
        let t2 = Instant::now();
        for (s, v) in sum.iter_mut().zip(&out.c.data) {
            *s += *v as f64;
        }
        t.readback_ms += out.timings.readback_ms + ms(t2);
        device = device.zip(out.timings.device_ms).map(|(d, s)| d + s);
        passes += out.passes;
        if notes.is_empty() {
            notes = out.notes.clone();
        }
        kernel = Some(out.kernel);
        last = Some(out.c);
    }
    t.device_ms = device;
    let c = match (a.len(), last) {
        // One chunk: the method's own f32 result, untouched.
        (1, Some(c)) => c,
        _ => Matrix {
            rows: m,
            cols: n,
            data: sum.iter().map(|&v| v as f32).collect(),
        },
    };
    let kernel = kernel
        .ok_or_else(|| Error::Internal(format!("{method}: a tiled block of no chunks of k")))?;
    Ok(RunOutput {
        c,
        passes,
        timings: t,
        notes,
        kernel,
    })
}
