// The demos' renderer (src/demo/render.rs): matrices as pictures, drawn from the textures the
// methods themselves rendered into, and the processor cube of Larsen–McAllister §3.
//
// Three pipelines share one bind group:
//   vs_background / fs_background  the page
//   vs_background / fs_text        the text, a coverage mask rasterized on the CPU, on top
//   vs_panel / fs_panel            one instanced quad per panel (a matrix, a slice, packed texels)
//   vs_cube / fs_cube              the cube's faces and slices, alpha-blended back to front
//
// Layout: element (i, j) of a matrix is texel (x = j, y = i), as everywhere in rendermm.
// Colours: the diverging map of picture.rs (blue < 0 < red, white at 0) for signed values; in
// the 8-bit pipeline the paper's grey ramp (black 0, white 1), where a saturated sum is white.

struct Globals {
    view_proj: mat4x4f,
    // x, y: frame size in pixels.
    screen: vec4f,
    // x: 1 = grey ramp (u8); y: 1 = the target is sRGB; z: 255 in the 8-bit pipeline, else 0;
    // w: polygon depth (k with --scale-by-depth, else 1).
    mode: vec4u,
    // m, k, n, and the number of panels.
    dims: vec4u,
    // Colour scales of A, B, a slice, and C.
    scales: vec4f,
};

struct Panel {
    // x, y, width, height in pixels of the picture (a frame may surround it).
    rect: vec4f,
    // x: look (0 matrix, 1 slice, 2 packed texels, 3 unpacked, 4 colour bar), y: source texture,
    // z: rows (4 for a packed texture's key of four channel lanes), w: cols.
    what: vec4u,
    // x: band axis (0 none, 1 columns, 2 rows), y: first, z: count, w: slice index.
    band: vec4u,
    // x: colour scale, y: frame width in pixels, z: band outline width in pixels.
    look: vec4f,
    // Frame colour; a = 0 for no frame.
    frame: vec4f,
};

struct Panels {
    items: array<Panel, 8>,
};

struct Quad {
    // Corner at (u, v) = (0, 0).
    origin: vec4f,
    // Edge along u; w = opacity.
    u: vec4f,
    // Edge along v; w = 1 to outline.
    v: vec4f,
    // x: face (0 front C, 1 A, 2 B, 3 slice), y: slice index.
    what: vec4u,
};

struct Quads {
    items: array<Quad, 128>,
};

@group(0) @binding(0) var<uniform> globals: Globals;
@group(0) @binding(1) var<uniform> panels: Panels;
@group(0) @binding(2) var<uniform> quads: Quads;
@group(0) @binding(3) var tex_a: texture_2d<f32>;
@group(0) @binding(4) var tex_b: texture_2d<f32>;
@group(0) @binding(5) var tex_shown0: texture_2d<f32>;
@group(0) @binding(6) var tex_shown1: texture_2d<f32>;
@group(0) @binding(7) var tex_packed_a: texture_2d<f32>;
@group(0) @binding(8) var tex_packed_b: texture_2d<f32>;
@group(0) @binding(9) var tex_text: texture_2d<f32>;

const BACKGROUND: vec3f = vec3f(0.925, 0.925, 0.925);
const INK: vec3f = vec3f(0.11, 0.11, 0.13);
const BAND: vec3f = vec3f(0.08, 0.08, 0.08);

