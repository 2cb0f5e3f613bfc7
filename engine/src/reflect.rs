//! A small SPIR-V reflector: descriptor bindings, push-constant size and the
//! member offsets of named structs.
//!
//! The pipeline helper checks a pipeline's declared layout against what the
//! shaders actually use, and the layout test checks `#[repr(C)]` structs against
//! the offsets the GLSL compiler chose. Both need only this much of SPIR-V:
//!
//! - The module is a 5-word header, then instructions. Each instruction's first
//!   word is `word_count << 16 | opcode`.
//! - Names (`OpName`, `OpMemberName`) and decorations (`OpDecorate`,
//!   `OpMemberDecorate`) come before types and variables, so one pass collects
//!   them all into maps and a second step resolves variables to descriptors.
//! - A descriptor is an `OpVariable` in the `Uniform`, `StorageBuffer` or
//!   `UniformConstant` storage class with `DescriptorSet` and `Binding`
//!   decorations; its type decides the `VkDescriptorType`.

use std::collections::BTreeMap;

use ash::vk;

const MAGIC: u32 = 0x0723_0203;
/// The `LocalSize` execution mode.
const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;
/// The `WorkgroupSize` built-in.
const BUILT_IN_WORKGROUP_SIZE: u32 = 25;

mod op {
    pub const NAME: u16 = 5;
    pub const MEMBER_NAME: u16 = 6;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_MATRIX: u16 = 24;
    pub const TYPE_IMAGE: u16 = 25;
    pub const TYPE_SAMPLER: u16 = 26;
    pub const TYPE_SAMPLED_IMAGE: u16 = 27;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const EXECUTION_MODE: u16 = 16;
    pub const CONSTANT: u16 = 43;
    pub const SPEC_CONSTANT_COMPOSITE: u16 = 51;
    pub const VARIABLE: u16 = 59;
    pub const DECORATE: u16 = 71;
    pub const MEMBER_DECORATE: u16 = 72;
}

mod decoration {
    pub const SPEC_ID: u32 = 1;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const MATRIX_STRIDE: u32 = 7;
    pub const BUILT_IN: u32 = 11;
    pub const LOCATION: u32 = 30;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
    pub const OFFSET: u32 = 35;
}

mod storage {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const PUSH_CONSTANT: u32 = 9;
    pub const STORAGE_BUFFER: u32 = 12;
}

/// One descriptor a shader uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub kind: vk::DescriptorType,
    pub count: u32,
    /// The variable's or block's name, for error messages.
    pub name: String,
}

/// A named struct's members with their byte offsets, in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructLayout {
    pub members: Vec<(String, u32)>,
    /// Offset of the end of the last member (without trailing padding).
    pub size: u32,
}

/// What a SPIR-V module declares.
#[derive(Clone, Debug, Default)]
pub struct Reflection {
    pub bindings: Vec<Binding>,
    /// Locations of the stage's user-defined inputs (vertex attributes for a
    /// vertex shader), ascending.
    pub input_locations: Vec<u32>,
    /// Bytes of push constants the module reads, 0 if none.
    pub push_constant_size: u32,
    /// Every named struct type, by GLSL name.
    pub structs: BTreeMap<String, StructLayout>,
    /// A compute shader's workgroup size, per dimension.
    pub local_size: [LocalSize; 3],
}

/// One dimension of a compute shader's workgroup size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LocalSize {
    /// Not a compute shader.
    #[default]
    None,
    /// Fixed in the shader.
    Literal(u32),
    /// Set by the specialization constant with this id
    /// (`layout(local_size_x_id = N)`).
    SpecConstant(u32),
}

#[derive(Clone, Debug)]
enum Type {
    Scalar { bytes: u32 },
    Vector { component: u32, count: u32 },
    Matrix { column: u32, count: u32 },
    Image { buffer_dim: bool, storage: bool },
    Sampler,
    SampledImage,
    Array { element: u32, length_id: u32 },
    RuntimeArray,
    Struct { members: Vec<u32> },
    Pointer { pointee: u32 },
}

#[derive(Default)]
struct Module {
    names: BTreeMap<u32, String>,
    member_names: BTreeMap<(u32, u32), String>,
    decorations: BTreeMap<(u32, u32), u32>,
    flags: BTreeMap<u32, Vec<u32>>,
    member_offsets: BTreeMap<(u32, u32), u32>,
    member_matrix_strides: BTreeMap<(u32, u32), u32>,
    types: BTreeMap<u32, Type>,
    constants: BTreeMap<u32, u32>,
    variables: Vec<(u32, u32, u32)>,
    /// `LocalSize` execution mode literals.
    local_size: Option<[u32; 3]>,
    /// Constituents of each spec-constant composite.
    spec_composites: BTreeMap<u32, Vec<u32>>,
}

