//! Validating reader: hostile bytes give an [`AssetError`], never a panic, an
//! out-of-bounds read or an allocation larger than the input.
//!
//! Every count is checked against the bytes left in its section before anything
//! is allocated, every offset with checked arithmetic, and cross-references
//! (bone, vertex, material, texture and texel indices) after all sections are
//! parsed (`validate.rs`).

use super::{
    fnv1a32, tag, Animation, Asset, AssetError, AssetKind, BoneEncoding, Bounds, Clip, ErrorReport,
    ErrorStat, Impostor, ImpostorClip, Material, MeshLod, PackedVertex, Submesh, Texture,
    HEADER_SIZE, IMPOSTOR_CELL_PX, IMPOSTOR_VIEWS_PER_SIDE, LOD_FLAG_BOX_PROXY,
    LOD_FLAG_RASTER_ONLY, MAGIC, MAX_BONES, MAX_IMPOSTOR_FRAMES, MAX_LODS, MAX_SECTIONS,
    MAX_STRING_LEN, MAX_TEXTURE_SIDE, MAX_WARNINGS, NO_TEXTURE, SECTION_ENTRY_SIZE, VERSION,
};
use std::path::Path;

pub(crate) fn invalid(message: impl Into<String>) -> AssetError {
    AssetError::Invalid(message.into())
}

/// Bounded little-endian reader over one section body.
struct Cursor<'a> {
    section: &'static str,
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Cursor<'a> {
    fn new(section: &'static str, bytes: &'a [u8]) -> Self {
        Self {
            section,
            bytes,
            position: 0,
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], AssetError> {
        if len > self.remaining() {
            return Err(AssetError::Truncated(format!(
                "{} section: {what} needs {len} bytes, {} left",
                self.section,
                self.remaining()
            )));
        }
        let slice = &self.bytes[self.position..self.position + len];
        self.position += len;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], AssetError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, AssetError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32, AssetError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn f32(&mut self, what: &str) -> Result<f32, AssetError> {
        let value = f32::from_le_bytes(self.array(what)?);
        if value.is_finite() {
            Ok(value)
        } else {
            Err(invalid(format!(
                "{} section: {what} is not finite ({value})",
                self.section
            )))
        }
    }

    fn f32s<const N: usize>(&mut self, what: &str) -> Result<[f32; N], AssetError> {
        let mut out = [0.0; N];
        for value in &mut out {
            *value = self.f32(what)?;
        }
        Ok(out)
    }

    /// A count of elements of at least `element_size` bytes each, checked against
    /// the bytes left so that a hostile count cannot trigger a huge allocation.
    fn count(&mut self, what: &str, element_size: usize) -> Result<usize, AssetError> {
        let count = self.u32(what)? as usize;
        if count.saturating_mul(element_size.max(1)) > self.remaining() {
            return Err(AssetError::Truncated(format!(
                "{} section: {what} {count} needs at least {} bytes, {} left",
                self.section,
                count.saturating_mul(element_size.max(1)),
                self.remaining()
            )));
        }
        Ok(count)
    }

    fn string(&mut self, what: &str) -> Result<String, AssetError> {
        let len = self.u32(what)? as usize;
        if len > MAX_STRING_LEN {
            return Err(invalid(format!(
                "{} section: {what} length {len} exceeds {MAX_STRING_LEN}",
                self.section
            )));
        }
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| invalid(format!("{} section: {what} is not UTF-8", self.section)))
    }

    fn finish(&self) -> Result<(), AssetError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(invalid(format!(
                "{} section: {} trailing bytes",
                self.section,
                self.remaining()
            )))
        }
    }
}

struct Meta {
    name: String,
    kind: AssetKind,
    bone_names: Vec<String>,
    bounds: Bounds,
}

