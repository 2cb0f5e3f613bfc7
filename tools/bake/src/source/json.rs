//! The checks of a glTF's JSON before the `gltf` crate reads it: every
//! index against its array, the node graph a forest with only its roots
//! listed by the scenes, every buffer view inside its buffer and every
//! accessor inside its view, with component types and counts each attribute
//! allows, and the required extensions.

use serde_json::Value;

use super::MAX_INPUT_BYTES;

pub(super) fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn count(root: &Value, key: &str) -> usize {
    array(root, key).len()
}

/// An optional unsigned integer field; an error if present and not one.
pub(super) fn unsigned(value: &Value, key: &str, at: &str) -> Result<Option<u64>, String> {
    match value.get(key) {
        None => Ok(None),
        Some(field) => field
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{at}.{key} is not a non-negative integer")),
    }
}

/// An optional index field, checked against `len` items of `what`.
fn index(
    value: &Value,
    key: &str,
    len: usize,
    what: &str,
    at: &str,
) -> Result<Option<usize>, String> {
    match unsigned(value, key, at)? {
        None => Ok(None),
        Some(found) if found < len as u64 => Ok(Some(found as usize)),
        Some(found) => Err(format!(
            "{at}.{key} = {found} is out of range (the file has {len} {what})"
        )),
    }
}

fn check_index(value: &Value, len: usize, what: &str, at: &str) -> Result<usize, String> {
    match value.as_u64() {
        Some(found) if found < len as u64 => Ok(found as usize),
        Some(found) => Err(format!(
            "{at} = {found} is out of range (the file has {len} {what})"
        )),
        None => Err(format!("{at} is not an index")),
    }
}

/// Node indices must form a forest: each node at most one parent, no cycle.
/// Returns each node's parent and the slot of its `children` that lists it.
fn check_forest(root: &Value) -> Result<Vec<Option<(usize, usize)>>, String> {
    let nodes = array(root, "nodes");
    let mut parent: Vec<Option<(usize, usize)>> = vec![None; nodes.len()];
    for (node_index, node) in nodes.iter().enumerate() {
        for (slot, child) in array(node, "children").iter().enumerate() {
            let at = format!("nodes[{node_index}].children[{slot}]");
            let child = check_index(child, nodes.len(), "nodes", &at)?;
            if child == node_index {
                return Err(format!(
                    "node {node_index} lists itself as a child (a cycle)"
                ));
            }
            if let Some((first, _)) = parent[child] {
                return Err(format!(
                    "node {child} has two parents (nodes {first} and {node_index}); glTF nodes form a forest"
                ));
            }
            parent[child] = Some((node_index, slot));
        }
    }
    // With one parent each, a node is in a cycle exactly when walking up from
    // it never reaches a root; marking finished nodes keeps this linear.
    let mut reaches_root = vec![false; nodes.len()];
    for start in 0..nodes.len() {
        let mut path = Vec::new();
        let mut current = Some(start);
        while let Some(node) = current {
            if reaches_root[node] {
                break;
            }
            if path.contains(&node) {
                return Err(format!("node {node} is its own ancestor (a cycle)"));
            }
            path.push(node);
            current = parent[node].map(|(parent, _)| parent);
        }
        path.iter().for_each(|&node| reaches_root[node] = true);
    }
    Ok(parent)
}

/// A scene lists root nodes only (the Khronos validator's
/// SCENE_NON_ROOT_NODE): a node that is also another's child would sit in
/// the hierarchy twice, once under its parent and once at the top.
fn check_scene_roots(root: &Value, parent: &[Option<(usize, usize)>]) -> Result<(), String> {
    for (scene_index, scene) in array(root, "scenes").iter().enumerate() {
        for (slot, node) in array(scene, "nodes").iter().enumerate() {
            // `validate` has checked every scene index before this runs.
            let Some(node) = node.as_u64().map(|node| node as usize) else {
                continue;
            };
            if let Some(&Some((parent, child_slot))) = parent.get(node) {
                return Err(format!(
                    "node {node} is listed as a root of scene {scene_index} \
                     (scenes[{scene_index}].nodes[{slot}]) and as a child of node {parent} \
                     (nodes[{parent}].children[{child_slot}]); a scene lists root nodes only"
                ));
            }
        }
    }
    Ok(())
}

fn component_size(code: u64) -> Option<u64> {
    match code {
        5120 | 5121 => Some(1),
        5122 | 5123 => Some(2),
        5125 | 5126 => Some(4),
        _ => None,
    }
}

