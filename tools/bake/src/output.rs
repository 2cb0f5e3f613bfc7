//! Output files that never damage anything: every file a horde tool writes
//! (`bake -o`, `gen`, the viewer's `--screenshot` and `--report`, the contact
//! sheet, the bake cache) goes through [`OutputPath`].
//!
//! ```no_run
//! # fn main() -> Result<(), horde_bake::output::OutputError> {
//! use horde_bake::output::OutputPath;
//! // Before the work starts: refuse what cannot or must not be written.
//! let report = OutputPath::check("out/report.json")?;
//! let screenshot = OutputPath::check_image("out/frame.png")?;
//! // ... the work ...
//! report.write(b"{}")?;
//! # let image = image::RgbaImage::new(1, 1);
//! screenshot.write_image(&image)?;
//! # Ok(())
//! # }
//! ```
//!
//! What [`OutputPath::check`] decides, before any work is done:
//! - A symbolic link is followed to its final target (a dangling link names
//!   the file to create); the link itself stays and the target is replaced.
//! - A path that exists and is not a regular file (`/dev/null`, a FIFO, a
//!   socket, a directory) is refused: the atomic rename would replace it.
//! - An existing file the user cannot open for writing is refused, even where
//!   the folder would let a rename replace it.
//! - Missing folders are created (as `mkdir -p`), for every output alike, and
//!   the folder must let the user create a file in it (a probe is created and
//!   removed).
//! - Image outputs ([`OutputPath::check_image`]) must end in `.png`, `.jpg` or
//!   `.jpeg`; the bytes written are in the format the extension names.
//!
//! How [`OutputPath::write`] writes: the bytes go to a temporary file in the
//! target's folder, named `.NAME.PID.SEQ.horde-tmp`, which is flushed,
//! `fsync`ed and renamed over the target, so a reader sees the old file or
//! the whole new one, never a part. Temporary files never outlive the write:
//! - on an error (a full disk, say) the temporary file is removed;
//! - on SIGINT or SIGTERM a handler thread removes every live temporary file,
//!   then the process ends as the signal's default action would end it;
//! - a process killed outright (SIGKILL, power loss) leaves its temporary
//!   file, and the next write into that folder removes every `*.horde-tmp`
//!   file whose process is no longer alive.
//!
//! Errors name the path the user gave, never the temporary one.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

/// The suffix of every temporary file; see the module doc.
pub const TEMP_SUFFIX: &str = ".horde-tmp";

/// Links followed before a path is refused as a loop.
const MAX_LINKS: usize = 40;

/// Why an output cannot be written. Both variants name the user's path.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path must not or cannot be written; nothing was touched.
    #[error("{path}: {reason}")]
    Refused {
        /// The path as the user gave it.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// Writing failed; the target is unchanged and no temporary file is left.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path as the user gave it.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

/// A checked output path: see the module doc for what was checked and how
/// it is written.
#[derive(Clone, Debug)]
pub struct OutputPath {
    /// As the user gave it, for messages.
    given: PathBuf,
    /// The file that is replaced: `given` with every symbolic link followed.
    target: PathBuf,
}

impl OutputPath {
    /// Checks that `path` can be written without damaging anything, creating
    /// its missing folders.
    pub fn check(path: impl AsRef<Path>) -> Result<OutputPath, OutputError> {
        let given = path.as_ref().to_path_buf();
        let refuse = |reason: String| OutputError::Refused {
            path: given.clone(),
            reason,
        };
        let io_error = |source| OutputError::Io {
            path: given.clone(),
            source,
        };
        let (target, existing) = follow_links(&given).map_err(|error| match error {
            LinkError::Loop => refuse(format!("more than {MAX_LINKS} symbolic links")),
            LinkError::Io(source) => io_error(source),
        })?;
        if target.file_name().is_none() {
            return Err(refuse("not a file path".to_owned()));
        }
        if let Some(metadata) = existing {
            if !metadata.is_file() {
                return Err(refuse(format!(
                    "exists and is {}; only a regular file is replaced",
                    file_kind(&metadata)
                )));
            }
            if let Err(source) = File::options().write(true).open(&target) {
                return Err(refuse(format!(
                    "exists and cannot be opened for writing ({source}); it is not replaced"
                )));
            }
        }
        let folder = folder_of(&target);
        std::fs::create_dir_all(&folder).map_err(|source| {
            refuse(format!(
                "cannot create the folder {}: {source}",
                folder.display()
            ))
        })?;
        let output = OutputPath {
            given: given.clone(),
            target,
        };
        let probe = output.create_temp().map_err(|error| match error {
            OutputError::Io { source, .. } => refuse(format!(
                "cannot create a file in the folder {}: {source}",
                folder.display()
            )),
            refused => refused,
        })?;
        drop(probe);
        Ok(output)
    }

    /// [`OutputPath::check`] for an image: the extension must name a format
    /// [`OutputPath::write_image`] writes.
    pub fn check_image(path: impl AsRef<Path>) -> Result<OutputPath, OutputError> {
        image_format(path.as_ref())?;
        OutputPath::check(path)
    }

    /// The path as the user gave it.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// Writes `bytes` atomically.
    pub fn write(&self, bytes: &[u8]) -> Result<(), OutputError> {
        self.write_with(|writer| writer.write_all(bytes))
    }

    /// Writes what `fill` writes, atomically; an error from `fill` leaves the
    /// target unchanged.
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> Result<(), OutputError> {
        let io_error = |source| OutputError::Io {
            path: self.given.clone(),
            source,
        };
        remove_stale_temps(&folder_of(&self.target));
        let temp = self.create_temp()?;
        let file = File::options()
            .write(true)
            .open(&temp.path)
            .map_err(io_error)?;
        let mut writer = BufWriter::new(file);
        fill(&mut writer).map_err(io_error)?;
        let file = writer
            .into_inner()
            .map_err(|error| io_error(error.into_error()))?;
        file.sync_all().map_err(io_error)?;
        drop(file);
        temp.publish(&self.target).map_err(io_error)?;
        sync_folder(&folder_of(&self.target));
        Ok(())
    }

    /// Writes `image` in the format its extension names (PNG or JPEG; JPEG
    /// drops the alpha channel).
    pub fn write_image(&self, image: &image::RgbaImage) -> Result<(), OutputError> {
        let format = image_format(&self.given)?;
        self.write_with(|writer| {
            let encoded = match format {
                image::ImageFormat::Jpeg => image::DynamicImage::ImageRgba8(image.clone())
                    .into_rgb8()
                    .write_to(writer, format),
                _ => image.write_to(writer, format),
            };
            encoded.map_err(io::Error::other)
        })
    }

    /// Creates an empty, registered temporary file beside the target.
    fn create_temp(&self) -> Result<TempFile, OutputError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let mut name = OsString::from(".");
        name.push(self.target.file_name().unwrap_or_default());
        name.push(format!(
            ".{}.{}{TEMP_SUFFIX}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let path = self.target.with_file_name(name);
        install_signal_cleanup();
        let mut live = live_temps();
        File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| OutputError::Io {
                path: self.given.clone(),
                source,
            })?;
        live.push(path.clone());
        Ok(TempFile { path })
    }
}

impl std::fmt::Display for OutputPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.given.display().fmt(f)
    }
}

