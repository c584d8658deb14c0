//! The one kind of render pipeline every render-pass method draws with: a primitive covering the
//! whole target (no vertex buffers, no depth), a fragment entry point, and colour targets.

/// Additive blending, src·One + dst·One: the blend unit as Larsen–McAllister's adder.
pub const ADDITIVE: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
};

/// A screen-covering render pipeline: vertex entry `vs` (its primitive generated from
/// `vertex_index`, drawn as `topology`), fragment entry `fs`, colour `targets`; `layout` `None`
/// derives the layout from the shader.
#[allow(clippy::too_many_arguments)]
pub fn fullscreen(
    device: &wgpu::Device,
    label: &str,
    layout: Option<&wgpu::PipelineLayout>,
    module: &wgpu::ShaderModule,
    vs: &str,
    topology: wgpu::PrimitiveTopology,
    fs: &str,
    targets: &[Option<wgpu::ColorTargetState>],
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout,
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState {
            topology,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}
