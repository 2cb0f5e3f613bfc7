//! Static props: rock, broken pillar, banner on a pole, tree, fence segment.
//!
//! Props are unskinned meshes built from the same parametric parts as units
//! (see [`super::shapes`]), painted from the shared atlas, resting on y = 0 and
//! centred on the origin. The seed varies sizes, noise and small details.

use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec3};

use super::atlas::Cell;
use super::random::{value_noise, Rng};
use super::shapes::{Binding, MeshData, Placement};

/// Which prop to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropKind {
    Rock,
    Pillar,
    Banner,
    Tree,
    Fence,
}

impl PropKind {
    pub const ALL: [PropKind; 5] = [
        PropKind::Rock,
        PropKind::Pillar,
        PropKind::Banner,
        PropKind::Tree,
        PropKind::Fence,
    ];

    /// The name used on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            PropKind::Rock => "rock",
            PropKind::Pillar => "pillar",
            PropKind::Banner => "banner",
            PropKind::Tree => "tree",
            PropKind::Fence => "fence",
        }
    }
}

pub fn build_prop(kind: PropKind, seed: u64) -> MeshData {
    let mut prop = Prop {
        mesh: MeshData::default(),
        rng: Rng::new(seed, 100 + kind as u64),
        seed,
    };
    match kind {
        PropKind::Rock => prop.rock(),
        PropKind::Pillar => prop.pillar(),
        PropKind::Banner => prop.banner(),
        PropKind::Tree => prop.tree(),
        PropKind::Fence => prop.fence(),
    }
    prop.mesh
}

struct Prop {
    mesh: MeshData,
    rng: Rng,
    seed: u64,
}

fn fixed(transform: Mat4, cell: Cell) -> Placement {
    Placement::new(transform, cell, Binding::Static)
}

impl Prop {
    /// A lumpy ball: a sphere whose radius is scaled by 3D value noise of its
    /// direction, then scaled to `size` and placed at `centre`.
    fn lump(&mut self, centre: Vec3, size: Vec3, roughness: f32, cell: Cell) {
        let noise_seed = self.seed ^ self.rng.next_u64();
        let placement = fixed(
            Mat4::from_scale_rotation_translation(size, Quat::IDENTITY, centre),
            cell,
        );
        self.mesh.surface(24, 14, placement, |u, v| {
            let (longitude, latitude) = (TAU * u, PI * (v - 0.5));
            let direction = Vec3::new(
                latitude.cos() * longitude.cos(),
                latitude.sin(),
                -latitude.cos() * longitude.sin(),
            );
            let sample = direction * 1.7;
            let coarse = value_noise(noise_seed, sample.x, sample.y, sample.z);
            let fine = value_noise(
                noise_seed ^ 1,
                2.5 * sample.x,
                2.5 * sample.y,
                2.5 * sample.z,
            );
            direction * (1.0 + roughness * (coarse + 0.5 * fine - 0.75))
        });
    }

    fn rock(&mut self) {
        let size = Vec3::new(
            self.rng.range(0.6, 0.9),
            self.rng.range(0.35, 0.55),
            self.rng.range(0.5, 0.75),
        );
        self.lump(Vec3::new(0.0, size.y * 0.6, 0.0), size, 0.5, Cell::STONE);
        // A cap of moss on the upper side.
        self.lump(
            Vec3::new(0.05, size.y * 1.05, 0.0),
            size * Vec3::new(0.75, 0.35, 0.7),
            0.35,
            Cell::MOSS,
        );
        for _ in 0..3 {
            let angle = self.rng.range(0.0, TAU);
            let distance = size.x * self.rng.range(1.1, 1.5);
            let radius = self.rng.range(0.08, 0.16);
            let centre = Vec3::new(angle.cos() * distance, radius * 0.4, angle.sin() * distance);
            self.lump(
                centre,
                Vec3::new(radius, radius * 0.7, radius),
                0.4,
                Cell::STONE,
            );
        }
    }

