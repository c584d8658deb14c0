//! The drawing every rendermm picture uses: matrix panels and cell sizes ([`picture`], with
//! `save_png`), the charts ([`plots`]) and the one text style they share ([`text`]). Pure CPU
//! drawing, no GPU: the figures, the bench's plots, `reach`'s charts and the headless demos all
//! draw through it, so it sits below them.

pub mod picture;
pub mod plots;
pub mod text;
