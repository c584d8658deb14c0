// loop_cap: how many iterations a compute shader's loops really run (src/gpu/loop_cap.rs).
// Some drivers end every loop of a shader invocation after a fixed number of iterations, without
// a word: Mesa's gallivm, the JIT behind lavapipe and llvmpipe, stops once the loops of one
// invocation have run 65 535 iterations together (LP_MAX_TGSI_LOOP_ITERATIONS). A multiply whose
// k loop runs longer than that comes back short. The methods' k splitting needs the real cap,
// not a guess from a driver's name, so this probe measures it: one invocation runs two loops,
// one after the other, each asked for `probe.asked` iterations (a uniform, so no compiler knows
// the count), and writes how many each ran. The first count is the cap (or `asked` where there
// is none up to it); the second says whether the cap counts each loop on its own (the second
// loop runs as far as the first) or every loop of the invocation together (it runs almost none).
// The same probe for the fragment stage is loop_cap_fragment.wgsl.

struct Probe {
    asked: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> probe: Probe;
@group(0) @binding(1) var<storage, read_write> counts: array<u32, 2>;

@compute @workgroup_size(1)
fn main() {
    var first = 0u;
    for (var i = 0u; i < probe.asked; i++) {
        first += 1u;
    }
    var second = 0u;
    for (var i = 0u; i < probe.asked; i++) {
        second += 1u;
    }
    counts[0] = first;
    counts[1] = second;
}
