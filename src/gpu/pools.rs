//! The context's pools of device memory, kept between products: `MAP_READ` staging buffers
//! for readbacks, mapped `MAP_WRITE` ones for uploads (re-mapped in the background once their
//! copy has run), the storage buffers dropped matrices give back, the poison source, and the
//! counts of what went through them. What fills and empties them (uploads, readbacks, the
//! poison copies) is the memory layer's ([`super::staging`], [`super::readback`]); here they are
//! only kept, bounded ([`POOL_BUFFERS`] buffers and [`POOL_MAX_BYTES`] a pool), so a
//! long-running process does not grow.

use crate::error::Result;
use std::sync::{Arc, Mutex};

/// Buffers kept per pool (read and write).
pub const POOL_BUFFERS: usize = 4;

/// Bytes a pool keeps in all (a larger staging buffer is used once and dropped).
pub const POOL_MAX_BYTES: u64 = 1 << 30;

/// Staging buffers kept between calls, and the poison source.
#[derive(Default)]
pub struct Staging {
    /// Unmapped `MAP_READ | COPY_DST` buffers.
    pub(super) read: Mutex<Vec<wgpu::Buffer>>,
    /// `MAP_WRITE | COPY_SRC` buffers that are mapped and ready to write.
    pub(super) write: Arc<Mutex<Vec<wgpu::Buffer>>>,
    /// The sizes of the write buffers given back whose mapping has not completed yet.
    pub(super) remapping: Arc<Mutex<Vec<u64>>>,
    pub(super) poison: Mutex<Option<wgpu::Buffer>>,
    /// Device storage buffers given back by dropped [`super::buffer::MatrixBuffer`]s, for the
    /// next buffer of the same size ([`Staging::take_storage`]).
    pub(super) storage: Arc<Mutex<Vec<wgpu::Buffer>>>,
    /// Bytes uploaded through this context so far ([`Staging::uploaded`]).
    pub(super) uploaded: std::sync::atomic::AtomicU64,
    /// Staging buffers created so far ([`Staging::created`]).
    pub(super) created: std::sync::atomic::AtomicU64,
    /// Readback buffers are not kept for reuse ([`Staging::read_once`]).
    pub(super) read_once: std::sync::atomic::AtomicBool,
}

