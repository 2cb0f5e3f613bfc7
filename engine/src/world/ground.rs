//! The ground texture: one sRGB image tiled over the ground prop types in
//! world X and Z (`Scene::ground_texture`), with its whole mip chain.
//!
//! # Data
//! The texture is square, its side a power of two, RGBA8 sRGB, row by row.
//! On the GPU it is its own image with every mip level, sampled through a
//! repeating trilinear sampler (`mesh.frag`) with two anisotropic taps
//! where a GPU allows (`passes::draw::GROUND_ANISOTROPY`), not a cell
//! of the shared atlas: the atlas has one level, and a texture repeated a
//! few metres apart across a kilometre-wide field needs its mips or the
//! far ground is noise.
//!
//! # Algorithm
//! - Levels ([`ground_levels`]): each level the 2×2 box average of the one
//!   before in linear light ([`crate::srgb::halve_rgba8`]), down to 1×1.
//!   A texture that tiles keeps tiling at every level, since each 2×2
//!   block lies inside the tile.
//! - Materials ([`mark_ground_materials`]): the ground prop types'
//!   materials get `MATERIAL_GROUND_TEXTURE`, so the fragment shader
//!   multiplies their base colour by the texture.
//! - Sampling (`ground_detail` in `mesh.frag`, CPU twin
//!   [`ground_detail_samples`]): the mean of two samples, at the tile
//!   coordinates `world.xz / tile_metres` and at those turned and 3.4 times
//!   larger. The two repeat at incommensurate periods, so the tiling does
//!   not show as a grid across a field of a thousand tiles.

use glam::Vec2;

use crate::config::MATERIAL_GROUND_TEXTURE;
use crate::gpu_types::MaterialInfo;
use crate::scene::GroundTexture;
use crate::srgb::halve_rgba8;
use crate::world::types::WorldType;
use crate::Error;

/// The largest side a ground texture may have.
pub const MAX_GROUND_TEXTURE_SIDE: u32 = 4096;

/// The texture's levels, level 0 first, each half the side of the one
/// before, down to 1×1; an error naming the problem when the texture is
/// not square, its side not a power of two up to
/// [`MAX_GROUND_TEXTURE_SIDE`], its data not `side² × 4` bytes, or its
/// tile not a finite positive length.
pub fn ground_levels(ground: &GroundTexture) -> Result<Vec<Vec<u8>>, Error> {
    let texture = &ground.texture;
    let problem = |what: String| Err(Error::Config(format!("the ground texture: {what}")));
    if texture.width != texture.height
        || !texture.width.is_power_of_two()
        || texture.width > MAX_GROUND_TEXTURE_SIDE
    {
        return problem(format!(
            "{}x{} texels; it must be square, its side a power of two up to \
             {MAX_GROUND_TEXTURE_SIDE}",
            texture.width, texture.height
        ));
    }
    let bytes = u64::from(texture.width).pow(2) * 4;
    if texture.rgba8.len() as u64 != bytes {
        return problem(format!(
            "{} bytes of texels, {bytes} expected for {}x{} RGBA8",
            texture.rgba8.len(),
            texture.width,
            texture.height
        ));
    }
    if !(ground.tile_metres.is_finite() && ground.tile_metres > 0.0) {
        return problem(format!(
            "it tiles every {} metres; that must be a positive length",
            ground.tile_metres
        ));
    }
    let mut levels = vec![texture.rgba8.clone()];
    let mut side = texture.width;
    while side > 1 {
        let previous = levels.last().expect("level 0 is there");
        levels.push(halve_rgba8(previous, side, side));
        side /= 2;
    }
    Ok(levels)
}

/// Where `mesh.frag`'s `ground_detail` samples the ground texture for the
/// tile coordinates `tile` (`world.xz / tile_metres`), in texture
/// coordinates (one unit a tile): the colour is the mean of the two.
pub fn ground_detail_samples(tile: Vec2) -> [Vec2; 2] {
    let turned = Vec2::new(0.8 * tile.x + 0.6 * tile.y, -0.6 * tile.x + 0.8 * tile.y);
    [tile, turned * 0.29 + Vec2::new(0.37, 0.61)]
}

/// Sets `MATERIAL_GROUND_TEXTURE` on every material of the prop types
/// `ground_prop_types` (indices among the prop types, which follow the
/// `unit_type_count` unit types in `types`); an error names an index that
/// is no prop type.
pub fn mark_ground_materials(
    materials: &mut [MaterialInfo],
    types: &[WorldType],
    unit_type_count: u32,
    ground_prop_types: &[u32],
) -> Result<(), Error> {
    let prop_types = types.len() as u32 - unit_type_count;
    for &prop_type in ground_prop_types {
        if prop_type >= prop_types {
            return Err(Error::Config(format!(
                "ground prop type {prop_type}: the scene has {prop_types} prop types"
            )));
        }
        let world_type = &types[(unit_type_count + prop_type) as usize];
        let first = world_type.info.first_material as usize;
        let end = types
            .get((unit_type_count + prop_type + 1) as usize)
            .map_or(materials.len(), |next| next.info.first_material as usize);
        for material in materials.get_mut(first..end).unwrap_or_default() {
            material.flags |= MATERIAL_GROUND_TEXTURE;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Texture;

    fn ground(width: u32, height: u32, rgba8: Vec<u8>) -> GroundTexture {
        GroundTexture {
            texture: Texture {
                width,
                height,
                rgba8,
            },
            tile_metres: 4.0,
        }
    }

    #[test]
    fn levels_halve_to_one_texel_and_average_in_linear_light() {
        // A black and white checker: every 2x2 block averages to half the
        // light, which is sRGB 188, not 128.
        let rgba8 = (0..16)
            .flat_map(|i| {
                let c = if (i % 4 + i / 4) % 2 == 0 { 255 } else { 0 };
                [c, c, c, 255]
            })
            .collect();
        let levels = ground_levels(&ground(4, 4, rgba8)).unwrap();
        let sides: Vec<usize> = levels.iter().map(|l| l.len() / 4).collect();
        assert_eq!(sides, [16, 4, 1]);
        assert_eq!(levels[1][..4], [188, 188, 188, 255]);
        assert_eq!(levels[2], [188, 188, 188, 255]);
    }

    #[test]
    fn malformed_textures_are_refused_with_the_problem_named() {
        let cases = [
            (ground(4, 2, vec![0; 32]), "square"),
            (ground(6, 6, vec![0; 144]), "power of two"),
            (ground(4, 4, vec![0; 10]), "bytes"),
            (
                GroundTexture {
                    tile_metres: f32::NAN,
                    ..ground(2, 2, vec![0; 16])
                },
                "positive length",
            ),
        ];
        for (texture, problem) in cases {
            let error = ground_levels(&texture).unwrap_err().to_string();
            assert!(error.contains(problem), "{error}");
        }
    }
}
