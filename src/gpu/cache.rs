//! Pipelines kept for the life of a context, so the second product of a kind pays no compile.
//!
//! Building a pipeline is the one fixed cost of a product that does not shrink with its size:
//! the driver compiles the shader for the GPU (cs-fast's large kernel took the H100's driver
//! 0.6–1.1 s the first time, 4–7 ms after), and a browser does it again for every click of a page
//! that rebuilds everything. A context keeps every pipeline it built under what determines it —
//! the shader's source and entry point, its overridable constants and whether its bounds checks
//! are off for a compute kernel; the method's own key (formats, channels, depth, block shape)
//! for a render pipeline — and hands the same one back. Pipelines hold no per-product state
//! (bind groups and buffers are made per product), so sharing them across products and threads
//! is what wgpu means them for. The cache only grows: a process builds each kind once.

use crate::error::Result;
use std::any::Any;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a cached pipeline is stored as (an `Arc<T>` inside): shared across threads natively; in
/// a browser, where wgpu's objects are not `Send`, one thread is all there is.
#[cfg(not(target_arch = "wasm32"))]
type Item = Box<dyn Any + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type Item = Box<dyn Any>;

/// The compute harness's one bind-group layout (A, B, C or scratch, the dimensions) and its
/// pipeline layout.
pub struct ComputeLayout {
    pub bind_group: wgpu::BindGroupLayout,
    pub pipeline: wgpu::PipelineLayout,
}

/// A context's pipelines (see the module's doc).
#[derive(Default)]
pub struct PipelineCache {
    compute_layout: OnceLock<ComputeLayout>,
    items: Mutex<HashMap<u64, Item>>,
    built: AtomicUsize,
    compiled: AtomicUsize,
}

/// The key of a pipeline: the hash of what determines it, with the type of the thing cached
/// (two kinds of pipeline never share a key).
fn key_of<T: Any, K: Hash>(key: &K) -> u64 {
    let mut h = DefaultHasher::new();
    std::any::TypeId::of::<T>().hash(&mut h);
    key.hash(&mut h);
    h.finish()
}

impl PipelineCache {
    /// The compute harness's layouts, made by `make` on first use.
    pub fn compute_layout(
        &self,
        make: impl FnOnce() -> Result<ComputeLayout>,
    ) -> Result<&ComputeLayout> {
        if let Some(l) = self.compute_layout.get() {
            return Ok(l);
        }
        let made = make()?;
        // Two threads may both have made one: the first kept is everyone's.
        Ok(self.compute_layout.get_or_init(|| made))
    }

    /// Pipelines built so far (each kind once): a test's proof that a second product of the
    /// same kind built none.
    pub fn built(&self) -> usize {
        self.built.load(Ordering::Relaxed)
    }

    /// Shader modules compiled on this context so far, cached or not (every module goes through
    /// `GpuContext::shader` or `shader_trusted`): a test's proof that a second product compiled
    /// nothing, whichever way its method builds pipelines.
    pub fn compiled(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// Count one shader module compiled.
    pub(crate) fn note_compiled(&self) {
        self.compiled.fetch_add(1, Ordering::Relaxed);
    }

    fn lookup<T: Any>(&self, key: u64) -> Option<Arc<T>> {
        let items = self.items.lock().unwrap_or_else(|p| p.into_inner());
        items.get(&key)?.downcast_ref::<Arc<T>>().cloned()
    }

    /// Keep `built` under `key` and count it; if another thread kept one first, that one is
    /// everyone's.
    fn keep<T: Any>(&self, key: u64, built: Arc<T>, boxed: impl FnOnce(Arc<T>) -> Item) -> Arc<T> {
        let mut items = self.items.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kept) = items.get(&key).and_then(|i| i.downcast_ref::<Arc<T>>()) {
            return kept.clone();
        }
        self.built.fetch_add(1, Ordering::Relaxed);
        items.insert(key, boxed(built.clone()));
        built
    }
}

impl PipelineCache {
    /// [`PipelineCache::get_or_build`]'s body: `boxed` stores the `Arc<T>` as an [`Item`].
    fn get_or_build_boxed<T: Any, K: Hash>(
        &self,
        key: &K,
        build: impl FnOnce() -> Result<T>,
        boxed: impl FnOnce(Arc<T>) -> Item,
    ) -> Result<Arc<T>> {
        let key = key_of::<T, K>(key);
        if let Some(kept) = self.lookup::<T>(key) {
            return Ok(kept);
        }
        let built = Arc::new(build()?);
        Ok(self.keep(key, built, boxed))
    }

    /// The pipeline (or pipelines, any `T`) that `key` determines: the one built before, or
    /// `build`'s, kept for the next product. `build` runs outside the cache's lock, so a long
    /// compile on one thread holds no other thread up.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn get_or_build<T: Any + Send + Sync, K: Hash>(
        &self,
        key: &K,
        build: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        self.get_or_build_boxed(key, build, |b| Box::new(b))
    }

    /// The pipeline (or pipelines, any `T`) that `key` determines: the one built before, or
    /// `build`'s, kept for the next product (a browser has one thread).
    #[cfg(target_arch = "wasm32")]
    pub fn get_or_build<T: Any, K: Hash>(
        &self,
        key: &K,
        build: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        self.get_or_build_boxed(key, build, |b| Box::new(b))
    }
}

/// What determines a compute kernel's pipeline: its shader (source and entry point), its
/// overridable constants, and whether it was compiled with the runtime bounds checks off.
#[derive(Hash)]
pub struct ComputeKey<'a> {
    pub file: &'a str,
    pub source: &'a str,
    pub entry: &'a str,
    /// The constants' values by their bits (f64 is not `Hash`).
    pub constants: Vec<(&'a str, u64)>,
    pub trusted: bool,
}