fn string_at(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Module {
    fn parse(words: &[u32]) -> Result<Module, String> {
        if words.len() < 5 || words[0] != MAGIC {
            return Err("not a SPIR-V module (bad magic or too short)".to_owned());
        }
        let mut module = Module::default();
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            let opcode = (words[at] & 0xffff) as u16;
            if count == 0 || at + count > words.len() {
                return Err(format!("truncated instruction at word {at}"));
            }
            let args = &words[at + 1..at + count];
            module.record(opcode, args);
            at += count;
        }
        Ok(module)
    }

    fn record(&mut self, opcode: u16, a: &[u32]) {
        let arg = |i: usize| a.get(i).copied().unwrap_or(0);
        match opcode {
            op::EXECUTION_MODE if a.len() >= 5 && a[1] == EXECUTION_MODE_LOCAL_SIZE => {
                self.local_size = Some([a[2], a[3], a[4]]);
            }
            op::SPEC_CONSTANT_COMPOSITE if a.len() >= 2 => {
                self.spec_composites.insert(a[1], a[2..].to_vec());
            }
            op::NAME if !a.is_empty() => {
                self.names.insert(a[0], string_at(&a[1..]));
            }
            op::MEMBER_NAME if a.len() >= 2 => {
                self.member_names.insert((a[0], a[1]), string_at(&a[2..]));
            }
            op::DECORATE if a.len() >= 2 => {
                self.decorations.insert((a[0], a[1]), arg(2));
                self.flags.entry(a[0]).or_default().push(a[1]);
            }
            op::MEMBER_DECORATE if a.len() >= 3 => match a[2] {
                decoration::OFFSET => {
                    self.member_offsets.insert((a[0], a[1]), arg(3));
                }
                decoration::MATRIX_STRIDE => {
                    self.member_matrix_strides.insert((a[0], a[1]), arg(3));
                }
                _ => {}
            },
            op::TYPE_INT | op::TYPE_FLOAT => {
                self.types
                    .insert(arg(0), Type::Scalar { bytes: arg(1) / 8 });
            }
            op::TYPE_VECTOR => {
                let t = Type::Vector {
                    component: arg(1),
                    count: arg(2),
                };
                self.types.insert(arg(0), t);
            }
            op::TYPE_MATRIX => {
                let t = Type::Matrix {
                    column: arg(1),
                    count: arg(2),
                };
                self.types.insert(arg(0), t);
            }
            op::TYPE_IMAGE => {
                // Dim 5 is Buffer; Sampled 2 means a storage image.
                let t = Type::Image {
                    buffer_dim: arg(2) == 5,
                    storage: arg(6) == 2,
                };
                self.types.insert(arg(0), t);
            }
            op::TYPE_SAMPLER => {
                self.types.insert(arg(0), Type::Sampler);
            }
            op::TYPE_SAMPLED_IMAGE => {
                self.types.insert(arg(0), Type::SampledImage);
            }
            op::TYPE_ARRAY => {
                let t = Type::Array {
                    element: arg(1),
                    length_id: arg(2),
                };
                self.types.insert(arg(0), t);
            }
            op::TYPE_RUNTIME_ARRAY => {
                self.types.insert(arg(0), Type::RuntimeArray);
            }
            op::TYPE_STRUCT if !a.is_empty() => {
                self.types.insert(
                    a[0],
                    Type::Struct {
                        members: a[1..].to_vec(),
                    },
                );
            }
            op::TYPE_POINTER => {
                let t = Type::Pointer { pointee: arg(2) };
                self.types.insert(arg(0), t);
            }
            op::CONSTANT => {
                self.constants.insert(arg(1), arg(2));
            }
            op::VARIABLE => {
                self.variables.push((arg(0), arg(1), arg(2)));
            }
            _ => {}
        }
    }

    fn has_flag(&self, id: u32, flag: u32) -> bool {
        self.flags.get(&id).is_some_and(|f| f.contains(&flag))
    }

    /// Size in bytes of a type as laid out by its decorations.
    fn size_of(&self, id: u32, matrix_stride: Option<u32>) -> u32 {
        match self.types.get(&id) {
            Some(Type::Scalar { bytes }) => *bytes,
            Some(Type::Vector { component, count }) => self.size_of(*component, None) * count,
            Some(Type::Matrix { column, count }) => {
                matrix_stride.unwrap_or_else(|| self.size_of(*column, None)) * count
            }
            Some(Type::Array { length_id, .. }) => {
                let stride = self
                    .decorations
                    .get(&(id, decoration::ARRAY_STRIDE))
                    .copied();
                let length = self.constants.get(length_id).copied().unwrap_or(0);
                stride.unwrap_or(0) * length
            }
            Some(Type::Struct { members }) => self.struct_layout(id, members).size,
            _ => 0,
        }
    }

    fn struct_layout(&self, id: u32, members: &[u32]) -> StructLayout {
        let mut layout = StructLayout::default();
        for (index, &member) in members.iter().enumerate() {
            let key = (id, index as u32);
            let offset = self.member_offsets.get(&key).copied().unwrap_or(0);
            let name = self.member_names.get(&key).cloned().unwrap_or_default();
            let size = self.size_of(member, self.member_matrix_strides.get(&key).copied());
            layout.size = layout.size.max(offset + size);
            layout.members.push((name, offset));
        }
        layout
    }

    fn descriptor(&self, pointee: u32, storage_class: u32) -> Option<(vk::DescriptorType, u32)> {
        let (base, count) = match self.types.get(&pointee) {
            Some(Type::Array { element, length_id }) => (
                *element,
                self.constants.get(length_id).copied().unwrap_or(1),
            ),
            _ => (pointee, 1),
        };
        let kind = match (storage_class, self.types.get(&base)) {
            (storage::STORAGE_BUFFER, _) => vk::DescriptorType::STORAGE_BUFFER,
            (storage::UNIFORM, _) if self.has_flag(base, decoration::BUFFER_BLOCK) => {
                vk::DescriptorType::STORAGE_BUFFER
            }
            (storage::UNIFORM, _) => vk::DescriptorType::UNIFORM_BUFFER,
            (storage::UNIFORM_CONSTANT, Some(Type::SampledImage)) => {
                vk::DescriptorType::COMBINED_IMAGE_SAMPLER
            }
            (storage::UNIFORM_CONSTANT, Some(Type::Sampler)) => vk::DescriptorType::SAMPLER,
            (
                storage::UNIFORM_CONSTANT,
                Some(Type::Image {
                    buffer_dim,
                    storage,
                }),
            ) => match (buffer_dim, storage) {
                (true, true) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                (true, false) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                (false, true) => vk::DescriptorType::STORAGE_IMAGE,
                (false, false) => vk::DescriptorType::SAMPLED_IMAGE,
            },
            _ => return None,
        };
        Some((kind, count))
    }
}

