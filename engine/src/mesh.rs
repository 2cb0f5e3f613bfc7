//! Procedural meshes for the first scene and tests, and vertex quantization.
//!
//! Meshes are built as plain float triangles ([`MeshData`]) and then quantized
//! into the 20-byte [`PackedVertex`] every pipeline reads: positions as unorm16
//! inside the mesh's bounding box (returned beside them), normals
//! octahedral-encoded in two snorm16, UVs as half floats.

use glam::{Vec2, Vec3};

use crate::asset::PackedVertex;

/// An indexed triangle mesh in model space, counter-clockwise front faces.
#[derive(Clone, Debug, Default)]
pub struct MeshData {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub indices: Vec<u32>,
}

/// Triangles joining `bands + 1` rows of `segments + 1` vertices, top row
/// first, counter-clockwise seen from outside.
fn latitude_band_indices(bands: u32, segments: u32) -> Vec<u32> {
    let stride = segments + 1;
    let mut indices = Vec::with_capacity((bands * segments * 6) as usize);
    for band in 0..bands {
        for segment in 0..segments {
            let a = band * stride + segment;
            let b = a + stride;
            indices.extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    indices
}

/// A capsule standing on y = 0: `radius`, total `height`, `segments` around
/// and `rings` per hemisphere.
pub fn capsule(radius: f32, height: f32, segments: u32, rings: u32) -> MeshData {
    let segments = segments.max(3);
    let rings = rings.max(1);
    let cylinder = (height - 2.0 * radius).max(0.0);
    let mut mesh = MeshData::default();
    // Latitude rows from the top pole to the bottom pole; the two hemisphere
    // equators are separate rows so the cylinder between them stays straight.
    let mut rows: Vec<(f32, f32, f32)> = Vec::new(); // (y of sphere centre, phi, v)
    for ring in 0..=rings {
        let phi = std::f32::consts::FRAC_PI_2 * ring as f32 / rings as f32;
        rows.push((radius + cylinder, phi, 0.0));
    }
    for ring in 0..=rings {
        let phi = std::f32::consts::FRAC_PI_2 * (1.0 + ring as f32 / rings as f32);
        rows.push((radius, phi, 0.0));
    }
    let row_count = rows.len() as u32;
    for (row, &(center_y, phi, _)) in rows.iter().enumerate() {
        for segment in 0..=segments {
            let theta = std::f32::consts::TAU * segment as f32 / segments as f32;
            let normal = Vec3::new(phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin());
            mesh.positions
                .push(Vec3::new(0.0, center_y, 0.0) + normal * radius);
            mesh.normals.push(normal);
            mesh.uvs.push(Vec2::new(
                segment as f32 / segments as f32,
                row as f32 / (row_count - 1) as f32,
            ));
        }
    }
    mesh.indices = latitude_band_indices(row_count - 1, segments);
    mesh
}

/// A UV sphere of radius 1 about the origin.
pub fn sphere(segments: u32, rings: u32) -> MeshData {
    let (segments, rings) = (segments.max(3), rings.max(2));
    let mut mesh = MeshData::default();
    for ring in 0..=rings {
        let phi = std::f32::consts::PI * ring as f32 / rings as f32;
        for segment in 0..=segments {
            let theta = std::f32::consts::TAU * segment as f32 / segments as f32;
            let normal = Vec3::new(phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin());
            mesh.positions.push(normal);
            mesh.normals.push(normal);
            mesh.uvs.push(Vec2::new(
                segment as f32 / segments as f32,
                ring as f32 / rings as f32,
            ));
        }
    }
    mesh.indices = latitude_band_indices(rings, segments);
    mesh
}

/// A flat square on y = 0 centred on the origin, facing +Y, `cells` quads a side.
pub fn ground(size: f32, cells: u32) -> MeshData {
    let cells = cells.max(1);
    let mut mesh = MeshData::default();
    for z in 0..=cells {
        for x in 0..=cells {
            let u = x as f32 / cells as f32;
            let v = z as f32 / cells as f32;
            mesh.positions
                .push(Vec3::new((u - 0.5) * size, 0.0, (v - 0.5) * size));
            mesh.normals.push(Vec3::Y);
            mesh.uvs.push(Vec2::new(u, v));
        }
    }
    let stride = cells + 1;
    for z in 0..cells {
        for x in 0..cells {
            let a = z * stride + x;
            let b = a + stride;
            mesh.indices
                .extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// Encodes a unit normal in two snorm16 (octahedral mapping).
pub fn octahedral_encode(n: Vec3) -> [i16; 2] {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs()).max(f32::MIN_POSITIVE);
    let (x, y) = if n.z >= 0.0 {
        (n.x, n.y)
    } else {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        ((1.0 - n.y.abs()) * sign(n.x), (1.0 - n.x.abs()) * sign(n.y))
    };
    let snorm = |v: f32| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16;
    [snorm(x), snorm(y)]
}

/// The inverse of [`octahedral_encode`], as the shaders compute it.
pub fn octahedral_decode(e: [i16; 2]) -> Vec3 {
    let x = (f32::from(e[0]) / 32767.0).max(-1.0);
    let y = (f32::from(e[1]) / 32767.0).max(-1.0);
    let mut n = Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    let t = (-n.z).max(0.0);
    n.x += if n.x >= 0.0 { -t } else { t };
    n.y += if n.y >= 0.0 { -t } else { t };
    n.normalize()
}

/// The box a mesh's positions are quantized in: minimum corner and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantBox {
    pub min: Vec3,
    pub extent: Vec3,
}

/// Quantizes a static mesh: bone 0 with full weight, material 0.
pub fn quantize(mesh: &MeshData) -> (Vec<PackedVertex>, QuantBox) {
    let min = mesh
        .positions
        .iter()
        .fold(Vec3::splat(f32::MAX), |a, &p| a.min(p));
    let max = mesh
        .positions
        .iter()
        .fold(Vec3::splat(f32::MIN), |a, &p| a.max(p));
    let (min, max) = if mesh.positions.is_empty() {
        (Vec3::ZERO, Vec3::ZERO)
    } else {
        (min, max)
    };
    // A flat axis still needs a non-zero extent to divide by.
    let extent = (max - min).max(Vec3::splat(1e-6));
    let vertices = mesh
        .positions
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let q = ((p - min) / extent * 65535.0)
                .round()
                .clamp(Vec3::ZERO, Vec3::splat(65535.0));
            let normal = mesh.normals.get(i).copied().unwrap_or(Vec3::Y);
            let uv = mesh.uvs.get(i).copied().unwrap_or(Vec2::ZERO);
            PackedVertex {
                position: [q.x as u16, q.y as u16, q.z as u16, 0],
                normal: octahedral_encode(normal),
                uv: [
                    half::f16::from_f32(uv.x).to_bits(),
                    half::f16::from_f32(uv.y).to_bits(),
                ],
                bones: [0, 0],
                weight: 255,
                pad: 0,
            }
        })
        .collect();
    (vertices, QuantBox { min, extent })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_round_trip_is_accurate() {
        for i in 0..200 {
            let t = i as f32 * 0.37;
            let n = Vec3::new(
                t.sin() * (t * 1.3).cos(),
                (t * 0.7).cos(),
                t.cos() * 0.5 - 0.2,
            )
            .normalize();
            let back = octahedral_decode(octahedral_encode(n));
            assert!(back.angle_between(n) < 1e-3, "{n} -> {back}");
        }
    }

    #[test]
    fn capsule_is_closed_and_on_the_ground() {
        let mesh = capsule(0.3, 1.8, 16, 6);
        let min_y = mesh.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
        let max_y = mesh.positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!(min_y.abs() < 1e-5 && (max_y - 1.8).abs() < 1e-5);
        assert_eq!(mesh.indices.len() % 3, 0);
        assert!(mesh
            .indices
            .iter()
            .all(|&i| (i as usize) < mesh.positions.len()));
    }
}
