// v8-heap.js — writes a real V8 heap snapshot of about NODES nodes for
// tools/v8-bench.sh: the process runs npm's Arborist (the package-tree
// engine of npm, a large JavaScript tool) and loads the installed package
// tree of DIR over and over, keeping every tree, then writes the snapshot.
// (Node 20 writes snapshots of heaps holding one huge script, such as
// TypeScript's, very slowly — minutes for 300k nodes — so a tool made of
// many small modules is used.)
// Usage: node tools/v8-heap.js ARBORIST_DIR PACKAGE_DIR NODES OUT
'use strict';
const v8 = require('v8');
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
