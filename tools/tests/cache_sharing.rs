//! Two demos starting together on an empty baked-asset cache: two `battle
//! --headless` processes, spawned at once with one fresh `HORDE_CACHE_DIR`,
//! both bake every asset and publish it. Both must succeed; afterwards every
//! file in the cache is a whole, valid `.horde` entry and no temporary file
//! is left (entries are written to a uniquely named temporary file and
//! renamed into place, `horde_bake::output`).

use std::path::Path;
use std::process::{Command, Stdio};

use horde::asset::read_file;
use horde_bake::output::TEMP_SUFFIX;

#[test]
fn two_battles_starting_together_share_an_empty_cache() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cache = root.join(format!(
        "target/test-output/cache-sharing-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&cache);
    let battles: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_battle"))
                .args(["--headless", "--units", "100", "--frames", "2"])
                .args(["--width", "64", "--height", "64", "--validation"])
                .env("HORDE_CACHE_DIR", &cache)
                .env("RUST_LOG", "warn,horde_bake::cache=info")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start battle")
        })
        .collect();
    for battle in battles {
        let run = battle.wait_with_output().expect("battle ends");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "a battle failed:\n{stderr}");
        assert!(
            !stderr.contains("cache entry"),
            "a battle could not use or write the cache:\n{stderr}"
        );
        // Both found the cache empty: the race this test is about happened.
        let baked = stderr.matches("baking ").count();
        println!("a battle baked {baked} assets");
        assert!(baked > 0, "this battle baked nothing:\n{stderr}");
    }
    let mut entries: Vec<_> = std::fs::read_dir(&cache)
        .expect("the cache folder")
        .map(|entry| entry.expect("a cache entry").path())
        .collect();
    entries.sort();
    println!("{} entries in {}", entries.len(), cache.display());
    // The knights, the skeletons and the props.
    assert!(entries.len() >= 3, "{entries:?}");
    for entry in &entries {
        let name = entry.file_name().unwrap_or_default().to_string_lossy();
        assert!(
            !name.ends_with(TEMP_SUFFIX),
            "a temporary file was left: {name}"
        );
        assert!(name.ends_with(".horde"), "not a cache entry: {name}");
        read_file(entry).unwrap_or_else(|err| panic!("{name} is not a valid asset: {err}"));
    }
    std::fs::remove_dir_all(&cache).expect("remove the test cache");
}
