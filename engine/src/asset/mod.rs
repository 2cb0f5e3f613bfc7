//! The `.horde` baked asset format: types, writer and validating reader.