    fn pillar(&mut self) {
        let radius = self.rng.range(0.24, 0.3);
        let height = self.rng.range(1.6, 2.4);
        let plinth = 0.18;
        self.mesh.cuboid(
            1,
            fixed(Mat4::from_translation(Vec3::Y * plinth * 0.5), Cell::STONE),
            Vec3::new(radius + 0.14, plinth * 0.5, radius + 0.14),
        );
        // Fluted shaft whose top edge is broken: the height at each angle is
        // lowered by value noise around the rim.
        let noise_seed = self.rng.next_u64();
        let top = move |u: f32| {
            let angle = TAU * u;
            height
                * (0.82
                    + 0.18
                        * value_noise(
                            noise_seed,
                            2.0 * angle.cos() + 3.0,
                            2.0 * angle.sin() + 3.0,
                            0.0,
                        ))
        };
        let flute = |u: f32| radius * (1.0 + 0.04 * (TAU * 16.0 * u).cos());
        self.mesh
            .surface(64, 8, fixed(Mat4::IDENTITY, Cell::STONE), |u, v| {
                let angle = TAU * u;
                let y = plinth + (top(u) - plinth) * v;
                Vec3::new(flute(u) * angle.cos(), y, -flute(u) * angle.sin())
            });
        // The broken face: from the jagged rim down into a hollow in the middle.
        self.mesh
            .surface(64, 4, fixed(Mat4::IDENTITY, Cell::STONE), |u, v| {
                let angle = TAU * u;
                let r = flute(u) * (1.0 - v);
                Vec3::new(
                    r * angle.cos(),
                    top(u) - 0.1 * height * (PI * v * 0.5).sin(),
                    -r * angle.sin(),
                )
            });
        // A fallen drum of the shaft lying beside the base.
        let lying = Mat4::from_rotation_translation(
            Quat::from_rotation_y(self.rng.range(0.3, 1.2)) * Quat::from_rotation_z(PI * 0.5),
            Vec3::new(radius * 2.4 + 0.4, radius, 0.2),
        );
        self.mesh
            .cylinder(24, 2, fixed(lying, Cell::STONE), 0.6, radius, radius * 0.97);
    }