fn component_count(kind: &str) -> Option<u64> {
    match kind {
        "SCALAR" => Some(1),
        "VEC2" => Some(2),
        "VEC3" => Some(3),
        "VEC4" | "MAT2" => Some(4),
        "MAT3" => Some(9),
        "MAT4" => Some(16),
        _ => None,
    }
}

/// Byte range `offset .. offset + length` of buffer view `view`, which must lie
/// inside its buffer.
fn view_range(root: &Value, view: usize) -> Result<(u64, u64), String> {
    let at = format!("bufferViews[{view}]");
    let value = &array(root, "bufferViews")[view];
    let buffer = index(value, "buffer", count(root, "buffers"), "buffers", &at)?
        .ok_or_else(|| format!("{at} has no buffer"))?;
    let offset = unsigned(value, "byteOffset", &at)?.unwrap_or(0);
    let length =
        unsigned(value, "byteLength", &at)?.ok_or_else(|| format!("{at} has no byteLength"))?;
    let buffer_length =
        unsigned(&array(root, "buffers")[buffer], "byteLength", "buffer")?.unwrap_or(0);
    let end = offset.saturating_add(length);
    if end > buffer_length {
        return Err(format!(
            "{at} (bytes {offset}..{end}) lies outside buffer {buffer} ({buffer_length} bytes)"
        ));
    }
    Ok((offset, length))
}

/// Checks that accessor `index` reads only inside its buffer view.
fn check_accessor(root: &Value, accessor_index: usize) -> Result<(), String> {
    let at = format!("accessors[{accessor_index}]");
    let accessor = &array(root, "accessors")[accessor_index];
    let views = count(root, "bufferViews");
    let element_count =
        unsigned(accessor, "count", &at)?.ok_or_else(|| format!("{at} has no count"))?;
    let component = unsigned(accessor, "componentType", &at)?
        .and_then(component_size)
        .ok_or_else(|| format!("{at} has an invalid componentType"))?;
    let components = accessor
        .get("type")
        .and_then(Value::as_str)
        .and_then(component_count)
        .ok_or_else(|| format!("{at} has an invalid type"))?;
    let element = component * components;
    if element_count == 0 {
        return Err(format!("{at} has count 0 (glTF requires at least 1)"));
    }
    // An accessor without a view reads as zeros: its size is only declared,
    // so it gets the same cap as a file.
    let declared = element_count.saturating_mul(element);
    if declared > MAX_INPUT_BYTES {
        return Err(format!(
            "{at} declares {declared} bytes, over the {MAX_INPUT_BYTES}-byte input limit"
        ));
    }
    if let Some(view) = index(accessor, "bufferView", views, "bufferViews", &at)? {
        let (_, view_length) = view_range(root, view)?;
        let stride = unsigned(
            &array(root, "bufferViews")[view],
            "byteStride",
            "bufferView",
        )?
        .unwrap_or(element);
        if stride < element {
            return Err(format!(
                "{at}: bufferView {view} has byteStride {stride}, less than its {element}-byte \
                 elements"
            ));
        }
        let offset = unsigned(accessor, "byteOffset", &at)?.unwrap_or(0);
        let needed = match element_count {
            0 => 0,
            n => (n - 1)
                .checked_mul(stride)
                .and_then(|bytes| bytes.checked_add(element))
                .and_then(|bytes| bytes.checked_add(offset))
                .unwrap_or(u64::MAX),
        };
        if needed > view_length {
            return Err(format!(
                "{at} needs {needed} bytes of bufferView {view}, which has {view_length}"
            ));
        }
    }
    if let Some(sparse) = accessor.get("sparse") {
        let sparse_count = unsigned(sparse, "count", &at)?.unwrap_or(0);
        if sparse_count > element_count {
            return Err(format!(
                "{at}.sparse.count {sparse_count} exceeds the accessor's count {element_count}"
            ));
        }
        for (part, size) in [("indices", None), ("values", Some(element))] {
            let part_value = sparse
                .get(part)
                .ok_or_else(|| format!("{at}.sparse has no {part}"))?;
            let part_at = format!("{at}.sparse.{part}");
            let view = index(part_value, "bufferView", views, "bufferViews", &part_at)?
                .ok_or_else(|| format!("{part_at} has no bufferView"))?;
            let (_, view_length) = view_range(root, view)?;
            let size = match size {
                Some(size) => size,
                None => unsigned(part_value, "componentType", &part_at)?
                    .and_then(component_size)
                    .ok_or_else(|| format!("{part_at} has an invalid componentType"))?,
            };
            let offset = unsigned(part_value, "byteOffset", &part_at)?.unwrap_or(0);
            let needed = sparse_count
                .checked_mul(size)
                .and_then(|bytes| bytes.checked_add(offset))
                .unwrap_or(u64::MAX);
            if needed > view_length {
                return Err(format!(
                    "{part_at} needs {needed} bytes of bufferView {view}, which has {view_length}"
                ));
            }
        }
    }
    Ok(())
}

