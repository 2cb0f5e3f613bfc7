//! The battle's `--clip-map [ARMY:]role=clip`: which clip plays a role, for
//! every army or for one, and the casting of each unit type's clips.
//!
//! Two characters from different exporters name their clips differently,
//! so a mapping may name its army: by number (`1:attack=Punch`; army 1
//! fields the first `--model`, army 2 the second) or by its model's name
//! (the file stem, `Robot:attack=Punch`). A mapping without one reaches
//! every army. Each unit type takes the mappings that reach an army it
//! fights in, then [`clip_roles_with_overrides`] finds the rest by name and
//! falls back where a role a battle can do without has no clip, with one
//! warning per role. A clip a mapping names that a model lacks is an error
//! naming the model, its army and its clips.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, bail, Result};
use horde::anim::{clip_roles_with_overrides, Controller, Role};
use horde::asset::Asset;

/// The army a mapping is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArmySelector {
    /// Army 1 or 2 (army 1 fields the first `--model`).
    Number(u32),
    /// The army whose model has this name (file stem, case-insensitive).
    Model(String),
}

/// One `--clip-map [ARMY:]role=clip`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClipMapping {
    /// `None`: every army.
    pub army: Option<ArmySelector>,
    pub role: Role,
    pub clip: String,
}

impl FromStr for ClipMapping {
    type Err = String;

    fn from_str(text: &str) -> Result<ClipMapping, String> {
        let usage = "expected [ARMY:]role=clip, such as attack=Chop or 2:attack=Punch";
        let (scoped_role, clip) = text
            .split_once('=')
            .ok_or_else(|| format!("{text}: {usage}"))?;
        let (army, role_name) = match scoped_role.rsplit_once(':') {
            Some((army, role)) => (Some(army.trim()), role),
            None => (None, scoped_role),
        };
        let clip = clip.trim();
        if clip.is_empty() {
            return Err(format!("{text}: no clip name; {usage}"));
        }
        let role = Role::named(role_name).ok_or_else(|| {
            let roles: Vec<&str> = Role::ALL.iter().map(|role| role.name()).collect();
            format!(
                "{text}: unknown role {:?} (roles: {})",
                role_name.trim(),
                roles.join(", ")
            )
        })?;
        let army = match army {
            None => None,
            Some("") => return Err(format!("{text}: empty army; {usage}")),
            Some(army) => Some(match army.parse::<u32>() {
                Ok(number @ 1..=2) => ArmySelector::Number(number),
                Ok(number) => {
                    return Err(format!(
                        "{text}: army {number} does not exist (a battle has armies 1 and 2)"
                    ))
                }
                Err(_) => ArmySelector::Model(army.to_owned()),
            }),
        };
        Ok(ClipMapping {
            army,
            role,
            clip: clip.to_owned(),
        })
    }
}

impl fmt::Display for ClipMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.army {
            None => {}
            Some(ArmySelector::Number(number)) => write!(f, "{number}:")?,
            Some(ArmySelector::Model(name)) => write!(f, "{name}:")?,
        }
        write!(f, "{}={}", self.role.name(), self.clip)
    }
}

/// A unit type as the clip map sees it.
pub struct ArmyType<'a> {
    pub asset: &'a Asset,
    /// The armies (0 and/or 1) that field it.
    pub armies: Vec<u32>,
    /// Where it came from, for messages: the `--model` path, or the
    /// generated asset's name.
    pub source: String,
}

impl ArmyType<'_> {
    /// "army 1", or "armies 1 and 2" for a type both field.
    fn army_label(&self) -> String {
        let numbers: Vec<String> = self
            .armies
            .iter()
            .map(|army| (army + 1).to_string())
            .collect();
        match numbers.as_slice() {
            [one] => format!("army {one}"),
            _ => format!("armies {}", numbers.join(" and ")),
        }
    }

    fn reached_by(&self, mapping: &ClipMapping) -> bool {
        match &mapping.army {
            None => true,
            Some(ArmySelector::Number(number)) => number
                .checked_sub(1)
                .is_some_and(|army| self.armies.contains(&army)),
            Some(ArmySelector::Model(name)) => self.asset.name.eq_ignore_ascii_case(name),
        }
    }
}

/// The humanoid controller of every type, its clips cast by the mappings
/// that reach it and then by name; one warning per role that plays another
/// role's clip.
pub fn cast_army_types(types: &[ArmyType], mappings: &[ClipMapping]) -> Result<Vec<Controller>> {
    for mapping in mappings {
        if let Some(ArmySelector::Model(name)) = &mapping.army {
            if !types.iter().any(|unit_type| unit_type.reached_by(mapping)) {
                let names: Vec<&str> = types.iter().map(|t| t.asset.name.as_str()).collect();
                bail!(
                    "--clip-map {mapping}: no army's model is named {name:?} (models: {})",
                    names.join(", ")
                );
            }
        }
    }
    types
        .iter()
        .map(|unit_type| cast_one(unit_type, mappings, types.len() > 1))
        .collect()
}

fn cast_one(unit_type: &ArmyType, mappings: &[ClipMapping], several: bool) -> Result<Controller> {
    let asset = unit_type.asset;
    let clips = asset.animation.as_ref().map_or(&[][..], |a| &a.clips);
    let model = format!("{} ({})", unit_type.source, unit_type.army_label());
    let mut overrides: Vec<(&ClipMapping, (String, String))> = Vec::new();
    for mapping in mappings.iter().filter(|m| unit_type.reached_by(m)) {
        if !clips.iter().any(|clip| clip.name == mapping.clip) {
            let names: Vec<&str> = clips.iter().map(|clip| clip.name.as_str()).collect();
            let hint = if mapping.army.is_none() && several {
                format!("; a mapping for one army names it: --clip-map 1:{mapping} or 2:{mapping}")
            } else {
                String::new()
            };
            bail!(
                "--clip-map {mapping}: {model} has no clip {:?} (its clips: {}){hint}",
                mapping.clip,
                names.join(", ")
            );
        }
        if let Some((earlier, _)) = overrides
            .iter()
            .find(|(other, _)| other.role == mapping.role && other.clip != mapping.clip)
        {
            bail!(
                "--clip-map {earlier} and --clip-map {mapping} both cast {} for {model}",
                mapping.role.name()
            );
        }
        overrides.push((
            mapping,
            (mapping.role.name().to_owned(), mapping.clip.clone()),
        ));
    }
    let overrides: Vec<(String, String)> = overrides.into_iter().map(|(_, pair)| pair).collect();
    let casting =
        clip_roles_with_overrides(clips, &overrides).map_err(|err| anyhow!("{model}: {err}"))?;
    for fallback in &casting.fallbacks {
        let (role, plays) = (fallback.role.name(), fallback.plays.name());
        let clip = &clips[casting.roles[&fallback.plays]].name;
        let effect = if fallback.role == Role::Hit {
            " (no hit reaction)"
        } else {
            ""
        };
        log::warn!(
            "{model}: no {role} clip; {role} plays the {plays} clip {clip:?}{effect} \
             (--clip-map {role}=CLIP names one)"
        );
    }
    Ok(Controller::humanoid_with_roles(clips, &casting.roles))
}