pub(super) fn relock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Take the smallest pooled buffer of at least `size` bytes (and at most 4× it, so a small
/// read does not hold a huge buffer).
pub(super) fn take_fitting(pool: &mut Vec<wgpu::Buffer>, size: u64) -> Option<wgpu::Buffer> {
    let i = pool
        .iter()
        .enumerate()
        .filter(|(_, b)| fits(b.size(), size))
        .min_by_key(|(_, b)| b.size())
        .map(|(i, _)| i)?;
    Some(pool.swap_remove(i))
}

/// Whether a pooled buffer of `have` bytes serves a request for `size`: at least `size`, and at
/// most 4× it (or 64 KiB).
pub(super) fn fits(have: u64, size: u64) -> bool {
    have >= size && have <= size.saturating_mul(4).max(1 << 16)
}

/// Put `buf` back into `pool`, keeping the pool bounded: at most [`POOL_BUFFERS`] buffers and
/// [`POOL_MAX_BYTES`] in all (the smallest of the others goes first).
fn keep(pool: &mut Vec<wgpu::Buffer>, buf: wgpu::Buffer) {
    keep_within(pool, buf, POOL_BUFFERS, POOL_MAX_BYTES)
}

/// Storage buffers kept for reuse: a compute product allocates up to five (A as given, A laid
/// out, B, C, partial sums).
pub const STORAGE_POOL_BUFFERS: usize = 8;

/// Bytes the storage pool keeps in all.
pub const STORAGE_POOL_MAX_BYTES: u64 = 2 << 30;

/// [`keep`] with the bounds given.
fn keep_within(pool: &mut Vec<wgpu::Buffer>, buf: wgpu::Buffer, buffers: usize, bytes: u64) {
    if buf.size() > bytes {
        return;
    }
    // Make room first, so the buffer just given back is the one kept.
    while !pool.is_empty()
        && (pool.len() + 1 > buffers
            || pool.iter().map(|b| b.size()).sum::<u64>() + buf.size() > bytes)
    {
        let Some(smallest) = (0..pool.len()).min_by_key(|&i| pool[i].size()) else {
            break;
        };
        pool.swap_remove(smallest);
    }
    pool.push(buf);
}

/// Staging sizes are whole multiples of this (so that nearby sizes share buffers).
pub(super) fn rounded(size: u64) -> u64 {
    size.max(4).div_ceil(256) * 256
}

impl Staging {
    /// Bytes uploaded from the host through this context so far (the runner takes the
    /// difference across a recording as the run's `upload_bytes`).
    pub fn uploaded(&self) -> u64 {
        self.uploaded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many buffers the read and the write pools hold now.
    pub fn pooled(&self) -> (usize, usize) {
        (relock(&self.read).len(), relock(&self.write).len())
    }

    /// How many staging buffers this context has created (a reused one is not counted again).
    pub fn created(&self) -> u64 {
        self.created.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Count `bytes` uploaded another way (one not through [`Staging::upload`] or
    /// [`Staging::upload_texture`]).
    pub fn count_upload(&self, bytes: u64) {
        self.uploaded
            .fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// A storage buffer of exactly `size` bytes with `usage`: one a dropped matrix buffer gave
    /// back (its old contents still in it), or a new one made by `create`. Exactly: a binding
    /// covers the whole buffer, and a shader's `arrayLength` must not change.
    pub fn take_storage(
        &self,
        size: u64,
        usage: wgpu::BufferUsages,
        create: impl FnOnce() -> Result<wgpu::Buffer>,
    ) -> Result<wgpu::Buffer> {
        {
            let mut pool = relock(&self.storage);
            if let Some(i) = pool
                .iter()
                .position(|b| b.size() == size && b.usage() == usage)
            {
                return Ok(pool.swap_remove(i));
            }
        }
        create()
    }

    /// Where a dropped matrix buffer gives its storage back ([`give_storage`]).
    pub fn storage_pool(&self) -> Arc<Mutex<Vec<wgpu::Buffer>>> {
        self.storage.clone()
    }

    /// How many storage buffers the pool holds now, and their bytes.
    pub fn storage_pooled(&self) -> (usize, u64) {
        let pool = relock(&self.storage);
        (pool.len(), pool.iter().map(|b| b.size()).sum())
    }

    /// Give an unmapped read buffer back for the next readback.
    pub fn give_read(&self, buf: wgpu::Buffer) {
        if !self.read_once.load(std::sync::atomic::Ordering::Relaxed) {
            keep(&mut relock(&self.read), buf);
        }
    }

    /// Stop keeping readback buffers: in a browser on WebGL2 a `MAP_READ` buffer written again
    /// after it was fenced and read makes Chromium log a performance warning on every reuse, so
    /// there each readback takes a new buffer (the context sets this for that backend).
    pub fn read_once(&self) {
        self.read_once
            .store(true, std::sync::atomic::Ordering::Relaxed);
        relock(&self.read).clear();
    }

    /// Once the copies out of `buf` (submitted) have run, map it again and return it to the
    /// pool: the mapping completes at the next device poll, in the background.
    pub fn recycle_write(&self, buf: wgpu::Buffer) {
        if buf.size() > POOL_MAX_BYTES {
            return;
        }
        let pool = self.write.clone();
        let remapping = self.remapping.clone();
        let size = buf.size();
        relock(&remapping).push(size);
        let again = buf.clone();
        buf.map_async(wgpu::MapMode::Write, .., move |r| {
            {
                let mut pending = relock(&remapping);
                if let Some(i) = pending.iter().position(|&p| p == size) {
                    pending.swap_remove(i);
                }
            }
            if r.is_ok() {
                keep(&mut relock(&pool), again);
            }
        });
    }
}

/// Give a storage buffer back to `pool` (bounded by [`STORAGE_POOL_BUFFERS`] and
/// [`STORAGE_POOL_MAX_BYTES`]). Work already submitted that uses it runs before any later use:
/// the queue keeps submission order.
pub fn give_storage(pool: &Mutex<Vec<wgpu::Buffer>>, buf: wgpu::Buffer) {
    keep_within(
        &mut relock(pool),
        buf,
        STORAGE_POOL_BUFFERS,
        STORAGE_POOL_MAX_BYTES,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_sizes_are_whole_multiples_of_256_bytes() {
        assert_eq!(rounded(1), 256);
        assert_eq!(rounded(256), 256);
        assert_eq!(rounded(257), 512);
    }
}
