//! The unit tests of `coop`: the f16 operands, the error bound, the variants' layouts, tiles
//! and SPIR-V, the default variant, and the range checks.

use super::*;

/// Each layout's operand, written straight into staging unit by unit (on threads where it is
/// large enough), is the model `f16_packed` builds, byte for byte, padding included, even when
/// the pooled staging buffer still holds another upload's bytes (uploaded just before, of the
/// same size, all 0x7BFF = 65504).
#[test]
fn f16_operands_uploaded_unit_by_unit_match_the_layout_model() {
    let ctx = GpuContext::new().expect("an adapter");
    for &(m, n, rows, cols, seed) in &[
        (1, 1, 16, 16, 1u64),
        (7, 13, 16, 16, 2),
        (33, 17, 48, 32, 3),
        (40, 70, 48, 80, 4),
        (2000, 2050, 2048, 2064, 5),
    ] {
        let x = Matrix::random(m, n, seed, -2.0, 2.0);
        let dirty = Matrix::from_fn(rows, cols, |_, _| F16_MAX);
        for layout in [
            Layout::RowMajor,
            Layout::FragmentsByRow,
            Layout::FragmentsByColumn,
        ] {
            drop(f16_operand(&ctx, "dirty", &dirty, rows, cols, layout).unwrap());
            let (buf, inside) = f16_operand(&ctx, "x", &x, rows, cols, layout).unwrap();
            assert!(
                inside,
                "{m}x{n} {layout:?}: values in range seen as outside"
            );
            let got = crate::gpu::readback::blocking::read_buffer_bytes(
                &ctx,
                &buf.buffer,
                (rows * cols * 2) as u64,
            )
            .unwrap();
            let (_, _, want) = f16_packed(&x, rows, cols, layout);
            assert!(
                got[..] == *bytemuck::cast_slice::<half::f16, u8>(&want),
                "{m}x{n} {layout:?}"
            );
        }
    }
}

/// The upload says when a value lies outside f16's range, wherever it is in the operand and
/// whatever the layout: just past ±65504, an infinity or a NaN; 65504 itself is inside.
#[test]
fn f16_operands_say_when_a_value_lies_outside_f16s_range() {
    let ctx = GpuContext::new().expect("an adapter");
    let x = Matrix::random(37, 50, 7, -2.0, 2.0);
    for layout in [
        Layout::RowMajor,
        Layout::FragmentsByRow,
        Layout::FragmentsByColumn,
    ] {
        for (value, outside) in [
            (F16_MAX, false),
            (-F16_MAX, false),
            (65505.0, true),
            (-65505.0, true),
            (f32::INFINITY, true),
            (f32::NAN, true),
        ] {
            for (i, j) in [(0, 0), (36, 49), (17, 33)] {
                let mut y = x.clone();
                y.set(i, j, value);
                let (_, inside) = f16_operand(&ctx, "y", &y, 48, 64, layout).unwrap();
                assert_eq!(inside, !outside, "{value} at ({i}, {j}), {layout:?}");
            }
        }
    }
}

/// The bound holds for a CPU model of what the tensor cores do (inputs rounded to f16,
/// products exact, f32 sums rounded toward zero at each addition), and is not vacuous: the
/// worst element uses at least 1/1000 of it. (It is a worst case, linear in k; the errors of
/// random data grow more like √k, so at k = 2000 they use under 1% of it.)
#[test]
fn the_bound_covers_a_cpu_model_of_f16_inputs_and_f32_accumulation() {
    for &(m, k, n, seed) in &[(7, 300, 5, 1u64), (16, 16, 16, 2), (3, 2000, 4, 3)] {
        let a = Matrix::random(m, k, seed, -1.0, 1.0);
        let b = Matrix::random(k, n, seed + 100, -1.0, 1.0);
        let h = |x: f32| half::f16::from_f32(x).to_f32();
        let mut c = Matrix::zeros(m, n);
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0f32;
                for p in 0..k {
                    let prod = h(a.get(i, p)) * h(b.get(p, j)); // exact
                    let exact = s as f64 + prod as f64;
                    let mut r = exact as f32;
                    // round toward zero
                    if (r as f64).abs() > exact.abs() {
                        r = f32::from_bits(r.to_bits() - 1);
                    }
                    s = r;
                }
                c.set(i, j, s);
            }
        }
        let v = crate::check::judge(
            crate::check::Arith::F16Inputs { tensor_cores: true },
            &a,
            &b,
            &c,
        );
        assert!(v.passed, "{m}x{k}x{n}: ratio {:?}", v.f16_bound_ratio);
        assert!(
            v.f16_bound_ratio.unwrap() > 1e-3,
            "{m}x{k}x{n}: bound too loose? {:?}",
            v.f16_bound_ratio
        );
    }
}

