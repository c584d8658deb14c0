//! Matrices into GL textures, framebuffer objects to draw into, and `glReadPixels` back out: the
//! pieces both GL-era methods share. Element (i, j) of a matrix is texel (x = j, y = i), as in
//! the wgpu methods; C's row i is framebuffer row y = i, read back bottom row first, so it comes
//! back in row order.

use super::GlContext;
use super::bindings as gl;
use super::bindings::types::{GLenum, GLint, GLuint};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use std::ffi::c_void;

/// The number formats of 2001 and 2003 the GL-era methods run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texels {
    /// 8-bit unsigned normalized texels (`GL_LUMINANCE8`, four matrices in `GL_RGBA8`) and an
    /// 8-bit framebuffer (`GL_RGBA8`).
    Unorm8,
    /// 32-bit float texels (`GL_LUMINANCE32F_ARB`, `GL_RGBA32F`) and framebuffer (`GL_RGBA32F`).
    F32,
}

impl Texels {
    /// The internal format of a texture of `channels` matrices (1 or 4).
    pub fn internal(self, channels: usize) -> GLenum {
        match (self, channels) {
            (Texels::Unorm8, 4) => gl::RGBA8,
            (Texels::Unorm8, _) => gl::LUMINANCE8,
            (Texels::F32, 4) => gl::RGBA32F,
            (Texels::F32, _) => gl::LUMINANCE32F_ARB,
        }
    }

    /// The framebuffer's internal format.
    pub fn framebuffer(self) -> GLenum {
        match self {
            Texels::Unorm8 => gl::RGBA8,
            Texels::F32 => gl::RGBA32F,
        }
    }
}

/// The `rows × cols` block at (`row0`, `col0`) of each matrix of `ms`, interleaved texel by
/// texel (1 or 4 channels), in the bytes `glTexImage2D` takes for `texels`.
fn texel_bytes(
    ms: &[&Matrix],
    (row0, col0): (usize, usize),
    (rows, cols): (usize, usize),
    texels: Texels,
) -> Vec<u8> {
    let ch = ms.len();
    let mut out = Vec::with_capacity(rows * cols * ch * 4);
    for i in row0..row0 + rows {
        for j in col0..col0 + cols {
            for m in ms {
                let v = m.data[i * m.cols + j];
                match texels {
                    Texels::Unorm8 => out.push(crate::precision::to_unorm8(v)),
                    Texels::F32 => out.extend_from_slice(&v.to_ne_bytes()),
                }
            }
        }
    }
    out
}

impl GlContext {
    /// A `target` texture (`GL_TEXTURE_2D` or `GL_TEXTURE_RECTANGLE_ARB`) holding the
    /// `rows × cols` block at (`row0`, `col0`) of each matrix of `ms`, nearest filtering, clamped
    /// at the edges.
    pub fn matrix_texture(
        &self,
        target: GLenum,
        ms: &[&Matrix],
        at: (usize, usize),
        size: (usize, usize),
        texels: Texels,
    ) -> Result<GLuint> {
        let (rows, cols) = size;
        let bytes = texel_bytes(ms, at, size, texels);
        let format = if ms.len() == 4 {
            gl::RGBA
        } else {
            gl::LUMINANCE
        };
        let ty = match texels {
            Texels::Unorm8 => gl::UNSIGNED_BYTE,
            Texels::F32 => gl::FLOAT,
        };
        let g = &self.gl;
        let mut tex = 0;
        // SAFETY: the context is current on this thread; `bytes` holds rows·cols texels of
        // `format`/`ty`, rows packed (alignment 1).
        unsafe {
            g.GenTextures(1, &mut tex);
            g.BindTexture(target, tex);
            g.PixelStorei(gl::UNPACK_ALIGNMENT, 1);
            g.TexParameteri(target, gl::TEXTURE_MIN_FILTER, gl::NEAREST as GLint);
            g.TexParameteri(target, gl::TEXTURE_MAG_FILTER, gl::NEAREST as GLint);
            g.TexParameteri(target, gl::TEXTURE_WRAP_S, gl::CLAMP_TO_EDGE as GLint);
            g.TexParameteri(target, gl::TEXTURE_WRAP_T, gl::CLAMP_TO_EDGE as GLint);
            g.TexImage2D(
                target,
                0,
                texels.internal(ms.len()) as GLint,
                cols as i32,
                rows as i32,
                0,
                format,
                ty,
                bytes.as_ptr() as *const c_void,
            );
        }
        self.check("uploading a matrix texture")?;
        Ok(tex)
    }

