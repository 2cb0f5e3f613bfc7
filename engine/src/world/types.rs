//! Type packing: unit and prop assets into the tables the GPU reads. Pure
//! CPU work, testable without a device.
//!
//! # Layout
//! - Every LOD of every type goes back to back into one vertex buffer of
//!   [`PackedVertex`] and one u32 index buffer; a vertex's `pad` byte is set
//!   to its material, local to the type. The bounds view's sphere mesh comes
//!   last.
//! - [`TypeInfo`] per type (units first, then props): quantization box,
//!   bounding sphere, clip and controller ranges, and per route (each mesh
//!   LOD, and the far field for unit types) its error, draw command and
//!   instance-list region.
//! - Draw commands and instance-list regions per (type, route): laid out
//!   by `regions.rs`.
//! - The impostor quad (four vertices, UV at the corners) follows the
//!   bounds view's sphere; the impostor atlas is packed by `impostors.rs`.
//! - The bone textures of every unit type are stacked into one 2D texture
//!   (all must share the encoding and width); [`ClipInfo`]s point into it.
//! - Materials give a base colour factor and a rectangle in one shared
//!   base-colour atlas (see `atlas.rs`).

use glam::Vec3;

use crate::anim::{self, Controller, PackedControllers};
use crate::asset::{clip_bounds, Asset, AssetKind, BoneEncoding, PackedVertex};
use crate::atlas::{self, Atlas};
use crate::config::{MATERIAL_DOUBLE_SIDED, MAX_LODS, MAX_ROUTES, ROUTE_IMPOSTOR};
use crate::gpu_types::{
    AnimState, ClipInfo, MaterialInfo, TypeInfo, MAX_CLIPS, MAX_MATERIALS, MAX_TYPES,
};
use crate::mesh::quantize;
use crate::world::impostors::{self, ImpostorAtlas};
use crate::Error;

/// Smallest per-type instance capacity.
pub const MIN_TYPE_CAPACITY: u32 = 64;

/// Where one LOD of one type sits in the shared mesh buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LodRange {
    pub first_index: u32,
    pub index_count: u32,
    pub vertex_offset: i32,
    /// Vertices of the LOD, from `vertex_offset` on.
    pub vertex_count: u32,
    /// The LOD is a box proxy (`horde_asset::MeshLod::box_proxy`).
    pub box_proxy: bool,
    /// The far field draws this LOD's units with a finer LOD
    /// (`horde_asset::MeshLod::raster_only`, `passes/far_field/meshes.rs`).
    pub raster_only: bool,
}

/// One loaded type.
#[derive(Clone, Debug)]
pub struct WorldType {
    pub name: String,
    pub kind: AssetKind,
    pub lods: Vec<LodRange>,
    pub info: TypeInfo,
    /// Some material shows its back faces: the type is drawn without
    /// back-face culling.
    pub double_sided: bool,
    /// The type has an impostor (route `ROUTE_IMPOSTOR`).
    pub has_impostor: bool,
    /// Instances alive of this type.
    pub live: u32,
    /// Size of each of its instance-list regions.
    pub capacity: u32,
}

impl WorldType {
    /// The draw command of `route`.
    pub fn command(type_index: usize, route: u32) -> u32 {
        type_index as u32 * MAX_ROUTES + route
    }
}

/// The bone texture of every unit type, stacked.
#[derive(Clone, Debug)]
pub struct BoneTexture {
    pub encoding: BoneEncoding,
    pub width: u32,
    pub height: u32,
    /// Rows of texels, RGBA32F or (quat16) RGBA16F.
    pub texels: Vec<u8>,
}