/// The fragment layouts put every element where the shader's `load_a` / `load_b` formulas
/// (written out again here) look for it.
#[test]
fn fragment_layouts_match_the_shader_addressing() {
    let (mp, kp, np) = (48, 32, 64);
    let a = Matrix::random(37, 20, 5, -1.0, 1.0);
    let b = Matrix::random(20, 50, 6, -1.0, 1.0);
    let (_, _, pa) = f16_packed(&a, mp, kp, Layout::FragmentsByRow);
    let (_, _, pb) = f16_packed(&b, kp, np, Layout::FragmentsByColumn);
    let h = |x: f32| half::f16::from_f32(x);
    for row0 in (0..mp).step_by(16) {
        for k0 in (0..kp).step_by(16) {
            // load_a(row0, 0, k0): ((row0/16 + i)·(k/16) + k0/16)·256, stride 16
            let at = ((row0 / 16) * (kp / 16) + k0 / 16) * 256;
            for r in 0..16 {
                for c in 0..16 {
                    let want = if row0 + r < a.rows && k0 + c < a.cols {
                        h(a.get(row0 + r, k0 + c))
                    } else {
                        half::f16::ZERO
                    };
                    assert_eq!(pa[at + r * 16 + c], want);
                }
            }
        }
    }
    for k0 in (0..kp).step_by(16) {
        for col0 in (0..np).step_by(16) {
            // load_b(k0, col0, 0): ((col0/16 + j)·(k/16) + k0/16)·256, stride 16
            let at = ((col0 / 16) * (kp / 16) + k0 / 16) * 256;
            for r in 0..16 {
                for c in 0..16 {
                    let want = if k0 + r < b.rows && col0 + c < b.cols {
                        h(b.get(k0 + r, col0 + c))
                    } else {
                        half::f16::ZERO
                    };
                    assert_eq!(pb[at + r * 16 + c], want);
                }
            }
        }
    }
}

/// Both shaders translate to SPIR-V, entry point by entry point as wgpu's Vulkan back end
/// does (naga 30's writer panics on some cooperative-matrix expressions that validate), with
/// the overrides each variant sets; and every variant's entry point, workgroup size and
/// workgroup memory are the shader's.
#[test]
fn every_variant_translates_to_spirv() {
    use wgpu::naga;
    for v in VARIANTS {
        let p = plan(v, 100, 70, 90);
        let kernel = &p.stages[0].kernel;
        let module = naga::front::wgsl::parse_str(kernel.source)
            .unwrap_or_else(|e| panic!("{}: {}", v.name, e.emit_to_string(kernel.source)));
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", v.name, e.emit_to_string(kernel.source)));
        let constants: naga::back::PipelineConstants = kernel
            .constants
            .iter()
            .map(|&(k, x)| (k.to_string(), x))
            .collect();
        let (module, info) = naga::back::pipeline_constants::process_overrides(
            &module,
            &info,
            Some((naga::ShaderStage::Compute, v.entry)),
            &constants,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == v.entry)
            .unwrap_or_else(|| panic!("{}: no entry point {}", v.name, v.entry));
        assert_eq!(ep.workgroup_size, kernel.workgroup_size, "{}", v.name);
        // The module holds what the entry point uses, so its workgroup arrays are this
        // kernel's.
        let workgroup_bytes: u64 = module
            .global_variables
            .iter()
            .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
            .map(|(_, g)| module.types[g.ty].inner.size(module.to_ctx()) as u64)
            .sum();
        assert_eq!(workgroup_bytes, kernel.workgroup_bytes, "{}", v.name);
        let options = naga::back::spv::Options {
            bounds_check_policies: naga::proc::BoundsCheckPolicies::default(),
            ..Default::default()
        };
        let pipeline = naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: v.entry.to_string(),
        };
        let words = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert!(words.len() > 100, "{}", v.name);
    }
}

