//! `gen`: builds horde's procedural content (knights, skeletons, props) as GLB.
//!
//! Every output is a pure function of its kind and seed. `gen all -o assets/`
//! rebuilds the committed default set.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use horde_bake::gen::props::PropKind;
use horde_bake::gen::units::UnitKind;
use horde_bake::gen::{generate, write_default_set, Content, Generated};
use horde_bake::output::OutputPath;

#[derive(Parser)]
#[command(about = "Generate horde's procedural units and props as binary glTF (GLB).")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A rigged, animated knight: armour, helmet, weapon and shield.
    Knight(Single),
    /// A rigged, animated skeleton warrior with a rusty weapon.
    Skeleton(Single),
    /// A static prop.
    Prop {
        /// Which prop: rock, pillar, banner, tree or fence.
        #[arg(value_parser = parse_prop)]
        name: PropKind,
        #[command(flatten)]
        single: Single,
    },
    /// The default content set (knight, skeleton and the five props).
    All {
        /// Directory to write into; created if missing.
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(clap::Args)]
struct Single {
    /// Seed for proportions and variants; the same seed gives identical bytes.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    seed: u64,
    /// Output .glb file.
    #[arg(short, long)]
    output: PathBuf,
}

fn parse_prop(name: &str) -> Result<PropKind, String> {
    PropKind::ALL
        .into_iter()
        .find(|kind| kind.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = PropKind::ALL.iter().map(|kind| kind.name()).collect();
            format!(
                "unknown prop '{name}'; expected one of: {}",
                names.join(", ")
            )
        })
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    match cli.command {
        Command::Knight(single) => write_one(Content::Unit(UnitKind::Knight), &single),
        Command::Skeleton(single) => write_one(Content::Unit(UnitKind::Skeleton), &single),
        Command::Prop { name, single } => write_one(Content::Prop(name), &single),
        Command::All { output } => {
            if output.exists() && !output.is_dir() {
                bail!("{} exists and is not a directory", output.display());
            }
            for (path, generated) in write_default_set(&output)? {
                report(&path, &generated);
            }
            Ok(())
        }
    }
}

fn write_one(content: Content, single: &Single) -> Result<()> {
    if single.output.is_dir() {
        bail!(
            "{} is a directory; give a file name such as {}.glb",
            single.output.display(),
            content.name()
        );
    }
    let output = OutputPath::check(&single.output)?;
    let generated = generate(content, single.seed)
        .with_context(|| format!("generating {} from seed {}", content.name(), single.seed))?;
    output.write(&generated.glb)?;
    report(&single.output, &generated);
    Ok(())
}

fn report(path: &Path, generated: &Generated) {
    log::info!(
        "{}: {} seed {}, {} vertices, {} triangles, {} bytes{}{}",
        path.display(),
        generated.content.name(),
        generated.seed,
        generated.vertex_count,
        generated.triangle_count,
        generated.glb.len(),
        if generated.variants.is_empty() {
            ""
        } else {
            ", "
        },
        generated.variants.join(", "),
    );
}
