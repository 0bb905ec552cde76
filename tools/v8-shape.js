// v8-shape.js — measures the shape of real V8 heap snapshots, the figures
// `gen --format v8` (snapshot/v8_write.c) imitates and tests/v8gen.sh checks
// against: node and edge type mix, edges per node, the string table (how
// many strings, how often each is used, their lengths), the synthetic root's
// edges and the (GC roots) children, weak and shortcut edges, the widest
// object and the locations.  An implementation of its own (JSON.parse), not
// ugc-analyze's reader.  A measurement tool, never a build or test
// dependency: node tools/v8-shape.js FILE.heapsnapshot [...]  (a .zst file is
// read through the zstd command).  Prints one JSON object a file.
'use strict';
const fs = require('fs'), cp = require('child_process');

function load(file) {
	const text = file.endsWith('.zst') ? cp.execFileSync('zstd', ['-dc', file], { maxBuffer: 1 << 30 }).toString()
		: fs.readFileSync(file, 'utf8');
	return JSON.parse(text);
}

function pct(sorted, p) { return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0; }

function shape(file) {
	const s = load(file), meta = s.snapshot.meta;
	const nf = meta.node_fields.length, ef = meta.edge_fields.length;
	const nodeTypes = meta.node_types[0], edgeTypes = meta.edge_types[0];
	const N = s.nodes.length / nf, E = s.edges.length / ef, strings = s.strings;
	const ntype = {}, etype = {}, nsize = {}, ndistinct = {};
	nodeTypes.forEach(t => { ntype[t] = 0; nsize[t] = 0; ndistinct[t] = new Set(); });
	edgeTypes.forEach(t => { etype[t] = 0; });
	const uses = new Uint32Array(strings.length); // references to each string (node names, named edges)
	const deg = new Uint32Array(N);
	let wide = 0, wideAt = 0, idOdd = 0, idMax = 0, idUp = 0, lastId = -1, trace = 0, detached = 0;
	for (let i = 0; i < N; i++) {
		const b = i * nf, t = nodeTypes[s.nodes[b]];
		ntype[t]++;
		nsize[t] += s.nodes[b + 3];
		ndistinct[t].add(s.nodes[b + 1]);
		uses[s.nodes[b + 1]]++;
		deg[i] = s.nodes[b + 4];
		if (deg[i] > wide) { wide = deg[i]; wideAt = i; }
		const id = s.nodes[b + 2];
		if (id & 1) idOdd++;
		if (id > lastId) idUp++;
		lastId = id;
		if (id > idMax) idMax = id;
		if (s.nodes[b + 5]) trace++;
		if (s.nodes[b + 6]) detached++;
	}
	let elemMax = 0, selfEdges = 0, badTo = 0;
	const edgeNamed = { context: 1, property: 1, internal: 1, shortcut: 1, weak: 1 };
	const firstEdge = new Uint32Array(N + 1);
	for (let i = 0; i < N; i++) firstEdge[i + 1] = firstEdge[i] + deg[i];
	for (let e = 0; e < E; e++) {
		const b = e * ef, t = edgeTypes[s.edges[b]];
		etype[t]++;
		if (edgeNamed[t]) uses[s.edges[b + 1]]++;
		else if (s.edges[b + 1] > elemMax) elemMax = s.edges[b + 1];
		if (s.edges[b + 2] % nf) badTo++;
	}
	// the root: node 0's edges, and its first element's children ((GC roots))
	const rootEdges = [];
	for (let e = firstEdge[0]; e < firstEdge[1]; e++) {
		const b = e * ef, to = s.edges[b + 2] / nf;
		rootEdges.push(edgeTypes[s.edges[b]] + ' -> ' + nodeTypes[s.nodes[to * nf]] + ' "' +
			String(strings[s.nodes[to * nf + 1]]).slice(0, 40) + '" (' + deg[to] + ' edges)');
	}
	const used = uses.reduce((a, u) => a + (u > 0), 0), refs = uses.reduce((a, u) => a + u, 0);
	const lens = strings.map(x => x.length).sort((a, b) => a - b);
	const degs = Array.from(deg).sort((a, b) => a - b);
	const share = o => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, +(v / (o === ntype ? N : E)).toFixed(5)]));
	const loc = s.locations ? s.locations.length / meta.location_fields.length : 0;
	// shares of the strings used once, 2-10 times, more
	let once = 0, few = 0, many = 0;
	for (const u of uses) if (u === 1) once++; else if (u > 1 && u <= 10) few++; else if (u > 10) many++;
	return {
		file, node_count: N, edge_count: E, edges_per_node: +(E / N).toFixed(3),
		node_types: share(ntype), edge_types: share(etype),
		mean_self_size: Object.fromEntries(Object.entries(nsize).map(([k, v]) => [k, ntype[k] ? Math.round(v / ntype[k]) : 0])),
		distinct_names_by_type: Object.fromEntries(Object.entries(ndistinct).map(([k, v]) => [k, v.size])),
		strings: strings.length, strings_per_node: +(strings.length / N).toFixed(4), strings_used: used,
		string_refs: refs, refs_per_string: +(refs / strings.length).toFixed(2),
		strings_used_once: once, strings_used_2_10: few, strings_used_over_10: many,
		string_len: { p10: pct(lens, 0.1), p50: pct(lens, 0.5), p90: pct(lens, 0.9), p99: pct(lens, 0.99), max: lens[lens.length - 1],
			mean: +(lens.reduce((a, l) => a + l, 0) / lens.length).toFixed(1) },
		out_degree: { p50: pct(degs, 0.5), p90: pct(degs, 0.9), p99: pct(degs, 0.99), p999: pct(degs, 0.999), max: wide,
			widest: nodeTypes[s.nodes[wideAt * nf]] + ' "' + String(strings[s.nodes[wideAt * nf + 1]]).slice(0, 30) + '"',
			zero: +(degs.filter(d => d === 0).length / N).toFixed(4) },
		element_index_max: elemMax, to_node_not_multiple: badTo,
		ids: { odd: +(idOdd / N).toFixed(4), increasing: +(idUp / N).toFixed(4), max: idMax },
		trace_node_id_nonzero: trace, detachedness_nonzero: detached, locations: loc,
		root_edges: rootEdges,
		gc_roots_children: deg[1],
	};
}

for (const f of process.argv.slice(2))
	console.log(JSON.stringify(shape(f), null, 1));
