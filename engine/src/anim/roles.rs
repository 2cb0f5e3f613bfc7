//! Clip roles: which of a unit type's clips plays idle, walk, run, attack,
//! hit, die and victory in the humanoid controller, found by name keywords
//! or named by `role=clip` overrides (the battle's `--clip-map`).
//!
//! Exporters and rigs name clips differently (`CharacterArmature|Punch`
//! from FBX2glTF, `Walking` from Blender, `1H_Melee_Attack_Chop` from
//! KayKit, `A_Hit_F` from Synty, `Hit Reaction` from Mixamo), so a name is
//! compared by its words ([`action_words`]): the part after the last `|`,
//! split at separators, case changes and digits, with one-letter and numeric
//! variant tags dropped. A clip fits a role by the best of the role's
//! keywords: its words equal the keyword's, equal them but for an inflection
//! (`walking` for `walk`), or contain them (`sword slash` for `slash`).
//! The best fit wins, then the earlier keyword, then the earlier clip.
//!
//! A battle needs a way to stand or move (idle or walk) and an attack; any
//! other missing role plays another role's clip ([`Fallback`]): run the
//! walk, idle and walk each other, hit, die and victory the idle (a hit
//! without a clip of its own shows no reaction).

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

/// Every role and the clip it plays, resolved by [`clip_roles`].
pub type ClipRoles = BTreeMap<Role, usize>;

/// A role its type has no clip for, and the role whose clip it plays
/// instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fallback {
    pub role: Role,
    pub plays: Role,
}