// Texel (x, y) of source texture `src` (layout.rs `Source`), clamped to its size.
fn load(src: u32, x: u32, y: u32) -> vec4f {
    switch src {
        case 0u: {
            let d = textureDimensions(tex_a);
            return textureLoad(tex_a, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
        case 1u: {
            let d = textureDimensions(tex_b);
            return textureLoad(tex_b, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
        case 2u: {
            let d = textureDimensions(tex_shown0);
            return textureLoad(tex_shown0, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
        case 3u: {
            let d = textureDimensions(tex_shown1);
            return textureLoad(tex_shown1, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
        case 4u: {
            let d = textureDimensions(tex_packed_a);
            return textureLoad(tex_packed_a, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
        default: {
            let d = textureDimensions(tex_packed_b);
            return textureLoad(tex_packed_b, vec2u(min(x, d.x - 1u), min(y, d.y - 1u)), 0);
        }
    }
}

// picture::diverging: ±scale is full red / blue, 0 is white.
fn diverging(v: f32, scale: f32) -> vec3f {
    var t = 0.0;
    if scale > 0.0 {
        t = clamp(v / scale, -1.0, 1.0);
    }
    if t >= 0.0 {
        return vec3f(1.0, 1.0 - 0.85 * t, 1.0 - t);
    }
    return vec3f(1.0 + t, 1.0 + 0.85 * t, 1.0);
}

// A value on the map of this run: the paper's grey ramp in u8, else diverging.
fn value_colour(v: f32, scale: f32) -> vec3f {
    if globals.mode.x == 1u {
        return vec3f(clamp(v, 0.0, 1.0));
    }
    return diverging(v, scale);
}

// Hues of the r, g, b, a channels (the quadrants top left, top right, bottom left, bottom right).
fn channel_hue(c: u32) -> vec3f {
    switch c {
        case 0u: { return vec3f(0.84, 0.15, 0.16); }
        case 1u: { return vec3f(0.17, 0.63, 0.17); }
        case 2u: { return vec3f(0.12, 0.47, 0.71); }
        default: { return vec3f(0.50, 0.25, 0.60); }
    }
}

// A channel's value in its own hue, stronger for larger |value|, white at 0; negative values
// are striped (pixel `px` picks the stripe).
fn channel_colour(v: f32, scale: f32, c: u32, px: vec2f) -> vec3f {
    let t = clamp(v / max(scale, 1e-30), -1.0, 1.0);
    let colour = mix(vec3f(1.0), channel_hue(c), pow(abs(t), 0.7));
    if t < 0.0 && (u32(px.x + px.y) % 6u) < 2u {
        return mix(colour, vec3f(1.0), 0.7);
    }
    return colour;
}

fn pick(v: vec4f, c: u32) -> f32 {
    switch c {
        case 0u: { return v.x; }
        case 1u: { return v.y; }
        case 2u: { return v.z; }
        default: { return v.w; }
    }
}

// Slice p's product A[i][p]·B[p][j] as the L-M pass computes it (8-bit steps in u8).
fn slice_value(i: u32, j: u32, p: u32) -> f32 {
    let a = load(0u, p, i).x;
    let b = load(1u, j, p).x;
    let levels = f32(globals.mode.z);
    if levels > 0.0 {
        let ia = u32(round(a * levels));
        let ib = u32(round(b * levels));
        let d = 255u * max(globals.mode.w, 1u);
        return f32((2u * ia * ib + d) / (2u * d)) / levels;
    }
    return a * b;
}

fn srgb_to_linear(c: vec3f) -> vec3f {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3f(2.4));
    return select(hi, lo, c <= vec3f(0.04045));
}

// The colour as written: the target encodes sRGB itself when its format is *Srgb.
fn output(c: vec3f, alpha: f32) -> vec4f {
    if globals.mode.y == 1u {
        return vec4f(srgb_to_linear(c), alpha);
    }
    return vec4f(c, alpha);
}

// ---- page and text -------------------------------------------------------------------------

@vertex
fn vs_background(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    // One triangle covering the frame.
    let uv = vec2f(f32((vi << 1u) & 2u), f32(vi & 2u));
    return vec4f(uv * vec2f(2.0, -2.0) + vec2f(-1.0, 1.0), 0.0, 1.0);
}

@fragment
fn fs_background() -> @location(0) vec4f {
    return output(BACKGROUND, 1.0);
}

// The text, blended over everything else (the cube's labels lie on the cube).
@fragment
fn fs_text(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let d = textureDimensions(tex_text);
    let p = vec2u(pos.xy);
    var ink = 0.0;
    if p.x < d.x && p.y < d.y {
        ink = textureLoad(tex_text, p, 0).x;
    }
    if ink <= 0.0 {
        discard;
    }
    return output(INK, ink);
}

// ---- panels --------------------------------------------------------------------------------

struct PanelOut {
    @builtin(position) position: vec4f,
    @location(0) @interpolate(flat) index: u32,
};

@vertex
fn vs_panel(@builtin(vertex_index) vi: u32, @builtin(instance_index) index: u32) -> PanelOut {
    let p = panels.items[index];
    // Two triangles over the picture grown by the frame width.
    var corners = array<vec2f, 6>(
        vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
        vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0),
    );
    let fw = p.look.y;
    let xy = p.rect.xy - vec2f(fw) + corners[vi] * (p.rect.zw + vec2f(2.0 * fw));
    var out: PanelOut;
    out.position = vec4f(xy.x / globals.screen.x * 2.0 - 1.0, 1.0 - xy.y / globals.screen.y * 2.0, 0.0, 1.0);
    out.index = index;
    return out;
}

@fragment
fn fs_panel(in: PanelOut) -> @location(0) vec4f {
    let p = panels.items[in.index];
    let local = in.position.xy - p.rect.xy;
    if local.x < 0.0 || local.y < 0.0 || local.x >= p.rect.z || local.y >= p.rect.w {
        return output(p.frame.rgb, 1.0);
    }
    if p.what.x == 4u {
        // A colour bar: −scale at the left, +scale at the right (0 to 1 on the u8 grey ramp).
        let t = clamp(local.x / max(p.rect.z - 1.0, 1.0), 0.0, 1.0);
        var v = (2.0 * t - 1.0) * p.look.x;
        if globals.mode.x == 1u {
            v = t;
        }
        if p.what.z == 4u {
            // A packed texture's key: a lane per channel, r g b a from the top, in their hues.
            let c = min(u32(4.0 * local.y / max(p.rect.w, 1.0)), 3u);
            return output(channel_colour((2.0 * t - 1.0) * p.look.x, p.look.x, c, in.position.xy), 1.0);
        }
        return output(value_colour(v, p.look.x), 1.0);
    }
    let rows = p.what.z;
    let cols = p.what.w;
    let cell = p.rect.zw / vec2f(f32(cols), f32(rows));
    let j = min(u32(local.x / cell.x), cols - 1u);
    let i = min(u32(local.y / cell.y), rows - 1u);
    let scale = p.look.x;
    var colour = vec3f(0.0);
    // Pixels from the cell's top-left edge, for grid lines.
    let into = local - vec2f(f32(j), f32(i)) * cell;
    var line = 0.0;
    let big = min(cell.x, cell.y) >= 6.0;
    if big && (into.x < 1.0 || into.y < 1.0) {
        line = 0.18;
    }
    switch p.what.x {
        case 0u: {
            colour = value_colour(load(p.what.y, j, i).x, scale);
        }
        case 1u: {
            colour = value_colour(slice_value(i, j, p.band.w), scale);
        }
        case 2u: {
            // Texel (i/2, j/2); its r g / b a channels in the quadrants' arrangement.
            let c = (i % 2u) * 2u + (j % 2u);
            colour = channel_colour(pick(load(p.what.y, j / 2u, i / 2u), c), scale, c, in.position.xy);
            if min(cell.x, cell.y) >= 3.0 && ((j % 2u == 0u && into.x < 1.0) || (i % 2u == 0u && into.y < 1.0)) {
                line = 0.45;
            }
        }
        default: {
            // Eq. (8) backwards: quadrant of (i, j) → channel; position in it → texel.
            let h = (rows + 1u) / 2u;
            let w = (cols + 1u) / 2u;
            let c = select(0u, 2u, i >= h) + select(0u, 1u, j >= w);
            colour = value_colour(pick(load(p.what.y, j % w, i % h), c), scale);
            let qx = abs(local.x - f32(w) * cell.x);
            let qy = abs(local.y - f32(h) * cell.y);
            if qx < 1.5 || qy < 1.5 {
                return output(channel_hue(c) * 0.8, 1.0);
            }
        }
    }
    colour = colour * (1.0 - line);
    // A highlighted band: the rest is faded, the band outlined.
    let axis = p.band.x;
    if axis != 0u {
        let at = select(local.y, local.x, axis == 1u);
        let unit = select(cell.y, cell.x, axis == 1u);
        var lo = f32(p.band.y) * unit;
        var hi = f32(p.band.y + p.band.z) * unit;
        // A band thinner than a few pixels (a large matrix) is drawn as a dark line there.
        let thin = hi - lo < 4.0;
        if thin {
            let mid = (lo + hi) / 2.0;
            lo = mid - 1.5;
            hi = mid + 1.5;
        }
        if at < lo || at >= hi {
            colour = mix(colour, BACKGROUND, 0.6);
        } else if thin || at - lo < p.look.z || hi - at <= p.look.z {
            colour = BAND;
        }
    }
    return output(colour, 1.0);
}

// ---- the processor cube --------------------------------------------------------------------

struct CubeOut {
    @builtin(position) position: vec4f,
    @location(0) uv: vec2f,
    @location(1) @interpolate(flat) index: u32,
};

@vertex
fn vs_cube(@builtin(vertex_index) vi: u32, @builtin(instance_index) index: u32) -> CubeOut {
    let q = quads.items[index];
    var corners = array<vec2f, 6>(
        vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
        vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0),
    );
    let uv = corners[vi];
    let world = q.origin.xyz + uv.x * q.u.xyz + uv.y * q.v.xyz;
    var out: CubeOut;
    out.position = globals.view_proj * vec4f(world, 1.0);
    out.uv = uv;
    out.index = index;
    return out;
}

@fragment
fn fs_cube(in: CubeOut) -> @location(0) vec4f {
    let q = quads.items[in.index];
    let m = globals.dims.x;
    let k = globals.dims.y;
    let n = globals.dims.z;
    var grid = vec2u(n, m);
    var colour = vec3f(0.0);
    switch q.what.x {
        case 0u: {
            let j = min(u32(in.uv.x * f32(n)), n - 1u);
            let i = min(u32(in.uv.y * f32(m)), m - 1u);
            colour = value_colour(load(2u, j, i).x, globals.scales.w);
        }
        case 1u: {
            // The left face: depth p along u, row i along v.
            let p = min(u32(in.uv.x * f32(k)), k - 1u);
            let i = min(u32(in.uv.y * f32(m)), m - 1u);
            colour = value_colour(load(0u, p, i).x, globals.scales.x);
            grid = vec2u(k, m);
        }
        case 2u: {
            // The top face: column j along u, depth p along v.
            let j = min(u32(in.uv.x * f32(n)), n - 1u);
            let p = min(u32(in.uv.y * f32(k)), k - 1u);
            colour = value_colour(load(1u, j, p).x, globals.scales.y);
            grid = vec2u(n, k);
        }
        default: {
            let j = min(u32(in.uv.x * f32(n)), n - 1u);
            let i = min(u32(in.uv.y * f32(m)), m - 1u);
            colour = value_colour(slice_value(i, j, q.what.y), globals.scales.z);
        }
    }
    // Cell lines where the cells are large on screen, and the quad's outline.
    let cells = in.uv * vec2f(grid);
    let per_px = fwidth(cells);
    let dist = min(fract(cells), vec2f(1.0) - fract(cells)) / max(per_px, vec2f(1e-6));
    if max(per_px.x, per_px.y) < 0.16 && min(dist.x, dist.y) < 0.7 {
        colour = colour * 0.8;
    }
    var alpha = q.u.w;
    let uv_per_px = fwidth(in.uv);
    if q.v.w > 0.0 {
        let edge = min(in.uv, vec2f(1.0) - in.uv) / max(uv_per_px, vec2f(1e-6));
        if min(edge.x, edge.y) < 1.2 {
            colour = INK;
            alpha = max(alpha, 0.9);
        }
    }
    return output(colour, alpha);
}
