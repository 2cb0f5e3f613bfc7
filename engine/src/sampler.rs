//! Samplers: how the passes read their images (filter, mip levels,
//! addressing, anisotropy), one `vk::Sampler` each, destroyed when dropped.
//! Anisotropy is asked for per sampler and given as far as the device
//! allows (`Limits::max_sampler_anisotropy`: 1 where it has none, and on a
//! CPU device unless `ContextDesc::anisotropy_on_cpu` asks).

use ash::vk;

use crate::context::Context;
use crate::owned::{Owned, Sampler};
use crate::Error;

/// How a sampler reads its image: the filter, whether it blends between
/// every mip level (trilinear) or reads level 0 only, and whether it repeats
/// or clamps to the edge.
#[derive(Clone, Copy, Debug)]
pub struct SamplerDesc {
    pub filter: vk::Filter,
    pub mipmaps: bool,
    pub repeat: bool,
    /// The most anisotropy the filter takes (1: isotropic), as far as the
    /// device allows (`Limits::max_sampler_anisotropy`).
    pub max_anisotropy: f32,
}

/// A sampler with `filter`, clamped to the edge, without mip levels.
pub fn create_sampler(ctx: &Context, filter: vk::Filter, name: &str) -> Result<Sampler, Error> {
    let desc = SamplerDesc {
        filter,
        mipmaps: false,
        repeat: false,
        max_anisotropy: 1.0,
    };
    create_sampler_as(ctx, desc, name)
}

/// A sampler as `desc` says.
pub fn create_sampler_as(ctx: &Context, desc: SamplerDesc, name: &str) -> Result<Sampler, Error> {
    let address = if desc.repeat {
        vk::SamplerAddressMode::REPEAT
    } else {
        vk::SamplerAddressMode::CLAMP_TO_EDGE
    };
    let (mipmap_mode, max_lod) = if desc.mipmaps {
        (vk::SamplerMipmapMode::LINEAR, vk::LOD_CLAMP_NONE)
    } else {
        (vk::SamplerMipmapMode::NEAREST, 0.0)
    };
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(desc.filter)
        .min_filter(desc.filter)
        .mipmap_mode(mipmap_mode)
        .address_mode_u(address)
        .address_mode_v(address)
        .address_mode_w(address)
        .max_lod(max_lod);
    let anisotropy = desc.max_anisotropy.min(ctx.limits.max_sampler_anisotropy);
    let info = if anisotropy > 1.0 {
        info.anisotropy_enable(true).max_anisotropy(anisotropy)
    } else {
        info
    };
    // SAFETY: valid create info.
    let sampler = unsafe { ctx.device.create_sampler(&info, None) }?;
    Ok(Owned::new(ctx, sampler, name))
}

/// A nearest-filter sampler: bone textures are read with `texelFetch` only.
pub fn create_bone_sampler(ctx: &Context) -> Result<Sampler, Error> {
    create_sampler(ctx, vk::Filter::NEAREST, "bone texture sampler")
}
