//! The baked-asset cache: tools load `.horde` files, and a glTF given to a tool
//! is baked on first use and kept here.
//!
//! - Key: SHA-256 over the cache layout version, the `.horde` format version,
//!   this crate's version, the bake's recipe version, the asset kind, the resolved asset name, the bake
//!   options (their `Debug` text, which names every field), and the content of
//!   every input file: the glTF, the files its buffers and images refer to, and
//!   the animation libraries with theirs. Paths and timestamps play no part, so
//!   a moved or touched file still hits, and any changed byte misses.
//! - Location: `HORDE_CACHE_DIR`, else `$XDG_CACHE_HOME/horde`, else
//!   `~/.cache/horde`, else `target/horde-cache` in the checkout this crate was
//!   built in; [`CacheOptions::dir`] overrides all of them.
//! - Entries are written through [`OutputPath`] (a uniquely named temporary
//!   file in the cache directory, renamed into place), so concurrent bakes of
//!   one entry each publish a complete file and a reader never sees half of one.
//! - An entry that cannot be read or fails the `.horde` reader's checks is
//!   rebaked (with a warning) and replaced. A failure to write an entry is a
//!   warning too: the caller still gets its asset.
//! - A `.horde` file given to a tool is read as it is, never cached.

use crate::options::asset_name;
use crate::output::OutputPath;
use crate::{bake_prop, bake_unit, BakeError, BakeOptions};
use horde_asset::{Asset, AssetKind};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bumped when the key's recipe changes, so old entries are never misread.
const CACHE_LAYOUT: u32 = 1;
/// Bumped when the bake makes something else of the same input and options
/// (2: the coarsest LOD of a unit is fitted to its silhouette; 3: units get
/// an animated impostor with conservative coverage; 4: a coarse proxy of
/// fewer boxes follows the box-per-bone one, and meshopt's LODs are
/// inflated to the source's silhouette; 5: props get a slab proxy after
/// their coarsest LOD, and their meshopt LODs are inflated too; 6: a LOD's
/// error bound follows its ratio, and a LOD its next one nearly matches is
/// dropped; 7: a unit's LOD the far field may draw fits its mid-size
/// pipeline; 8: raster-only LODs), so entries of an older bake are rebaked
/// rather than served.
const BAKE_RECIPE: u32 = 8;

/// Whether and where to cache.
#[derive(Clone, Debug)]
pub struct CacheOptions {
    /// `false` bakes every time and writes nothing (`--no-cache`).
    pub enabled: bool,
    /// Cache directory; the default location when `None`.
    pub dir: Option<PathBuf>,
}

impl Default for CacheOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            dir: None,
        }
    }
}

/// Where a loaded asset came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Baked now (and written to the cache if it is enabled).
    Baked,
    /// An entry existed but could not be used (the reason); baked again and
    /// the entry replaced.
    Rebaked(String),
    /// Read from a cache entry.
    Cached,
    /// The input was a `.horde` file, read as it is.
    Read,
}

/// An asset and how it was obtained.
#[derive(Debug)]
pub struct Loaded {
    /// The asset.
    pub asset: Asset,
    /// Baked, cached or read.
    pub outcome: CacheOutcome,
    /// The cache entry it was read from or written to (`None` without a cache).
    pub entry: Option<PathBuf>,
}

/// The cache directory `options` selects.
pub fn cache_dir(options: &CacheOptions) -> PathBuf {
    if let Some(dir) = &options.dir {
        return dir.clone();
    }
    let from_env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = from_env("HORDE_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = from_env("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("horde");
    }
    if let Some(home) = from_env("HOME") {
        return PathBuf::from(home).join(".cache/horde");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/horde-cache")
}

/// Loads a unit: a `.horde` file as it is, a glTF through the cache.
pub fn load_unit(
    path: &Path,
    libraries: &[&Path],
    options: &BakeOptions,
    cache: &CacheOptions,
) -> Result<Loaded, BakeError> {
    load(AssetKind::Unit, path, libraries, options, cache)
}

/// Loads a prop: a `.horde` file as it is, a glTF through the cache.
pub fn load_prop(
    path: &Path,
    options: &BakeOptions,
    cache: &CacheOptions,
) -> Result<Loaded, BakeError> {
    load(AssetKind::Prop, path, &[], options, cache)
}

fn is_horde_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("horde"))
}

fn load(
    kind: AssetKind,
    path: &Path,
    libraries: &[&Path],
    options: &BakeOptions,
    cache: &CacheOptions,
) -> Result<Loaded, BakeError> {
    if is_horde_file(path) {
        let asset = horde_asset::read_file(path)?;
        if asset.kind != kind {
            return Err(BakeError::Input {
                path: path.display().to_string(),
                message: format!("a {:?} asset where a {kind:?} was expected", asset.kind),
            });
        }
        return Ok(Loaded {
            asset,
            outcome: CacheOutcome::Read,
            entry: None,
        });
    }
    let bake = || -> Result<Asset, BakeError> {
        log::info!("baking {}", path.display());
        let baked = match kind {
            AssetKind::Unit => bake_unit(path, libraries, options, &|_| {})?,
            AssetKind::Prop => bake_prop(path, options, &|_| {})?,
        };
        Ok(baked.asset)
    };
    if !cache.enabled {
        return Ok(Loaded {
            asset: bake()?,
            outcome: CacheOutcome::Baked,
            entry: None,
        });
    }
    let key = entry_key(kind, path, libraries, options)?;
    let stem = asset_name(options, path)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(48)
        .collect::<String>();
    let entry = cache_dir(cache).join(format!("{stem}-{key}.horde"));
    let unusable = match horde_asset::read_file(&entry) {
        Ok(asset) if asset.kind == kind => {
            log::info!("cached {} ({})", path.display(), entry.display());
            return Ok(Loaded {
                asset,
                outcome: CacheOutcome::Cached,
                entry: Some(entry),
            });
        }
        Ok(_) => Some(format!(
            "{}: holds a {kind:?} of another kind",
            entry.display()
        )),
        Err(horde_asset::AssetError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            None
        }
        Err(error) => Some(error.to_string()),
    };
    if let Some(reason) = &unusable {
        log::warn!("unusable cache entry, rebaking: {reason}");
    }
    let asset = bake()?;
    let written = horde_asset::write(&asset)
        .map_err(|error| error.to_string())
        .and_then(|bytes| {
            OutputPath::check(&entry)
                .and_then(|output| output.write(&bytes))
                .map_err(|error| error.to_string())
        });
    if let Err(error) = written {
        log::warn!("cannot write cache entry {}: {error}", entry.display());
    }
    Ok(Loaded {
        asset,
        outcome: unusable.map_or(CacheOutcome::Baked, CacheOutcome::Rebaked),
        entry: Some(entry),
    })
}

/// The hex SHA-256 key of one bake (see the module doc for what it covers).
pub fn entry_key(
    kind: AssetKind,
    path: &Path,
    libraries: &[&Path],
    options: &BakeOptions,
) -> Result<String, BakeError> {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(&CACHE_LAYOUT.to_le_bytes());
    field(&horde_asset::VERSION.to_le_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(&BAKE_RECIPE.to_le_bytes());
    field(format!("{kind:?}").as_bytes());
    field(asset_name(options, path).as_bytes());
    field(format!("{options:?}").as_bytes());
    for input in std::iter::once(path).chain(libraries.iter().copied()) {
        for (file, length) in crate::source::input_files(input)? {
            field(&crate::source::read_regular_file(&file, length)?);
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}