const FLOAT: u64 = 5126;
const UNSIGNED_BYTE: u64 = 5121;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;

/// Checks that accessor `index` has one of `types` and one of `components`,
/// as the glTF spec requires for its use (`what`); the gltf crate's readers
/// assume it and panic otherwise.
fn check_accessor_kind(
    root: &Value,
    accessor_index: usize,
    types: &[&str],
    components: &[u64],
    what: &str,
) -> Result<(), String> {
    let accessor = &array(root, "accessors")[accessor_index];
    let kind = accessor.get("type").and_then(Value::as_str).unwrap_or("");
    let component = accessor
        .get("componentType")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if types.contains(&kind) && components.contains(&component) {
        Ok(())
    } else {
        Err(format!(
            "accessors[{accessor_index}] used as {what} is {kind} of component type {component} \
             (expected {types:?} of {components:?})"
        ))
    }
}

/// The accessor types and component types glTF allows for a vertex attribute.
fn attribute_kind(name: &str) -> Option<(&'static [&'static str], &'static [u64])> {
    let base = name.split('_').next().unwrap_or(name);
    match base {
        "POSITION" | "NORMAL" => Some((&["VEC3"], &[FLOAT])),
        "TANGENT" => Some((&["VEC4"], &[FLOAT])),
        "TEXCOORD" => Some((&["VEC2"], &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT])),
        "COLOR" => Some((&["VEC3", "VEC4"], &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT])),
        "JOINTS" => Some((&["VEC4"], &[UNSIGNED_BYTE, UNSIGNED_SHORT])),
        "WEIGHTS" => Some((&["VEC4"], &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT])),
        _ => None,
    }
}

