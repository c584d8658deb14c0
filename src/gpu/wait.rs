//! Waiting on the device: [`settle`] (every submitted command buffer has run), [`map`] and
//! [`map_read`] (a `MAP_READ` buffer's mapping, awaited), and the one-shot channel a wgpu
//! callback completes. In a browser each wait is a trip through the page's event loop (on WebGL2
//! until the page next polls wgpu's fences); natively it is a blocking device poll
//! ([`GpuContext::wait`]).

use super::context::GpuContext;
use crate::error::{Error, Result};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// Wait until every submitted command buffer has run.
pub async fn settle(ctx: &GpuContext) -> Result<()> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        ctx.wait()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let (tx, rx) = oneshot();
        ctx.queue.on_submitted_work_done(move || tx(()));
        rx.await;
        ctx.check_lost()
    }
}

/// Map `buffer` for reading and wait until it is mapped.
pub async fn map(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<()> {
    let (tx, rx) = oneshot();
    buffer.map_async(wgpu::MapMode::Read, .., tx);
    #[cfg(not(target_arch = "wasm32"))]
    ctx.wait()?;
    rx.await.map_err(|e| Error::Readback(e.to_string()))?;
    ctx.check_lost()
}

/// Map a `MAP_READ` buffer, await it, and hand its bytes to `f`.
pub async fn map_read<T>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    f: impl FnOnce(&[u8]) -> T,
) -> Result<T> {
    map(ctx, buffer).await?;
    let out = {
        let view = buffer
            .get_mapped_range(..)
            .map_err(|e| Error::Readback(e.to_string()))?;
        f(&view)
    };
    buffer.unmap();
    Ok(out)
}

/// A one-shot channel whose receiver is a future: what a wgpu callback completes.
pub fn oneshot<T: Send + 'static>() -> (impl FnOnce(T) + Send + 'static, impl Future<Output = T>) {
    let shared: Arc<Mutex<(Option<T>, Option<Waker>)>> = Arc::new(Mutex::new((None, None)));
    let tx = {
        let shared = shared.clone();
        move |v: T| {
            let mut s = shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            s.0 = Some(v);
            if let Some(w) = s.1.take() {
                w.wake();
            }
        }
    };
    let rx = std::future::poll_fn(move |cx| {
        let mut s = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match s.0.take() {
            Some(v) => Poll::Ready(v),
            None => {
                s.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    });
    (tx, rx)
}
