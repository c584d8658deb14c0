//! Products whose operands and result stay on the device, for chains of products such as L-M
//! §5's reachability powers (`M`, `R ← R·R` or `R·M`, clamp, copy): the entry point uploads a
//! matrix once into the layout of the method that will multiply it ([`upload`]), takes such
//! [`Resident`] matrices as the operands of a request ([`OnDevice`], [`Request::on_device`]),
//! and hands the product back as another one
//! ([`Outcome::on_device`](super::Outcome::on_device)), read back only when asked
//! ([`read_back`]). The render-pass methods whose products can be fed back in as operands take
//! them: `lm` (one channel of the precision's format), `hall-blocked` (`R32Float`) and
//! `hall-packed` (2×2-packed `Rgba32Float`, the product packed the same way).
//!
//! A boolean product asks for [`OnDevice::clamp_to_one`]: after the product, `F ← min(F, 1)`
//! (in f16 and f32, where the sums are path counts; u8 saturates at 1.0 by itself). The clamp
//! is run and timed as its own step, apart from the product
//! ([`Outcome::clamp`](super::Outcome::clamp)). Running such a product is native only
//! (`chain`): the page reads every product back, and its download carries no code it does not
//! run.

use super::Request;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::texture::{INPUT_USAGE, MatrixTexture, ScalarFormat};
use crate::matrix::Matrix;
use crate::methods::{Method, hall_packed};
use crate::precision::Precision;

/// The methods whose products stay on the device and can be fed back in as operands.
pub const METHODS: [Method; 3] = [Method::Lm, Method::HallBlocked, Method::HallPacked];

/// A matrix on the device, laid out for the method that multiplies it, that the entry point
/// made ([`upload`], [`empty_like`]) or produced ([`Outcome::on_device`](super::Outcome::on_device)).
#[derive(Clone)]
pub struct Resident {
    texture: MatrixTexture,
    method: Method,
    precision: Precision,
    rows: usize,
    cols: usize,
    /// What a request on device-resident operands holds in place of host matrices.
    none: Matrix,
}

impl std::fmt::Debug for Resident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Resident({}x{} for {}, {})",
            self.rows, self.cols, self.method, self.precision
        )
    }
}

impl Resident {
    fn new(
        texture: MatrixTexture,
        method: Method,
        precision: Precision,
        rows: usize,
        cols: usize,
    ) -> Self {
        Resident {
            texture,
            method,
            precision,
            rows,
            cols,
            none: Matrix::zeros(0, 0),
        }
    }

    /// The texture that holds it (for a copy into another resident matrix of the same layout).
    pub fn texture(&self) -> &MatrixTexture {
        &self.texture
    }

    /// Rows and columns of the matrix (not of its texture, which `hall-packed` halves).
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The method whose layout it is in.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The number format of its texture (f16 where f32 blending is missing, for `lm`).
    pub fn precision(&self) -> Precision {
        self.precision
    }
}

/// The product of two resident matrices that a request asks for ([`Request::on_device`]).
pub struct OnDevice<'a> {
    pub x: &'a Resident,
    pub y: &'a Resident,
    /// A boolean product: `min(F, 1)` after it (f16 and f32; u8 saturates by itself).
    pub clamp_to_one: bool,
}

impl<'a> Request<'a> {
    /// `x · y` by `method` on the device, the product left there
    /// ([`Outcome::on_device`](super::Outcome::on_device)).
    pub fn on_device(method: Method, product: OnDevice<'a>) -> Self {
        let (a, b) = (&product.x.none, &product.y.none);
        let mut req = Request::new(method, a, b);
        req.on_device = Some(product);
        req
    }
}

fn refuse(method: Method) -> Error {
    let names: Vec<&str> = METHODS.iter().map(|m| m.name()).collect();
    Error::Unsupported {
        option: "operands kept on the device".into(),
        method: method.name(),
        why: format!(
            "only {} multiply textures they can be handed again",
            names.join(", ")
        ),
    }
}

/// Upload `m` once into the layout `method` multiplies on the device, in `precision` (`lm`:
/// one channel of its format; the Hall methods: f32). Queued, not waited for.
pub fn upload(
    ctx: &GpuContext,
    method: Method,
    m: &Matrix,
    precision: Precision,
) -> Result<Resident> {
    m.check_nonempty("the matrix")?;
    let texture = match method {
        Method::Lm => MatrixTexture::upload_channels(ctx, "M (resident)", &[m], precision)?,
        Method::HallBlocked => {
            MatrixTexture::upload(ctx, "M (resident)", m, ScalarFormat::R32Float)?
        }
        Method::HallPacked => hall_packed::upload_packed(ctx, "M (resident, packed)", m)?,
        _ => return Err(refuse(method)),
    };
    let precision = match method {
        Method::Lm => precision,
        _ => Precision::F32,
    };
    Ok(Resident::new(texture, method, precision, m.rows, m.cols))
}

/// A resident matrix shaped and laid out as `like`, its contents undefined until something is
/// copied into it (the running power R of a chain).
pub fn empty_like(ctx: &GpuContext, like: &Resident, label: &str) -> Result<Resident> {
    let t = &like.texture;
    let texture = MatrixTexture::new(ctx, label, t.rows, t.cols, t.format, INPUT_USAGE)?;
    Ok(Resident::new(
        texture,
        like.method,
        like.precision,
        like.rows,
        like.cols,
    ))
}

/// Read a resident matrix back to the host (blocking), unpacked from its method's layout.
pub fn read_back(ctx: &GpuContext, r: &Resident) -> Result<Matrix> {
    match r.method {
        Method::Lm => r
            .texture
            .read_channels(ctx, r.precision, 1)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Internal("the texture read back no channel".into())),
        Method::HallBlocked => r.texture.read_matrix(ctx),
        _ => hall_packed::read_unpacked(ctx, &r.texture, r.rows, r.cols),
    }
}

#[cfg(feature = "native")]
mod chain;
#[cfg(feature = "native")]
pub(super) use chain::multiply;
