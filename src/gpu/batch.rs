//! Submissions gathered while a method makes its operands: the copies out of the staging
//! buffers, the layout pass and the output's poison, each its own command buffer, go to the
//! queue in one [`wgpu::Queue::submit`] at the end ([`batched`]), in the order they were made.
//!
//! On the H200 each submission of a 1024² cs-fast product's four (A's copy, A's layout pass,
//! B's copy, C's poison) took 0.04–0.13 ms of the host's time, about a fifth of the upload.
//! Every part of the harness that submits while operands are made goes through [`submit`], so
//! nothing it submits can overtake what the batch holds; outside a batch [`submit`] submits at
//! once. The batch is the calling thread's own: two threads multiplying on one context do not
//! mix their submissions.

use super::context::GpuContext;
use crate::error::Result;
#[cfg(not(target_arch = "wasm32"))]
use std::cell::RefCell;

// In a browser an upload is a `writeBuffer` the browser stages itself, with no submission of
// ours ([`super::staging::Staging::upload`]): there is nothing to gather, and every call below
// passes straight through.
#[cfg(target_arch = "wasm32")]
pub fn batched<T>(_ctx: &GpuContext, f: impl FnOnce() -> Result<T>) -> Result<T> {
    f()
}

#[cfg(target_arch = "wasm32")]
pub fn submit(ctx: &GpuContext, commands: impl IntoIterator<Item = wgpu::CommandBuffer>) {
    ctx.queue.submit(commands);
}

#[cfg(target_arch = "wasm32")]
pub fn after_submit(_ctx: &GpuContext, buffer: wgpu::Buffer) -> Option<wgpu::Buffer> {
    Some(buffer)
}

#[cfg(not(target_arch = "wasm32"))]
/// This thread's gathered submissions to one context, and the staging buffers to hand back to
/// the pool once they are submitted.
struct Batch {
    ctx: usize,
    commands: Vec<wgpu::CommandBuffer>,
    recycle: Vec<wgpu::Buffer>,
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    static BATCH: RefCell<Option<Batch>> = const { RefCell::new(None) };
}

#[cfg(not(target_arch = "wasm32"))]
fn id(ctx: &GpuContext) -> usize {
    std::ptr::from_ref(ctx) as usize
}

#[cfg(not(target_arch = "wasm32"))]
/// Run `f` with this thread's submissions to `ctx` gathered, then submit them in one call, in
/// order (where `f` succeeded; a failed `f`'s are dropped unsubmitted). Inside another batch,
/// `f` simply joins it.
pub fn batched<T>(ctx: &GpuContext, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let nested = BATCH.with(|b| b.borrow().is_some());
    if nested {
        return f();
    }
    BATCH.with(|b| {
        *b.borrow_mut() = Some(Batch {
            ctx: id(ctx),
            commands: Vec::new(),
            recycle: Vec::new(),
        })
    });
    let out = f();
    let Some(batch) = BATCH.with(|b| b.borrow_mut().take()) else {
        return out;
    };
    let submitted = match (&out, batch.commands.is_empty()) {
        (Ok(_), false) => ctx.scoped("submitting the operands' uploads", || {
            ctx.queue.submit(batch.commands);
            Ok(())
        }),
        _ => Ok(()),
    };
    for buffer in batch.recycle {
        ctx.staging.recycle_write(buffer);
    }
    submitted?;
    out
}

#[cfg(not(target_arch = "wasm32"))]
/// Submit `commands` to `ctx`'s queue now, or, inside a [`batched`] call on this thread for
/// `ctx`, add them to its batch.
pub fn submit(ctx: &GpuContext, commands: impl IntoIterator<Item = wgpu::CommandBuffer>) {
    let rest = BATCH.with(|b| match b.borrow_mut().as_mut() {
        Some(batch) if batch.ctx == id(ctx) => {
            batch.commands.extend(commands);
            None
        }
        _ => Some(commands),
    });
    if let Some(commands) = rest {
        ctx.queue.submit(commands);
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// Whether a staging buffer whose copy was just [`submit`]ted must wait for the batch to be
/// submitted before it goes back to the pool (it is kept until then, and `Some` is handed
/// back to recycle now).
pub fn after_submit(ctx: &GpuContext, buffer: wgpu::Buffer) -> Option<wgpu::Buffer> {
    BATCH.with(|b| match b.borrow_mut().as_mut() {
        Some(batch) if batch.ctx == id(ctx) => {
            batch.recycle.push(buffer);
            None
        }
        _ => Some(buffer),
    })
}
