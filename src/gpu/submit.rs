//! Submitting work outside the runner: what the layers above the methods (the reachability
//! runs, the demos' drawing and copies, the ceilings' timed loops) hand to the queue themselves.
//! Every submission of the library goes through the harness — the runner ([`super::run`]), the
//! batch of an operand's uploads ([`super::batch`]), or these — so none is made above `gpu/`.

use super::context::GpuContext;
use crate::error::Result;

/// Submit `commands` to `ctx`'s queue now, in order, without waiting for them (an empty list
/// flushes what `Queue::write_buffer` and `write_texture` have queued).
pub fn submit(ctx: &GpuContext, commands: impl IntoIterator<Item = wgpu::CommandBuffer>) {
    ctx.queue.submit(commands);
}

/// Submit `commands` and wait until every submitted command buffer has run
/// ([`GpuContext::wait`], a blocking device poll); an error if the device was lost meanwhile.
pub fn submit_and_wait(
    ctx: &GpuContext,
    commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
) -> Result<()> {
    submit(ctx, commands);
    ctx.wait()
}
