//! `frag-mrt`'s register block: its shape, the `RENDERMM_FRAG_MRT` spelling of it, and the
//! limits it must fit in.

use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;

/// The register block of one fragment and how its k loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Rows of C per fragment (a multiple of 4: one A texel per 4 rows).
    pub rows: u32,
    /// Columns of C per fragment (a multiple of 4: one B texel per 4 columns).
    pub cols: u32,
    /// Steps of k per loop iteration (a multiple of 2 with `share`).
    pub unroll: u32,
    /// Share A and B texels across each 2×2 quad with `quadSwapX` / `quadSwapY`.
    pub share: bool,
    /// Where the fragments read A (`a=`) and B (`b=`): textures (the default) or read-only
    /// storage buffers ([`Source::Buffer`]); `src=` sets both.
    pub a_src: Source,
    pub b_src: Source,
    /// Software pipelining (`pf=1`): each iteration fetches the next iteration's texels before
    /// its multiply-adds, so a fetch's latency overlaps a whole iteration of arithmetic.
    pub prefetch: bool,
}

/// Where a fragment reads its A and B values from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// `textureLoad` of the packed textures: the texture unit, as in 2003.
    #[default]
    Texture,
    /// Indexing read-only storage buffers from the fragment shader (f32 inputs only): Aᵀ and B
    /// as arrays of `vec4f`, read through the load/store path and its L1 cache rather than the
    /// texture unit — a fragment stage that did not exist in 2003, kept to show where the
    /// texture path's own limit lies.
    Buffer,
}

impl Default for Shape {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Shape {
    /// 4×8 outputs (8 RGBA32F attachments, 128 bytes), k unrolled by 4, quad sharing on.
    pub const DEFAULT: Shape = Shape {
        rows: 4,
        cols: 8,
        unroll: 4,
        share: true,
        a_src: Source::Texture,
        b_src: Source::Texture,
        prefetch: false,
    };

    /// 4×4 outputs (4 attachments): [`Shape::DEFAULT`] for adapters with fewer than 8.
    pub const NARROW: Shape = Shape {
        cols: 4,
        ..Shape::DEFAULT
    };

    /// Colour attachments written per fragment: R·C/4.
    pub fn attachments(&self) -> u32 {
        self.rows * self.cols / 4
    }

    /// A texels per step of k (R/4).
    pub fn a_texels(&self) -> u32 {
        self.rows / 4
    }

    /// B texels per step of k (C/4).
    pub fn b_texels(&self) -> u32 {
        self.cols / 4
    }

    /// Steps of k one fragment's loads cover (2 when the quad partner loads the other one).
    pub fn step(&self) -> u32 {
        if self.share { 2 } else { 1 }
    }

    /// Multiply-adds per texel a fragment fetches: 4RC/(R+C), doubled by sharing.
    pub fn fma_per_texel(&self) -> f64 {
        (self.rows * self.cols * self.step()) as f64 / (self.a_texels() + self.b_texels()) as f64
    }

