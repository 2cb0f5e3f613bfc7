//! The viewer's, the battle's and the contact sheet's command lines given absurd values
//! (huge, zero, negative, not a number) and unwritable outputs: each must
//! exit with a clear error naming the option or path before any Vulkan work,
//! never a panic.

use std::process::Command;

/// Runs `program` with `args`; checks it failed cleanly and returns stderr.
fn fails_cleanly(program: &str, args: &[&str], expected: &str) -> String {
    let run = Command::new(program)
        .args(args)
        .env("RUST_LOG", "off")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let code = run.status.code();
    assert!(
        matches!(code, Some(1 | 2)),
        "{args:?}: exit {code:?} (1 or 2 expected)\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    assert!(
        stderr.contains(expected),
        "{args:?}: the error does not say {expected:?}:\n{stderr}"
    );
    stderr
}

#[test]
fn viewer_refuses_absurd_values() {
    let cases: &[(&[&str], &str)] = &[
        (&["--units", "-5"], "-5 is not in 0..=16000000"),
        (
            &["--units", "99999999999"],
            "99999999999 is not in 0..=16000000",
        ),
        (&["--frames", "0"], "0 is not in 1..=100000"),
        (&["--frames", "-1"], "-1 is not in 1..=100000"),
        (&["--width", "0"], "0 is not in 16..=16384"),
        (&["--height", "-720"], "-720 is not in 16..=16384"),
        (&["--width", "NaN"], "--width <WIDTH>"),
        (
            &["--lod-bias", "NaN"],
            "--lod-bias must be a positive number, not NaN",
        ),
        (
            &["--lod-bias", "-2"],
            "--lod-bias must be a positive number, not -2",
        ),
        (
            &["--lod-bias", "0"],
            "--lod-bias must be a positive number, not 0",
        ),
        (
            &["--max-distance", "inf"],
            "--max-distance must be a positive number, not inf",
        ),
        (
            &["--max-distance", "-1e9"],
            "--max-distance must be a positive number",
        ),
        (&["--seed", "-1"], "'-1' for '--seed <SEED>'"),
        (&["--screenshot", "x.png"], "add --headless"),
    ];
    for (args, expected) in cases {
        fails_cleanly(env!("CARGO_BIN_EXE_viewer"), args, expected);
    }
}

#[test]
fn viewer_refuses_outputs_before_rendering() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--headless", "--screenshot", "/dev/null"],
            "/dev/null: an image must end in .png, .jpg or .jpeg",
        ),
        (
            &["--headless", "--report", "/dev/null"],
            "/dev/null: exists and is a character device",
        ),
        (
            &["--headless", "--screenshot", "shot.bmp"],
            "shot.bmp: an image must end in .png, .jpg or .jpeg",
        ),
    ];
    for (args, expected) in cases {
        fails_cleanly(env!("CARGO_BIN_EXE_viewer"), args, expected);
    }
}

#[test]
fn contact_sheet_refuses_absurd_values() {
    let cases: &[(&[&str], &str)] = &[
        (&["--tile-width", "-640"], "-640 is not in 64..=4096"),
        (&["--tile-height", "0"], "0 is not in 32..=4096"),
        (&["-o", "/dev/null"], "/dev/null: an image must end in"),
        (
            &["-o", "sheet.gif"],
            "sheet.gif: an image must end in .png, .jpg or .jpeg",
        ),
    ];
    for (args, expected) in cases {
        fails_cleanly(env!("CARGO_BIN_EXE_contact_sheet"), args, expected);
    }
}

#[test]
fn battle_refuses_absurd_values() {
    let cases: &[(&[&str], &str)] = &[
        (&["--units", "-5"], "-5 is not in 2..=16000000"),
        (&["--units", "1"], "1 is not in 2..=16000000"),
        (&["--props", "-1"], "-1 is not in 0..=1000000"),
        (&["--frames", "0"], "0 is not in 1..=10000000"),
        (&["--render-every", "-30"], "-30 is not in 1..=100000"),
        (&["--memory-every", "0"], "0 is not in 1..=10000000"),
        (&["--memory-every", "-100"], "-100 is not in 1..=10000000"),
        (
            &["--width", "99999999999"],
            "99999999999 is not in 16..=16384",
        ),
        (&["--seed", "-1"], "'-1' for '--seed <SEED>'"),
        (
            &["--headless", "--lod-bias", "NaN"],
            "--lod-bias must be a positive number, not NaN",
        ),
        (
            &["--headless", "--shadow-lod-texels", "0"],
            "0 is not a finite number above 0",
        ),
        (
            &["--headless", "--shadow-lod-texels", "inf"],
            "inf is not a finite number above 0",
        ),
        (&["--report", "r.json"], "add --headless"),
        (
            &["--headless", "--report", "/dev/null"],
            "/dev/null: exists and is a character device",
        ),
        (
            &["--headless", "--screenshot", "battle.tga"],
            "battle.tga: an image must end in .png, .jpg or .jpeg",
        ),
        (
            &["--clip-map", "3:attack=Punch"],
            "3:attack=Punch: army 3 does not exist",
        ),
        (
            &["--clip-map", "CharacterArmature|Punch"],
            "expected [ARMY:]role=clip",
        ),
        (&["--clip-map", "dance=Dance"], "unknown role \"dance\""),
    ];
    for (args, expected) in cases {
        fails_cleanly(env!("CARGO_BIN_EXE_battle"), args, expected);
    }
}
