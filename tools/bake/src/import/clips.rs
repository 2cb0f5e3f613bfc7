//! The animations of a glTF file as clips of keyframe channels, bound to
//! the character's nodes: translation, rotation and scale channels with
//! their interpolation; checked for key times and values that agree, are
//! finite and do not decrease. Morph target weights and channels of nodes
//! the character lacks are skipped with a warning.

use super::*;
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};

/// Reads every animation of `file`; `binding` maps the file's node indices to
/// character node indices.
pub(super) fn clips(
    file: &GltfFile,
    binding: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Result<Vec<SourceClip>, BakeError> {
    let mut clips = Vec::new();
    for animation in file.document.animations() {
        let name = animation
            .name()
            .map_or_else(|| format!("clip{}", animation.index()), str::to_owned);
        let mut channels = Vec::new();
        let mut unbound = 0;
        for channel in animation.channels() {
            let target = match channel.target().property() {
                Property::Translation => Target::Translation,
                Property::Rotation => Target::Rotation,
                Property::Scale => Target::Scale,
                Property::MorphTargetWeights => {
                    warnings.push(format!(
                        "{}: clip {name:?}: morph target weights ignored",
                        file.path.display()
                    ));
                    continue;
                }
            };
            let Some(node) = binding
                .get(channel.target().node().index())
                .copied()
                .flatten()
            else {
                unbound += 1;
                continue;
            };
            let interpolation = match channel.sampler().interpolation() {
                Interpolation::Linear => Interp::Linear,
                Interpolation::Step => Interp::Step,
                Interpolation::CubicSpline => Interp::CubicSpline,
            };
            let reader = channel.reader(|buffer| file.buffer(buffer));
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| file.error(format!("clip {name:?}: channel without key times")))?
                .collect();
            let values: Vec<Vec4> = match reader.read_outputs() {
                Some(ReadOutputs::Translations(values)) | Some(ReadOutputs::Scales(values)) => {
                    values.map(|v| Vec3::from(v).extend(0.0)).collect()
                }
                Some(ReadOutputs::Rotations(values)) => values.into_f32().map(Vec4::from).collect(),
                _ => return Err(file.error(format!("clip {name:?}: channel without key values"))),
            };
            let per_key = if interpolation == Interp::CubicSpline {
                3
            } else {
                1
            };
            if times.is_empty() || values.len() != times.len() * per_key {
                return Err(file.error(format!(
                    "clip {name:?}: {} key times but {} key values",
                    times.len(),
                    values.len()
                )));
            }
            if !times.iter().all(|t| t.is_finite()) || !values.iter().all(|v| v.is_finite()) {
                return Err(file.error(format!("clip {name:?}: NaN or infinite keyframe")));
            }
            if times.windows(2).any(|pair| pair[1] < pair[0]) {
                return Err(file.error(format!("clip {name:?}: key times decrease")));
            }
            channels.push(Channel {
                node,
                target,
                interpolation,
                times,
                values,
            });
        }
        if unbound > 0 {
            warnings.push(format!(
                "{}: clip {name:?}: {unbound} channels target nodes the character lacks",
                file.path.display()
            ));
        }
        if channels.is_empty() {
            warnings.push(format!(
                "{}: clip {name:?}: no usable channel, skipped",
                file.path.display()
            ));
            continue;
        }
        let start = channels
            .iter()
            .map(|c| c.times[0])
            .fold(f32::INFINITY, f32::min);
        let end = channels
            .iter()
            .filter_map(|c| c.times.last())
            .fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        clips.push(SourceClip {
            name,
            start,
            duration: end - start,
            channels,
        });
    }
    Ok(clips)
}
