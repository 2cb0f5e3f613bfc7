//! The frame drawn as a graph, from the code itself: passes as nodes, the
//! buffers one pass hands to another as edges, and the barriers that order
//! them. Nothing here is hand-drawn, so the picture cannot drift from the
//! frame: `battle --frame-graph FILE` writes it as Graphviz `dot` (and SVG
//! where Graphviz is installed), `tools/frame-graph.sh` regenerates
//! `docs/frame-graph.{dot,svg}`, and a test fails when the committed graph
//! differs from what the code records.
//!
//! # How it is recorded
//! The barrier tracker (`barriers.rs`) already sees every use a pass
//! declares. While a [`GraphRecorder`] is attached to it (one frame, on
//! request: [`Renderer::capture_frame_graph`](crate::renderer::Renderer::capture_frame_graph)),
//! each declaration is also noted under the innermost pass open at the time
//! ([`Frame::pass`](crate::frame::Frame::pass)), with the barrier it needed.
//! Per buffer the recorder keeps the last writing pass and the passes that
//! read since, exactly the hazards the tracker orders:
//! - read after write: an edge from the writer to the reader (solid);
//! - write after read: an edge from each reader to the writer (dashed);
//! - write after write: an edge from the writer to the next (solid).
//!
//! A pass's uses of its own writes (the battle's steps) make no edge. Uses
//! that reach back to the previous frame (the cull's routes, the HUD's
//! textures) have no writer in this frame and make no edge either. Each
//! node shows how many barriers the pass recorded. Buffers are named by
//! their debug names, the frame slot's number left out (`frame 1 globals`
//! is `globals`), so every frame of one configuration draws the same graph.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ash::vk;

/// What a [`GraphRecorder`] collects over one frame.
#[derive(Debug, Default)]
pub struct GraphRecorder {
    /// Passes in the order they first declared a use.
    passes: Vec<&'static str>,
    /// The passes open now, innermost last.
    open: Vec<&'static str>,
    /// Barriers each pass recorded.
    barriers: Vec<u32>,
    /// Per buffer: the last writing pass and the passes that read since.
    buffers: Vec<(vk::Buffer, Option<usize>, Vec<usize>)>,
    /// Hazards between passes: (from, to) -> (buffer, from access, to access, kind).
    edges: Vec<Edge>,
}

/// Which order one pass's use imposes on an earlier pass's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hazard {
    ReadAfterWrite,
    WriteAfterRead,
    WriteAfterWrite,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    from: usize,
    to: usize,
    buffer: vk::Buffer,
    hazard: Hazard,
}

impl GraphRecorder {
    /// A pass opened (it may be nested in another, as every pass is in
    /// `frame`; a pass becomes a node once it declares a use).
    pub fn enter(&mut self, name: &'static str) {
        self.open.push(name);
    }

    /// The innermost open pass closed.
    pub fn leave(&mut self) {
        self.open.pop();
    }

    /// The innermost open pass declared `uses` (buffer, whether it writes),
    /// which needed a barrier or not.
    pub fn declare(&mut self, uses: &[(vk::Buffer, bool)], needed_barrier: bool) {
        let Some(&name) = self.open.last() else {
            return;
        };
        let pass = match self.passes.iter().position(|&p| p == name) {
            Some(index) => index,
            None => {
                self.passes.push(name);
                self.barriers.push(0);
                self.passes.len() - 1
            }
        };
        if needed_barrier {
            self.barriers[pass] += 1;
        }
        for &(buffer, writes) in uses {
            let index = match self.buffers.iter().position(|(b, _, _)| *b == buffer) {
                Some(index) => index,
                None => {
                    self.buffers.push((buffer, None, Vec::new()));
                    self.buffers.len() - 1
                }
            };
            let (_, writer, readers) = &mut self.buffers[index];
            let mut edge = |from: usize, hazard| {
                if from != pass {
                    self.edges.push(Edge {
                        from,
                        to: pass,
                        buffer,
                        hazard,
                    });
                }
            };
            if writes {
                for &reader in readers.iter() {
                    edge(reader, Hazard::WriteAfterRead);
                }
                if readers.is_empty() {
                    if let Some(from) = *writer {
                        edge(from, Hazard::WriteAfterWrite);
                    }
                }
                *writer = Some(pass);
                readers.clear();
            } else {
                if let Some(from) = *writer {
                    edge(from, Hazard::ReadAfterWrite);
                }
                readers.push(pass);
            }
        }
    }

    /// The finished graph, buffers named by `name_of`.
    pub fn finish(self, name_of: impl Fn(vk::Buffer) -> Option<String>) -> FrameGraph {
        let mut edges: BTreeMap<(usize, usize), BTreeMap<String, Hazard>> = BTreeMap::new();
        for edge in &self.edges {
            let name = name_of(edge.buffer).map_or_else(|| "unnamed buffer".to_owned(), slotless);
            let labels = edges.entry((edge.from, edge.to)).or_default();
            let hazard = labels.entry(name).or_insert(edge.hazard);
            *hazard = (*hazard).min(edge.hazard);
        }
        FrameGraph {
            passes: self
                .passes
                .iter()
                .zip(&self.barriers)
                .map(|(&name, &barriers)| (name, barriers))
                .collect(),
            edges,
        }
    }
}

