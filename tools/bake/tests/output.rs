//! "Outputs never damage anything": what `horde_bake::output` refuses, how it
//! follows links, and that no temporary file outlives a write, whether the
//! write fails, the process is interrupted or an earlier run was killed.

mod support;

use horde_bake::output::{OutputError, OutputPath, TEMP_SUFFIX};
use std::io::Write as _;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::temp_dir;

/// The temporary files in `dir`.
fn temps(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("list")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.to_string_lossy().ends_with(TEMP_SUFFIX))
        .collect()
}

/// The refusal of `path`, checked to name it.
fn refusal(path: &Path) -> String {
    let error = OutputPath::check(path).expect_err("refused").to_string();
    assert!(
        error.contains(&path.display().to_string()),
        "the error does not name {}: {error}",
        path.display()
    );
    error
}

#[test]
fn a_device_is_refused_and_left_alone() {
    let error = refusal(Path::new("/dev/null"));
    assert!(error.contains("character device"), "{error}");
    let metadata = std::fs::metadata("/dev/null").expect("/dev/null");
    assert!(metadata.file_type().is_char_device());
}

#[test]
fn a_fifo_and_a_directory_are_refused() {
    let dir = temp_dir("output-fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    assert!(refusal(&fifo).contains("FIFO"));
    assert!(std::fs::symlink_metadata(&fifo)
        .expect("fifo")
        .file_type()
        .is_fifo());
    assert!(refusal(&dir).contains("directory"));
    assert!(temps(&dir).is_empty());
}

#[test]
fn a_link_is_followed_and_kept() {
    let dir = temp_dir("output-link");
    let real = dir.join("real.json");
    std::fs::write(&real, b"old").expect("write");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink("real.json", &link).expect("symlink");
    OutputPath::check(&link)
        .expect("check")
        .write(b"new")
        .expect("write");
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&real).expect("read"), b"new");

    // A dangling link names the file to create; a link to a device is refused.
    let dangling = dir.join("dangling.json");
    std::os::unix::fs::symlink("created.json", &dangling).expect("symlink");
    OutputPath::check(&dangling)
        .expect("check")
        .write(b"made")
        .expect("write");
    assert_eq!(
        std::fs::read(dir.join("created.json")).expect("read"),
        b"made"
    );
    let to_null = dir.join("null.png");
    std::os::unix::fs::symlink("/dev/null", &to_null).expect("symlink");
    assert!(refusal(&to_null).contains("character device"));
    assert!(temps(&dir).is_empty());
}

#[test]
fn a_file_the_user_cannot_write_is_not_replaced() {
    let dir = temp_dir("output-readonly");
    let file = dir.join("locked.json");
    std::fs::write(&file, b"keep").expect("write");
    let mut permissions = std::fs::metadata(&file).expect("stat").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&file, permissions).expect("chmod");
    // Root may write any file, so the refusal only shows for other users.
    if std::fs::File::options().write(true).open(&file).is_err() {
        assert!(refusal(&file).contains("cannot be opened for writing"));
        assert_eq!(std::fs::read(&file).expect("read"), b"keep");
    }
}

#[test]
fn missing_folders_are_created_for_every_output() {
    let dir = temp_dir("output-folders");
    let report = dir.join("a/b/report.json");
    let image = dir.join("c/d/shot.png");
    OutputPath::check(&report).expect("report");
    OutputPath::check_image(&image).expect("image");
    assert!(dir.join("a/b").is_dir() && dir.join("c/d").is_dir());
    // A file where a folder should be is refused before any work.
    std::fs::write(dir.join("file"), b"").expect("write");
    let under_file = dir.join("file/report.json");
    assert!(refusal(&under_file).contains("Not a directory"));
}

#[test]
fn images_are_written_in_the_format_their_extension_names() {
    let dir = temp_dir("output-images");
    let image = image::RgbaImage::from_pixel(4, 3, image::Rgba([200, 100, 50, 255]));
    for (name, magic) in [
        ("shot.png", &b"\x89PNG"[..]),
        ("shot.JPG", &b"\xff\xd8\xff"[..]),
        ("shot.jpeg", &b"\xff\xd8\xff"[..]),
    ] {
        let path = dir.join(name);
        OutputPath::check_image(&path)
            .expect("check")
            .write_image(&image)
            .expect("write");
        let bytes = std::fs::read(&path).expect("read");
        assert!(bytes.starts_with(magic), "{name} is not in its format");
        let decoded = image::open(&path).expect("decode");
        assert_eq!((decoded.width(), decoded.height()), (4, 3));
    }
    for name in ["shot.bmp", "shot", "shot.png.tmp"] {
        let path = dir.join(name);
        let error = OutputPath::check_image(&path)
            .expect_err("refused")
            .to_string();
        assert!(error.contains(".png, .jpg or .jpeg"), "{error}");
        assert!(!path.exists());
    }
}

