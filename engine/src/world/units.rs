//! Units and props on the CPU side: ids, the authoring copy of what the CPU
//! owns, and the record writes waiting for the next upload.
//!
//! The CPU owns a unit's [`UnitInfo`] (written at spawn and despawn) and
//! every prop record. A unit's placement, motion, animation state and route
//! belong to the GPU: the CPU changes them only through commands (spawn,
//! teleport, orders, animation overrides), each a masked write of some words
//! of one record, applied on the GPU by the upload pass. A command never
//! rewrites a word it does not name, so GPU-written state survives CPU edits.
//!
//! The table also keeps [`CpuUnitState`]: each unit's placement, orders and
//! animation state as the CPU last commanded them. The GPU-driven frame never
//! reads it; the CPU baselines (`baselines/naive.rs`, `baselines/cpu_cull.rs`)
//! draw from it, as an engine whose game state lives on the CPU would.

use std::collections::BTreeMap;

use bytemuck::Pod;
use glam::{Vec2, Vec3};

use crate::gpu_types::{
    AnimParams, AnimState, UnitInfo, UnitMotion, UnitPlacement, ENTRY_INDEX_BITS, INACTIVE_TYPE,
};
use crate::scene::{PropPlacement, UnitSpawn};
use crate::Error;

/// Identifies a unit for commands and despawning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitId(pub u32);

/// Every word of a record: the mask of a whole-record write.
pub const WHOLE_RECORD: u32 = 0xf;
/// The words of [`UnitMotion`] an order writes: `speed` and `anim_commands`.
const MOTION_PARAMS: u32 = 0b1100;
/// The words of [`UnitMotion`] a velocity command writes.
const MOTION_VELOCITY: u32 = 0b0011;

/// Pending writes to one buffer of 16-byte (or smaller) records: per record,
/// the words to write (a mask) and their values. Later writes to the same
/// record merge into earlier ones word by word.
#[derive(Debug)]
pub struct WriteQueue<T: Pod> {
    writes: BTreeMap<u32, (u32, T)>,
}

impl<T: Pod> Default for WriteQueue<T> {
    fn default() -> Self {
        WriteQueue {
            writes: BTreeMap::new(),
        }
    }
}

impl<T: Pod> WriteQueue<T> {
    /// Queues the words of `record` selected by `mask` for record `index`.
    pub fn write(&mut self, index: u32, mask: u32, record: T) {
        let entry = self.writes.entry(index).or_insert((0, record));
        let words: &mut [u32] = bytemuck::cast_slice_mut(std::slice::from_mut(&mut entry.1));
        let new: &[u32] = bytemuck::cast_slice(std::slice::from_ref(&record));
        for (word, (old, value)) in words.iter_mut().zip(new).enumerate() {
            if mask & (1 << word) != 0 {
                *old = *value;
            }
        }
        entry.0 |= mask;
    }

    /// Takes every pending write, sorted by record index.
    pub fn drain(&mut self) -> Vec<(u32, u32, T)> {
        std::mem::take(&mut self.writes)
            .into_iter()
            .map(|(index, (mask, record))| (index, mask, record))
            .collect()
    }