/// Everything [`pack_types`] builds.
#[derive(Debug)]
pub struct PackedTypes {
    /// Their commands and instance-list regions are not laid out yet
    /// (`regions::layout_regions`, which the world calls next).
    pub types: Vec<WorldType>,
    pub unit_type_count: u32,
    pub vertices: Vec<PackedVertex>,
    pub indices: Vec<u32>,
    pub clips: Vec<ClipInfo>,
    /// Per clip, the model-space sphere that holds it (`[x, y, z, radius]`,
    /// `horde_asset::clip_bounds`), which the cull's occlusion test takes.
    pub clip_spheres: Vec<[f32; 4]>,
    pub materials: Vec<MaterialInfo>,
    pub controllers: PackedControllers,
    /// The animation state each unit type's units spawn with.
    pub initial_states: Vec<AnimState>,
    pub bone_texture: BoneTexture,
    pub atlas: Atlas,
    /// The bounds view's sphere mesh, after every type's LODs.
    pub bounds_mesh: LodRange,
    /// The impostors' quad, after the sphere.
    pub impostor_quad: LodRange,
    /// The unit types' impostors.
    pub impostors: ImpostorAtlas,
    /// What the unit types' bone matrices are, the least regular type's.
    pub bone_shape: BoneShape,
}

/// What a unit type's bone matrices are, which decides how the vertex shader
/// maps normals (`BONE_SHAPE` in skinning.glsl). Ordered from the least
/// regular: a world takes its least regular type's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum BoneShape {
    /// Some bone scales or shears unevenly: normals take the cofactors, and
    /// each bone's normal is normalized before the two are blended.
    General = 0,
    /// Rotations with a uniform scale: the linear part maps normals, and
    /// each bone's normal is normalized before the blend (a x100 joint
    /// beside a x1 one would outweigh it).
    Similarities = 1,
    /// Rotations with one scale for every bone of the type: both bones'
    /// normals have one length, so the blend has the right direction without
    /// normalizing them (shade() normalizes the result).
    SharedScale = 2,
}

impl BoneShape {
    /// The value of skinning.glsl's `BONE_SHAPE` specialization constant.
    pub fn shader_constant(self) -> u32 {
        self as u32
    }
}

fn config_error(message: String) -> Error {
    Error::Config(message)
}

