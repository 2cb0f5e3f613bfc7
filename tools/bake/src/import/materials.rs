//! Materials and their textures: base colour and emission factors, the
//! textures decoded to RGBA8, and the default material of primitives
//! without one.

use super::*;

/// The asset texture of glTF image `image_index`, converted once and shared
/// by every material that uses it.
pub(super) fn texture_of(
    file: &GltfFile,
    model: &mut SourceModel,
    converted: &mut HashMap<usize, u32>,
    image_index: usize,
) -> Result<u32, BakeError> {
    if let Some(&texture) = converted.get(&image_index) {
        return Ok(texture);
    }
    let image = file
        .images
        .get(image_index)
        .ok_or_else(|| file.error(format!("image {image_index} was not loaded")))?;
    let texture = rgba8(image).ok_or_else(|| {
        file.error(format!(
            "image {image_index}: unsupported pixel format {:?}",
            image.format
        ))
    })?;
    let index = model.textures.len() as u32;
    model.textures.push(texture);
    converted.insert(image_index, index);
    Ok(index)
}

pub(super) fn materials_and_textures(
    file: &GltfFile,
    model: &mut SourceModel,
) -> Result<(), BakeError> {
    let mut converted: HashMap<usize, u32> = HashMap::new();
    for material in file.document.materials() {
        let pbr = material.pbr_metallic_roughness();
        let base_color_texture = pbr
            .base_color_texture()
            .map(|info| texture_of(file, model, &mut converted, info.texture().source().index()))
            .transpose()?;
        let emissive_texture = material
            .emissive_texture()
            .map(|info| texture_of(file, model, &mut converted, info.texture().source().index()))
            .transpose()?;
        let strength = material.emissive_strength().unwrap_or(1.0);
        let emissive_factor = material.emissive_factor().map(|c| c * strength);
        if !emissive_factor.iter().all(|c| c.is_finite() && *c >= 0.0) {
            return Err(file.error(format!(
                "material {}: emissive factor {emissive_factor:?} is not finite and non-negative",
                material.index().unwrap_or_default()
            )));
        }
        model.materials.push(SourceMaterial {
            name: material.name().unwrap_or_default().to_owned(),
            base_color_factor: pbr.base_color_factor(),
            base_color_texture,
            emissive_factor,
            emissive_texture,
            double_sided: material.double_sided(),
        });
    }
    Ok(())
}

/// Converts a decoded image to RGBA8 (16-bit channels keep their high byte).
pub(super) fn rgba8(image: &gltf::image::Data) -> Option<horde_asset::Texture> {
    use gltf::image::Format;
    let (channels, bytes_per_channel) = match image.format {
        Format::R8 => (1, 1),
        Format::R8G8 => (2, 1),
        Format::R8G8B8 => (3, 1),
        Format::R8G8B8A8 => (4, 1),
        Format::R16 => (1, 2),
        Format::R16G16 => (2, 2),
        Format::R16G16B16 => (3, 2),
        Format::R16G16B16A16 => (4, 2),
        Format::R32G32B32FLOAT | Format::R32G32B32A32FLOAT => return None,
    };
    let texel_count = image.width as usize * image.height as usize;
    let stride = channels * bytes_per_channel;
    if image.pixels.len() != texel_count * stride {
        return None;
    }
    let mut rgba8 = Vec::with_capacity(texel_count * 4);
    for texel in image.pixels.chunks_exact(stride) {
        // Little-endian 16-bit channels: the high byte is the second one.
        let channel = |c: usize| texel[c * bytes_per_channel + bytes_per_channel - 1];
        let rgba = match channels {
            1 => [channel(0), channel(0), channel(0), 255],
            2 => [channel(0), channel(0), channel(0), channel(1)],
            3 => [channel(0), channel(1), channel(2), 255],
            _ => [channel(0), channel(1), channel(2), channel(3)],
        };
        rgba8.extend_from_slice(&rgba);
    }
    Some(horde_asset::Texture {
        width: image.width,
        height: image.height,
        rgba8,
    })
}
