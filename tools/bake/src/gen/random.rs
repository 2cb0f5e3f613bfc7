//! A tiny seeded random number generator (SplitMix64).
//!
//! Content must be byte-identical for a given seed on every platform and every
//! build, so the generator is spelled out here rather than borrowed from a crate
//! whose stream may change between versions.

/// SplitMix64: a 64-bit state advanced by a fixed odd constant and mixed on output.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`, with `stream` separating independent uses of one
    /// seed (the knight's proportions must not shift when the prop code draws more).
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut rng = Self {
            state: seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03),
        };
        // Warm up so that nearby seeds do not start with correlated outputs.
        rng.next_u64();
        rng
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), built from the top 24 bits so every value is an exact f32.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [low, high).
    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    /// Uniform index in [0, count).
    pub fn index(&mut self, count: usize) -> usize {
        (self.next_u64() % count as u64) as usize
    }
}

/// A hash of integer lattice coordinates to [0, 1), for value noise in textures and
/// rock displacement: the same point always gets the same value, without state.
fn lattice_hash(seed: u64, x: i64, y: i64, z: i64) -> f32 {
    let mut rng = Rng::new(
        seed,
        (x as u64).wrapping_mul(0x9E37_79B9)
            ^ (y as u64).wrapping_mul(0x85EB_CA6B_0000_0001)
            ^ (z as u64).wrapping_mul(0xC2B2_AE35_0000_0007),
    );
    rng.unit()
}

/// Smooth 3D value noise in [0, 1): trilinear blend of lattice values with a
/// smoothstep fade, so displaced surfaces have no creases at lattice cells.
pub fn value_noise(seed: u64, x: f32, y: f32, z: f32) -> f32 {
    let (x0, y0, z0) = (x.floor(), y.floor(), z.floor());
    let fade = |t: f32| t * t * (3.0 - 2.0 * t);
    let (tx, ty, tz) = (fade(x - x0), fade(y - y0), fade(z - z0));
    let (ix, iy, iz) = (x0 as i64, y0 as i64, z0 as i64);
    let corner = |dx: i64, dy: i64, dz: i64| lattice_hash(seed, ix + dx, iy + dy, iz + dz);
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(corner(0, 0, 0), corner(1, 0, 0), tx);
    let x10 = lerp(corner(0, 1, 0), corner(1, 1, 0), tx);
    let x01 = lerp(corner(0, 0, 1), corner(1, 0, 1), tx);
    let x11 = lerp(corner(0, 1, 1), corner(1, 1, 1), tx);
    lerp(lerp(x00, x10, ty), lerp(x01, x11, ty), tz)
}