/// Packs the types. Unit types must share a bone encoding and bone-texture
/// width; `max_image` is the largest texture side the device allows.
pub fn pack_types(
    unit_types: &[&Asset],
    prop_types: &[&Asset],
    controllers: &[Controller],
    max_image: u32,
) -> Result<PackedTypes, Error> {
    let type_count = unit_types.len() + prop_types.len();
    if type_count > MAX_TYPES {
        return Err(config_error(format!(
            "{type_count} types exceed the renderer's {MAX_TYPES}"
        )));
    }
    if controllers.len() != unit_types.len() {
        return Err(config_error(format!(
            "{} unit types but {} controllers",
            unit_types.len(),
            controllers.len()
        )));
    }
    let packed_controllers = anim::pack(&controllers.iter().collect::<Vec<_>>())?;
    let initial_states = controllers
        .iter()
        .zip(unit_types)
        .map(|(controller, asset)| {
            let clips = asset.animation.as_ref().map_or(&[][..], |a| &a.clips);
            anim::initial_state(controller, clips)
        })
        .collect();
    let encoding = unit_types
        .iter()
        .find_map(|a| a.animation.as_ref().map(|anim| anim.encoding))
        .unwrap_or(BoneEncoding::Mat3x4F32);

    let mut vertices: Vec<PackedVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut types = Vec::with_capacity(type_count);
    let mut clips: Vec<ClipInfo> = Vec::new();
    let mut clip_spheres: Vec<[f32; 4]> = Vec::new();
    let mut materials: Vec<MaterialInfo> = Vec::new();
    // Per material: its type, and its base colour and emissive textures.
    let mut material_textures: Vec<(usize, Option<u32>, Option<u32>)> = Vec::new();
    let mut bone = BoneTexture {
        encoding,
        width: 0,
        height: 0,
        texels: Vec::new(),
    };

    for (type_index, asset) in unit_types.iter().chain(prop_types).enumerate() {
        let is_unit = type_index < unit_types.len();
        if is_unit != (asset.kind == AssetKind::Unit) || (is_unit && asset.animation.is_none()) {
            return Err(config_error(format!(
                "asset '{}' is a {:?} but was given as a {}",
                asset.name,
                asset.kind,
                if is_unit { "unit type" } else { "prop type" }
            )));
        }
        let lod_count = asset.lods.len().min(MAX_LODS as usize);
        if lod_count == 0 {
            return Err(config_error(format!("asset '{}' has no mesh", asset.name)));
        }
        let bounds = &asset.bounds;
        let min = Vec3::from(bounds.quant_min);
        let mut info = TypeInfo {
            quant_min: bounds.quant_min,
            quant_extent: (Vec3::from(bounds.quant_max) - min).to_array(),
            sphere_center: bounds.sphere_center,
            sphere_radius: bounds.sphere_radius,
            lod_count: lod_count as u32,
            first_material: materials.len() as u32,
            ..TypeInfo::default()
        };
        let mut lods = Vec::with_capacity(lod_count);
        for (lod_index, lod) in asset.lods.iter().take(lod_count).enumerate() {
            info.routes[lod_index].error = lod.error;
            let first_vertex = vertices.len();
            vertices.extend_from_slice(&lod.vertices);
            for submesh in &lod.submeshes {
                let material = submesh.material.min(255) as u8;
                let range = submesh.first_index as usize
                    ..(submesh.first_index + submesh.index_count) as usize;
                for &index in lod.indices.get(range).unwrap_or(&[]) {
                    if let Some(v) = vertices.get_mut(first_vertex + index as usize) {
                        v.pad = material;
                    }
                }
            }
            lods.push(LodRange {
                first_index: indices.len() as u32,
                index_count: lod.indices.len() as u32,
                vertex_offset: first_vertex as i32,
                vertex_count: lod.vertices.len() as u32,
                box_proxy: lod.box_proxy,
                raster_only: lod.raster_only,
            });
            indices.extend_from_slice(&lod.indices);
        }
        for material in &asset.materials {
            materials.push(MaterialInfo {
                base_color: material.base_color_factor,
                emissive: material.emissive_factor,
                flags: if material.double_sided {
                    MATERIAL_DOUBLE_SIDED
                } else {
                    0
                },
                ..MaterialInfo::default()
            });
            material_textures.push((
                type_index,
                material.base_color_texture,
                material.emissive_texture,
            ));
        }
        if asset.materials.is_empty() {
            materials.push(MaterialInfo {
                base_color: [1.0; 4],
                ..MaterialInfo::default()
            });
            material_textures.push((type_index, None, None));
        }
        if let (true, Some(animation)) = (is_unit, &asset.animation) {
            if animation.encoding != encoding {
                return Err(config_error(format!(
                    "unit type '{}' is baked as {}, but the first unit type as {}; bake all \
                     unit types with one --encoding",
                    asset.name,
                    animation.encoding.name(),
                    encoding.name()
                )));
            }
            if bone.width != 0 && animation.texture_width != bone.width {
                return Err(config_error(format!(
                    "unit type '{}' has a bone texture {} texels wide, others {}",
                    asset.name, animation.texture_width, bone.width
                )));
            }
            bone.width = animation.texture_width;
            let texel_offset = bone.height * bone.width;
            info.bone_count = animation.bone_count;
            info.first_clip = clips.len() as u32;
            info.clip_count = animation.clips.len() as u32;
            clip_spheres.extend(clip_bounds::clip_spheres(asset));
            for clip in &animation.clips {
                clips.push(ClipInfo {
                    first_texel: clip.first_texel + texel_offset,
                    frame_count: clip.frame_count,
                    duration: clip.duration,
                    looping: u32::from(clip.looping),
                });
            }
            bone.texels.extend_from_slice(&animation.texels);
            bone.height += animation.texture_height;
            let [first_state, state_count, first_any, any_count] =
                packed_controllers.ranges[type_index];
            info.first_controller_state = first_state;
            info.controller_state_count = state_count;
            info.first_any_transition = first_any;
            info.any_transition_count = any_count;
        }
        types.push(WorldType {
            name: asset.name.clone(),
            kind: asset.kind,
            lods,
            info,
            double_sided: asset.materials.iter().any(|m| m.double_sided),
            has_impostor: false,
            live: 0,
            capacity: MIN_TYPE_CAPACITY,
        });
    }
    if clips.len() > MAX_CLIPS || materials.len() > MAX_MATERIALS {
        return Err(config_error(format!(
            "{} clips and {} materials exceed the renderer's {MAX_CLIPS} and {MAX_MATERIALS}",
            clips.len(),
            materials.len()
        )));
    }
    if bone.height > max_image || bone.width > max_image {
        return Err(config_error(format!(
            "the unit types' bone textures need {}x{} texels, more than this device and tier \
             allow ({max_image}); bake fewer clips or a lower --rate",
            bone.width, bone.height
        )));
    }

    let textures: Vec<&crate::asset::Texture> = unit_types
        .iter()
        .chain(prop_types)
        .flat_map(|asset| asset.textures.iter())
        .collect();
    let atlas = atlas::pack(&textures, max_image.min(4096))
        .ok_or_else(|| config_error("the base colour textures do not fit one atlas".to_owned()))?;
    let mut texture_starts = Vec::new();
    let mut next = 0usize;
    for asset in unit_types.iter().chain(prop_types) {
        texture_starts.push(next);
        next += asset.textures.len();
    }
    let rect_of = |type_index: usize, texture: Option<u32>| {
        texture
            .and_then(|t| atlas.rects.get(texture_starts[type_index] + t as usize))
            .copied()
            .unwrap_or([0.0; 4])
    };
    for (material, &(type_index, base, emissive)) in materials.iter_mut().zip(&material_textures) {
        material.atlas_rect = rect_of(type_index, base);
        material.emissive_rect = rect_of(type_index, emissive);
    }

    let sphere = crate::mesh::sphere(16, 10);
    let bounds_mesh = LodRange {
        first_index: indices.len() as u32,
        index_count: sphere.indices.len() as u32,
        vertex_offset: vertices.len() as i32,
        vertex_count: sphere.positions.len() as u32,
        box_proxy: false,
        raster_only: false,
    };
    indices.extend_from_slice(&sphere.indices);
    vertices.extend_from_slice(&quantize(&sphere).0);
    let impostor_quad = LodRange {
        first_index: indices.len() as u32,
        index_count: 6,
        vertex_offset: vertices.len() as i32,
        vertex_count: 4,
        box_proxy: false,
        raster_only: false,
    };
    indices.extend_from_slice(&[0, 2, 1, 1, 2, 3]);
    vertices.extend(quad_vertices());
    let impostors = impostors::pack(unit_types, max_image)?;
    for (world_type, error) in types.iter_mut().zip(&impostors.errors) {
        if let Some(error) = error {
            world_type.has_impostor = true;
            world_type.info.routes[ROUTE_IMPOSTOR as usize].error = *error;
        }
    }
    let bone_shape = unit_types
        .iter()
        .map(|asset| bone_shape(asset))
        .min()
        .unwrap_or(BoneShape::SharedScale);

    Ok(PackedTypes {
        bone_shape,
        types,
        unit_type_count: unit_types.len() as u32,
        vertices,
        indices,
        clips,
        clip_spheres,
        materials,
        controllers: packed_controllers,
        initial_states,
        bone_texture: bone,
        atlas,
        bounds_mesh,
        impostor_quad,
        impostors,
    })
}