    /// A framebuffer object of one `width × height` colour texture of `texels`' framebuffer
    /// format (`target` as for textures), cleared to 0 and bound; returns (framebuffer, texture).
    pub fn framebuffer(
        &self,
        method: &str,
        target: GLenum,
        (width, height): (usize, usize),
        texels: Texels,
    ) -> Result<(GLuint, GLuint)> {
        let g = &self.gl;
        let (mut fbo, mut tex) = (0, 0);
        // SAFETY: the context is current on this thread; no data is read from the host.
        let status = unsafe {
            g.GenTextures(1, &mut tex);
            g.BindTexture(target, tex);
            g.TexParameteri(target, gl::TEXTURE_MIN_FILTER, gl::NEAREST as GLint);
            g.TexParameteri(target, gl::TEXTURE_MAG_FILTER, gl::NEAREST as GLint);
            g.TexImage2D(
                target,
                0,
                texels.framebuffer() as GLint,
                width as i32,
                height as i32,
                0,
                gl::RGBA,
                gl::FLOAT,
                std::ptr::null(),
            );
            g.GenFramebuffers(1, &mut fbo);
            g.BindFramebuffer(gl::FRAMEBUFFER, fbo);
            g.FramebufferTexture2D(gl::FRAMEBUFFER, gl::COLOR_ATTACHMENT0, target, tex, 0);
            g.CheckFramebufferStatus(gl::FRAMEBUFFER)
        };
        if status != gl::FRAMEBUFFER_COMPLETE {
            let _ = self.check("making a framebuffer");
            return Err(Error::HostGl {
                method: method.into(),
                missing: format!(
                    "no {} framebuffer of {width}x{height} in {} (status 0x{status:04X})",
                    match texels {
                        Texels::Unorm8 => "8-bit RGBA",
                        Texels::F32 => "float (RGBA32F)",
                    },
                    self.info.name()
                ),
            });
        }
        // SAFETY: as above; the bound framebuffer is complete.
        unsafe {
            g.Viewport(0, 0, width as i32, height as i32);
            g.ClearColor(0.0, 0.0, 0.0, 0.0);
            g.Clear(gl::COLOR_BUFFER_BIT);
        }
        self.check("clearing a framebuffer")?;
        Ok((fbo, tex))
    }

    /// `glReadPixels` of the bound framebuffer's `width × height` colour as `channels` matrices
    /// (channel c of each pixel is matrix c: red alone for one), unorm8 values as v/255.
    pub fn read_matrices(
        &self,
        (width, height): (usize, usize),
        channels: usize,
        texels: Texels,
    ) -> Result<Vec<Matrix>> {
        let format = if channels == 4 { gl::RGBA } else { gl::RED };
        let count = width * height * channels;
        let values: Vec<f32> = match texels {
            Texels::Unorm8 => {
                let mut bytes = vec![0u8; count];
                // SAFETY: room for width·height pixels of `channels` bytes, packed rows.
                unsafe {
                    self.gl.PixelStorei(gl::PACK_ALIGNMENT, 1);
                    self.gl.ReadPixels(
                        0,
                        0,
                        width as i32,
                        height as i32,
                        format,
                        gl::UNSIGNED_BYTE,
                        bytes.as_mut_ptr() as *mut c_void,
                    );
                }
                bytes.iter().map(|&b| b as f32 / 255.0).collect()
            }
            Texels::F32 => {
                let mut floats = vec![0f32; count];
                // SAFETY: room for width·height pixels of `channels` floats, packed rows.
                unsafe {
                    self.gl.PixelStorei(gl::PACK_ALIGNMENT, 4);
                    self.gl.ReadPixels(
                        0,
                        0,
                        width as i32,
                        height as i32,
                        format,
                        gl::FLOAT,
                        floats.as_mut_ptr() as *mut c_void,
                    );
                }
                floats
            }
        };
        self.check("glReadPixels")?;
        Ok((0..channels)
            .map(|c| Matrix {
                rows: height,
                cols: width,
                data: values.iter().skip(c).step_by(channels).copied().collect(),
            })
            .collect())
    }

    /// Float colours unclamped from the fragment to the framebuffer and back to the host
    /// (`glClampColor`, GL 3.0 / `GL_ARB_color_buffer_float`), or the refusal naming what is
    /// missing.
    pub fn unclamp_colours(&self, method: &str) -> Result<()> {
        self.require(
            method,
            "GL_ARB_color_buffer_float",
            Some((3, 0)),
            "float colours unclamped by glClampColor",
        )?;
        self.require(
            method,
            "GL_ARB_texture_float",
            Some((3, 0)),
            "float textures",
        )?;
        let g = &self.gl;
        // SAFETY: the context is current on this thread.
        unsafe {
            if g.ClampColor.is_loaded() {
                g.ClampColor(gl::CLAMP_VERTEX_COLOR, gl::FALSE as GLenum);
                g.ClampColor(gl::CLAMP_FRAGMENT_COLOR, gl::FALSE as GLenum);
                g.ClampColor(gl::CLAMP_READ_COLOR, gl::FALSE as GLenum);
            } else if g.ClampColorARB.is_loaded() {
                g.ClampColorARB(gl::CLAMP_VERTEX_COLOR_ARB, gl::FALSE as GLenum);
                g.ClampColorARB(gl::CLAMP_FRAGMENT_COLOR_ARB, gl::FALSE as GLenum);
                g.ClampColorARB(gl::CLAMP_READ_COLOR_ARB, gl::FALSE as GLenum);
            } else {
                return Err(Error::HostGl {
                    method: method.into(),
                    missing: format!("no glClampColor in {}", self.info.name()),
                });
            }
        }
        self.check("glClampColor")
    }
}