/// Reflects a SPIR-V module.
pub fn reflect(words: &[u32]) -> Result<Reflection, String> {
    let module = Module::parse(words)?;
    let mut reflection = Reflection::default();
    if let Some(literal) = module.local_size {
        reflection.local_size = literal.map(LocalSize::Literal);
    }
    // A `WorkgroupSize` built-in overrides the execution mode; its
    // spec-constant constituents are the `local_size_*_id` dimensions.
    let workgroup_size = module
        .decorations
        .iter()
        .find(|((_, kind), value)| {
            *kind == decoration::BUILT_IN && **value == BUILT_IN_WORKGROUP_SIZE
        })
        .map(|((id, _), _)| *id);
    if let Some(parts) = workgroup_size.and_then(|id| module.spec_composites.get(&id)) {
        for (dimension, part) in parts.iter().take(3).enumerate() {
            if let Some(&spec_id) = module.decorations.get(&(*part, decoration::SPEC_ID)) {
                reflection.local_size[dimension] = LocalSize::SpecConstant(spec_id);
            }
        }
    }
    for (&id, ty) in &module.types {
        if let (Type::Struct { members }, Some(name)) = (ty, module.names.get(&id)) {
            if !name.is_empty() {
                let layout = module.struct_layout(id, members);
                reflection.structs.insert(name.clone(), layout);
            }
        }
    }
    for &(pointer_type, id, storage_class) in &module.variables {
        let Some(Type::Pointer { pointee, .. }) = module.types.get(&pointer_type) else {
            continue;
        };
        if storage_class == storage::INPUT {
            if let Some(&location) = module.decorations.get(&(id, decoration::LOCATION)) {
                if !module.has_flag(id, decoration::BUILT_IN) {
                    reflection.input_locations.push(location);
                }
            }
            continue;
        }
        if storage_class == storage::PUSH_CONSTANT {
            reflection.push_constant_size = module.size_of(*pointee, None);
            continue;
        }
        let set = module.decorations.get(&(id, decoration::DESCRIPTOR_SET));
        let binding = module.decorations.get(&(id, decoration::BINDING));
        let (Some(&set), Some(&binding)) = (set, binding) else {
            continue;
        };
        let Some((kind, count)) = module.descriptor(*pointee, storage_class) else {
            continue;
        };
        let name = module
            .names
            .get(&id)
            .filter(|n| !n.is_empty())
            .or_else(|| module.names.get(pointee))
            .cloned()
            .unwrap_or_else(|| format!("%{id}"));
        reflection.bindings.push(Binding {
            set,
            binding,
            kind,
            count,
            name,
        });
    }
    reflection.bindings.sort_by_key(|b| (b.set, b.binding));
    reflection.input_locations.sort_unstable();
    Ok(reflection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage() {
        assert!(reflect(&[1, 2, 3]).is_err());
        assert!(reflect(&[MAGIC, 0, 0, 0, 0, 0x0005_0000]).is_err());
    }
}
