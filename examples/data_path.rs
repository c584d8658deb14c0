//! Where a product's data path spends its time, step by step, on the current adapter:
//!
//! ```text
//! cargo run --release --example data_path -- [N]      # N×N f32 matrices, default 1024
//! ```
//!
//! Each step moves one N×N f32 matrix (4·N² bytes) and is timed by the wall clock, twice (the
//! second round shows what reuse buys). `docs/performance.md` holds the numbers and what the
//! library's data path (`src/gpu/staging.rs`) does about them.

use rendermm::gpu::GpuContext;
use rendermm::matrix::Matrix;
use std::time::Instant;

/// Time `f`, print the step's milliseconds and rate over `bytes`.
fn step<T>(name: &str, bytes: u64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "{name:<52} {ms:9.3} ms {:8.2} GB/s",
        bytes as f64 / ms / 1e6
    );
    r
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("N = '{s}': give a whole number"))?,
        None => 1024,
    };
    let ctx = GpuContext::new()?;
    println!("{}", ctx.describe());
    let bytes = (n * n * 4) as u64;
    let (d, q) = (&ctx.device, &ctx.queue);
    let buffer = |usage, mapped| {
        d.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage,
            mapped_at_creation: mapped,
        })
    };
    let wait = || ctx.wait();
    let src = buffer(
        wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        false,
    );
    let host: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let mut prefaulted = vec![0f32; n * n];
    let copy_and_map = |staging: &wgpu::Buffer| {
        let mut e = d.create_command_encoder(&Default::default());
        e.copy_buffer_to_buffer(&src, 0, staging, 0, bytes);
        q.submit([e.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapping"));
        wait()
    };
    for round in 1..=2 {
        println!("--- round {round}: {n}x{n} f32, {} KiB", bytes >> 10);
        // Readback.
        let st = step("read: create a MAP_READ staging buffer", bytes, || {
            buffer(
                wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                false,
            )
        });
        step("read: copy into it and map (fresh)", bytes, || {
            copy_and_map(&st)
        })?;
        let fresh: Vec<u8> = step("read: bytes out of a fresh mapping", bytes, || {
            st.get_mapped_range(..).expect("mapped").to_vec()
        });
        step("read: bytes to f32 (a second copy)", bytes, || {
            bytemuck::pod_collect_to_vec::<u8, f32>(&fresh)
        });
        st.unmap();
        step("read: copy and map again (reused staging)", bytes, || {
            copy_and_map(&st)
        })?;
        step("read: bytes out of a reused mapping", bytes, || {
            bytemuck::cast_slice_mut::<f32, u8>(&mut prefaulted)
                .copy_from_slice(&st.get_mapped_range(..).expect("mapped"))
        });
        step(
            &format!(
                "read: reused mapping into fresh memory, {} threads",
                rendermm::gpu::host::threads_for(bytes as usize)
            ),
            bytes,
            || {
                let data = st.get_mapped_range(..).expect("mapped");
                rendermm::gpu::staging::Bytes::copied_rows(&data, 1, data.len(), data.len())
            },
        );
        st.unmap();
        step("host: copy into fresh memory, 1 thread", bytes, || {
            bytemuck::cast_slice::<f32, u8>(&host).to_vec()
        });
        step(
            "host: copy into memory touched before, 1 thread",
            bytes,
            || {
                bytemuck::cast_slice_mut::<f32, u8>(&mut prefaulted)
                    .copy_from_slice(bytemuck::cast_slice(&host))
            },
        );
        // Upload.
        step("poison: a host vector of NaN, write_buffer", bytes, || {
            let poison = vec![u32::MAX; n * n];
            q.write_buffer(&src, 0, bytemuck::cast_slice(&poison));
            q.submit([]);
            wait()
        })?;
        step("poison: GPU copies from a poison buffer", bytes, || {
            let mut e = d.create_command_encoder(&Default::default());
            ctx.staging.poison(&ctx, &mut e, &src, 0, bytes)?;
            q.submit([e.finish()]);
            wait()
        })?;
        step("upload: Queue::write_buffer", bytes, || {
            q.write_buffer(&src, 0, bytemuck::cast_slice(&host));
            q.submit([]);
            wait()
        })?;
        step(
            "upload: pooled mapped staging + copy, 1 thread",
            bytes,
            || {
                ctx.staging.upload(&ctx, &src, 0, bytes, |mut w| {
                    w.copy_from_slice(bytemuck::cast_slice(&host))
                })?;
                wait()
            },
        )?;
        step(
            &format!(
                "upload: pooled mapped staging + copy, {} threads",
                rendermm::gpu::host::threads_for(bytes as usize)
            ),
            bytes,
            || {
                ctx.staging.upload(&ctx, &src, 0, bytes, |w| {
                    rendermm::gpu::host::copy_into(w, bytemuck::cast_slice(&host))
                })?;
                wait()
            },
        )?;
        let a = Matrix::random(n, n, 1, -1.0, 1.0);
        step(
            "layout: Aᵀ on the host (cs-fast's operand)",
            bytes,
            || {
                let mut sum = 0.0;
                rendermm::gpu::buffer::layout_rows(&a, true, n, n, |r| sum += r[0]);
                sum
            },
        );
        step("layout: a clone of A on the host", bytes, || a.clone());
        step("layout: A up as given, Aᵀ on the device", bytes, || {
            let t = rendermm::gpu::layout::upload_laid_out_at(
                &ctx,
                rendermm::gpu::layout::Where::Device,
                "Aᵀ",
                &a,
                true,
                n,
                n,
            )?
            .0;
            wait()?;
            Ok::<_, rendermm::error::Error>(t)
        })?;
    }
    Ok(())
}