    pub fn len(&self) -> usize {
        self.writes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

/// Every pending write, by destination buffer.
#[derive(Debug, Default)]
pub struct PendingWrites {
    pub unit_infos: WriteQueue<UnitInfo>,
    pub unit_placements: WriteQueue<UnitPlacement>,
    pub unit_motions: WriteQueue<UnitMotion>,
    pub anim_states: WriteQueue<AnimState>,
    pub unit_routes: WriteQueue<u32>,
    pub unit_marks: WriteQueue<u32>,
    pub prop_infos: WriteQueue<UnitInfo>,
    pub prop_placements: WriteQueue<UnitPlacement>,
    pub prop_routes: WriteQueue<u32>,
}

impl PendingWrites {
    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records waiting in all queues.
    pub fn len(&self) -> usize {
        self.unit_infos.len()
            + self.unit_placements.len()
            + self.unit_motions.len()
            + self.anim_states.len()
            + self.unit_routes.len()
            + self.unit_marks.len()
            + self.prop_infos.len()
            + self.prop_placements.len()
            + self.prop_routes.len()
    }
}

/// Per unit slot, the state the CPU last commanded: what the CPU baselines
/// draw from. Units the GPU moves by velocity or a simulation leave it behind
/// (the baselines refuse such worlds).
#[derive(Debug, Default)]
pub struct CpuUnitState {
    pub placements: Vec<UnitPlacement>,
    /// Speed and animation commands (the velocity words are not kept).
    pub motions: Vec<UnitMotion>,
    /// Animation states as spawned or overridden, not as animated since.
    pub anim_states: Vec<AnimState>,
    /// Counts spawns and animation overrides: a baseline animating on the
    /// CPU takes `anim_states` again when it changes.
    pub anim_generation: u64,
}

/// Unit slots, the CPU's copy of what it owns, and the writes to upload.
#[derive(Debug, Default)]
pub struct UnitTable {
    /// Per slot, the unit's info as the CPU last wrote it.
    infos: Vec<UnitInfo>,
    /// Despawned slots, reused by later spawns.
    free: Vec<u32>,
    /// Props, entirely CPU-owned.
    prop_infos: Vec<UnitInfo>,
    prop_placements: Vec<UnitPlacement>,
    /// Some unit has been given a non-zero velocity.
    moving: bool,
    /// What the CPU last commanded, for the CPU baselines.
    cpu_state: CpuUnitState,
    pub writes: PendingWrites,
}

impl UnitTable {
    /// Unit slots, despawned ones included: the passes' thread count.
    pub fn unit_count(&self) -> u32 {
        self.infos.len() as u32
    }

    pub fn prop_count(&self) -> u32 {
        self.prop_infos.len() as u32
    }

    /// Live units.
    pub fn live_units(&self) -> u32 {
        self.unit_count() - self.free.len() as u32
    }

    /// True once some unit has been given a non-zero velocity: before that,
    /// nothing can move.
    pub fn moving(&self) -> bool {
        self.moving
    }

    /// Unit infos as the CPU last wrote them.
    pub fn infos(&self) -> &[UnitInfo] {
        &self.infos
    }

    /// Units' placements, orders and animation states as last commanded.
    pub fn cpu_state(&self) -> &CpuUnitState {
        &self.cpu_state
    }

    /// Prop records as placed.
    pub fn props(&self) -> (&[UnitInfo], &[UnitPlacement]) {
        (&self.prop_infos, &self.prop_placements)
    }

    fn alive(&self, UnitId(index): UnitId) -> Option<usize> {
        self.infos
            .get(index as usize)
            .filter(|info| info.type_index != INACTIVE_TYPE)
            .map(|_| index as usize)
    }

    /// Spawns units of the world types `type_index(unit_type)`, each with
    /// the type's initial animation state. Returns their ids in order.
    pub fn spawn(
        &mut self,
        spawns: &[UnitSpawn],
        unit_type_count: u32,
        initial_states: &[AnimState],
    ) -> Result<Vec<UnitId>, Error> {
        for spawn in spawns {
            if spawn.unit_type >= unit_type_count {
                return Err(Error::Config(format!(
                    "unit type {} does not exist ({unit_type_count} unit types)",
                    spawn.unit_type
                )));
            }
            if !(spawn.position.is_finite() && spawn.heading.is_finite() && spawn.scale.is_finite())
            {
                return Err(Error::Config(
                    "a unit's position, heading and scale must be finite".to_owned(),
                ));
            }
        }
        let needed = self.infos.len() + spawns.len().saturating_sub(self.free.len());
        if needed >= 1 << ENTRY_INDEX_BITS {
            return Err(Error::Config(format!(
                "{needed} units exceed the 2^{ENTRY_INDEX_BITS} the instance lists address"
            )));
        }
        let mut ids = Vec::with_capacity(spawns.len());
        for spawn in spawns {
            let info = UnitInfo {
                type_index: spawn.unit_type,
                team: spawn.team,
                tint: spawn.tint,
                scale: spawn.scale,
            };
            let placement = UnitPlacement {
                position: spawn.position.to_array(),
                heading: spawn.heading,
            };
            let motion = UnitMotion {
                velocity: [0.0; 2],
                speed: spawn.params.speed,
                anim_commands: spawn.params.commands(),
            };
            let anim_state = initial_states[spawn.unit_type as usize];
            let cpu = &mut self.cpu_state;
            let index = match self.free.pop() {
                Some(index) => {
                    let slot = index as usize;
                    self.infos[slot] = info;
                    cpu.placements[slot] = placement;
                    cpu.motions[slot] = motion;
                    cpu.anim_states[slot] = anim_state;
                    index
                }
                None => {
                    self.infos.push(info);
                    cpu.placements.push(placement);
                    cpu.motions.push(motion);
                    cpu.anim_states.push(anim_state);
                    self.infos.len() as u32 - 1
                }
            };
            let writes = &mut self.writes;
            writes.unit_infos.write(index, WHOLE_RECORD, info);
            writes.unit_placements.write(index, WHOLE_RECORD, placement);
            writes.unit_motions.write(index, WHOLE_RECORD, motion);
            writes.anim_states.write(index, WHOLE_RECORD, anim_state);
            writes.unit_routes.write(index, 1, 0);
            writes.unit_marks.write(index, 1, 0);
            ids.push(UnitId(index));
        }
        self.cpu_state.anim_generation += 1;
        Ok(ids)
    }

    /// Removes units; returns the type of each one removed. Their slots are
    /// reused by later spawns.
    pub fn despawn(&mut self, ids: &[UnitId]) -> Vec<u32> {
        let mut removed = Vec::new();
        for &id in ids {
            if let Some(index) = self.alive(id) {
                removed.push(self.infos[index].type_index);
                self.infos[index].type_index = INACTIVE_TYPE;
                self.writes
                    .unit_infos
                    .write(id.0, WHOLE_RECORD, self.infos[index]);
                self.free.push(id.0);
            }
        }
        removed
    }

    /// Orders: the animation parameters (speed, dead, commands) of units.
    /// Their velocity, placement and animation state stay the GPU's.
    pub fn set_params(&mut self, updates: &[(UnitId, AnimParams)]) {
        for &(id, params) in updates {
            if self.alive(id).is_some() {
                let motion = UnitMotion {
                    velocity: [0.0; 2],
                    speed: params.speed,
                    anim_commands: params.commands(),
                };
                self.cpu_state.motions[id.0 as usize] = motion;
                self.writes.unit_motions.write(id.0, MOTION_PARAMS, motion);
            }
        }
    }

    /// Sets the ground velocity (x, z) of units.
    pub fn set_velocities(&mut self, updates: &[(UnitId, Vec2)]) {
        for &(id, velocity) in updates {
            if self.alive(id).is_some() && velocity.is_finite() {
                self.moving |= velocity != Vec2::ZERO;
                let motion = UnitMotion {
                    velocity: velocity.to_array(),
                    ..UnitMotion::default()
                };
                self.writes
                    .unit_motions
                    .write(id.0, MOTION_VELOCITY, motion);
            }
        }
    }

    /// Teleports: a new position and heading.
    pub fn teleport(&mut self, updates: &[(UnitId, Vec3, f32)]) {
        for &(id, position, heading) in updates {
            if self.alive(id).is_some() && position.is_finite() && heading.is_finite() {
                let placement = UnitPlacement {
                    position: position.to_array(),
                    heading,
                };
                self.cpu_state.placements[id.0 as usize] = placement;
                self.writes
                    .unit_placements
                    .write(id.0, WHOLE_RECORD, placement);
            }
        }
    }

    /// Overwrites units' animation states (a posed contact sheet, a test).
    pub fn set_anim_states(&mut self, states: &[(UnitId, AnimState)]) {
        for &(id, state) in states {
            if self.alive(id).is_some() {
                self.cpu_state.anim_states[id.0 as usize] = state;
                self.writes.anim_states.write(id.0, WHOLE_RECORD, state);
            }
        }
        self.cpu_state.anim_generation += 1;
    }

    /// Places props of the world types `first_prop_type + prop_type`.
    pub fn place_props(
        &mut self,
        props: &[PropPlacement],
        first_prop_type: u32,
        prop_type_count: u32,
    ) -> Result<(), Error> {
        for prop in props {
            if prop.prop_type >= prop_type_count {
                return Err(Error::Config(format!(
                    "prop type {} does not exist ({prop_type_count} prop types)",
                    prop.prop_type
                )));
            }
            if !(prop.position.is_finite() && prop.heading.is_finite() && prop.scale.is_finite()) {
                return Err(Error::Config(
                    "a prop's position, heading and scale must be finite".to_owned(),
                ));
            }
        }
        for prop in props {
            let index = self.prop_infos.len() as u32;
            let info = UnitInfo {
                type_index: first_prop_type + prop.prop_type,
                team: 0,
                tint: prop.tint,
                scale: prop.scale,
            };
            let placement = UnitPlacement {
                position: prop.position.to_array(),
                heading: prop.heading,
            };
            self.prop_infos.push(info);
            self.prop_placements.push(placement);
            self.writes.prop_infos.write(index, WHOLE_RECORD, info);
            self.writes
                .prop_placements
                .write(index, WHOLE_RECORD, placement);
            self.writes.prop_routes.write(index, 1, 0);
        }
        Ok(())
    }
}
