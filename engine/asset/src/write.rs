//! Serializes an [`Asset`] into the layout documented in the module above.

use super::{
    fnv1a32, tag, Asset, AssetError, AssetKind, Bounds, ErrorReport, ErrorStat, MeshLod,
    HEADER_SIZE, MAGIC, NO_TEXTURE, SECTION_ENTRY_SIZE, VERSION,
};

/// Little-endian byte sink for one section body.
#[derive(Default)]
struct Body(Vec<u8>);

impl Body {
    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }
    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn f32(&mut self, value: f32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn f32s(&mut self, values: &[f32]) {
        values.iter().for_each(|&value| self.f32(value));
    }
    fn len_u32(&mut self, len: usize) {
        self.u32(u32::try_from(len).unwrap_or(u32::MAX));
    }
    fn string(&mut self, text: &str) {
        self.len_u32(text.len());
        self.0.extend_from_slice(text.as_bytes());
    }
    fn stat(&mut self, stat: ErrorStat) {
        self.f32(stat.max);
        self.f32(stat.rms);
    }
}

fn meta(asset: &Asset) -> Vec<u8> {
    let mut body = Body::default();
    body.string(&asset.name);
    body.u8(match asset.kind {
        AssetKind::Unit => 0,
        AssetKind::Prop => 1,
    });
    body.len_u32(asset.bone_names.len());
    asset.bone_names.iter().for_each(|name| body.string(name));
    let Bounds {
        quant_min,
        quant_max,
        sphere_center,
        sphere_radius,
        height,
    } = asset.bounds;
    body.f32s(&quant_min);
    body.f32s(&quant_max);
    body.f32s(&sphere_center);
    body.f32(sphere_radius);
    body.f32(height);
    body.0
}

fn materials(asset: &Asset) -> Vec<u8> {
    let mut body = Body::default();
    body.len_u32(asset.materials.len());
    for material in &asset.materials {
        body.string(&material.name);
        body.f32s(&material.base_color_factor);
        body.u32(material.base_color_texture.unwrap_or(NO_TEXTURE));
        body.f32s(&material.emissive_factor);
        body.u32(material.emissive_texture.unwrap_or(NO_TEXTURE));
        body.u8(u8::from(material.double_sided));
    }
    body.0
}

fn textures(asset: &Asset) -> Vec<u8> {
    let mut body = Body::default();
    body.len_u32(asset.textures.len());
    for texture in &asset.textures {
        body.u32(texture.width);
        body.u32(texture.height);
        body.0.extend_from_slice(&texture.rgba8);
    }
    body.0
}

fn lod(lod: &MeshLod) -> Vec<u8> {
    let mut body = Body::default();
    body.f32(lod.error);
    body.u32(lod.flags());
    body.len_u32(lod.vertices.len());
    body.0
        .extend_from_slice(bytemuck::cast_slice(&lod.vertices));
    body.len_u32(lod.indices.len());
    lod.indices.iter().for_each(|&index| body.u32(index));
    body.len_u32(lod.submeshes.len());
    for submesh in &lod.submeshes {
        body.u32(submesh.first_index);
        body.u32(submesh.index_count);
        body.u32(submesh.material);
    }
    body.0
}

fn report(report: &ErrorReport) -> Vec<u8> {
    let mut body = Body::default();
    body.f32(report.model_height);
    body.f32(report.sample_rate);
    body.u32(report.time_samples);
    for stat in [
        report.two_bone_naive,
        report.two_bone_fitted,
        report.mat3x4,
        report.quat32,
        report.quat16,
        report.dual_quat,
        report.frame_rate,
        report.total,
    ] {
        body.stat(stat);
    }
    body.len_u32(report.warnings.len());
    report
        .warnings
        .iter()
        .for_each(|warning| body.string(warning));
    body.0
}

/// Serializes `asset`, then checks the bytes with [`read`](super::read): one
/// set of limits (string lengths, counts, indices, finite values) holds for
/// both, so the writer never produces a file its own reader rejects. Vertex
/// data is written in the host's byte order through bytemuck; every supported
/// target is little-endian.
pub fn write(asset: &Asset) -> Result<Vec<u8>, AssetError> {
    let bytes = serialize(asset);
    super::read(&bytes)?;
    Ok(bytes)
}

fn serialize(asset: &Asset) -> Vec<u8> {
    let mut sections: Vec<([u8; 4], Vec<u8>)> = vec![
        (tag::META, meta(asset)),
        (tag::MATERIALS, materials(asset)),
        (tag::TEXTURES, textures(asset)),
    ];
    if let Some(animation) = &asset.animation {
        let mut body = Body::default();
        body.u32(animation.encoding.code());
        body.u32(animation.bone_count);
        body.u32(animation.texture_width);
        body.u32(animation.texture_height);
        body.len_u32(animation.clips.len());
        for clip in &animation.clips {
            body.string(&clip.name);
            body.u32(clip.first_texel);
            body.u32(clip.frame_count);
            body.f32(clip.duration);
            body.u8(u8::from(clip.looping));
            body.f32(clip.ground_speed);
            body.f32(clip.foot_phase);
        }
        body.0.extend_from_slice(&animation.texels);
        sections.push((tag::ANIMATION, body.0));
    }
    sections.extend(asset.lods.iter().map(|level| (tag::LOD, lod(level))));
    sections.push((tag::REPORT, report(&asset.report)));
    if let Some(impostor) = &asset.impostor {
        let mut body = Body::default();
        body.u32(impostor.views_per_side);
        body.u32(impostor.cell_px);
        body.u32(impostor.frame_count);
        body.f32(impostor.error);
        body.f32s(&impostor.box_center);
        body.f32s(&impostor.box_half_extent);
        body.len_u32(impostor.clips.len());
        for clip in &impostor.clips {
            body.u32(clip.first_frame);
            body.u32(clip.frame_count);
            body.u8(u8::from(clip.looping));
        }
        body.0.extend_from_slice(&impostor.albedo);
        body.0.extend_from_slice(&impostor.normal);
        sections.push((tag::IMPOSTOR, body.0));
    }

    let table_end = HEADER_SIZE + SECTION_ENTRY_SIZE * sections.len();
    let total = table_end + sections.iter().map(|(_, body)| body.len()).sum::<usize>();
    let mut bytes = Vec::with_capacity(total);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(total as u64).to_le_bytes());
    bytes.extend_from_slice(&[0; 8]); // checksum and reserved, checksum patched below
    let mut offset = table_end as u64;
    for (section_tag, body) in &sections {
        bytes.extend_from_slice(section_tag);
        bytes.extend_from_slice(&offset.to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        offset += body.len() as u64;
    }
    sections
        .iter()
        .for_each(|(_, body)| bytes.extend_from_slice(body));
    let checksum = fnv1a32(&bytes[HEADER_SIZE..]);
    bytes[24..28].copy_from_slice(&checksum.to_le_bytes());
    bytes
}
