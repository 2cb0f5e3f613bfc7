import sys, re
root, kind = sys.argv[1], sys.argv[2]
src = open(f"{root}/shaders/cull.comp").read()
if kind == "new":
    keep = "    if (index == 0xFFFFFFFFu) { routes[0] = commands[0].instance_count; entries[0] = 1u; }\n"
    loads_end = "    UnitPlacement placement = placements[index];\n"
    fake = "    if (info.scale == -1.0 && placement.heading == 777.0) { routes[index] = 1u; }\n"
    append_re = r"    append\(target\.command.*?\);\n"
    after_frustum = "    // Route from the projected size"
else:
    keep = "    if (index == 0xFFFFFFFFu) { anim_states[0].blend = commands[0].instance_count; instance_lists[0] = 1u; instances[0].params = 0u; }\n"
    loads_end = "    TypeInfo type_info = types[inst.type_index];\n"
    fake = "    if (inst.scale == -1.0 && inst.heading == 777.0) { anim_states[index].blend = 1u; }\n"
    append_re = r"    append\(command, list_base.*?\);\n"
    after_frustum = "    // LOD from the projected error"
main_at = src.index("void main() {")
body_start = src.index("\n", main_at) + 1
def with_keep(s):
    i = s.index("uint index = gl_GlobalInvocationID.x;"); j = s.index("\n", i) + 1
    return s[:j] + keep + s[j:]
# frustum only: return after the frustum loop
v = src.replace(after_frustum, "    return;\n" + after_frustum, 1)
open(f"{root}/shaders/cull_frustum.comp", "w").write(with_keep(v))
# loads only
i = src.index(loads_end) + len(loads_end)
end = src.rindex("}")
v = src[:i] + fake + src[end:]
open(f"{root}/shaders/cull_load.comp", "w").write(with_keep(v))
# no append
v, n = re.subn(append_re, "", src, count=1, flags=re.S)
assert n == 1
open(f"{root}/shaders/cull_noappend.comp", "w").write(with_keep(v))