fn meta(bytes: &[u8]) -> Result<Meta, AssetError> {
    let mut cursor = Cursor::new("META", bytes);
    let name = cursor.string("asset name")?;
    let kind = match cursor.u8("asset kind")? {
        0 => AssetKind::Unit,
        1 => AssetKind::Prop,
        other => return Err(invalid(format!("asset kind {other} (expected 0 or 1)"))),
    };
    let bone_count = cursor.count("bone count", 4)?;
    if bone_count > MAX_BONES {
        return Err(invalid(format!(
            "bone count {bone_count} exceeds {MAX_BONES}"
        )));
    }
    let bone_names = (0..bone_count)
        .map(|bone| cursor.string(&format!("bone name {bone}")))
        .collect::<Result<Vec<_>, _>>()?;
    let bounds = Bounds {
        quant_min: cursor.f32s("quantization minimum")?,
        quant_max: cursor.f32s("quantization maximum")?,
        sphere_center: cursor.f32s("sphere centre")?,
        sphere_radius: cursor.f32("sphere radius")?,
        height: cursor.f32("height")?,
    };
    cursor.finish()?;
    if (0..3).any(|axis| bounds.quant_max[axis] < bounds.quant_min[axis]) {
        return Err(invalid("bounds: quantization maximum below minimum"));
    }
    if bounds.sphere_radius < 0.0 || bounds.height < 0.0 {
        return Err(invalid("bounds: negative sphere radius or height"));
    }
    Ok(Meta {
        name,
        kind,
        bone_names,
        bounds,
    })
}

/// Smallest encoding of one material: empty name, factors, texture indices, flag.
const MATERIAL_MIN_BYTES: usize = 4 + 16 + 4 + 12 + 4 + 1;

fn materials(bytes: &[u8]) -> Result<Vec<Material>, AssetError> {
    let mut cursor = Cursor::new("MATL", bytes);
    let count = cursor.count("material count", MATERIAL_MIN_BYTES)?;
    let materials = (0..count)
        .map(|index| {
            Ok(Material {
                name: cursor.string(&format!("material name {index}"))?,
                base_color_factor: cursor.f32s("base colour factor")?,
                base_color_texture: match cursor.u32("base colour texture")? {
                    NO_TEXTURE => None,
                    index => Some(index),
                },
                emissive_factor: cursor.f32s("emissive factor")?,
                emissive_texture: match cursor.u32("emissive texture")? {
                    NO_TEXTURE => None,
                    index => Some(index),
                },
                double_sided: match cursor.u8("double-sided flag")? {
                    0 => false,
                    1 => true,
                    other => return Err(invalid(format!("double-sided flag {other}"))),
                },
            })
        })
        .collect::<Result<Vec<_>, AssetError>>()?;
    cursor.finish()?;
    Ok(materials)
}

fn texture_side(value: u32, what: &str) -> Result<u32, AssetError> {
    if value == 0 || value > MAX_TEXTURE_SIDE {
        return Err(invalid(format!(
            "{what} {value} (expected 1..={MAX_TEXTURE_SIDE})"
        )));
    }
    Ok(value)
}

fn textures(bytes: &[u8]) -> Result<Vec<Texture>, AssetError> {
    let mut cursor = Cursor::new("TEXR", bytes);
    let count = cursor.count("texture count", 12)?;
    let textures = (0..count)
        .map(|_| {
            let width = texture_side(cursor.u32("texture width")?, "texture width")?;
            let height = texture_side(cursor.u32("texture height")?, "texture height")?;
            let len = width as usize * height as usize * 4;
            let rgba8 = cursor.take(len, "texture texels")?.to_vec();
            Ok(Texture {
                width,
                height,
                rgba8,
            })
        })
        .collect::<Result<Vec<_>, AssetError>>()?;
    cursor.finish()?;
    Ok(textures)
}

fn animation(bytes: &[u8]) -> Result<Animation, AssetError> {
    let mut cursor = Cursor::new("ANIM", bytes);
    let code = cursor.u32("bone encoding")?;
    let encoding = BoneEncoding::from_code(code)
        .ok_or_else(|| invalid(format!("bone encoding {code} (expected 0, 1 or 2)")))?;
    let bone_count = cursor.u32("bone count")?;
    let texture_width = texture_side(cursor.u32("bone texture width")?, "bone texture width")?;
    let texture_height = texture_side(cursor.u32("bone texture height")?, "bone texture height")?;
    let clip_count = cursor.count("clip count", 25)?;
    let clips = (0..clip_count)
        .map(|clip| {
            Ok(Clip {
                name: cursor.string(&format!("clip name {clip}"))?,
                first_texel: cursor.u32("clip first texel")?,
                frame_count: cursor.u32("clip frame count")?,
                duration: cursor.f32("clip duration")?,
                looping: match cursor.u8("clip looping flag")? {
                    0 => false,
                    1 => true,
                    other => return Err(invalid(format!("clip looping flag {other}"))),
                },
                ground_speed: cursor.f32("clip ground speed")?,
                foot_phase: cursor.f32("clip foot phase")?,
            })
        })
        .collect::<Result<Vec<_>, AssetError>>()?;
    let texel_bytes = texture_width as usize * texture_height as usize * encoding.texel_size();
    let texels = cursor.take(texel_bytes, "bone texels")?.to_vec();
    cursor.finish()?;
    Ok(Animation {
        encoding,
        bone_count,
        texture_width,
        texture_height,
        texels,
        clips,
    })
}

