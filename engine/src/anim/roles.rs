//! Clip roles: which of a unit type's clips plays idle, walk, run, attack,
//! hit, die and victory in the humanoid controller, found by name keywords
//! or named by `role=clip` overrides (the battle's `--clip-map`).

use std::collections::BTreeMap;

use crate::asset::Clip;
use crate::Error;

/// A part the humanoid controller casts a clip in, found by name keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Idle,
    Walk,
    Run,
    Attack,
    Hit,
    Die,
    Victory,
}

/// Every role and the clip a role falls back to when its type has no clip
/// for it, resolved by [`clip_roles`].
pub type ClipRoles = BTreeMap<Role, usize>;

impl Role {
    /// Every role, in the order [`clip_roles`] resolves them.
    pub const ALL: [Role; 7] = [
        Role::Idle,
        Role::Walk,
        Role::Run,
        Role::Attack,
        Role::Hit,
        Role::Die,
        Role::Victory,
    ];
    /// Roles a battle cannot do without: [`clip_roles`] fails when one has
    /// no clip.
    pub const REQUIRED: [Role; 4] = [Role::Idle, Role::Walk, Role::Attack, Role::Die];

    /// The role's name, as `--clip-map role=name` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Idle => "idle",
            Role::Walk => "walk",
            Role::Run => "run",
            Role::Attack => "attack",
            Role::Hit => "hit",
            Role::Die => "die",
            Role::Victory => "victory",
        }
    }

    /// The role called `name` (case-insensitive).
    pub fn named(name: &str) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|role| role.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The clip-name keywords that fill the role.
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Role::Idle => &["idle", "survey", "stand"],
            Role::Walk => &["walk"],
            Role::Run => &["run"],
            Role::Attack => &["attack", "slash", "chop", "stab", "thrust"],
            Role::Hit => &["hit", "damage"],
            Role::Die => &["death", "die", "dying"],
            Role::Victory => &["victory", "cheer", "celebrate", "triumph"],
        }
    }

    /// How well `name` fits: 0 equal to a keyword, 1 starting with one, 2
    /// containing one (case-insensitive); `None` when no keyword occurs.
    pub(super) fn rank(self, name: &str) -> Option<u32> {
        let name = name.to_lowercase();
        self.keywords()
            .iter()
            .filter_map(|keyword| {
                if name == *keyword {
                    Some(0)
                } else if name.starts_with(keyword) {
                    Some(1)
                } else if name.contains(keyword) {
                    Some(2)
                } else {
                    None
                }
            })
            .min()
    }

    /// The best-fitting clip other than `except`: lowest rank, then first in
    /// file order.
    pub(super) fn find(self, clips: &[Clip], except: Option<usize>) -> Option<usize> {
        clips
            .iter()
            .enumerate()
            .filter(|(index, _)| Some(*index) != except)
            .filter_map(|(index, clip)| self.rank(&clip.name).map(|rank| (rank, index)))
            .min()
            .map(|(_, index)| index)
    }

    /// The role that stands in for this one when its clip is missing.
    fn fallback(self) -> Option<Role> {
        match self {
            Role::Idle => None,
            Role::Run => Some(Role::Walk),
            _ => Some(Role::Idle),
        }
    }
}

/// The clip of every role, found by name keywords; see
/// [`clip_roles_with_overrides`].
pub fn clip_roles(clips: &[Clip]) -> Result<ClipRoles, Error> {
    clip_roles_with_overrides(clips, &[])
}

/// The clip of every role: `overrides` (role name, clip name) pairs first,
/// as the battle's `--clip-map role=name` gives them, then the best keyword
/// match (idle: idle, survey, stand; walk; run; attack: attack, slash, chop,
/// stab, thrust; hit: hit, damage; die: death, die, dying; victory: victory,
/// cheer, celebrate, triumph). A missing run plays the walk, a missing hit
/// or victory the idle. A missing idle, walk, attack or die is an error that
/// names the roles found, as is an override naming an unknown role or clip.
pub fn clip_roles_with_overrides(
    clips: &[Clip],
    overrides: &[(String, String)],
) -> Result<ClipRoles, Error> {
    let mut found = ClipRoles::new();
    for (role_name, clip_name) in overrides {
        let role = Role::named(role_name).ok_or_else(|| {
            let roles: Vec<&str> = Role::ALL.iter().map(|role| role.name()).collect();
            Error::Config(format!(
                "clip map: unknown role {role_name:?} (roles: {})",
                roles.join(", ")
            ))
        })?;
        let clip = clips
            .iter()
            .position(|clip| clip.name == *clip_name)
            .ok_or_else(|| {
                let names: Vec<&str> = clips.iter().map(|clip| clip.name.as_str()).collect();
                Error::Config(format!(
                    "clip map: {role_name}={clip_name}: no such clip (clips: {})",
                    names.join(", ")
                ))
            })?;
        found.insert(role, clip);
    }
    for role in Role::ALL {
        if let (std::collections::btree_map::Entry::Vacant(slot), Some(clip)) =
            (found.entry(role), role.find(clips, None))
        {
            slot.insert(clip);
        }
    }
    let missing: Vec<&str> = Role::REQUIRED
        .iter()
        .filter(|role| !found.contains_key(role))
        .map(|role| role.name())
        .collect();
    if !missing.is_empty() {
        let present: Vec<String> = found
            .iter()
            .map(|(role, &clip)| format!("{}={}", role.name(), clips[clip].name))
            .collect();
        return Err(Error::Config(format!(
            "no clip for {} (found {}); name one with --clip-map role=clip",
            missing.join(", "),
            if present.is_empty() {
                "none".to_owned()
            } else {
                present.join(", ")
            }
        )));
    }
    Ok(with_fallbacks(found))
}

/// Fills every missing role from its fallback (idle from clip 0).
pub(super) fn with_fallbacks(mut roles: ClipRoles) -> ClipRoles {
    for role in Role::ALL {
        if !roles.contains_key(&role) {
            let clip = role
                .fallback()
                .and_then(|fallback| roles.get(&fallback).copied())
                .unwrap_or(0);
            roles.insert(role, clip);
        }
    }
    roles
}