/// A buffer's debug name without its frame slot (`frame 1 globals` ->
/// `globals`).
fn slotless(name: String) -> String {
    let mut words = name.splitn(3, ' ');
    match (words.next(), words.next(), words.next()) {
        (Some("frame"), Some(slot), Some(rest)) if slot.chars().all(|c| c.is_ascii_digit()) => {
            rest.to_owned()
        }
        _ => name,
    }
}

/// One recorded frame: passes with their barrier counts, and the buffers
/// each pass hands to a later one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameGraph {
    /// Pass names in recording order, with the barriers each recorded.
    pub passes: Vec<(&'static str, u32)>,
    /// (from, to) pass indices -> buffer name -> the hazard that orders them.
    pub edges: BTreeMap<(usize, usize), BTreeMap<String, Hazard>>,
}

impl FrameGraph {
    /// The graph in Graphviz `dot`: passes top to bottom in frame order,
    /// read-after-write and write-after-write edges solid, write-after-read
    /// dashed, each labelled with its buffers.
    pub fn to_dot(&self) -> String {
        let mut dot = String::new();
        dot.push_str(
            "// Generated by `battle --frame-graph` (engine/src/frame_graph.rs); do not edit.\n",
        );
        dot.push_str("digraph frame {\n");
        dot.push_str("  rankdir=TB;\n  nodesep=0.4;\n  ranksep=0.45;\n");
        dot.push_str(
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\", \
             fontname=\"Helvetica\", fontsize=12];\n",
        );
        dot.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#445566\"];\n");
        for (index, (name, barriers)) in self.passes.iter().enumerate() {
            let plural = if *barriers == 1 { "" } else { "s" };
            writeln!(
                dot,
                "  p{index} [label=\"{name}\\n{barriers} barrier{plural}\"];"
            )
            .unwrap();
        }
        // Frame order, also where no buffer links two neighbours.
        for index in 1..self.passes.len() {
            writeln!(
                dot,
                "  p{} -> p{index} [style=invis, weight=10];",
                index - 1
            )
            .unwrap();
        }
        for ((from, to), buffers) in &self.edges {
            let label: Vec<&str> = buffers.keys().map(String::as_str).collect();
            let style = if buffers.values().all(|h| *h == Hazard::WriteAfterRead) {
                "dashed"
            } else {
                "solid"
            };
            writeln!(
                dot,
                "  p{from} -> p{to} [label=\"{}\", style={style}];",
                label.join("\\n")
            )
            .unwrap();
        }
        dot.push_str("}\n");
        dot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    fn buffer(n: u64) -> vk::Buffer {
        vk::Buffer::from_raw(n)
    }

    #[test]
    fn hazards_become_edges_between_passes() {
        let mut recorder = GraphRecorder::default();
        let (a, b) = (buffer(1), buffer(2));
        recorder.enter("upload");
        recorder.declare(&[(a, true)], false);
        recorder.leave();
        recorder.enter("cull");
        recorder.declare(&[(a, false), (b, true)], true);
        recorder.declare(&[(b, true)], true);
        recorder.leave();
        recorder.enter("upload");
        recorder.declare(&[(a, true)], true);
        recorder.leave();
        let graph = recorder.finish(|raw| Some(format!("frame 0 buffer {}", raw.as_raw())));
        assert_eq!(graph.passes, vec![("upload", 1), ("cull", 2)]);
        let hazards: Vec<_> = graph
            .edges
            .iter()
            .flat_map(|(&(from, to), buffers)| {
                buffers
                    .iter()
                    .map(move |(name, hazard)| (from, to, name.clone(), *hazard))
            })
            .collect();
        assert_eq!(
            hazards,
            vec![
                (0, 1, "buffer 1".to_owned(), Hazard::ReadAfterWrite),
                (1, 0, "buffer 1".to_owned(), Hazard::WriteAfterRead),
            ]
        );
        let dot = graph.to_dot();
        assert!(
            dot.contains("p0 -> p1 [label=\"buffer 1\", style=solid];"),
            "{dot}"
        );
        assert!(
            dot.contains("p1 -> p0 [label=\"buffer 1\", style=dashed];"),
            "{dot}"
        );
    }

    #[test]
    fn slot_numbers_leave_buffer_names() {
        assert_eq!(slotless("frame 1 globals".into()), "globals");
        assert_eq!(slotless("frame globals".into()), "frame globals");
        assert_eq!(slotless("unit placements".into()), "unit placements");
    }
}
