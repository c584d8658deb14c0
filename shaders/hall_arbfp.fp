!!ARBfp1.0
# Hall, Carr & Hart, "Cache and Bandwidth Aware Matrix Multiplication on the GPU" (2003), §3:
# the fragment program of algorithm (5), in the assembly of the ARB fragment-program model
# (GL_ARB_fragment_program, the OpenGL face of DirectX 9's ps_2_0).
#
# One pass draws a quad over C (n wide, m high). Fragment (i, j) sums the b products
# A[i][p]·B[p][j] of this pass's block of p, adds F[i][j] (the sum of the passes before, read
# from the other of two framebuffer objects: ping-pong), and writes the new running sum.
# Textures are rectangles (GL_ARB_texture_rectangle, the "integer indexing" of the paper's
# footnote 1, [Kilgard 2001]), addressed in texels: A[i][p] at (p, i), B[p][j] at (j, p).
#
# src/methods/hall_arbfp.rs assembles a pass's program from the sections below: the setup, the
# product section written out b times (no loops in this model: the paper unrolls it), and the
# accumulation. The u8 sections are rendermm's 8-bit pipeline (hall-blocked --precision u8):
# the texels made exact integers, the block's sum rounded to 8 bits once per pass, the running
# sum saturating at 255.
#
# ANCHOR: setup
PARAM first = program.local[0];   # (p0 + 0.5, ., ., p0 + 0.5): this block's first p, in texels
PARAM step = {1, 0, 0, 1};        # one column of A (x) and one row of B (w) further
PARAM unorm = {255, 0.5, 0.00392156862745098, 0}; # 8-bit steps: 255, a half, 1/255
PARAM depth = program.local[1];   # u8: (255·d, 510·d, 1/(510·d), 0), polygon colour 1/d (L-M §4)
TEMP c, a, b, sum, prev, t, r;
MOV c, first;
MOV c.yz, fragment.position.xyxx;  # c = (p, i, j, p): A's texel (c.x, c.y), B's (c.z, c.w)
MOV sum, {0, 0, 0, 0};
# ANCHOR_END: setup
# ANCHOR: product
TEX a, c, texture[0], RECT;        # A[i][p]
TEX b, c.zwzw, texture[1], RECT;   # B[p][j]
MAD sum, a, b, sum;                # sum += A[i][p]·B[p][j]
ADD c, c, step;                    # next p
# ANCHOR_END: product
# ANCHOR: accumulate
TEX prev, fragment.position, texture[2], RECT;   # F[i][j], the passes before
ADD result.color, sum, prev;
# ANCHOR_END: accumulate
# ANCHOR: product_u8
TEX a, c, texture[0], RECT;
TEX b, c.zwzw, texture[1], RECT;
MAD a, a, unorm.x, unorm.y;        # ia = round(255·a): the 8-bit texel as an exact integer
FLR a, a;
MAD b, b, unorm.x, unorm.y;
FLR b, b;
MAD sum, a, b, sum;                # S += ia·ib, exact: 2S + 255·d < 2^24
ADD c, c, step;
# ANCHOR_END: product_u8
# ANCHOR: accumulate_u8
TEX prev, fragment.position, texture[2], RECT;
MAD prev, prev, unorm.x, unorm.y;  # the running sum, in steps of 1/255
FLR prev, prev;
ADD sum, sum, sum;                 # 2S + 255d = 510d·q + r: q = round(S/(255d)), half up
ADD sum, sum, depth.x;
MUL t, sum, depth.z;               # q, or one off: 1/(510d) is not exact in f32
FLR t, t;
MAD r, t, -depth.y, sum;           # r = 2S + 255d - 510d·q, exact
SGE a, r, depth.y;                 # one too few
ADD t, t, a;
SLT a, r, {0}.x;                   # one too many
SUB t, t, a;
ADD t, t, prev;
MIN t, t, unorm.x;                 # saturate: FF + 01 = FF
MUL result.color, t, unorm.z;
# ANCHOR_END: accumulate_u8
END
