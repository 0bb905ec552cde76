// v8-heap.js — writes a real V8 heap snapshot for tools/v8-bench.sh, of one
// of these shapes:
//  - app (the default): about NODES nodes of an ordinary application heap.
//    The process runs npm's Arborist (the package-tree engine of npm, a
//    large JavaScript tool) and loads the installed package tree of DIR
//    over and over, keeping every tree.  (Node 20 writes snapshots of heaps
//    holding one huge script, such as TypeScript's, very slowly — minutes
//    for 300k nodes — so a tool made of many small modules is used.)
//  - props: one object with N distinct property names ("p0", "p1", ...),
//    each holding an object of its own: N distinct edge names, and N
//    distinct string nodes (the names' own strings).
//  - chain: a linked list N objects long (each { next, v }), so every
//    dominator is the one before and the paths are N deep.
//  - maps: N objects held as WeakMap keys (ephemerons: the value lives as
//    long as its key) and as Map values, in N / 1000 Maps and one WeakMap.
// Usage: node tools/v8-heap.js ARBORIST_DIR PACKAGE_DIR NODES OUT
//        node tools/v8-heap.js props|chain|maps N OUT
'use strict';
const v8 = require('v8');
const shapes = {
	props(n) {
		const o = {};
		for (let i = 0; i < n; i++)
			o['p' + i] = { i };
		return o;
	},
	chain(n) {
		let head = null;
		for (let i = 0; i < n; i++)
			head = { next: head, v: i };
		return head;
	},
	maps(n) {
		const weak = new WeakMap(), maps = [];
		for (let i = 0; i < n; i++) {
			if (i % 1000 === 0)
				maps.push(new Map());
			const key = { i };
			weak.set(key, { of: i });
			maps[maps.length - 1].set('k' + (i % 1000), key);
		}
		return { weak, maps };
	},
};
if (shapes[process.argv[2]]) {
	const [shape, n, out] = process.argv.slice(2);
	global.kept = shapes[shape](Number(n));
	v8.writeHeapSnapshot(out);
	console.log(out + ': ' + shape + ' ' + n);
} else {
	const [arborist, dir, nodes, out] = process.argv.slice(2);
	const Arborist = require(arborist);
	// measured on node 20: about 120k nodes for the first tree, 13k a tree after
	const copies = Math.max(1, Math.round((Number(nodes) - 120000) / 13000) + 1);
	(async () => {
		global.trees = [];
		for (let i = 0; i < copies; i++)
			global.trees.push(await new Arborist({ path: dir }).loadActual());
		v8.writeHeapSnapshot(out);
		console.log(out + ': ' + copies + ' package trees');
	})();
}
