//! The meshes of a glTF file into one vertex array: positions, normals
//! (smooth ones where the file has none), UVs, the four strongest
//! influences, triangles grouped by material; then the welding of vertices
//! the file split without need.

use super::*;

fn finite_vec(values: &[f32]) -> bool {
    values.iter().all(|value| value.is_finite())
}

/// JOINTS_n and WEIGHTS_n of one primitive.
type InfluenceSet = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// Vertices of one primitive appended to the model.
pub(super) struct MeshBuilder<'a> {
    pub(super) model: &'a mut SourceModel,
    pub(super) default_material: u32,
    pub(super) renormalized: usize,
}

impl MeshBuilder<'_> {
    /// Appends `primitive`, placing its vertices with `transform`. `bone` is the
    /// single bone of a rigid part; `None` reads the primitive's own influences.
    pub(super) fn primitive(
        &mut self,
        file: &GltfFile,
        mesh_name: &str,
        primitive: &gltf::Primitive<'_>,
        transform: Mat4,
        bone: Option<u16>,
        joint_map: &[u16],
    ) -> Result<(), BakeError> {
        if primitive.mode() != gltf::mesh::Mode::Triangles {
            self.model.warnings.push(format!(
                "{}: mesh {mesh_name:?}: {:?} primitive skipped (only triangles are baked)",
                file.path.display(),
                primitive.mode()
            ));
            return Ok(());
        }
        if primitive.morph_targets().len() > 0 {
            self.model.warnings.push(format!(
                "{}: mesh {mesh_name:?}: morph targets ignored (the base shape is baked)",
                file.path.display()
            ));
        }
        let reader = primitive.reader(|buffer| file.buffer(buffer));
        let positions: Vec<Vec3> = reader
            .read_positions()
            .ok_or_else(|| file.error(format!("mesh {mesh_name:?}: primitive without POSITION")))?
            .map(Vec3::from)
            .collect();
        if !positions.iter().all(|p| p.is_finite()) {
            return Err(file.error(format!("mesh {mesh_name:?}: NaN or infinite position")));
        }
        let vertex_count = positions.len();
        let indices: Vec<u32> = match reader.read_indices() {
            Some(indices) => indices.into_u32().collect(),
            None => (0..vertex_count as u32).collect(),
        };
        if let Some(&bad) = indices
            .iter()
            .find(|&&index| index as usize >= vertex_count)
        {
            return Err(file.error(format!(
                "mesh {mesh_name:?}: index {bad} out of range ({vertex_count} vertices)"
            )));
        }
        let normals: Vec<Vec3> = match reader.read_normals() {
            Some(normals) => normals.map(Vec3::from).collect(),
            None => smooth_normals(&positions, &indices),
        };
        let uvs: Vec<Vec2> = match reader.read_tex_coords(0) {
            Some(uvs) => uvs.into_f32().map(Vec2::from).collect(),
            None => vec![Vec2::ZERO; vertex_count],
        };
        if normals.len() != vertex_count || uvs.len() != vertex_count {
            return Err(file.error(format!("mesh {mesh_name:?}: attribute counts differ")));
        }
        if !normals.iter().all(|n| n.is_finite()) || !uvs.iter().all(|uv| uv.is_finite()) {
            return Err(file.error(format!("mesh {mesh_name:?}: NaN normal or UV")));
        }
        let influences = match bone {
            Some(bone) => vec![Influences::single(bone); vertex_count],
            None => {
                let sets: Vec<InfluenceSet> = (0..2)
                    .map_while(|set| {
                        let joints = reader.read_joints(set)?.into_u16().collect();
                        let weights = reader.read_weights(set)?.into_f32().collect();
                        Some((joints, weights))
                    })
                    .collect();
                self.influences(file, mesh_name, &sets, vertex_count, joint_map)?
            }
        };
        let normal_matrix = Mat3::from_mat4(transform).inverse().transpose();
        let base = self.model.positions.len() as u32;
        self.model
            .positions
            .extend(positions.iter().map(|&p| transform.transform_point3(p)));
        self.model.normals.extend(
            normals
                .iter()
                .map(|&n| (normal_matrix * n).normalize_or(Vec3::Y)),
        );
        self.model.uvs.extend(uvs);
        self.model.influences.extend(influences);
        let material = primitive
            .material()
            .index()
            .map_or(self.default_material, |index| index as u32);
        let group = match self
            .model
            .groups
            .iter_mut()
            .find(|group| group.material == material)
        {
            Some(group) => group,
            None => {
                self.model.groups.push(TriangleGroup {
                    material,
                    indices: Vec::new(),
                });
                let last = self.model.groups.len() - 1;
                &mut self.model.groups[last]
            }
        };
        let whole_triangles = indices.len() / 3 * 3;
        group
            .indices
            .extend(indices[..whole_triangles].iter().map(|&index| base + index));
        Ok(())
    }

    fn influences(
        &mut self,
        file: &GltfFile,
        mesh_name: &str,
        sets: &[InfluenceSet],
        vertex_count: usize,
        joint_map: &[u16],
    ) -> Result<Vec<Influences>, BakeError> {
        let mut pairs: Vec<Vec<(u16, f32)>> = vec![Vec::with_capacity(8); vertex_count];
        if sets.is_empty() {
            return Err(file.error(format!(
                "mesh {mesh_name:?}: skinned primitive without JOINTS_0/WEIGHTS_0"
            )));
        }
        for (set, (joints, weights)) in sets.iter().enumerate() {
            if joints.len() != vertex_count || weights.len() != vertex_count {
                return Err(file.error(format!(
                    "mesh {mesh_name:?}: JOINTS_{set}/WEIGHTS_{set} count differs from POSITION"
                )));
            }
            for (vertex, (joint_row, weight_row)) in joints.iter().zip(weights).enumerate() {
                if !finite_vec(weight_row) || weight_row.iter().any(|&w| w < 0.0) {
                    return Err(file.error(format!(
                        "mesh {mesh_name:?}: vertex {vertex} has a NaN or negative weight"
                    )));
                }
                for (&joint, &weight) in joint_row.iter().zip(weight_row) {
                    if weight == 0.0 {
                        continue;
                    }
                    let Some(&bone) = joint_map.get(joint as usize) else {
                        return Err(file.error(format!(
                            "mesh {mesh_name:?}: vertex {vertex} joint index {joint} out of range \
                             (skin has {} joints)",
                            joint_map.len()
                        )));
                    };
                    pairs[vertex].push((bone, weight));
                }
            }
        }
        let mut out = Vec::with_capacity(vertex_count);
        for (vertex, mut list) in pairs.into_iter().enumerate() {
            // Several slots may name the same joint; their weights add up.
            list.sort_by_key(|&(joint, _)| joint);
            list.dedup_by(|next, kept| {
                let same = next.0 == kept.0;
                if same {
                    kept.1 += next.1;
                }
                same
            });
            list.sort_by(|a, b| b.1.total_cmp(&a.1));
            list.truncate(4);
            let sum: f32 = list.iter().map(|&(_, weight)| weight).sum();
            if sum <= 0.0 {
                return Err(file.error(format!(
                    "mesh {mesh_name:?}: vertex {vertex} has no joint weight"
                )));
            }
            if (sum - 1.0).abs() > 1e-3 {
                self.renormalized += 1;
            }
            let mut influences = Influences::default();
            for (slot, &(joint, weight)) in list.iter().enumerate() {
                influences.bones[slot] = joint;
                influences.weights[slot] = weight / sum;
            }
            out.push(influences);
        }
        Ok(out)
    }
}

