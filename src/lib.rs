//! rendermm: matrix multiplication through real render pipelines (Larsen–McAllister 2001,
//! Hall–Carr–Hart 2003) beside the compute-era methods, on one GPU, checked against the CPU.

pub mod bench;
pub mod check;
pub mod cpu;
pub mod demo;
pub mod error;
pub mod io;
pub mod matrix;

pub use error::{Error, Result};
pub use matrix::Matrix;
pub mod ceilings;
pub mod figures;
pub mod gpu;
pub mod graph;
pub mod ladder;
pub mod methods;
pub mod model;
pub mod model_compute;
pub mod picture;
pub mod plots;
pub mod precision;
pub mod reach;
pub mod sweep;
pub mod tiled;
pub mod tune;
