//! What the report and the HUD read from the regiment table the battle pass
//! copies back each frame: regiments by state, and the melee fronts.
//!
//! A melee front is a group of engaged regiments joined by fighting each
//! other, or by standing side by side in the same army (centroids closer
//! than their half-widths plus [`FRONT_JOIN`]). The count is over engaged
//! regiments only, a few hundred at most, so the pairwise joins cost the
//! CPU little and nothing per unit.

use crate::config::STATE_ENGAGED;
use crate::gpu_types::RegimentState;

/// Metres of gap that still join two regiments of an army into one front.
pub const FRONT_JOIN: f32 = 10.0;

/// The number of separate melee fronts in `regiments` (one copy of the
/// table).
pub fn melee_fronts(regiments: &[RegimentState]) -> u32 {
    let engaged: Vec<usize> = (0..regiments.len())
        .filter(|&r| regiments[r].state == STATE_ENGAGED)
        .collect();
    let mut parent: Vec<usize> = (0..engaged.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for a in 0..engaged.len() {
        for b in a + 1..engaged.len() {
            let (ra, rb) = (&regiments[engaged[a]], &regiments[engaged[b]]);
            let fighting = ra.target as usize == engaged[b] || rb.target as usize == engaged[a];
            let dx = ra.mean_position[0] - rb.mean_position[0];
            let dz = ra.mean_position[1] - rb.mean_position[1];
            let near = (ra.width + rb.width) * 0.5 + FRONT_JOIN;
            let beside = ra.army == rb.army && dx * dx + dz * dz < near * near;
            if fighting || beside {
                let (x, y) = (root(&mut parent, a), root(&mut parent, b));
                parent[x] = y;
            }
        }
    }
    (0..engaged.len())
        .filter(|&i| root(&mut parent, i) == i)
        .count() as u32
}