    fn banner(&mut self) {
        let height = self.rng.range(2.6, 3.0);
        let cloth_cell = if self.rng.unit() < 0.5 {
            Cell::CLOTH_RED
        } else {
            Cell::CLOTH_BLUE
        };
        self.mesh.cylinder(
            10,
            4,
            fixed(Mat4::IDENTITY, Cell::WOOD),
            height,
            0.045,
            0.035,
        );
        let bar_y = height - 0.12;
        let bar = Placement::along(
            Vec3::new(-0.4, bar_y, 0.05),
            Vec3::new(0.4, bar_y, 0.05),
            Vec3::ONE,
            Cell::WOOD,
            Binding::Static,
        );
        self.mesh.cylinder(8, 1, bar, 0.8, 0.025, 0.025);
        self.mesh.sphere(
            10,
            6,
            fixed(
                Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.07),
                    Quat::IDENTITY,
                    Vec3::Y * (height + 0.04),
                ),
                Cell::GOLD,
            ),
        );
        // The cloth hangs from the bar in gentle folds and ends in a swallowtail;
        // front and back are separate sheets so it shows from both sides.
        let length = self.rng.range(1.1, 1.4);
        let phase = self.rng.range(0.0, TAU);
        let cloth = move |u: f32, v: f32| {
            let notch = 0.25 * (1.0 - (2.0 * u - 1.0).abs());
            let y = bar_y - 0.03 - v * length * (1.0 - notch);
            let fold = 0.05 * (3.0 * TAU * u + phase).sin() * (0.3 + v);
            Vec3::new(0.36 * (2.0 * u - 1.0), y, 0.09 + fold)
        };
        self.mesh
            .surface(16, 12, fixed(Mat4::IDENTITY, cloth_cell), |u, v| {
                cloth(1.0 - u, v) + Vec3::Z * 0.004
            });
        self.mesh
            .surface(16, 12, fixed(Mat4::IDENTITY, cloth_cell), |u, v| {
                cloth(u, v) - Vec3::Z * 0.004
            });
        // A gold emblem on the front.
        let emblem = Mat4::from_translation(cloth(0.5, 0.35) + Vec3::Z * 0.015);
        self.mesh
            .cuboid(1, fixed(emblem, Cell::GOLD), Vec3::new(0.1, 0.1, 0.008));
        for index in 0..4 {
            let angle = TAU * index as f32 / 4.0 + 0.4;
            let centre = Vec3::new(angle.cos() * 0.18, 0.04, angle.sin() * 0.18);
            self.lump(centre, Vec3::new(0.11, 0.08, 0.1), 0.4, Cell::STONE);
        }
    }

    fn tree(&mut self) {
        let height = self.rng.range(3.2, 4.2);
        let lean = Vec3::new(
            self.rng.range(-0.25, 0.25),
            0.0,
            self.rng.range(-0.25, 0.25),
        );
        let trunk = move |v: f32| Vec3::Y * height * 0.7 * v + lean * v * v;
        self.mesh
            .tube(12, 10, fixed(Mat4::IDENTITY, Cell::BARK), trunk, |v| {
                0.2 * (1.0 - 0.6 * v) + 0.08 * (1.0 - v).powi(6)
            });
        let branches = 4;
        let first_angle = self.rng.range(0.0, TAU);
        for index in 0..branches {
            let angle = first_angle + TAU * index as f32 / branches as f32;
            let start = trunk(0.5 + 0.1 * index as f32);
            let reach = self.rng.range(0.7, 1.1);
            let end = start + Vec3::new(angle.cos() * reach, reach * 0.8, angle.sin() * reach);
            self.mesh.tube(
                6,
                4,
                fixed(Mat4::IDENTITY, Cell::BARK),
                move |v| start.lerp(end, v),
                |v| 0.07 * (1.0 - 0.6 * v),
            );
            self.lump(
                end + Vec3::Y * 0.15,
                Vec3::new(0.75, 0.6, 0.75),
                0.45,
                Cell::LEAF,
            );
        }
        self.lump(
            trunk(1.0) + Vec3::Y * 0.35,
            Vec3::new(1.0, 0.85, 1.0),
            0.45,
            Cell::LEAF,
        );
    }

    fn fence(&mut self) {
        let span = self.rng.range(1.8, 2.4);
        for end in [-0.5f32, 0.5] {
            let tilt = Quat::from_rotation_z(self.rng.range(-0.06, 0.06));
            let post = Mat4::from_rotation_translation(tilt, Vec3::new(end * span, 0.55, 0.0));
            self.mesh
                .cuboid(2, fixed(post, Cell::WOOD), Vec3::new(0.06, 0.55, 0.06));
            let cap = Mat4::from_rotation_translation(tilt, Vec3::new(end * span, 1.1, 0.0));
            self.mesh
                .cuboid(1, fixed(cap, Cell::DARK_BONE), Vec3::new(0.07, 0.02, 0.07));
        }
        for (index, rail_y) in [0.4f32, 0.85].into_iter().enumerate() {
            let sag = self.rng.range(-0.04, 0.04);
            let rail = Mat4::from_rotation_translation(
                Quat::from_rotation_z(sag),
                Vec3::new(0.0, rail_y, 0.07 + 0.005 * index as f32),
            );
            self.mesh.cuboid(
                4,
                fixed(rail, Cell::WOOD),
                Vec3::new(span * 0.5 + 0.12, 0.05, 0.022),
            );
        }
        // A rope lashing each rail to each post.
        for end in [-0.5f32, 0.5] {
            for rail_y in [0.4f32, 0.85] {
                let centre = Vec3::new(end * span, rail_y, 0.03);
                self.mesh.tube(
                    6,
                    12,
                    fixed(Mat4::IDENTITY, Cell::LEATHER),
                    move |v| {
                        let angle = TAU * 2.0 * v;
                        centre
                            + Vec3::new(0.0, 0.09 * (v - 0.5), 0.0)
                            + Vec3::new(0.08 * angle.cos(), 0.0, 0.07 * angle.sin())
                    },
                    |_| 0.01,
                );
            }
        }
    }
}
