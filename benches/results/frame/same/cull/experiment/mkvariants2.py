import sys
root, kind = sys.argv[1], sys.argv[2]
src = open(f"{root}/shaders/cull.comp").read()
lists = "entries" if kind == "new" else "instance_lists"
atomic_block = src[src.index("            uint first_slot = 0u;"):src.index("            uint slot = subgroupBroadcastFirst(first_slot) + rank;")]
v = src.replace(atomic_block, "            uint first_slot = gl_GlobalInvocationID.x & ~31u;\n", 1)
v = v.replace("            uint slot = subgroupBroadcastFirst(first_slot) + rank;", "            uint slot = (subgroupBroadcastFirst(first_slot) + rank) % max(capacity, 1u);\n            if (gl_GlobalInvocationID.x == 0xFFFFFFFFu) { atomicAdd(commands[0].instance_count, 1u); }", 1)
open(f"{root}/shaders/cull_noatomic.comp", "w").write(v)
w = f"                {lists}[list_base + slot] = entry;"
assert w in src
v = src.replace(w, f"                if (entry == 0xFFFFFFFFu) {{ {lists}[list_base + slot] = entry; }}", 1)
open(f"{root}/shaders/cull_nowrite.comp", "w").write(v)