/// Every index and range the bake or the `gltf` crate will follow.
pub(super) fn validate(root: &Value) -> Result<(), String> {
    let [nodes, meshes, skins, accessors, views, materials, textures, images, samplers, cameras, scenes] =
        [
            "nodes",
            "meshes",
            "skins",
            "accessors",
            "bufferViews",
            "materials",
            "textures",
            "images",
            "samplers",
            "cameras",
            "scenes",
        ]
        .map(|key| count(root, key));
    index(root, "scene", scenes, "scenes", "scene")?;
    for (scene_index, scene) in array(root, "scenes").iter().enumerate() {
        for (slot, node) in array(scene, "nodes").iter().enumerate() {
            check_index(
                node,
                nodes,
                "nodes",
                &format!("scenes[{scene_index}].nodes[{slot}]"),
            )?;
        }
    }
    for (node_index, node) in array(root, "nodes").iter().enumerate() {
        let at = format!("nodes[{node_index}]");
        index(node, "mesh", meshes, "meshes", &at)?;
        index(node, "skin", skins, "skins", &at)?;
        index(node, "camera", cameras, "cameras", &at)?;
    }
    let parent = check_forest(root)?;
    check_scene_roots(root, &parent)?;
    for (skin_index, skin) in array(root, "skins").iter().enumerate() {
        let at = format!("skins[{skin_index}]");
        for (slot, joint) in array(skin, "joints").iter().enumerate() {
            check_index(joint, nodes, "nodes", &format!("{at}.joints[{slot}]"))?;
        }
        index(skin, "skeleton", nodes, "nodes", &at)?;
        if let Some(matrices) = index(skin, "inverseBindMatrices", accessors, "accessors", &at)? {
            check_accessor_kind(root, matrices, &["MAT4"], &[FLOAT], "inverse bind matrices")?;
        }
    }
    for (mesh_index, mesh) in array(root, "meshes").iter().enumerate() {
        for (primitive_index, primitive) in array(mesh, "primitives").iter().enumerate() {
            let at = format!("meshes[{mesh_index}].primitives[{primitive_index}]");
            let attribute_sets = std::iter::once(primitive.get("attributes"))
                .chain(array(primitive, "targets").iter().map(Some))
                .flatten();
            for attributes in attribute_sets {
                for (name, accessor) in attributes.as_object().into_iter().flatten() {
                    let accessor = check_index(
                        accessor,
                        accessors,
                        "accessors",
                        &format!("{at}.attributes.{name}"),
                    )?;
                    if let Some((types, components)) = attribute_kind(name) {
                        check_accessor_kind(root, accessor, types, components, name)?;
                    }
                }
            }
            if let Some(indices) = index(primitive, "indices", accessors, "accessors", &at)? {
                check_accessor_kind(
                    root,
                    indices,
                    &["SCALAR"],
                    &[UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT],
                    "indices",
                )?;
            }
            index(primitive, "material", materials, "materials", &at)?;
        }
    }
    for (material_index, material) in array(root, "materials").iter().enumerate() {
        let at = format!("materials[{material_index}]");
        let pbr = material.get("pbrMetallicRoughness");
        let infos = [
            pbr.and_then(|pbr| pbr.get("baseColorTexture")),
            pbr.and_then(|pbr| pbr.get("metallicRoughnessTexture")),
            material.get("normalTexture"),
            material.get("occlusionTexture"),
            material.get("emissiveTexture"),
        ];
        for info in infos.into_iter().flatten() {
            index(info, "index", textures, "textures", &at)?
                .ok_or_else(|| format!("{at}: texture reference without index"))?;
        }
    }
    for (texture_index, texture) in array(root, "textures").iter().enumerate() {
        let at = format!("textures[{texture_index}]");
        index(texture, "source", images, "images", &at)?;
        index(texture, "sampler", samplers, "samplers", &at)?;
    }
    for (image_index, image) in array(root, "images").iter().enumerate() {
        let at = format!("images[{image_index}]");
        match (
            image.get("uri"),
            index(image, "bufferView", views, "bufferViews", &at)?,
        ) {
            (Some(uri), None) if uri.is_string() => {}
            (None, Some(view)) => {
                view_range(root, view)?;
                if !image.get("mimeType").is_some_and(Value::is_string) {
                    return Err(format!("{at}: an image in a bufferView needs a mimeType"));
                }
            }
            _ => return Err(format!("{at}: needs exactly one of uri and bufferView")),
        }
    }
    for (animation_index, animation) in array(root, "animations").iter().enumerate() {
        let at = format!("animations[{animation_index}]");
        let animation_samplers = array(animation, "samplers");
        for (slot, sampler) in animation_samplers.iter().enumerate() {
            let sampler_at = format!("{at}.samplers[{slot}]");
            for key in ["input", "output"] {
                index(sampler, key, accessors, "accessors", &sampler_at)?
                    .ok_or_else(|| format!("{sampler_at} has no {key}"))?;
            }
            let input = unsigned(sampler, "input", &sampler_at)?.unwrap_or(0) as usize;
            check_accessor_kind(root, input, &["SCALAR"], &[FLOAT], "key times")?;
        }
        for (slot, channel) in array(animation, "channels").iter().enumerate() {
            let channel_at = format!("{at}.channels[{slot}]");
            index(
                channel,
                "sampler",
                animation_samplers.len(),
                "samplers in this animation",
                &channel_at,
            )?
            .ok_or_else(|| format!("{channel_at} has no sampler"))?;
            let target = channel
                .get("target")
                .ok_or_else(|| format!("{channel_at} has no target"))?;
            index(
                target,
                "node",
                nodes,
                "nodes",
                &format!("{channel_at}.target"),
            )?
            .ok_or_else(|| format!("{channel_at}.target has no node"))?;
            let sampler = unsigned(channel, "sampler", &channel_at)?.unwrap_or(0) as usize;
            let output = unsigned(&animation_samplers[sampler], "output", &channel_at)?.unwrap_or(0)
                as usize;
            let path = target.get("path").and_then(Value::as_str).unwrap_or("");
            let normalized_or_float = [FLOAT, 5120, UNSIGNED_BYTE, 5122, UNSIGNED_SHORT];
            let (types, components): (&[&str], &[u64]) = match path {
                "translation" | "scale" => (&["VEC3"], &[FLOAT]),
                "rotation" => (&["VEC4"], &normalized_or_float),
                _ => (&["SCALAR"], &normalized_or_float),
            };
            check_accessor_kind(root, output, types, components, &format!("{path} keys"))?;
        }
    }
    for view in 0..views {
        view_range(root, view)?;
    }
    for accessor in 0..accessors {
        check_accessor(root, accessor)?;
    }
    Ok(())
}

/// Extensions whose absence makes no difference to what the bake reads.
const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] = &["KHR_materials_emissive_strength"];

pub(super) fn check_required_extensions(root: &Value) -> Result<(), String> {
    let unsupported: Vec<&str> = array(root, "extensionsRequired")
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !SUPPORTED_REQUIRED_EXTENSIONS.contains(name))
        .collect();
    if unsupported.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "unsupported required extension(s): {}",
            unsupported.join(", ")
        ))
    }
}
