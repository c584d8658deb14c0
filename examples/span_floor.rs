//! What a pair of GPU timestamps measures around almost nothing: the floor under every device time
//! rendermm reports, and why the timestamps travel with the work (`src/gpu/timer.rs`).
//!
//! ```text
//! cargo run --release --example span_floor
//! ```
//!
//! Each row writes two timestamps around a little work and prints the median, min and max of 25
//! spans in microseconds: nothing at all, an empty compute pass, one dispatch of one workgroup
//! (64 invocations, one store each), eight such dispatches, a buffer clear and one dispatch, all
//! in one command buffer; the timestamps and the dispatch as three command buffers in one
//! submission; and the way rendermm's spans used to work, each timestamp in a submission of its
//! own, around one dispatch and around nothing. On a GPU the last two count the GPU's wait for the
//! host's next submission (docs/tensor-cores.md, "The cost every product pays once"). On lavapipe
//! timestamps in the work's own submission do not wait for a compute dispatch, so there only the
//! last two rows bracket the work (the reason `Span` keeps separate submissions on CPU adapters).

use rendermm::gpu::GpuContext;

const SHADER: &str = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = g.x; }";

/// Where the two timestamps go, and what lies between them.
#[derive(Clone, Copy)]
enum Way {
    /// One command buffer: timestamp, `dispatches` dispatches in one pass (none: an empty
    /// pass; `None`: no pass at all), timestamp; a buffer clear first when `clear`.
    Encoded {
        dispatches: Option<u32>,
        clear: bool,
    },
    /// Timestamp, one dispatch, timestamp as three command buffers in one submission.
    OneSubmission,
    /// Each timestamp in a submission of its own, one dispatch (or none) in between.
    Alone { dispatch: bool },
}

const WAYS: [(&str, Way); 8] = [
    (
        "one command buffer, nothing between",
        Way::Encoded {
            dispatches: None,
            clear: false,
        },
    ),
    (
        "one command buffer, an empty pass",
        Way::Encoded {
            dispatches: Some(0),
            clear: false,
        },
    ),
    (
        "one command buffer, 1 dispatch",
        Way::Encoded {
            dispatches: Some(1),
            clear: false,
        },
    ),
    (
        "one command buffer, 8 dispatches",
        Way::Encoded {
            dispatches: Some(8),
            clear: false,
        },
    ),
    (
        "one command buffer, a clear and 1 dispatch",
        Way::Encoded {
            dispatches: Some(1),
            clear: true,
        },
    ),
    ("three command buffers, one submission", Way::OneSubmission),
    (
        "each timestamp alone, 1 dispatch",
        Way::Alone { dispatch: true },
    ),
    (
        "each timestamp alone, nothing",
        Way::Alone { dispatch: false },
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = GpuContext::new()?;
    println!("{}", ctx.describe());
    let (d, q) = (&ctx.device, &ctx.queue);
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("span floor"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("span floor"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let buffer = |size, usage| {
        d.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    use wgpu::BufferUsages as U;
    let out = buffer(1 << 20, U::STORAGE | U::COPY_DST);
    let resolve = buffer(16, U::QUERY_RESOLVE | U::COPY_SRC);
    let read = buffer(16, U::COPY_DST | U::MAP_READ);
    let bind = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    let qs = d.create_query_set(&wgpu::QuerySetDescriptor {
        label: None,
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let period_us = q.get_timestamp_period() as f64 * 1e-3;
    let encoder = || d.create_command_encoder(&Default::default());
    let pass = |enc: &mut wgpu::CommandEncoder, n: u32| {
        let mut p = enc.begin_compute_pass(&Default::default());
        p.set_pipeline(&pipeline);
        p.set_bind_group(0, &bind, &[]);
        for _ in 0..n {
            p.dispatch_workgroups(1, 1, 1);
        }
    };
    let stamp = |enc: &mut wgpu::CommandEncoder, i: u32| {
        enc.write_timestamp(&qs, i);
        if i == 1 {
            enc.resolve_query_set(&qs, 0..2, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, 16);
        }
    };
    println!(
        "{:<44} {:>10} {:>10} {:>10}",
        "two timestamps around", "median us", "min us", "max us"
    );
    for (name, way) in WAYS {
        let mut us = Vec::new();
        for _ in 0..25 {
            ctx.wait()?;
            match way {
                Way::Encoded { dispatches, clear } => {
                    let mut e = encoder();
                    stamp(&mut e, 0);
                    if clear {
                        e.clear_buffer(&out, 0, None);
                    }
                    if let Some(n) = dispatches {
                        pass(&mut e, n);
                    }
                    stamp(&mut e, 1);
                    q.submit([e.finish()]);
                }
                Way::OneSubmission => {
                    let (mut a, mut w, mut z) = (encoder(), encoder(), encoder());
                    stamp(&mut a, 0);
                    pass(&mut w, 1);
                    stamp(&mut z, 1);
                    q.submit([a.finish(), w.finish(), z.finish()]);
                }
                Way::Alone { dispatch } => {
                    let mut a = encoder();
                    stamp(&mut a, 0);
                    q.submit([a.finish()]);
                    if dispatch {
                        let mut w = encoder();
                        pass(&mut w, 1);
                        q.submit([w.finish()]);
                    }
                    let mut z = encoder();
                    stamp(&mut z, 1);
                    q.submit([z.finish()]);
                }
            }
            let ticks: Vec<u64> = pollster::block_on(rendermm::gpu::wait::map_read(
                &ctx,
                &read,
                bytemuck::pod_collect_to_vec,
            ))?;
            us.push(ticks[1].wrapping_sub(ticks[0]) as f64 * period_us);
        }
        us.sort_by(f64::total_cmp);
        println!(
            "{name:<44} {:>10.2} {:>10.2} {:>10.2}",
            us[us.len() / 2],
            us[0],
            us[us.len() - 1]
        );
    }
    Ok(())
}
