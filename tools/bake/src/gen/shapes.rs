//! Parametric parts and the mesh they are collected into.
//!
//! Every part is a parametric surface `f(u, v) -> point` over the unit square,
//! sampled on a `(columns + 1) x (rows + 1)` grid of vertices. The seam column is
//! duplicated so UVs run 0..1 without wrapping. Normals come from the surface
//! derivatives (`df/du x df/dv`, by central differences), so a part is smooth
//! inside and creased only where two parts meet, as a cylinder's side meets its
//! cap. Every parametrisation here is oriented so that `df/du x df/dv` points out
//! of the solid; triangles are wound counter-clockwise about that normal.
//! Triangles that collapse (at the poles of a lathe) are dropped.
//!
//! Each part is placed by an affine `Mat4` (normals go through its inverse
//! transpose), painted with one atlas cell, and carries a [`Binding`] that the
//! skinning pass turns into joint weights.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Mat3, Mat4, Quat, Vec2, Vec3};

use super::atlas::Cell;
use super::rig::Joint;

/// How a vertex follows the skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// Props: no skin.
    Static,
    /// Weight 1 on one joint (held weapons and shields, rigid armour plates).
    Rigid(Joint),
    /// Distance-blended between this joint and its neighbours in the hierarchy.
    Smooth(Joint),
}

/// Geometry being assembled: one vertex stream and one index list.
#[derive(Debug, Default, Clone)]
pub struct MeshData {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub bindings: Vec<Binding>,
    pub indices: Vec<u32>,
}

/// Where and how a part goes: placement, paint and binding.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub transform: Mat4,
    pub cell: Cell,
    pub binding: Binding,
}

impl Placement {
    pub fn new(transform: Mat4, cell: Cell, binding: Binding) -> Self {
        Self {
            transform,
            cell,
            binding,
        }
    }

    /// A placement whose local +Y axis runs from `from` towards `to`, scaled by
    /// `scale` in local axes; used for limbs and other parts that span two points.
    pub fn along(from: Vec3, to: Vec3, scale: Vec3, cell: Cell, binding: Binding) -> Self {
        let direction = (to - from).normalize();
        let rotation = Quat::from_rotation_arc(Vec3::Y, direction);
        Self::new(
            Mat4::from_scale_rotation_translation(scale, rotation, from),
            cell,
            binding,
        )
    }
}

/// Length of the step used for the derivative that gives normals.
const DERIVATIVE_STEP: f32 = 1e-3;

impl MeshData {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Samples `surface` on a grid and appends it as one part.
    pub fn surface(
        &mut self,
        columns: usize,
        rows: usize,
        placement: Placement,
        surface: impl Fn(f32, f32) -> Vec3,
    ) {
        let base = self.positions.len() as u32;
        let normal_matrix = Mat3::from_mat4(placement.transform).inverse().transpose();
        for row in 0..=rows {
            let v = row as f32 / rows as f32;
            for column in 0..=columns {
                let u = column as f32 / columns as f32;
                let local_normal = surface_normal(&surface, u, v);
                self.positions
                    .push(placement.transform.transform_point3(surface(u, v)));
                self.normals
                    .push((normal_matrix * local_normal).normalize_or(Vec3::Y));
                self.uvs.push(placement.cell.uv(Vec2::new(u, v)));
                self.bindings.push(placement.binding);
            }
        }
        let stride = columns as u32 + 1;
        for row in 0..rows as u32 {
            for column in 0..columns as u32 {
                let a = base + row * stride + column;
                let b = a + 1;
                let c = a + stride;
                let d = c + 1;
                self.triangle(a, b, c);
                self.triangle(b, d, c);
            }
        }
    }

    fn triangle(&mut self, a: u32, b: u32, c: u32) {
        let [pa, pb, pc] = [a, b, c].map(|i| self.positions[i as usize]);
        if (pb - pa).cross(pc - pa).length_squared() > 1e-14 {
            self.indices.extend_from_slice(&[a, b, c]);
        }
    }

    /// A surface of revolution about local +Y; `profile(v)` gives (radius, height).
    pub fn lathe(
        &mut self,
        columns: usize,
        rows: usize,
        placement: Placement,
        profile: impl Fn(f32) -> (f32, f32),
    ) {
        self.surface(columns, rows, placement, |u, v| {
            let (radius, height) = profile(v);
            let angle = TAU * u;
            // Angle runs clockwise seen from +Y so that df/du x df/dv points outward.
            Vec3::new(radius * angle.cos(), height, -radius * angle.sin())
        });
    }

