//! The charts' drawing backend: plotters' bitmap backend with its text drawn by the figures' own
//! text helper.

use crate::draw::text;
use plotters::prelude::*;

/// plotters' bitmap backend with its text drawn by [`text`], the helper every figure and demo
/// uses: DejaVu Sans through `ab_glyph`, each glyph placed at its own bearing on a common
/// baseline, kerned. (plotters' own `ab_glyph` text drops the glyphs' side bearings and aligns
/// each glyph by its own box, so letters drift apart — "cop y" — and full stops float to
/// mid-height.) Text is measured by [`text::width`] and [`text::height`], anchored as plotters
/// asks, and rotated by its transform (the vertical axis names); there is one font, so the
/// family is not looked at.
pub struct Backend<'a>(pub(super) BitMapBackend<'a>);

type BackendError<'a> =
    plotters_backend::DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Backend<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> std::result::Result<(), BackendError<'a>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> std::result::Result<(), BackendError<'a>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: plotters_backend::BackendCoord,
        color: plotters_backend::BackendColor,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: plotters_backend::BackendCoord,
        to: plotters_backend::BackendCoord,
        style: &S,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: plotters_backend::BackendCoord,
        bottom_right: plotters_backend::BackendCoord,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = (i32, i32)>>(
        &mut self,
        path: I,
        style: &S,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: plotters_backend::BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = (i32, i32)>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: plotters_backend::BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> std::result::Result<(), BackendError<'a>> {
        self.0.blit_bitmap(pos, (iw, ih), src)
    }

    fn estimate_text_size<T: plotters_backend::BackendTextStyle>(
        &self,
        s: &str,
        style: &T,
    ) -> std::result::Result<(u32, u32), BackendError<'a>> {
        let px = style.size() as f32;
        Ok((
            text::width(s, px).ceil() as u32,
            text::height(px).ceil() as u32,
        ))
    }

    fn draw_text<T: plotters_backend::BackendTextStyle>(
        &mut self,
        s: &str,
        style: &T,
        pos: plotters_backend::BackendCoord,
    ) -> std::result::Result<(), BackendError<'a>> {
        use plotters_backend::text_anchor::{HPos, VPos};
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let px = style.size() as f32;
        let (w, h) = (text::width(s, px), text::height(px));
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        };
        let trans = style.transform();
        let (iw, ih) = self.get_size();
        let mut result = Ok(());
        text::raster(s, px, dx.round(), dy.round(), |x, y, cov| {
            let (x, y) = trans.transform(x, y);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if result.is_ok() && x >= 0 && y >= 0 && x < iw as i32 && y < ih as i32 {
                let c = plotters_backend::BackendColor {
                    alpha: color.alpha * cov.clamp(0.0, 1.0) as f64,
                    rgb: color.rgb,
                };
                result = self.0.draw_pixel((x, y), c);
            }
        });
        result
    }
}
