//! The GPU harness: context (adapter, device, error scopes), textures (upload, readback with
//! 256-byte row padding) and timing. Methods only describe their passes.

pub mod context;
pub mod texture;

pub use context::{AdapterSummary, GpuContext};
pub use texture::{MatrixTexture, ScalarFormat};