    /// A capsule along local +Y from 0 to `length`, radius `bottom` tapering to `top`.
    pub fn capsule(
        &mut self,
        columns: usize,
        rows: usize,
        placement: Placement,
        length: f32,
        bottom: f32,
        top: f32,
    ) {
        self.lathe(columns, rows, placement, |v| {
            // A quarter of the rows for each cap, half for the side.
            if v < 0.25 {
                let angle = -FRAC_PI_2 + FRAC_PI_2 * (v / 0.25);
                (bottom * angle.cos(), bottom * angle.sin())
            } else if v <= 0.75 {
                let t = (v - 0.25) / 0.5;
                (bottom + (top - bottom) * t, length * t)
            } else {
                let angle = FRAC_PI_2 * ((v - 0.75) / 0.25);
                (top * angle.cos(), length + top * angle.sin())
            }
        });
    }

    /// A unit-radius sphere at the local origin (scale the placement for ellipsoids).
    pub fn sphere(&mut self, columns: usize, rows: usize, placement: Placement) {
        self.lathe(columns, rows, placement, |v| {
            let angle = -FRAC_PI_2 + PI * v;
            (angle.cos(), angle.sin())
        });
    }

    /// A closed frustum along local +Y from 0 to `length`, radius `bottom` to
    /// `top`, with flat caps (creased, so they get their own vertices).
    pub fn cylinder(
        &mut self,
        columns: usize,
        rows: usize,
        placement: Placement,
        length: f32,
        bottom: f32,
        top: f32,
    ) {
        self.lathe(columns, rows, placement, |v| {
            (bottom + (top - bottom) * v, length * v)
        });
        self.disc(columns, placement, 0.0, bottom, false);
        self.disc(columns, placement, length, top, true);
    }

    /// A flat disc at height `height` facing +Y (`facing_up`) or -Y.
    pub fn disc(
        &mut self,
        columns: usize,
        placement: Placement,
        height: f32,
        radius: f32,
        facing_up: bool,
    ) {
        let turn = if facing_up { 1.0 } else { -1.0 };
        self.surface(columns, 2, placement, |u, v| {
            let angle = TAU * u;
            Vec3::new(
                radius * v * angle.cos(),
                height,
                turn * radius * v * angle.sin(),
            )
        });
    }

    /// An axis-aligned box centred at the local origin with the given half
    /// extents; each face is a `subdivisions x subdivisions` grid so it can bend.
    pub fn cuboid(&mut self, subdivisions: usize, placement: Placement, half: Vec3) {
        // (outward axis, u axis, v axis) with u x v = outward.
        let faces = [
            (Vec3::X, Vec3::NEG_Z, Vec3::Y),
            (Vec3::NEG_X, Vec3::Z, Vec3::Y),
            (Vec3::Y, Vec3::X, Vec3::NEG_Z),
            (Vec3::NEG_Y, Vec3::X, Vec3::Z),
            (Vec3::Z, Vec3::X, Vec3::Y),
            (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
        ];
        for (outward, axis_u, axis_v) in faces {
            let (outward, axis_u, axis_v) = (outward * half, axis_u * half, axis_v * half);
            self.surface(subdivisions, subdivisions, placement, |u, v| {
                outward + axis_u * (2.0 * u - 1.0) + axis_v * (2.0 * v - 1.0)
            });
        }
    }

    /// A tube of radius `radius(v)` swept along the curve `path(v)`.
    pub fn tube(
        &mut self,
        columns: usize,
        rows: usize,
        placement: Placement,
        path: impl Fn(f32) -> Vec3,
        radius: impl Fn(f32) -> f32,
    ) {
        self.surface(columns, rows, placement, |u, v| {
            let tangent = (path((v + DERIVATIVE_STEP).min(1.0))
                - path((v - DERIVATIVE_STEP).max(0.0)))
            .normalize();
            let reference = if tangent.y.abs() < 0.9 {
                Vec3::Y
            } else {
                Vec3::X
            };
            let normal = tangent.cross(reference).normalize();
            // binormal = tangent x normal makes df/du x df/dv equal +normal at u = 0.
            let binormal = tangent.cross(normal);
            let angle = TAU * u;
            path(v) + radius(v) * (angle.cos() * normal + angle.sin() * binormal)
        });
    }
}

/// The outward normal of `surface` at (u, v). At a pole the u derivative vanishes,
/// so the normal is taken a small step towards the inside of the square.
fn surface_normal(surface: &impl Fn(f32, f32) -> Vec3, u: f32, v: f32) -> Vec3 {
    let derivative_normal = |u: f32, v: f32| {
        let h = DERIVATIVE_STEP;
        let du = surface((u + h).min(1.0), v) - surface((u - h).max(0.0), v);
        let dv = surface(u, (v + h).min(1.0)) - surface(u, (v - h).max(0.0));
        du.cross(dv)
    };
    let normal = derivative_normal(u, v);
    if normal.length_squared() > 1e-12 {
        return normal.normalize();
    }
    let inward = if v < 0.5 {
        4.0 * DERIVATIVE_STEP
    } else {
        -4.0 * DERIVATIVE_STEP
    };
    derivative_normal(u, v + inward).normalize_or(Vec3::Y)
}