/// The image format `path`'s extension names, or a refusal.
fn image_format(path: &Path) -> Result<image::ImageFormat, OutputError> {
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("png") => Ok(image::ImageFormat::Png),
        Some("jpg" | "jpeg") => Ok(image::ImageFormat::Jpeg),
        _ => Err(OutputError::Refused {
            path: path.to_path_buf(),
            reason: "an image must end in .png, .jpg or .jpeg".to_owned(),
        }),
    }
}

/// A temporary file that is removed when dropped, unless published.
struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// Renames the file over `target`. The registry is held meanwhile, so a
    /// signal handler never removes a file that is being renamed.
    fn publish(self, target: &Path) -> io::Result<()> {
        let mut live = live_temps();
        std::fs::rename(&self.path, target)?;
        live.retain(|path| *path != self.path);
        drop(live);
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let mut live = live_temps();
        // The file is garbage whether or not it still exists.
        let _ = std::fs::remove_file(&self.path);
        live.retain(|path| *path != self.path);
    }
}

/// Temporary files of this process that exist now.
static LIVE_TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temps() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts, once, the thread that removes live temporary files on SIGINT and
/// SIGTERM and then ends the process as the signal would have.
fn install_signal_cleanup() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
                Ok(signals) => signals,
                Err(error) => {
                    log::warn!("temporary files are not removed on Ctrl-C: {error}");
                    return;
                }
            };
            let spawned = std::thread::Builder::new()
                .name("horde output cleanup".to_owned())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        // Held until the process ends: no rename can follow.
                        let live = live_temps();
                        for path in live.iter() {
                            let _ = std::fs::remove_file(path);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
            if let Err(error) = spawned {
                log::warn!("temporary files are not removed on Ctrl-C: {error}");
            }
        }
    });
}

/// Removes the `*.horde-tmp` files in `folder` whose process has ended.
fn remove_stale_temps(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => log::info!("removed a stale temporary file {}", entry.path().display()),
                Err(error) => log::debug!("{}: {error}", entry.path().display()),
            }
        }
    }
}

/// The process id in a temporary file's name `.NAME.PID.SEQ.horde-tmp`.
fn temp_owner(name: &str) -> Option<u32> {
    let stem = name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let mut parts = stem.rsplitn(3, '.');
    let _sequence: u64 = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next().filter(|file| !file.is_empty())?;
    Some(pid)
}

/// Whether a process with this id runs now. Where that cannot be told, every
/// process is taken as alive, so no file of a running write is removed.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

enum LinkError {
    Loop,
    Io(io::Error),
}

/// `path` with every symbolic link followed, and the metadata of what is
/// there (`None` when nothing is).
fn follow_links(path: &Path) -> Result<(PathBuf, Option<std::fs::Metadata>), LinkError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = std::fs::read_link(&current).map_err(LinkError::Io)?;
                current = folder_of(&current).join(link);
            }
            Ok(metadata) => return Ok((current, Some(metadata))),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok((current, None)),
            Err(error) => return Err(LinkError::Io(error)),
        }
    }
    Err(LinkError::Loop)
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What a file that is not a regular file is, in words.
fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Makes a rename in `folder` durable; best effort, as not every platform or
/// file system can sync a folder.
fn sync_folder(folder: &Path) {
    if cfg!(unix) {
        if let Ok(handle) = File::open(folder) {
            let _ = handle.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::temp_owner;

    #[test]
    fn temporary_names_give_their_process() {
        assert_eq!(temp_owner(".out.png.1234.0.horde-tmp"), Some(1234));
        assert_eq!(temp_owner(".a.b.c.json.77.12.horde-tmp"), Some(77));
        assert_eq!(temp_owner("out.png.1234.0.horde-tmp"), None);
        assert_eq!(temp_owner(".1234.0.horde-tmp"), None);
        assert_eq!(temp_owner(".out.png.x.0.horde-tmp"), None);
        assert_eq!(temp_owner(".out.png.1234.0.tmp"), None);
    }
}