/// A multi-subgroup variant's workgroup tile is its subgroups' blocks side by side, and the
/// grid covers the padded C exactly.
#[test]
fn multi_subgroup_tiles_and_grid() {
    let v = Variant::parse("256x128-frag").unwrap();
    assert_eq!((v.bm(), v.bn(), v.workgroup()), (256, 128, 256));
    assert_eq!(padded(&v, 300, 20, 129), (512, 32, 256));
    assert_eq!(plan(&v, 300, 20, 129).stages[0].groups, [2, 2, 1]);
    let v = Variant::parse("128x128-frag-pipe").unwrap();
    assert_eq!((v.bm(), v.bn(), v.workgroup()), (128, 128, 128));
    for name in ["64x64", "64x64-frag", "64x32", "32x32-frag"] {
        assert_eq!(Variant::parse(name).unwrap().workgroup(), WORKGROUP);
    }
}

/// The staged variants: their tiles and workgroups, k padded to their step (32, or 48), A and
/// B row-major, and workgroup memory within the 48 KiB Vulkan gives on NVIDIA.
#[test]
fn staged_tiles_padding_and_workgroup_memory() {
    // (name, BM, BN, invocations, n = 300 padded, workgroups along n, k step, bytes)
    for (name, bm, bn, invocations, np, gx, bk, bytes) in [
        ("128x128-smem", 128, 128, 128, 384, 3, 32, 37888),
        ("128x128-smem-db", 128, 128, 128, 384, 3, 32, 37888),
        ("128x128-smem-db-64x32", 128, 128, 256, 384, 3, 32, 37888),
        ("128x256-smem-pf", 128, 256, 256, 512, 2, 32, 37888),
        ("128x256-smem48", 128, 256, 256, 512, 2, 48, 47872),
    ] {
        let v = Variant::parse(name).unwrap();
        assert!(v.staged() && !v.fragments, "{name}");
        assert_eq!(
            (v.bm(), v.bn(), v.workgroup()),
            (bm, bn, invocations),
            "{name}"
        );
        assert_eq!(
            padded(&v, 300, 40, 300),
            (384, 40usize.div_ceil(bk) * bk, np),
            "{name}"
        );
        assert_eq!(
            padded(&v, 300, 97, 300).1,
            97usize.div_ceil(bk) * bk,
            "{name}"
        );
        assert_eq!(padded(&v, 1, 1, 1), (bm, bk, bn), "{name}");
        let p = plan(&v, 300, 40, 300);
        assert_eq!(p.stages[0].groups, [gx, 3, 1], "{name}");
        assert_eq!(p.stages[0].kernel.workgroup_bytes, bytes, "{name}");
        assert!(p.stages[0].kernel.workgroup_bytes <= 49152, "{name}");
    }
    assert_eq!(
        padded(&Variant::parse("128x128-frag").unwrap(), 1, 40, 1).1,
        48
    );
}

#[test]
fn products_on_nvidia_with_enough_tiles_default_to_the_staged_variant() {
    assert_eq!(STAGED_DEFAULT.name, "128x256-smem48");
    let pick = |vendor, m, n| Variant::for_product(vendor, m, n).name;
    // 4096²: 32 × 16 tiles; 1000×513: 8 × 3 = 24; 256²: 2 × 1 = 2; 1 × 4096: 1 × 16;
    // 128×256 and 7×5: one tile.
    assert_eq!(pick(NVIDIA, 4096, 4096), "128x256-smem48");
    assert_eq!(pick(NVIDIA, 1000, 513), "128x256-smem48");
    assert_eq!(pick(NVIDIA, 256, 256), "128x256-smem48");
    assert_eq!(pick(NVIDIA, 1, 4096), "128x256-smem48");
    assert_eq!(pick(NVIDIA, 128, 256), "64x64");
    assert_eq!(pick(NVIDIA, 7, 5), "64x64");
    // AMD, Intel and the rest keep the default at every size.
    for vendor in [0x1002, 0x8086, 0] {
        assert_eq!(pick(vendor, 4096, 4096), "64x64");
    }
}

#[test]
fn inputs_beyond_f16_are_refused() {
    let mut a = Matrix::zeros(2, 3);
    a.set(1, 2, 70000.0);
    let e = check_f16_range(&a, "A").unwrap_err().to_string();
    assert!(e.contains("row 1, column 2") && e.contains("f16"), "{e}");
}