/// Area-weighted vertex normals for primitives that have none. Vertices at the
/// same position share one normal, so unindexed meshes come out smooth.
fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let key = |p: Vec3| p.to_array().map(f32::to_bits);
    let mut sums: HashMap<[u32; 3], Vec3> = HashMap::new();
    for triangle in indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|corner| positions[triangle[corner] as usize]);
        let face = (b - a).cross(c - a);
        for corner in [a, b, c] {
            *sums.entry(key(corner)).or_default() += face;
        }
    }
    positions
        .iter()
        .map(|&p| {
            sums.get(&key(p))
                .map_or(Vec3::Y, |sum| sum.normalize_or(Vec3::Y))
        })
        .collect()
}

/// Merges vertices whose every attribute is bit-identical (unindexed glTF
/// meshes repeat them per triangle), so the simplifier sees connected triangles.
fn weld(model: &mut SourceModel) {
    let key = |v: usize| {
        let mut bits = Vec::with_capacity(20);
        bits.extend(model.positions[v].to_array().map(f32::to_bits));
        bits.extend(model.normals[v].to_array().map(f32::to_bits));
        bits.extend(model.uvs[v].to_array().map(f32::to_bits));
        bits.extend(model.influences[v].bones.map(u32::from));
        bits.extend(model.influences[v].weights.map(f32::to_bits));
        bits
    };
    let mut first_of: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut remap = Vec::with_capacity(model.positions.len());
    let mut kept = Vec::new();
    for vertex in 0..model.positions.len() {
        let next = kept.len() as u32;
        let slot = *first_of.entry(key(vertex)).or_insert(next);
        if slot == next {
            kept.push(vertex);
        }
        remap.push(slot);
    }
    if kept.len() == model.positions.len() {
        return;
    }
    model.positions = kept.iter().map(|&v| model.positions[v]).collect();
    model.normals = kept.iter().map(|&v| model.normals[v]).collect();
    model.uvs = kept.iter().map(|&v| model.uvs[v]).collect();
    model.influences = kept.iter().map(|&v| model.influences[v]).collect();
    for group in &mut model.groups {
        group
            .indices
            .iter_mut()
            .for_each(|index| *index = remap[*index as usize]);
    }
}

/// Drops empty material groups, welds, and notes renormalized weights;
/// fails on a mesh with no triangles left.
pub(super) fn finish_mesh(
    file: &GltfFile,
    model: &mut SourceModel,
    renormalized: usize,
) -> Result<(), BakeError> {
    model.groups.retain(|group| !group.indices.is_empty());
    if model.groups.is_empty() {
        return Err(file.error("empty mesh: no triangles to bake"));
    }
    weld(model);
    if renormalized > 0 {
        model.warnings.push(format!(
            "{}: {renormalized} vertices had weights not summing to 1 (normalized)",
            file.path.display()
        ));
    }
    Ok(())
}
