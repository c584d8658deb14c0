//! The drawing every rendermm picture uses: matrix panels and cell sizes ([`picture`], with
//! `save_png`), the charts ([`plots`]) and the one text style they share ([`text`]). Pure CPU
//! drawing, no GPU: the figures, the bench's plots, `reach`'s charts and the headless demos all
//! draw through it, so it sits below them. The glyphs ([`font`]) and the colour scale and tick
//! labels ([`scale`]) are the part the demos' renderer shares in the browser build too, so they
//! build without the `native` feature; the rest needs it.

pub mod font;
#[cfg(feature = "native")]
pub mod picture;
#[cfg(feature = "native")]
pub mod plots;
pub mod scale;
#[cfg(feature = "native")]
pub mod text;
