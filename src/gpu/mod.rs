//! The GPU harness: context (adapter, device, error scopes), textures (upload, readback with
//! 256-byte row padding), storage buffers and
//! compute dispatch, and timing. Methods only describe their passes.

pub mod batch;
pub mod buffer;
pub mod cache;
pub mod compute;
pub mod context;
pub mod host;
pub mod layout;
pub mod loop_cap;
pub mod pipeline;
pub mod readback;
pub mod run;
pub mod staging;
pub mod texture;
pub mod timer;

pub use context::{AdapterSummary, GpuContext};
pub use texture::{MatrixTexture, ScalarFormat};