fn lod(bytes: &[u8]) -> Result<MeshLod, AssetError> {
    let mut cursor = Cursor::new("LOD_", bytes);
    let error = cursor.f32("LOD error")?;
    let flags = cursor.u32("LOD flags")?;
    if flags & !(LOD_FLAG_BOX_PROXY | LOD_FLAG_RASTER_ONLY) != 0 {
        return Err(invalid(format!("LOD flags {flags:#x}")));
    }
    let vertex_count = cursor.count("vertex count", size_of::<PackedVertex>())?;
    let vertex_bytes = cursor.take(vertex_count * size_of::<PackedVertex>(), "vertices")?;
    let vertices = vertex_bytes
        .chunks_exact(size_of::<PackedVertex>())
        .map(bytemuck::pod_read_unaligned::<PackedVertex>)
        .collect();
    let index_count = cursor.count("index count", 4)?;
    let indices = (0..index_count)
        .map(|_| cursor.u32("index"))
        .collect::<Result<Vec<_>, _>>()?;
    let submesh_count = cursor.count("submesh count", 12)?;
    let submeshes = (0..submesh_count)
        .map(|_| {
            Ok(Submesh {
                first_index: cursor.u32("submesh first index")?,
                index_count: cursor.u32("submesh index count")?,
                material: cursor.u32("submesh material")?,
            })
        })
        .collect::<Result<Vec<_>, AssetError>>()?;
    cursor.finish()?;
    Ok(MeshLod {
        vertices,
        indices,
        submeshes,
        error,
        box_proxy: flags & LOD_FLAG_BOX_PROXY != 0,
        raster_only: flags & LOD_FLAG_RASTER_ONLY != 0,
    })
}

fn report(bytes: &[u8]) -> Result<ErrorReport, AssetError> {
    let mut cursor = Cursor::new("REPT", bytes);
    let model_height = cursor.f32("model height")?;
    let sample_rate = cursor.f32("sample rate")?;
    let time_samples = cursor.u32("time sample count")?;
    let mut stats = [ErrorStat::default(); 8];
    for stat in &mut stats {
        let [max, rms] = cursor.f32s("error statistic")?;
        *stat = ErrorStat { max, rms };
    }
    let warning_count = cursor.count("warning count", 4)?;
    if warning_count > MAX_WARNINGS {
        return Err(invalid(format!(
            "warning count {warning_count} exceeds {MAX_WARNINGS}"
        )));
    }
    let warnings = (0..warning_count)
        .map(|warning| cursor.string(&format!("warning {warning}")))
        .collect::<Result<Vec<_>, _>>()?;
    cursor.finish()?;
    let [two_bone_naive, two_bone_fitted, mat3x4, quat32, quat16, dual_quat, frame_rate, total] =
        stats;
    Ok(ErrorReport {
        model_height,
        sample_rate,
        time_samples,
        two_bone_naive,
        two_bone_fitted,
        mat3x4,
        quat32,
        quat16,
        dual_quat,
        frame_rate,
        total,
        warnings,
    })
}