/// What [`clip_roles`] found: the clip of every role, and the roles that
/// play another's clip because the type has none of their own.
#[derive(Clone, Debug, PartialEq)]
pub struct Casting {
    pub roles: ClipRoles,
    pub fallbacks: Vec<Fallback>,
}

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

    /// The clip-name keywords that fill the role, preferred first: the names
    /// the common rigs use (Mixamo, Quaternius, KayKit, Synty, Blender's
    /// and FBX2glTF's exports of them).
    pub fn keywords(self) -> &'static [&'static str] {
        match self {
            Role::Idle => &["idle", "survey", "stand"],
            Role::Walk => &["walk"],
            Role::Run => &["run", "sprint", "jog"],
            Role::Attack => &[
                "attack", "slash", "chop", "stab", "strike", "striking", "swing", "thrust",
                "punch", "kick", "bite", "biting", "shoot",
            ],
            Role::Hit => &["hit", "damage", "hurt", "flinch"],
            Role::Die => &["death", "die", "dying", "dead"],
            Role::Victory => &[
                "victory",
                "cheer",
                "celebrate",
                "celebration",
                "triumph",
                "thumbs up",
                "yes",
                "dance",
                "dancing",
                "wave",
                "waving",
            ],
        }
    }

    /// How well `name` fits: its best keyword's fit (0 the words equal the
    /// keyword's, 1 equal but for an inflection, 2 contain them) and that
    /// keyword's place in [`Role::keywords`]; `None` when none fits.
    pub(super) fn rank(self, name: &str) -> Option<(u32, usize)> {
        let words = action_words(name);
        self.keywords()
            .iter()
            .enumerate()
            .filter_map(|(place, keyword)| {
                let keyword: Vec<&str> = keyword.split(' ').collect();
                word_fit(&words, &keyword).map(|fit| (fit, place))
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

    /// The role that stands in for this one when its clip is missing (an
    /// attack only in [`Controller::humanoid`](super::Controller::humanoid):
    /// [`clip_roles`] requires one).
    fn fallback(self) -> Role {
        match self {
            Role::Idle | Role::Run => Role::Walk,
            Role::Walk | Role::Attack | Role::Hit | Role::Die | Role::Victory => Role::Idle,
        }
    }
}

/// The words of a clip name that say what it does: the part after the last
/// `|` (exporters prefix the armature: `CharacterArmature|Punch`), split at
/// anything but letters and digits, at lower-to-upper case changes and at
/// letter-digit changes, lower-cased, without one-letter or numeric words
/// (variant tags: `Walking_A`, `1H_Melee`, `Idle_01`).
pub fn action_words(name: &str) -> Vec<String> {
    let action = name
        .rsplit('|')
        .find(|part| !part.trim().is_empty())
        .unwrap_or(name);
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in action.chars() {
        let boundary = match previous {
            None => false,
            Some(p) => {
                !c.is_alphanumeric()
                    || (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() != c.is_alphabetic())
            }
        };
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        previous = Some(c).filter(|c| c.is_alphanumeric());
    }
    words.push(word);
    words.retain(|word| word.chars().count() > 1 && !word.chars().all(|c| c.is_ascii_digit()));
    words
}

/// How `words` hold `keyword` (words too): 0 equal, 1 equal but for
/// inflections (each word starting with the keyword's), 2 containing it;
/// `None` otherwise.
fn word_fit(words: &[String], keyword: &[&str]) -> Option<u32> {
    let equal = |word: &String, key: &&str| word == key;
    let inflected = |word: &String, key: &&str| word.starts_with(key);
    if words.len() == keyword.len() {
        if words.iter().zip(keyword).all(|(w, k)| equal(w, k)) {
            return Some(0);
        }
        if words.iter().zip(keyword).all(|(w, k)| inflected(w, k)) {
            return Some(1);
        }
    }
    words
        .windows(keyword.len())
        .any(|window| window.iter().zip(keyword).all(|(w, k)| inflected(w, k)))
        .then_some(2)
}

/// The clip of every role, found by name keywords; see
/// [`clip_roles_with_overrides`].
pub fn clip_roles(clips: &[Clip]) -> Result<Casting, Error> {
    clip_roles_with_overrides(clips, &[])
}

/// The clip of every role: `overrides` (role name, clip name) pairs first,
/// as the battle's `--clip-map role=name` gives them, then the best keyword
/// match ([`Role::keywords`]). A role still missing plays its fallback's
/// clip (run the walk; idle and walk each other; hit, die and victory the
/// idle), listed in [`Casting::fallbacks`]. No attack, or neither idle nor
/// walk, is an error that names the roles found, as is an override naming
/// an unknown role or clip.
pub fn clip_roles_with_overrides(
    clips: &[Clip],
    overrides: &[(String, String)],
) -> Result<Casting, Error> {
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
    let mut missing = Vec::new();
    if !found.contains_key(&Role::Idle) && !found.contains_key(&Role::Walk) {
        missing.push("idle or walk");
    }
    if !found.contains_key(&Role::Attack) {
        missing.push("attack");
    }
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

/// Fills every missing role from its fallback, following the chain to a
/// role that has a clip (clip 0 where none has).
pub(super) fn with_fallbacks(found: ClipRoles) -> Casting {
    let mut roles = found.clone();
    let mut fallbacks = Vec::new();
    for role in Role::ALL {
        if found.contains_key(&role) {
            continue;
        }
        // Follow the chain (run, walk, idle, walk) to a role with a clip,
        // stopping where it comes back round to this one.
        let mut stand_in = role.fallback();
        for _ in 0..Role::ALL.len() {
            if found.contains_key(&stand_in) || stand_in == role {
                break;
            }
            stand_in = stand_in.fallback();
        }
        match Some(stand_in).filter(|other| found.contains_key(other)) {
            Some(plays) => {
                roles.insert(role, found[&plays]);
                fallbacks.push(Fallback { role, plays });
            }
            None => {
                roles.insert(role, 0);
            }
        }
    }
    Casting { roles, fallbacks }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clips(names: &[&str]) -> Vec<Clip> {
        names
            .iter()
            .map(|name| Clip {
                name: (*name).to_owned(),
                first_texel: 0,
                frame_count: 31,
                duration: 1.0,
                looping: true,
                ground_speed: 0.0,
                foot_phase: 0.0,
            })
            .collect()
    }

    /// Each role and the name of its clip.
    type Cast = Vec<(Role, String)>;

    /// The clip names each role got, and the (role, stand-in) fallbacks.
    fn cast(names: &[&str]) -> (Cast, Vec<(Role, Role)>) {
        let clips = clips(names);
        let casting = clip_roles(&clips).unwrap_or_else(|err| panic!("{names:?}: {err}"));
        (
            casting
                .roles
                .iter()
                .map(|(&role, &clip)| (role, clips[clip].name.clone()))
                .collect(),
            casting
                .fallbacks
                .iter()
                .map(|fallback| (fallback.role, fallback.plays))
                .collect(),
        )
    }

    fn cast_as(roles: &[(Role, &str)]) -> Cast {
        roles
            .iter()
            .map(|&(role, name)| (role, name.to_owned()))
            .collect()
    }

    #[test]
    fn action_words_drop_armatures_variant_tags_and_case() {
        let words = |name: &str| action_words(name).join(" ");
        assert_eq!(words("CharacterArmature|HitReact"), "hit react");
        assert_eq!(words("1H_Melee_Attack_Chop"), "melee attack chop");
        assert_eq!(words("ThumbsUp"), "thumbs up");
        assert_eq!(words("Walking_A"), "walking");
        assert_eq!(words("A_Death_B_01"), "death");
        assert_eq!(words("Armature|Hit Reaction"), "hit reaction");
        assert_eq!(words("Armature|"), "armature");
        assert_eq!(words("|"), "");
    }

    #[test]
    fn fbx2gltf_names_with_armature_prefixes_cast_every_role() {
        let (roles, fallbacks) = cast(&[
            "CharacterArmature|Death",
            "CharacterArmature|HitReact",
            "CharacterArmature|Idle",
            "CharacterArmature|Punch",
            "CharacterArmature|Run",
            "CharacterArmature|Walk",
            "CharacterArmature|Wave",
            "CharacterArmature|Weapon",
            "CharacterArmature|Yes",
        ]);
        assert_eq!(
            roles,
            cast_as(&[
                (Role::Idle, "CharacterArmature|Idle"),
                (Role::Walk, "CharacterArmature|Walk"),
                (Role::Run, "CharacterArmature|Run"),
                (Role::Attack, "CharacterArmature|Punch"),
                (Role::Hit, "CharacterArmature|HitReact"),
                (Role::Die, "CharacterArmature|Death"),
                (Role::Victory, "CharacterArmature|Yes"),
            ])
        );
        assert!(fallbacks.is_empty());
    }

    #[test]
    fn blender_names_prefer_whole_words_and_fall_back_for_hit() {
        let (roles, fallbacks) = cast(&[
            "Dance", "Death", "Idle", "Jump", "No", "Punch", "Running", "Sitting", "Standing",
            "ThumbsUp", "WalkJump", "Walking", "Wave", "Yes",
        ]);
        assert_eq!(
            roles,
            cast_as(&[
                (Role::Idle, "Idle"),
                (Role::Walk, "Walking"),
                (Role::Run, "Running"),
                (Role::Attack, "Punch"),
                (Role::Hit, "Idle"),
                (Role::Die, "Death"),
                (Role::Victory, "ThumbsUp"),
            ])
        );
        assert_eq!(fallbacks, [(Role::Hit, Role::Idle)]);
    }

    #[test]
    fn missing_walk_and_run_play_the_idle() {
        let (roles, fallbacks) = cast(&["Idle", "Bite"]);
        assert_eq!(roles[1], (Role::Walk, "Idle".to_owned()));
        assert_eq!(roles[2], (Role::Run, "Idle".to_owned()));
        assert_eq!(
            fallbacks,
            [
                (Role::Walk, Role::Idle),
                (Role::Run, Role::Idle),
                (Role::Hit, Role::Idle),
                (Role::Die, Role::Idle),
                (Role::Victory, Role::Idle)
            ]
        );
        let (roles, _) = cast(&["Walk", "Shoot"]);
        assert_eq!(roles[0], (Role::Idle, "Walk".to_owned()));
    }

    #[test]
    fn no_attack_or_no_stance_is_refused() {
        let refused = |names: &[&str]| clip_roles(&clips(names)).expect_err("refused").to_string();
        assert!(refused(&["Idle", "Walk", "Death"]).contains("no clip for attack (found"));
        assert!(refused(&["Punch", "Death"]).contains("no clip for idle or walk (found"));
    }
}
