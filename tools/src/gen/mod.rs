//! Procedural content: rigged, animated knights and skeletons, and static props, as glTF.
