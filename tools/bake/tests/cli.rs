//! The `bake` and `gen` command lines given absurd values (huge, zero,
//! negative, not a number): each must exit with a clear error naming the
//! option or value, never a panic, and write nothing.

mod support;

use std::path::Path;
use std::process::Command;
use support::temp_dir;

/// Runs `program` with `args`; checks it failed cleanly and returns stderr.
fn fails_cleanly(program: &str, args: &[&str], expected: &str) -> String {
    let run = Command::new(program).args(args).output().expect("run");
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

fn asset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn bake_refuses_absurd_values() {
    let dir = temp_dir("cli-bake");
    let output = dir.join("rock.horde").display().to_string();
    let rock = asset("rock.glb");
    let cases: &[(&[&str], &str)] = &[
        (&["--rate", "-5"], "sample rate -5"),
        (&["--rate", "0"], "sample rate 0"),
        (&["--rate", "NaN"], "sample rate NaN"),
        (&["--rate", "1e40"], "sample rate inf"),
        (&["--rate", "lots"], "--rate"),
        (&["--max-rate", "-1"], "max sample rate -1"),
        (&["--max-interp-error", "-1"], "max interpolation error"),
        (&["--max-interp-error", "inf"], "max interpolation error"),
        (&["--lods", "0"], "0 is not in 1..=16"),
        (&["--lods", "-3"], "-3 is not in 1..=16"),
        (&["--lods", "99999999999999999999"], "--lods"),
        (&["--lod-ratios", "1,-0.5"], "LOD ratios"),
        (&["--lod-ratios", "1,2"], "LOD ratios"),
        (&["--lod-error", "NaN"], "LOD error NaN"),
        (&["--lod-error", "-1"], "LOD error -1"),
        (&["--texture-width", "0"], "0 is not in 1..=16384"),
        (&["--texture-width", "-1"], "-1 is not in 1..=16384"),
        (&["--texture-width", "4294967296"], "--texture-width"),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["--prop", rock.as_str(), "-o", output.as_str()];
        args.extend_from_slice(flags);
        fails_cleanly(env!("CARGO_BIN_EXE_bake"), &args, expected);
        assert!(!Path::new(&output).exists(), "{flags:?} wrote an output");
    }
}

#[test]
fn bake_refuses_outputs_before_baking() {
    let dir = temp_dir("cli-bake-output");
    let rock = asset("rock.glb");
    fails_cleanly(
        env!("CARGO_BIN_EXE_bake"),
        &["--prop", &rock, "-o", "/dev/null"],
        "/dev/null: exists and is a character device",
    );
    let folder = dir.display().to_string();
    fails_cleanly(
        env!("CARGO_BIN_EXE_bake"),
        &["--prop", &rock, "-o", &folder],
        "exists and is a directory",
    );
}

#[test]
fn gen_refuses_absurd_values() {
    let dir = temp_dir("cli-gen");
    let output = dir.join("knight.glb").display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["knight", "--seed", "-5"], "'-5' for '--seed <SEED>'"),
        (
            &["knight", "--seed", "99999999999999999999999"],
            "--seed <SEED>",
        ),
        (&["prop", "castle"], "unknown prop 'castle'"),
    ];
    for (flags, expected) in cases {
        let mut args = flags.to_vec();
        args.extend_from_slice(&["-o", output.as_str()]);
        fails_cleanly(env!("CARGO_BIN_EXE_gen"), &args, expected);
        assert!(!Path::new(&output).exists(), "{flags:?} wrote an output");
    }
    fails_cleanly(
        env!("CARGO_BIN_EXE_gen"),
        &["rock", "-o", "/dev/null"],
        "unrecognized subcommand",
    );
    fails_cleanly(
        env!("CARGO_BIN_EXE_gen"),
        &["prop", "rock", "-o", "/dev/null"],
        "/dev/null: exists and is a character device",
    );
}
