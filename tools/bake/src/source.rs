//! Reading a glTF file that may be hostile: nothing in it is trusted until it
//! has been checked here, before the `gltf` crate sees it.
//!
//! - Files: only regular files are read (a FIFO would block, `/dev/zero` would
//!   never end), each at most [`MAX_INPUT_BYTES`], and never more bytes than
//!   the size checked beforehand.
//! - GLB: the header, its declared length and every chunk are checked against
//!   the real length; a short file says "truncated" with both lengths.
//! - URIs: `data:` is decoded; a relative path must resolve (after
//!   percent-decoding and following links) inside the glTF's own folder; any
//!   other scheme, `file:` included, is "unsupported URI scheme"; absolute paths
//!   and `..` escapes are "outside the glTF's folder". A referenced buffer file
//!   must hold at least `byteLength` bytes, and only `byteLength` are read.
//! - The JSON: every index is checked against its array (nodes, meshes, skins,
//!   accessors, buffer views, buffers, materials, textures, images, samplers,
//!   animation channels and their target nodes), the node graph must be a
//!   forest (no node listed as a child twice, no cycle), every buffer view must
//!   lie inside its buffer and every accessor inside its view.
//!
//! Error messages name the file and the problem, never the bytes of a file.

use crate::BakeError;
use serde_json::Value;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

/// Largest input file (glTF, GLB, buffer or image) the bake reads.
pub const MAX_INPUT_BYTES: u64 = 512 << 20;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const GLB_HEADER: usize = 12;
const CHUNK_HEADER: usize = 8;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// A glTF file after every check: the document, its buffers and its images.
pub struct Loaded {
    /// The validated document.
    pub document: gltf::Document,
    /// Buffer contents, each at least its `byteLength`.
    pub buffers: Vec<gltf::buffer::Data>,
    /// Decoded images.
    pub images: Vec<gltf::image::Data>,
}