    /// Parse `RxC` and/or comma-separated `rows=`, `cols=`, `unroll=`, `share=` (0/1), `pf=`
    /// (0/1), `src=`, `a=`, `b=` (texture/buffer), each defaulting to [`Shape::DEFAULT`]'s; e.g.
    /// `8x4`, `4x8,share=0`, `rows=4,cols=4,unroll=8`, `8x4,unroll=2,pf=1`, `8x4,src=buffer`.
    pub fn parse(s: &str) -> Result<Shape> {
        let bad = |why: String| Error::Invalid(format!("frag-mrt shape '{s}': {why}"));
        let num = |k: &str, v: &str| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| bad(format!("{k} = '{v}' is not a whole number")))
        };
        let mut shape = Shape::DEFAULT;
        let mut share_given = false;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some((r, c)) = part.split_once(['x', 'X']).filter(|_| !part.contains('=')) {
                shape.rows = num("rows", r)?;
                shape.cols = num("cols", c)?;
                continue;
            }
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("'{part}' is neither RxC nor key=value")))?;
            match k.trim() {
                "rows" => shape.rows = num("rows", v)?,
                "cols" => shape.cols = num("cols", v)?,
                "unroll" => shape.unroll = num("unroll", v)?,
                "share" => {
                    share_given = true;
                    shape.share = match v.trim() {
                        "1" | "on" | "true" | "yes" => true,
                        "0" | "off" | "false" | "no" => false,
                        _ => return Err(bad(format!("share = '{v}': give 0 or 1"))),
                    }
                }
                "pf" => {
                    shape.prefetch = match v.trim() {
                        "1" | "on" | "true" | "yes" => true,
                        "0" | "off" | "false" | "no" => false,
                        _ => return Err(bad(format!("pf = '{v}': give 0 or 1"))),
                    }
                }
                key @ ("src" | "a" | "b") => {
                    let src = match v.trim() {
                        "texture" => Source::Texture,
                        "buffer" => Source::Buffer,
                        _ => return Err(bad(format!("{key} = '{v}': give texture or buffer"))),
                    };
                    if key != "b" {
                        shape.a_src = src;
                    }
                    if key != "a" {
                        shape.b_src = src;
                    }
                }
                other => {
                    return Err(bad(format!(
                        "unknown key '{other}' (rows, cols, unroll, share, pf, src, a, b)"
                    )));
                }
            }
        }
        if shape.count(Source::Texture) == 0 && !share_given {
            // Quad swaps save texture lookups; with no texture there is nothing to share.
            shape.share = false;
        }
        shape.validate().map_err(|e| bad(e.to_string()))?;
        Ok(shape)
    }

    /// The shape a request named, or [`Shape::DEFAULT`] where it named none.
    pub fn chosen(named: Option<Shape>) -> Shape {
        named.unwrap_or(Shape::DEFAULT)
    }

    /// [`Shape::chosen`] on an adapter with `max_color_attachments`: where a request named none
    /// and the default's 8 attachments are more than the adapter has, the 4×4 block
    /// ([`Shape::NARROW`], 4 attachments), so that frag-mrt runs where WebGL2 offers 6 (headless
    /// Chromium 148) rather than being refused. A named shape is taken as named.
    pub fn chosen_for(named: Option<Shape>, max_color_attachments: u32) -> Shape {
        match named {
            Some(s) => s,
            None if Shape::DEFAULT.attachments() > max_color_attachments => Shape::NARROW,
            None => Shape::DEFAULT,
        }
    }

    /// Checks that need no adapter: multiples of 4, an unroll the sharing can split.
    pub fn validate(&self) -> Result<()> {
        if self.share && self.count(Source::Texture) == 0 {
            return Err(Error::Invalid(
                "share=1 with src=buffer: quad sharing swaps the texels of a quad's texture fetches, and there are none; give share=0 (the default with src=buffer)".into(),
            ));
        }
        if self.rows == 0
            || self.cols == 0
            || !self.rows.is_multiple_of(4)
            || !self.cols.is_multiple_of(4)
        {
            return Err(Error::Invalid(format!(
                "a {}x{} block: rows and cols must be positive multiples of 4 (one RGBA texel holds 4)",
                self.rows, self.cols
            )));
        }
        if self.unroll == 0 || !self.unroll.is_multiple_of(self.step()) || self.unroll > 64 {
            return Err(Error::Invalid(format!(
                "unroll = {}: give 1..=64{}",
                self.unroll,
                if self.share {
                    ", even with share=1 (each load covers 2 steps of k)"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// Checks against the adapter's limits: attachments, bytes per sample, sampled textures
    /// (ping-pong reads A, B and every attachment of the previous pass).
    pub fn check_limits(&self, ctx: &GpuContext, reads_f: bool) -> Result<()> {
        self.validate()?;
        let l = &ctx.limits;
        let n = self.attachments();
        let checks = [
            (
                "frag-mrt colour attachments (rows·cols/4)",
                n,
                "max_color_attachments",
                l.max_color_attachments,
            ),
            (
                "frag-mrt bytes per sample (rows·cols·4)",
                n * 16,
                "max_color_attachment_bytes_per_sample",
                l.max_color_attachment_bytes_per_sample,
            ),
            (
                "frag-mrt sampled textures (A and B unless buffers, + attachments with ping-pong)",
                self.count(Source::Texture) + if reads_f { n } else { 0 },
                "max_sampled_textures_per_shader_stage",
                l.max_sampled_textures_per_shader_stage,
            ),
            (
                "frag-mrt storage buffers in the fragment stage (A and B read from buffers)",
                self.count(Source::Buffer),
                "max_storage_buffers_per_shader_stage",
                l.max_storage_buffers_per_shader_stage,
            ),
        ];
        for (what, value, limit, max) in checks {
            if value > max {
                return Err(Error::Limit {
                    what: format!("{what} for a {}x{} block", self.rows, self.cols),
                    value: value as u64,
                    limit,
                    max: max as u64,
                });
            }
        }
        Ok(())
    }

    /// Whether A or B is read from a storage buffer.
    pub fn reads_buffers(&self) -> bool {
        self.count(Source::Buffer) > 0
    }

    /// How many of A and B are read from `src`.
    pub(super) fn count(&self, src: Source) -> u32 {
        u32::from(self.a_src == src) + u32::from(self.b_src == src)
    }

    /// `4x8,unroll=4,share=1` (and `,pf=1` with prefetch, `,src=buffer`, `,a=buffer` or
    /// `,b=buffer` when it reads buffers): the form [`Shape::parse`] reads.
    pub fn name(&self) -> String {
        format!(
            "{}x{},unroll={},share={}{}{}",
            self.rows,
            self.cols,
            self.unroll,
            u8::from(self.share),
            if self.prefetch { ",pf=1" } else { "" },
            match (self.a_src, self.b_src) {
                (Source::Texture, Source::Texture) => "",
                (Source::Buffer, Source::Buffer) => ",src=buffer",
                (Source::Buffer, Source::Texture) => ",a=buffer",
                (Source::Texture, Source::Buffer) => ",b=buffer",
            }
        )
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}
