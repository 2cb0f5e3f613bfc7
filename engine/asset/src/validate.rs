//! The reader's checks across sections, once every section is parsed: every
//! bone, vertex, material, texture and texel index refers to something that
//! exists, and the materials' emissive factors, the LODs' errors and the
//! bone texture's poses are finite.

use crate::read::invalid;
use crate::{
    Animation, Asset, AssetError, AssetKind, BoneEncoding, MeshLod, MAX_GROUND_SPEED_PER_HEIGHT,
};

/// Cross-section checks: every index refers to something that exists.
pub(crate) fn validate(asset: &Asset) -> Result<(), AssetError> {
    let bone_limit = match (asset.kind, &asset.animation) {
        (AssetKind::Unit, Some(animation)) => {
            validate_animation(animation, asset.bone_names.len(), asset.bounds.height)?;
            asset.bone_names.len()
        }
        (AssetKind::Unit, None) => return Err(invalid("unit without ANIM section")),
        (AssetKind::Prop, None) if asset.bone_names.is_empty() => 1,
        (AssetKind::Prop, _) => return Err(invalid("prop with bones or animation")),
    };
    for material in &asset.materials {
        let textures = [material.base_color_texture, material.emissive_texture];
        if let Some(texture) = textures
            .into_iter()
            .flatten()
            .find(|&texture| texture as usize >= asset.textures.len())
        {
            return Err(invalid(format!(
                "material {:?}: texture {texture} of {}",
                material.name,
                asset.textures.len()
            )));
        }
        if !material.emissive_factor.iter().all(|c| c.is_finite()) {
            return Err(invalid(format!(
                "material {:?}: non-finite emissive factor",
                material.name
            )));
        }
    }
    for (level, lod) in asset.lods.iter().enumerate() {
        validate_lod(lod, level, bone_limit, asset.materials.len())?;
    }
    if let Some(impostor) = &asset.impostor {
        let clip_count = asset.animation.as_ref().map_or(0, |a| a.clips.len());
        if asset.kind != AssetKind::Unit || impostor.clips.len() != clip_count {
            return Err(invalid(format!(
                "IMPO section: {} impostor clips for a {:?} with {clip_count} clips",
                impostor.clips.len(),
                asset.kind
            )));
        }
    }
    Ok(())
}

fn validate_lod(
    lod: &MeshLod,
    level: usize,
    bone_limit: usize,
    material_count: usize,
) -> Result<(), AssetError> {
    if !lod.error.is_finite() || lod.error < 0.0 {
        return Err(invalid(format!("LOD {level}: error {}", lod.error)));
    }
    if level == 0 && lod.raster_only {
        return Err(invalid(
            "LOD 0: raster only (the chain's first LOD is every renderer's)",
        ));
    }
    if let Some(vertex) = lod
        .vertices
        .iter()
        .position(|vertex| vertex.bones.iter().any(|&bone| bone as usize >= bone_limit))
    {
        return Err(invalid(format!(
            "LOD {level}: vertex {vertex} bone index {:?} out of range (bone count {bone_limit})",
            lod.vertices[vertex].bones
        )));
    }
    if lod.indices.len() % 3 != 0 {
        return Err(invalid(format!(
            "LOD {level}: index count {} not a multiple of 3",
            lod.indices.len()
        )));
    }
    if let Some(&index) = lod
        .indices
        .iter()
        .find(|&&index| index as usize >= lod.vertices.len())
    {
        return Err(invalid(format!(
            "LOD {level}: index {index} out of range (vertex count {})",
            lod.vertices.len()
        )));
    }
    for submesh in &lod.submeshes {
        let end = u64::from(submesh.first_index) + u64::from(submesh.index_count);
        if end > lod.indices.len() as u64
            || submesh.first_index % 3 != 0
            || submesh.index_count % 3 != 0
        {
            return Err(invalid(format!(
                "LOD {level}: submesh range {}..{end} not whole triangles inside {} indices",
                submesh.first_index,
                lod.indices.len()
            )));
        }
        if submesh.material as usize >= material_count {
            return Err(invalid(format!(
                "LOD {level}: submesh material {} of {material_count}",
                submesh.material
            )));
        }
    }
    Ok(())
}

fn validate_animation(
    animation: &Animation,
    bone_count: usize,
    height: f32,
) -> Result<(), AssetError> {
    if animation.bone_count as usize != bone_count || bone_count == 0 {
        return Err(invalid(format!(
            "ANIM bone count {} but META names {bone_count} bones",
            animation.bone_count
        )));
    }
    let texel_count = u64::from(animation.texture_width) * u64::from(animation.texture_height);
    let texels_per_frame =
        u64::from(animation.bone_count) * u64::from(animation.encoding.texels_per_bone());
    for clip in &animation.clips {
        if clip.frame_count == 0 {
            return Err(invalid(format!("clip {:?}: zero frames", clip.name)));
        }
        if clip.duration < 0.0 || (clip.duration == 0.0 && clip.frame_count != 1) {
            return Err(invalid(format!(
                "clip {:?}: duration {} with {} frames",
                clip.name, clip.duration, clip.frame_count
            )));
        }
        let max_speed = MAX_GROUND_SPEED_PER_HEIGHT * height;
        if !(0.0..=max_speed).contains(&clip.ground_speed) {
            return Err(invalid(format!(
                "clip {:?}: ground speed {} outside 0..={max_speed} (model height {height})",
                clip.name, clip.ground_speed
            )));
        }
        if !(0.0..1.0).contains(&clip.foot_phase) {
            return Err(invalid(format!(
                "clip {:?}: foot phase {} outside [0, 1)",
                clip.name, clip.foot_phase
            )));
        }
        let end = u64::from(clip.first_texel) + u64::from(clip.frame_count) * texels_per_frame;
        if end > texel_count {
            return Err(invalid(format!(
                "clip {:?}: texels {}..{end} outside the {texel_count}-texel bone texture",
                clip.name, clip.first_texel
            )));
        }
    }
    let finite = match animation.encoding {
        BoneEncoding::Mat3x4F32 | BoneEncoding::QuatF32 | BoneEncoding::DualQuatF32 => animation
            .texels
            .chunks_exact(4)
            .all(|word| f32::from_le_bytes([word[0], word[1], word[2], word[3]]).is_finite()),
        BoneEncoding::QuatF16 => animation
            .texels
            .chunks_exact(2)
            .all(|word| half::f16::from_le_bytes([word[0], word[1]]).is_finite()),
    };
    if !finite {
        return Err(invalid("bone texture: NaN or infinite pose value"));
    }
    Ok(())
}
