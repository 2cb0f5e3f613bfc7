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
//!   forest (no node listed as a child twice, no cycle, no scene listing a
//!   child as a root), every buffer view must lie inside its buffer and every
//!   accessor inside its view.
//!
//! Error messages name the file and the problem, never the bytes of a file.
//!
//! `source/json.rs` holds the checks of the JSON.

use crate::BakeError;
use serde_json::Value;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

mod json;
use json::{array, check_required_extensions, unsigned, validate};

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