#[test]
fn a_failed_write_leaves_the_target_and_no_temporary_file() {
    let dir = temp_dir("output-failed");
    let path = dir.join("out.json");
    std::fs::write(&path, b"before").expect("write");
    let output = OutputPath::check(&path).expect("check");
    let error = output
        .write_with(|writer| {
            writer.write_all(&[0; 100 * 1024])?;
            Err(std::io::Error::other("disk full"))
        })
        .expect_err("fails");
    let message = error.to_string();
    assert!(matches!(error, OutputError::Io { .. }));
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(!message.contains(TEMP_SUFFIX), "{message}");
    assert_eq!(std::fs::read(&path).expect("read"), b"before");
    assert!(temps(&dir).is_empty());
}

#[test]
fn a_full_disk_leaves_no_temporary_file() {
    // /dev/full fails every write with ENOSPC; a link to it is refused, so
    // the full disk is met through a writer that forwards to it.
    let dir = temp_dir("output-full");
    let path = dir.join("out.png");
    let output = OutputPath::check(&path).expect("check");
    let mut full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let error = output
        .write_with(|writer| {
            writer.write_all(b"\x89PNG")?;
            full.write_all(&[0; 4096])
        })
        .expect_err("disk full")
        .to_string();
    assert!(error.contains("out.png"), "{error}");
    assert!(!path.exists());
    assert!(temps(&dir).is_empty());
}

#[test]
fn stale_temporary_files_of_dead_processes_are_removed() {
    let dir = temp_dir("output-stale");
    // No process has this id (Linux's largest is 4194304); pid 1 always runs.
    let dead = dir.join(format!(".out.json.999999999.0{TEMP_SUFFIX}"));
    let alive = dir.join(format!(".out.json.1.0{TEMP_SUFFIX}"));
    let unrelated = dir.join("notes.tmp");
    for path in [&dead, &alive, &unrelated] {
        std::fs::write(path, b"partial").expect("write");
    }
    OutputPath::check(dir.join("out.json"))
        .expect("check")
        .write(b"{}")
        .expect("write");
    assert!(!dead.exists(), "a dead run's temporary file was kept");
    assert!(
        alive.exists(),
        "a running process's temporary file was removed"
    );
    assert!(unrelated.exists());
}

/// Set in the child process of `an_interrupted_write_leaves_no_temporary_file`.
const HANG_IN_WRITE: &str = "HORDE_TEST_HANG_IN_WRITE";

/// In the child: starts a write that never finishes. Otherwise does nothing.
#[test]
fn write_until_interrupted() {
    let Some(path) = std::env::var_os(HANG_IN_WRITE) else {
        return;
    };
    let output = OutputPath::check(PathBuf::from(path)).expect("check");
    let _ = output.write_with(|writer| {
        writer.write_all(&[0; 1 << 20])?;
        writer.flush()?;
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    });
}

#[test]
fn an_interrupted_write_leaves_no_temporary_file() {
    for signal in ["INT", "TERM"] {
        let dir = temp_dir(&format!("output-signal-{signal}"));
        let path = dir.join("big.horde");
        let mut child = Command::new(std::env::current_exe().expect("test binary"))
            .args(["--exact", "write_until_interrupted", "--nocapture"])
            .env(HANG_IN_WRITE, &path)
            .spawn()
            .expect("spawn");
        let deadline = Instant::now() + Duration::from_secs(60);
        while temps(&dir).is_empty() {
            assert!(Instant::now() < deadline, "the child never started writing");
            std::thread::sleep(Duration::from_millis(20));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let status = child.wait().expect("wait");
        assert!(!status.success(), "SIG{signal}: {status:?}");
        assert!(temps(&dir).is_empty(), "SIG{signal} left {:?}", temps(&dir));
        assert!(!path.exists());
    }
}
