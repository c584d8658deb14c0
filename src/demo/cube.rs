//! The processor cube of Larsen–McAllister §3 in 3-D.
//!
//! World layout (one unit = the cube's longest side): the front face is C, n wide (x = j) and m
//! high (y = −i), at z = 0; depth p runs back along −z. A (m × k) is the left face (x = 0): its
//! column p lies at depth p and is "replicated sideways" through slice p. B (k × n) is the top
//! face (y = 0): its row p lies at depth p and is replicated down through slice p. Slice p, the
//! plane z = −(p + ½), holds the product `A[i][p]·B[p][j]`; after pass p the slices 0..p have been
//! summed onto the front face, and the rest wait behind it.

use glam::{Mat4, Vec3, Vec4};

/// Slices drawn at most (a larger k shows every ⌈k/96⌉-th pending slice).
pub const MAX_SLICES: usize = 96;

/// A camera orbiting the cube's centre (drag to orbit, wheel to zoom).
#[derive(Clone, Copy, Debug)]
pub struct OrbitCamera {
    /// Angle about the vertical axis; 0 looks straight at the front face.
    pub yaw: f32,
    /// Angle above the horizontal.
    pub pitch: f32,
    /// Distance from the target, as a multiple of the distance at which the cube's bounding
    /// sphere just fits the viewport.
    pub distance: f32,
    pub target: Vec3,
    /// Radius of the cube's bounding sphere.
    pub radius: f32,
}

/// Vertical field of view.
const FOV_Y: f32 = 32.0 * std::f32::consts::PI / 180.0;

impl OrbitCamera {
    /// Looking at the front face from the upper left, so the A face (left) and the B face (top)
    /// show too.
    pub fn for_cube(m: usize, k: usize, n: usize) -> Self {
        let e = extent(m, k, n);
        Self {
            yaw: -0.62,
            pitch: 0.38,
            distance: 1.0,
            target: Vec3::new(e.x / 2.0, -e.y / 2.0, -e.z / 2.0),
            radius: e.length() / 2.0,
        }
    }

    /// The eye, for a viewport of `aspect` = width / height.
    pub fn eye(&self, aspect: f32) -> Vec3 {
        let fov_x = 2.0 * ((FOV_Y / 2.0).tan() * aspect.max(0.1)).atan();
        let fit = self.radius / (FOV_Y.min(fov_x) / 2.0).sin();
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * fit * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Projection × view for a viewport of `aspect` = width / height (wgpu's 0..1 depth).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let view = Mat4::look_at_rh(self.eye(aspect), self.target, Vec3::Y);
        let proj = Mat4::perspective_rh(FOV_Y, aspect.max(0.1), 0.01, 100.0);
        proj * view
    }

    /// Orbit by a mouse drag of (`dx`, `dy`) pixels.
    pub fn drag(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-1.5, 1.5);
    }

    /// Zoom by `steps` wheel steps (positive: closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(0.2, 20.0);
    }
}

/// How much deeper than it is wide the cube is drawn, so the slices stand apart like cards.
pub const EXPLODE: f32 = 1.8;

/// The cube's sides in world units: (n, m, k) scaled so the longest is 1, depth × [`EXPLODE`].
pub fn extent(m: usize, k: usize, n: usize) -> Vec3 {
    let s = 1.0 / m.max(k).max(n) as f32;
    Vec3::new(n as f32 * s, m as f32 * s, k as f32 * s * EXPLODE)
}

/// What a quad shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Face {
    /// The running sum C on the front face.
    Front = 0,
    /// A on the left face.
    A = 1,
    /// B on the top face.
    B = 2,
    /// One slice's product.
    Slice = 3,
}

/// One textured quad of the cube, as the shader reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Quad {
    /// Corner at (u, v) = (0, 0); w unused.
    pub origin: [f32; 4],
    /// Edge along u; w = opacity.
    pub u: [f32; 4],
    /// Edge along v; w = 1 to outline the quad.
    pub v: [f32; 4],
    /// x: [`Face`], y: slice index p.
    pub what: [u32; 4],
}

/// The quads for pass `pass` of `k` (slices 0..pass summed), the slice just summed `anim` of the
/// way from its place to the front face, sorted back to front as seen from `eye`.
pub fn quads(m: usize, k: usize, n: usize, pass: usize, anim: f32, eye: Vec3) -> Vec<Quad> {
    let e = extent(m, k, n);
    let dz = e.z / k as f32;
    let quad =
        |origin: Vec3, u: Vec3, v: Vec3, alpha: f32, outline: bool, face: Face, p: usize| Quad {
            origin: origin.extend(0.0).to_array(),
            u: u.extend(alpha).to_array(),
            v: v.extend(if outline { 1.0 } else { 0.0 }).to_array(),
            what: [face as u32, p as u32, 0, 0],
        };
    let across = Vec3::new(e.x, 0.0, 0.0);
    let down = Vec3::new(0.0, -e.y, 0.0);
    let back = Vec3::new(0.0, 0.0, -e.z);
    let mut out = vec![
        quad(Vec3::ZERO, across, down, 0.9, true, Face::Front, 0),
        quad(Vec3::ZERO, back, down, 0.3, true, Face::A, 0),
        quad(Vec3::ZERO, across, back, 0.3, true, Face::B, 0),
    ];
    let slice_at = |p: usize, z: f32, alpha: f32| {
        quad(
            Vec3::new(0.0, 0.0, z),
            across,
            down,
            alpha,
            true,
            Face::Slice,
            p,
        )
    };
    // The slice just summed moves onto the front face and fades as it lands.
    if pass > 0 && anim < 1.0 {
        let p = pass - 1;
        let z = -(p as f32 + 0.5) * dz * (1.0 - anim);
        out.push(slice_at(p, z, 0.95 * (1.0 - anim * anim)));
    }
    let pending: Vec<usize> = (pass..k).collect();
    let stride = pending.len().div_ceil(MAX_SLICES).max(1);
    for (idx, &p) in pending.iter().enumerate() {
        if idx == 0 || idx % stride == 0 {
            let alpha = if p == pass { 0.92 } else { 0.8 };
            out.push(slice_at(p, -(p as f32 + 0.5) * dz, alpha));
        }
    }
    let centre = |q: &Quad| {
        Vec3::from_slice(&q.origin[..3])
            + 0.5 * (Vec3::from_slice(&q.u[..3]) + Vec3::from_slice(&q.v[..3]))
    };
    out.sort_by(|x, y| {
        let dx = centre(x).distance_squared(eye);
        let dy = centre(y).distance_squared(eye);
        dy.total_cmp(&dx)
    });
    out
}

/// Where the world point `p` lands in a viewport of `w`×`h` pixels, if in front of the camera.
pub fn project(view_proj: Mat4, p: Vec3, w: f32, h: f32) -> Option<(f32, f32)> {
    let c = view_proj * Vec4::new(p.x, p.y, p.z, 1.0);
    if c.w <= 0.0 {
        return None;
    }
    let ndc = c.truncate() / c.w;
    Some(((ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h))
}
