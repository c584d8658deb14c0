//! The GPU harness, in three layers, each file importing only from its own layer's earlier
//! files and from the layers before it (`tests/layers.rs` holds the table):
//!
//! 1. the device — [`cache`] (pipelines kept per device), [`pipeline`] (bind-group and pass
//!    helpers), [`loop_cap`] (what the driver's loop caps are), [`pools`] (the staging and
//!    storage buffers kept between products), [`context`] (adapter, device, error scopes),
//!    [`wait`] (waiting on the device), [`probe`] (the loop-cap probe);
//! 2. memory — [`host`] (threaded host copies), [`batch`] (submissions gathered while operands
//!    are made), [`staging`] (uploads through mapped memory, the poison), [`buffer`] (matrices
//!    as storage buffers), [`texture`] (matrices as textures, 256-byte row padding),
//!    [`readback`] (reading results back);
//! 3. execution — [`submit`] (submissions of the layers above the methods), [`timer`] (GPU
//!    timestamps), [`run`] (the runner: submission, waits, timings),
//!    [`compute`] (compute dispatch), [`layout`] (the operands' layout pass).
//!
//! Methods only describe their passes.

pub mod batch;
pub mod buffer;
pub mod cache;
pub mod compute;
pub mod context;
pub mod host;
pub mod layout;
pub mod loop_cap;
pub mod pipeline;
pub mod pools;
pub mod probe;
pub mod readback;
pub mod run;
pub mod staging;
pub mod submit;
pub mod texture;
pub mod timer;
pub mod wait;

#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use context::{AdapterSummary, GpuContext};
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use texture::{MatrixTexture, ScalarFormat};