fn error(path: &Path, message: impl Into<String>) -> BakeError {
    BakeError::Input {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Reads the first `limit` bytes of a regular file, refusing anything else
/// before reading, and refusing to read more than [`MAX_INPUT_BYTES`].
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, BakeError> {
    let metadata =
        std::fs::metadata(path).map_err(|io| error(path, format!("cannot read file: {io}")))?;
    if !metadata.is_file() {
        return Err(error(
            path,
            "not a regular file (FIFOs, devices and directories are refused)",
        ));
    }
    let wanted = metadata.len().min(limit);
    if wanted > MAX_INPUT_BYTES {
        return Err(error(
            path,
            format!("{wanted} bytes to read exceed the {MAX_INPUT_BYTES}-byte input limit"),
        ));
    }
    let file =
        std::fs::File::open(path).map_err(|io| error(path, format!("cannot read file: {io}")))?;
    let mut bytes = Vec::with_capacity(wanted as usize);
    file.take(wanted)
        .read_to_end(&mut bytes)
        .map_err(|io| error(path, format!("cannot read file: {io}")))?;
    Ok(bytes)
}

/// The JSON and the binary chunk of a GLB, or the whole file for JSON glTF.
fn split_glb<'a>(path: &Path, bytes: &'a [u8]) -> Result<(&'a [u8], Option<&'a [u8]>), BakeError> {
    if !bytes.starts_with(GLB_MAGIC) {
        return Ok((bytes, None));
    }
    let truncated = |what: &str, expected: usize| {
        error(
            path,
            format!(
                "truncated GLB: {what} needs {expected} bytes, the file has {}",
                bytes.len()
            ),
        )
    };
    if bytes.len() < GLB_HEADER {
        return Err(truncated("the header", GLB_HEADER));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if word(4) != 2 {
        return Err(error(
            path,
            format!("GLB container version {} (only 2 is supported)", word(4)),
        ));
    }
    let declared = word(8) as usize;
    if declared > bytes.len() {
        return Err(truncated("the header's declared length", declared));
    }
    let content = &bytes[..declared];
    let mut chunks = Vec::new();
    let mut offset = GLB_HEADER;
    while offset < content.len() {
        if offset + CHUNK_HEADER > content.len() {
            return Err(truncated(
                &format!("chunk {} header", chunks.len()),
                offset + CHUNK_HEADER,
            ));
        }
        let length = word(offset) as usize;
        let kind = word(offset + 4);
        let start = offset + CHUNK_HEADER;
        let end = start
            .checked_add(length)
            .filter(|&end| end <= content.len())
            .ok_or_else(|| {
                truncated(
                    &format!("chunk {}", chunks.len()),
                    start.saturating_add(length),
                )
            })?;
        chunks.push((kind, &content[start..end]));
        offset = end;
    }
    match chunks.as_slice() {
        [(CHUNK_JSON, json), rest @ ..] => {
            let bin = rest
                .iter()
                .find(|(kind, _)| *kind == CHUNK_BIN)
                .map(|(_, data)| *data);
            Ok((json, bin))
        }
        _ => Err(error(path, "GLB without a JSON chunk first")),
    }
}

/// What a buffer or image URI refers to.
enum UriTarget {
    /// An embedded `data:` URI.
    Data,
    /// A file inside the glTF's folder.
    File(PathBuf),
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Checks a URI of the glTF at `gltf_path` and resolves a relative one to a
/// file inside the glTF's folder.
fn resolve_uri(gltf_path: &Path, uri: &str) -> Result<UriTarget, String> {
    if uri.starts_with("data:") {
        return Ok(UriTarget::Data);
    }
    let scheme_end = uri.find(':').filter(|&end| {
        end > 0
            && uri[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if let Some(end) = scheme_end {
        // One letter is a Windows drive ("C:\..."), an absolute path.
        if end > 1 {
            return Err(format!("unsupported URI scheme {:?}", &uri[..end]));
        }
    }
    let decoded =
        percent_decode(uri).ok_or_else(|| "malformed percent-encoding in URI".to_owned())?;
    let relative = Path::new(&decoded);
    let escapes = relative
        .components()
        .any(|component| !matches!(component, Component::Normal(_) | Component::CurDir));
    if escapes || scheme_end.is_some() || decoded.starts_with('\\') || decoded.contains('\0') {
        return Err("URI points outside the glTF's folder".to_owned());
    }
    let folder = gltf_path.parent().unwrap_or(Path::new("."));
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let target = folder.join(relative);
    let canonical_folder = folder
        .canonicalize()
        .map_err(|io| format!("cannot resolve the glTF's folder: {io}"))?;
    let canonical = target.canonicalize().map_err(|_| {
        format!(
            "refers to missing file {:?}",
            relative.display().to_string()
        )
    })?;
    if !canonical.starts_with(&canonical_folder) {
        return Err("URI points outside the glTF's folder (through a link)".to_owned());
    }
    Ok(UriTarget::File(canonical))
}

fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn count(root: &Value, key: &str) -> usize {
    array(root, key).len()
}

/// An optional unsigned integer field; an error if present and not one.
fn unsigned(value: &Value, key: &str, at: &str) -> Result<Option<u64>, String> {
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
fn check_forest(root: &Value) -> Result<(), String> {
    let nodes = array(root, "nodes");
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (node_index, node) in nodes.iter().enumerate() {
        for (slot, child) in array(node, "children").iter().enumerate() {
            let at = format!("nodes[{node_index}].children[{slot}]");
            let child = check_index(child, nodes.len(), "nodes", &at)?;
            if child == node_index {
                return Err(format!(
                    "node {node_index} lists itself as a child (a cycle)"
                ));
            }
            if let Some(first) = parent[child] {
                return Err(format!(
                    "node {child} has two parents (nodes {first} and {node_index}); glTF nodes form a forest"
                ));
            }
            parent[child] = Some(node_index);
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
            current = parent[node];
        }
        path.iter().for_each(|&node| reaches_root[node] = true);
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
fn validate(root: &Value) -> Result<(), String> {
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
    check_forest(root)?;
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

fn check_required_extensions(root: &Value) -> Result<(), String> {
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

/// A glTF file's JSON bytes, parsed JSON and GLB binary chunk.
struct RawGltf {
    json: Vec<u8>,
    root: Value,
    bin: Option<Vec<u8>>,
}

/// Reads and checks the file's JSON, returning it with its GLB binary chunk.
fn checked_json(path: &Path) -> Result<RawGltf, BakeError> {
    let bytes = read_regular_file(path, u64::MAX)?;
    let (json, bin) = split_glb(path, &bytes)?;
    let root: Value = serde_json::from_slice(json)
        .map_err(|parse| error(path, format!("not a glTF 2.0 file: invalid JSON ({parse})")))?;
    if !root.is_object() {
        return Err(error(
            path,
            "not a glTF 2.0 file: the JSON is not an object",
        ));
    }
    Ok(RawGltf {
        json: json.to_vec(),
        root,
        bin: bin.map(<[u8]>::to_vec),
    })
}

/// The files a glTF reads, each with the number of leading bytes the bake
/// reads from it: the glTF itself and the files its buffers (`byteLength`
/// bytes) and images name. The cache hashes exactly these bytes.
pub fn input_files(path: &Path) -> Result<Vec<(PathBuf, u64)>, BakeError> {
    let root = checked_json(path)?.root;
    let mut files = vec![(path.to_path_buf(), u64::MAX)];
    for key in ["buffers", "images"] {
        for (item, value) in array(&root, key).iter().enumerate() {
            if let Some(uri) = value.get("uri").and_then(Value::as_str) {
                match resolve_uri(path, uri) {
                    Ok(UriTarget::File(file)) => {
                        let read = match key {
                            "buffers" => unsigned(value, "byteLength", key)
                                .map_err(|message| error(path, message))?
                                .unwrap_or(0),
                            _ => u64::MAX,
                        };
                        files.push((file, read));
                    }
                    Ok(UriTarget::Data) => {}
                    Err(message) => return Err(error(path, format!("{key}[{item}]: {message}"))),
                }
            }
        }
    }
    Ok(files)
}

/// Loads a glTF or GLB file after every check in the module doc.
pub fn load(path: &Path) -> Result<Loaded, BakeError> {
    let RawGltf {
        json,
        root,
        mut bin,
    } = checked_json(path)?;
    check_required_extensions(&root).map_err(|message| error(path, message))?;
    validate(&root).map_err(|message| error(path, message))?;
    let document = gltf::json::Root::from_slice(&json)
        .map_err(|parse| error(path, format!("not a glTF 2.0 file: {parse}")))
        .and_then(|json| {
            gltf::Document::from_json(json)
                .map_err(|invalid| error(path, format!("invalid glTF: {invalid}")))
        })?;
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let at = format!("buffers[{}]", buffer.index());
        let length = buffer.length();
        let mut data = match buffer.source() {
            gltf::buffer::Source::Bin => bin.take().ok_or_else(|| {
                error(
                    path,
                    format!("{at}: refers to a GLB binary chunk the file lacks"),
                )
            })?,
            gltf::buffer::Source::Uri(uri) => match resolve_uri(path, uri)
                .map_err(|message| error(path, format!("{at}: {message}")))?
            {
                UriTarget::Data => {
                    gltf::buffer::Data::from_source(buffer.source(), None)
                        .map_err(|decode| error(path, format!("{at}: bad data URI: {decode}")))?
                        .0
                }
                UriTarget::File(file) => {
                    let size = std::fs::metadata(&file).map_or(0, |metadata| metadata.len());
                    if size < length as u64 {
                        return Err(error(
                            path,
                            format!("{at}: file holds {size} bytes, byteLength says {length}"),
                        ));
                    }
                    read_regular_file(&file, length as u64)?
                }
            },
        };
        if data.len() < length {
            return Err(error(
                path,
                format!("{at}: holds {} bytes, byteLength says {length}", data.len()),
            ));
        }
        data.truncate(length);
        buffers.push(gltf::buffer::Data(data));
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut images = Vec::new();
    for image in document.images() {
        let at = format!("images[{}]", image.index());
        let decoded = match image.source() {
            gltf::image::Source::Uri { uri, .. } => match resolve_uri(path, uri)
                .map_err(|message| error(path, format!("{at}: {message}")))?
            {
                UriTarget::Data => {
                    gltf::image::Data::from_source(image.source(), Some(folder), &buffers)
                        .map_err(|decode| error(path, format!("{at}: {decode}")))?
                }
                UriTarget::File(file) => {
                    let bytes = read_regular_file(&file, u64::MAX)?;
                    let rgba = image::load_from_memory(&bytes)
                        .map_err(|decode| error(&file, format!("cannot decode image: {decode}")))?
                        .to_rgba8();
                    gltf::image::Data {
                        width: rgba.width(),
                        height: rgba.height(),
                        format: gltf::image::Format::R8G8B8A8,
                        pixels: rgba.into_raw(),
                    }
                }
            },
            gltf::image::Source::View { .. } => {
                gltf::image::Data::from_source(image.source(), Some(folder), &buffers)
                    .map_err(|decode| error(path, format!("{at}: {decode}")))?
            }
        };
        images.push(decoded);
    }
    Ok(Loaded {
        document,
        buffers,
        images,
    })
}
