//! Bake: skinned or static glTF 2.0 to a `.horde` crowd asset.