/// The impostor quad's corners: UV (0, 0) top left to (1, 1) bottom right;
/// the vertex shader places them (positions stay zero).
fn quad_vertices() -> [PackedVertex; 4] {
    [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(u, v)| PackedVertex {
        uv: [
            half::f16::from_f32(u).to_bits(),
            half::f16::from_f32(v).to_bits(),
        ],
        ..PackedVertex::default()
    })
}

/// What `asset`'s mat3x4 bone matrices are: similarities when each is a
/// rotation times a uniform scale (rows orthogonal and of one length, to
/// 1e-3 relative), of a shared scale when that length is one for every bone
/// of every frame (to 1e-3 relative). The quaternion encodings store
/// rotations with a uniform scale and map normals by the rotation alone, so
/// their normals always share one length.
pub fn bone_shape(asset: &Asset) -> BoneShape {
    let Some(animation) = &asset.animation else {
        return BoneShape::SharedScale;
    };
    if animation.encoding != BoneEncoding::Mat3x4F32 {
        return BoneShape::SharedScale;
    }
    let Ok(texels) = bytemuck::try_cast_slice::<u8, [f32; 4]>(&animation.texels) else {
        return BoneShape::General;
    };
    let bones = animation.bone_count as usize;
    let (mut smallest_scale, mut largest_scale) = (f32::INFINITY, 0.0f32);
    for clip in &animation.clips {
        for bone in 0..clip.frame_count as usize * bones {
            let first = clip.first_texel as usize + bone * 3;
            let Some(rows) = texels.get(first..first + 3) else {
                return BoneShape::General;
            };
            let row = |i: usize| Vec3::new(rows[i][0], rows[i][1], rows[i][2]);
            let (r0, r1, r2) = (row(0), row(1), row(2));
            let lengths = [r0.length(), r1.length(), r2.length()];
            let largest = lengths.iter().fold(0.0f32, |a, &b| a.max(b));
            let tolerance = 1e-3 * largest.max(f32::MIN_POSITIVE);
            let same_length = lengths.iter().all(|l| (l - largest).abs() <= tolerance);
            let orthogonal = [r0.dot(r1), r1.dot(r2), r2.dot(r0)]
                .iter()
                .all(|d| d.abs() <= tolerance * largest);
            if !(same_length && orthogonal) {
                return BoneShape::General;
            }
            smallest_scale = smallest_scale.min(largest);
            largest_scale = largest_scale.max(largest);
        }
    }
    if largest_scale - smallest_scale <= 1e-3 * largest_scale {
        BoneShape::SharedScale
    } else {
        BoneShape::Similarities
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::{Animation, Clip};

    /// A one-clip, one-frame, one-bone unit whose bone has `rows`.
    fn unit_with_bone(rows: [[f32; 4]; 3]) -> Asset {
        let mut asset = crate::scene::static_asset("bone", &crate::mesh::ground(1.0, 1));
        asset.kind = AssetKind::Unit;
        asset.animation = Some(Animation {
            encoding: BoneEncoding::Mat3x4F32,
            bone_count: 1,
            texture_width: 3,
            texture_height: 1,
            texels: bytemuck::cast_slice(&rows).to_vec(),
            clips: vec![Clip {
                name: "pose".to_owned(),
                first_texel: 0,
                frame_count: 1,
                duration: 0.0,
                looping: false,
                ground_speed: 0.0,
                foot_phase: 0.0,
            }],
        });
        asset
    }

    #[test]
    fn similarities_are_told_from_uneven_scales() {
        let (s, c) = 0.6f32.sin_cos();
        let rotated_and_scaled = [
            [2.0 * c, 0.0, 2.0 * s, 1.0],
            [0.0, 2.0, 0.0, 5.0],
            [-2.0 * s, 0.0, 2.0 * c, -3.0],
        ];
        assert_eq!(
            bone_shape(&unit_with_bone(rotated_and_scaled)),
            BoneShape::SharedScale
        );
        let mirrored = [
            [-1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ];
        assert_eq!(
            bone_shape(&unit_with_bone(mirrored)),
            BoneShape::SharedScale
        );
        let stretched = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 2.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ];
        assert_eq!(bone_shape(&unit_with_bone(stretched)), BoneShape::General);
        let sheared = [
            [1.0, 0.5, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ];
        assert_eq!(bone_shape(&unit_with_bone(sheared)), BoneShape::General);
    }

    #[test]
    fn a_shared_scale_is_told_from_scales_per_bone() {
        let scaled = |scale: f32| {
            [
                [scale, 0.0, 0.0, 0.0],
                [0.0, scale, 0.0, 0.0],
                [0.0, 0.0, scale, 0.0],
            ]
        };
        let two_bones = |first: f32, second: f32| {
            let mut asset = unit_with_bone(scaled(first));
            let animation = asset.animation.as_mut().expect("animation");
            animation.bone_count = 2;
            animation.texture_width = 6;
            animation
                .texels
                .extend_from_slice(bytemuck::cast_slice(&scaled(second)));
            asset
        };
        // A x100 armature scales every bone alike; a x100 joint beside a x1
        // one does not.
        assert_eq!(bone_shape(&two_bones(100.0, 100.0)), BoneShape::SharedScale);
        assert_eq!(bone_shape(&two_bones(100.0, 1.0)), BoneShape::Similarities);
        assert_eq!(bone_shape(&two_bones(1.0, 1.0005)), BoneShape::SharedScale);
    }
}