fn impostor(bytes: &[u8]) -> Result<Impostor, AssetError> {
    let mut cursor = Cursor::new("IMPO", bytes);
    let views_per_side = cursor.u32("impostor views per side")?;
    let cell_px = cursor.u32("impostor cell size")?;
    if views_per_side != IMPOSTOR_VIEWS_PER_SIDE || cell_px != IMPOSTOR_CELL_PX {
        return Err(invalid(format!(
            "IMPO section: {views_per_side} views per side of {cell_px}-texel cells (this \
             reader reads {IMPOSTOR_VIEWS_PER_SIDE} of {IMPOSTOR_CELL_PX})"
        )));
    }
    let frame_count = cursor.u32("impostor frame count")?;
    if frame_count == 0 || frame_count > MAX_IMPOSTOR_FRAMES {
        return Err(invalid(format!(
            "IMPO section: frame count {frame_count} (expected 1..={MAX_IMPOSTOR_FRAMES})"
        )));
    }
    let error = cursor.f32("impostor error")?;
    if !(0.0..=1.0).contains(&error) {
        return Err(invalid(format!(
            "IMPO section: error {error} outside 0..=1"
        )));
    }
    let box_center = cursor.f32s("impostor box centre")?;
    let box_half_extent = cursor.f32s("impostor box half extent")?;
    if box_half_extent.iter().any(|&h| h <= 0.0) {
        return Err(invalid(format!(
            "IMPO section: box half extents {box_half_extent:?} not all positive"
        )));
    }
    let clip_count = cursor.count("impostor clip count", 9)?;
    let clips = (0..clip_count)
        .map(|index| {
            let clip = ImpostorClip {
                first_frame: cursor.u32("impostor clip first frame")?,
                frame_count: cursor.u32("impostor clip frame count")?,
                looping: match cursor.u8("impostor clip looping flag")? {
                    0 => false,
                    1 => true,
                    other => return Err(invalid(format!("IMPO section: looping flag {other}"))),
                },
            };
            let end = u64::from(clip.first_frame) + u64::from(clip.frame_count);
            if clip.frame_count == 0 || end > u64::from(frame_count) {
                return Err(invalid(format!(
                    "IMPO section: clip {index} frames {}..{end} outside the {frame_count} frames",
                    clip.first_frame
                )));
            }
            Ok(clip)
        })
        .collect::<Result<Vec<_>, AssetError>>()?;
    let side = views_per_side as usize;
    let cell = cell_px as usize;
    let channel = frame_count as usize * side * side * cell * cell * 4;
    let albedo = cursor.take(channel, "impostor albedo cells")?.to_vec();
    let normal = cursor.take(channel, "impostor normal cells")?.to_vec();
    cursor.finish()?;
    Ok(Impostor {
        views_per_side,
        cell_px,
        frame_count,
        error,
        box_center,
        box_half_extent,
        clips,
        albedo,
        normal,
    })
}

/// Section bodies by tag, after the table has been validated.
#[derive(Default)]
struct SectionBodies<'a> {
    meta: Option<&'a [u8]>,
    materials: Option<&'a [u8]>,
    textures: Option<&'a [u8]>,
    animation: Option<&'a [u8]>,
    lods: Vec<&'a [u8]>,
    report: Option<&'a [u8]>,
    impostor: Option<&'a [u8]>,
}

fn header_u32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes([
        bytes[offset],
        bytes[offset + 1],
        bytes[offset + 2],
        bytes[offset + 3],
    ])
}

fn header_u64(bytes: &[u8], offset: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[offset..offset + 8]);
    u64::from_le_bytes(word)
}

/// One entry of the section table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// Four-character tag.
    pub tag: [u8; 4],
    /// Byte offset of the body.
    pub offset: usize,
    /// Byte length of the body.
    pub len: usize,
}

/// Checks the header (magic, version, length, checksum) and the section table
/// (entries inside the file, after the table, not overlapping) and returns it.
pub fn section_table(bytes: &[u8]) -> Result<Vec<SectionInfo>, AssetError> {
    if bytes.len() < HEADER_SIZE {
        return Err(AssetError::Truncated(format!(
            "{} bytes, shorter than the {HEADER_SIZE}-byte header",
            bytes.len()
        )));
    }
    let mut magic = [0; 8];
    magic.copy_from_slice(&bytes[..8]);
    if magic != MAGIC {
        return Err(AssetError::BadMagic(magic));
    }
    let version = header_u32(bytes, 8);
    if version != VERSION {
        return Err(AssetError::UnsupportedVersion { found: version });
    }
    let section_count = header_u32(bytes, 12);
    let declared_len = header_u64(bytes, 16);
    if declared_len != bytes.len() as u64 {
        return Err(AssetError::Truncated(format!(
            "header declares {declared_len} bytes, file has {}",
            bytes.len()
        )));
    }
    let stored = header_u32(bytes, 24);
    let computed = fnv1a32(&bytes[HEADER_SIZE..]);
    if stored != computed {
        return Err(AssetError::ChecksumMismatch { stored, computed });
    }
    if section_count == 0 || section_count > MAX_SECTIONS {
        return Err(AssetError::BadSection(format!(
            "section count {section_count} (expected 1..={MAX_SECTIONS})"
        )));
    }
    let table_end = HEADER_SIZE + section_count as usize * SECTION_ENTRY_SIZE;
    if table_end > bytes.len() {
        return Err(AssetError::Truncated(format!(
            "section table of {section_count} entries ends at {table_end}, file has {} bytes",
            bytes.len()
        )));
    }
    let mut ranges = Vec::with_capacity(section_count as usize);
    for entry in bytes[HEADER_SIZE..table_end].chunks_exact(SECTION_ENTRY_SIZE) {
        let mut section_tag = [0; 4];
        section_tag.copy_from_slice(&entry[..4]);
        let offset = header_u64(entry, 4);
        let len = header_u64(entry, 12);
        let end = offset
            .checked_add(len)
            .filter(|&end| end <= bytes.len() as u64);
        let Some(end) = end.filter(|_| offset >= table_end as u64) else {
            return Err(AssetError::BadSection(format!(
                "section {} at offset {offset} with length {len} lies outside {table_end}..{}",
                String::from_utf8_lossy(&section_tag),
                bytes.len()
            )));
        };
        ranges.push(SectionInfo {
            tag: section_tag,
            offset: offset as usize,
            len: (end - offset) as usize,
        });
    }
    let mut by_offset: Vec<_> = ranges
        .iter()
        .map(|s| (s.offset, s.offset + s.len))
        .collect();
    by_offset.sort_unstable();
    if by_offset.windows(2).any(|pair| pair[1].0 < pair[0].1) {
        return Err(AssetError::BadSection("sections overlap".into()));
    }
    Ok(ranges)
}

