//! `frag-mrt`'s bind groups: A, B and the passes' uniforms in group 0, each set of attachments
//! as F in group 1.

use crate::gpu::buffer::MatrixBuffer;
use crate::gpu::pipeline::texture_entry;
use crate::gpu::texture::MatrixTexture;

/// A or B where the fragments read it ([`super::Source`]).
pub(super) enum Input {
    Texture(MatrixTexture),
    Buffer(MatrixBuffer),
}

impl Input {
    /// Its bind-group layout entry, visible to the fragment stage.
    fn layout_entry(&self, binding: u32) -> wgpu::BindGroupLayoutEntry {
        match self {
            Input::Texture(_) => texture_entry(binding),
            Input::Buffer(_) => wgpu::BindGroupLayoutEntry {
                visibility: wgpu::ShaderStages::FRAGMENT,
                ..crate::gpu::pipeline::storage_entry(binding, true)
            },
        }
    }

    fn resource(&self) -> wgpu::BindingResource<'_> {
        match self {
            Input::Texture(t) => wgpu::BindingResource::TextureView(&t.view),
            Input::Buffer(b) => b.buffer.as_entire_binding(),
        }
    }
}

/// Group 0's layout: A and B (textures or storage buffers) and the pass's range of k, a
/// uniform at a dynamic offset.
pub(super) fn input_layout(dev: &wgpu::Device, fed: &[Input; 2]) -> wgpu::BindGroupLayout {
    dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("frag-mrt inputs"),
        entries: &[
            fed[0].layout_entry(0),
            fed[1].layout_entry(1),
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(16),
                },
                count: None,
            },
        ],
    })
}

/// The passes' uniforms (start and end of k, A's and B's row lengths), one per `stride` bytes.
pub(super) fn pass_uniforms(
    dev: &wgpu::Device,
    blocks: &[(u32, u32)],
    stride: u32,
    (a_row, b_row): (u32, u32),
) -> wgpu::Buffer {
    let mut uniforms = vec![0u8; stride as usize * blocks.len()];
    for (t, &(start, end)) in blocks.iter().enumerate() {
        let at = t * stride as usize;
        uniforms[at..at + 16].copy_from_slice(bytemuck::cast_slice(&[start, end, a_row, b_row]));
    }
    crate::gpu::staging::create_buffer_init(
        dev,
        &wgpu::util::BufferInitDescriptor {
            label: Some("frag-mrt passes"),
            contents: &uniforms,
            usage: wgpu::BufferUsages::UNIFORM,
        },
    )
}

/// Group 0: A, B and the passes' uniforms.
pub(super) fn input_group(
    dev: &wgpu::Device,
    layout0: &wgpu::BindGroupLayout,
    fed: &[Input; 2],
    ubuf: &wgpu::Buffer,
) -> wgpu::BindGroup {
    dev.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("frag-mrt inputs"),
        layout: layout0,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: fed[0].resource(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: fed[1].resource(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: ubuf,
                    offset: 0,
                    size: wgpu::BufferSize::new(16),
                }),
            },
        ],
    })
}

/// Group 1 for each set of attachments: the set as F, the sum of the earlier passes.
pub(super) fn f_groups(
    dev: &wgpu::Device,
    targets: &[Vec<MatrixTexture>],
    layout1: &wgpu::BindGroupLayout,
) -> Vec<wgpu::BindGroup> {
    targets
        .iter()
        .map(|set| {
            let entries: Vec<_> = set
                .iter()
                .enumerate()
                .map(|(t, tex)| wgpu::BindGroupEntry {
                    binding: t as u32,
                    resource: wgpu::BindingResource::TextureView(&tex.view),
                })
                .collect();
            dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("frag-mrt F"),
                layout: layout1,
                entries: &entries,
            })
        })
        .collect()
}
