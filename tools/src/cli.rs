//! What the GPU binaries share (battle, viewer, stress): command-line values,
//! so each flag reads and converts the same way everywhere, and the verdict
//! at the end of a headless run.

use ash::vk;
use horde::asset::BoneEncoding;
use horde::context::{Context, Tier};
use horde::renderer::Strategy;
use horde::target::Msaa;

/// `--present-mode`: the swapchain's present mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PresentMode {
    Fifo,
    Mailbox,
    Immediate,
}

impl PresentMode {
    pub fn vk(self) -> vk::PresentModeKHR {
        match self {
            PresentMode::Fifo => vk::PresentModeKHR::FIFO,
            PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
            PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
        }
    }
}

/// `--encoding`: how the bone texture stores a bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Encoding {
    Mat3x4,
    Quat32,
    Quat16,
    /// Dual quaternions (two RGBA32F texels per bone).
    Dualquat,
}

impl Encoding {
    pub fn bone_encoding(self) -> BoneEncoding {
        match self {
            Encoding::Mat3x4 => BoneEncoding::Mat3x4F32,
            Encoding::Quat32 => BoneEncoding::QuatF32,
            Encoding::Quat16 => BoneEncoding::QuatF16,
            Encoding::Dualquat => BoneEncoding::DualQuatF32,
        }
    }
}

/// `--tier`: the feature tier to run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TierArg {
    Desktop,
    Mobile,
}

impl TierArg {
    pub fn tier(self) -> Tier {
        match self {
            TierArg::Desktop => Tier::Desktop,
            TierArg::Mobile => Tier::Mobile,
        }
    }
}

/// Battles of at most this many units get 4× MSAA under `--msaa auto`. At
/// 10k on an H100 it costs 0.9 to 3.7 ms, leaves every preset under 16.6
/// ms, lowers FLIP by a quarter to a third and brings the still-camera
/// shimmer to 1.03-1.07× the reference's (1.2 to 1.5× without); at 100k
/// the front costs 0.4 ms more; at 1M it costs the overview 3.7 ms the
/// budget cannot win back (benches/results/quality/round4/, round2/).
pub const MSAA_AUTO_MAX_UNITS: u32 = 100_000;

/// `--msaa`: 4× MSAA, none, or chosen by the battle's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MsaaChoice {
    /// 4× for battles of at most [`MSAA_AUTO_MAX_UNITS`] units, else none.
    Auto,
    On,
    Off,
}

impl MsaaChoice {
    /// The MSAA a battle of `units` units is drawn with.
    pub fn msaa(self, units: u32) -> Msaa {
        match self {
            MsaaChoice::On => Msaa::X4,
            MsaaChoice::Off => Msaa::Off,
            MsaaChoice::Auto if units <= MSAA_AUTO_MAX_UNITS => Msaa::X4,
            MsaaChoice::Auto => Msaa::Off,
        }
    }
}

/// A switch such as `--far-field on|off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

impl OnOff {
    pub fn on(self) -> bool {
        self == OnOff::On
    }
}

/// `--strategy`: the GPU-driven frame or a baseline, by its report name.
pub fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse::<Strategy>().map_err(|err| err.to_string())
}

/// Drops the context and fails if the run leaked GPU allocations or the
/// validation layer reported errors, so a headless run exits non-zero then.
pub fn close_context(ctx: Context) -> anyhow::Result<()> {
    let leaks = ctx.live_allocations();
    let validation = ctx.validation_counts();
    drop(ctx);
    if !leaks.is_empty() {
        anyhow::bail!("leaked GPU allocations: {leaks:?}");
    }
    if validation.errors() > 0 {
        anyhow::bail!(
            "{} validation errors: {:?}",
            validation.errors(),
            validation.messages()
        );
    }
    Ok(())
}