fn sections(bytes: &[u8]) -> Result<SectionBodies<'_>, AssetError> {
    let mut bodies = SectionBodies::default();
    for SectionInfo {
        tag: section_tag,
        offset,
        len,
    } in section_table(bytes)?
    {
        let body = &bytes[offset..offset + len];
        let slot = match section_tag {
            tag::META => &mut bodies.meta,
            tag::MATERIALS => &mut bodies.materials,
            tag::TEXTURES => &mut bodies.textures,
            tag::ANIMATION => &mut bodies.animation,
            tag::REPORT => &mut bodies.report,
            tag::IMPOSTOR => &mut bodies.impostor,
            tag::LOD => {
                if bodies.lods.len() == MAX_LODS {
                    return Err(AssetError::BadSection(format!("more than {MAX_LODS} LODs")));
                }
                bodies.lods.push(body);
                continue;
            }
            other => {
                return Err(AssetError::BadSection(format!(
                    "unknown section tag {:?}",
                    String::from_utf8_lossy(&other)
                )))
            }
        };
        if slot.replace(body).is_some() {
            return Err(AssetError::BadSection(format!(
                "duplicate {} section",
                String::from_utf8_lossy(&section_tag)
            )));
        }
    }
    Ok(bodies)
}

fn required<'a>(body: Option<&'a [u8]>, name: &str) -> Result<&'a [u8], AssetError> {
    body.ok_or_else(|| AssetError::BadSection(format!("missing {name} section")))
}

/// Parses and validates a whole `.horde` file held in memory.
pub fn read(bytes: &[u8]) -> Result<Asset, AssetError> {
    let bodies = sections(bytes)?;
    let Meta {
        name,
        kind,
        bone_names,
        bounds,
    } = meta(required(bodies.meta, "META")?)?;
    let materials = materials(required(bodies.materials, "MATL")?)?;
    let textures = textures(required(bodies.textures, "TEXR")?)?;
    let report = report(required(bodies.report, "REPT")?)?;
    let animation = bodies.animation.map(animation).transpose()?;
    let impostor = bodies.impostor.map(impostor).transpose()?;
    if bodies.lods.is_empty() {
        return Err(AssetError::BadSection("missing LOD_ section".into()));
    }
    let lods = bodies
        .lods
        .into_iter()
        .map(lod)
        .collect::<Result<Vec<_>, _>>()?;
    let asset = Asset {
        name,
        kind,
        bone_names,
        animation,
        lods,
        materials,
        textures,
        bounds,
        report,
        impostor,
    };
    crate::validate::validate(&asset)?;
    Ok(asset)
}

/// Reads and validates the `.horde` file at `path`; errors name the file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Asset, AssetError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| AssetError::Io {
        path: path.display().to_string(),
        source,
    })?;
    read(&bytes).map_err(|source| AssetError::InFile {
        path: path.display().to_string(),
        source: Box::new(source),
    })
}
