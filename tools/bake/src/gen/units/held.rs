//! Held items, modelled in their joint's frame: the weapon (grip at the
//! hand, blade along +Z) and the round and tower shields (face along -Y).

use super::*;

impl Body<'_> {
    /// A seed-chosen weapon in the weapon joint's frame (grip at the joint, +Z out).
    pub(super) fn weapon(&mut self, metal: Cell, trim: Cell) {
        let grip = self.at(Joint::Weapon);
        let rigid = Binding::Rigid(Joint::Weapon);
        let shaft = |mesh: &mut MeshData, from: f32, to: f32, radius: f32, cell: Cell| {
            let placement = Placement::along(
                grip + Vec3::Z * from,
                grip + Vec3::Z * to,
                Vec3::ONE,
                cell,
                rigid,
            );
            mesh.cylinder(8, 2, placement, to - from, radius, radius);
        };
        match self.rng.index(3) {
            0 => {
                self.variants.push("sword");
                let length = self.rng.range(0.75, 0.9);
                shaft(&mut self.mesh, -0.07, 0.07, 0.017, Cell::LEATHER);
                self.ball(grip - Vec3::Z * 0.085, Vec3::splat(0.028), trim, rigid);
                self.block(
                    grip + Vec3::Z * 0.08,
                    Vec3::new(0.014, 0.1, 0.014),
                    trim,
                    rigid,
                );
                // Four lathe columns give a diamond cross-section with a ridge;
                // flattening local X keeps the edges in the swing plane.
                let from = grip + Vec3::Z * 0.09;
                let placement = Placement::along(
                    from,
                    from + Vec3::Z,
                    Vec3::new(0.22, 1.0, 1.0),
                    metal,
                    rigid,
                );
                self.mesh.lathe(4, 6, placement, |v| {
                    let width = if v < 0.85 {
                        0.032 - 0.006 * v
                    } else {
                        0.027 * (1.0 - v) / 0.15
                    };
                    (width, length * v)
                });
            }
            1 => {
                self.variants.push("axe");
                shaft(&mut self.mesh, -0.15, 0.62, 0.018, Cell::WOOD);
                let head = grip + Vec3::new(0.0, 0.07, 0.52);
                self.block(head, Vec3::new(0.01, 0.09, 0.075), metal, rigid);
                self.block(
                    head + Vec3::new(0.0, -0.09, 0.0),
                    Vec3::new(0.014, 0.03, 0.03),
                    metal,
                    rigid,
                );
            }
            _ => {
                self.variants.push("mace");
                shaft(&mut self.mesh, -0.12, 0.5, 0.02, Cell::WOOD);
                let head = grip + Vec3::Z * 0.52;
                self.ball(head, Vec3::splat(0.06), Cell::DARK_STEEL, rigid);
                for flange in 0..4 {
                    let angle = flange as f32 * PI * 0.5;
                    let out = Vec3::new(angle.cos(), angle.sin(), 0.0) * 0.055;
                    let half = Vec3::new(
                        0.008 + 0.03 * angle.cos().abs(),
                        0.008 + 0.03 * angle.sin().abs(),
                        0.06,
                    );
                    self.block(head + out, half, metal, rigid);
                }
            }
        }
    }

    /// A round shield centred just beyond the fist, its face looking along -Y.
    pub(super) fn round_shield(&mut self, radius: f32, paint: Option<Cell>) {
        let rigid = Binding::Rigid(Joint::Shield);
        let back = self.at(Joint::Shield) - Vec3::Y * 0.02;
        let thickness = 0.025;
        let front = back - Vec3::Y * thickness;
        let placement = Placement::along(back, front, Vec3::ONE, Cell::WOOD, rigid);
        self.mesh
            .lathe(24, 1, placement, |v| (radius, thickness * v));
        self.mesh.disc(24, placement, 0.0, radius, false);
        let face = Placement {
            cell: paint.unwrap_or(Cell::WOOD),
            ..placement
        };
        self.mesh.disc(24, face, thickness, radius, true);
        // A steel boss over the fist, half sunk into the face.
        self.ball(front, Vec3::new(0.07, 0.04, 0.07), Cell::STEEL, rigid);
    }

    /// A tall rectangular shield with a painted face and a steel rim band.
    pub(super) fn tower_shield(&mut self, paint: Cell) {
        let rigid = Binding::Rigid(Joint::Shield);
        let centre = self.at(Joint::Shield) - Vec3::new(0.0, 0.035, -0.05);
        self.block(centre, Vec3::new(0.22, 0.015, 0.34), Cell::WOOD, rigid);
        self.block(
            centre - Vec3::Y * 0.016,
            Vec3::new(0.19, 0.004, 0.31),
            paint,
            rigid,
        );
        self.block(
            centre - Vec3::Y * 0.02,
            Vec3::new(0.03, 0.006, 0.2),
            Cell::GOLD,
            rigid,
        );
    }
}
