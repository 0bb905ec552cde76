// v8-testdata.js — writes testdata/v8/node-small.heapsnapshot.zst, the real
// V8 heap snapshot the unit tests read, and testdata/v8/node-small.expect,
// figures this script computes from the JSON on its own (an implementation
// independent of ugc-analyze's reader) for the tests to compare against.
// Run once by hand (needs node and the zstd command): node tools/v8-testdata.js
// The tests never run node.
'use strict';
const fs = require('fs'), path = require('path'), v8 = require('v8'), cp = require('child_process');

// A small program's heap: classes with instances, a Map, closures, strings,
// and weak edges (a WeakMap and a WeakRef).
class Player { constructor(name) { this.name = name; this.inventory = []; } }
class Item { constructor(kind, owner) { this.kind = kind; this.owner = owner; } }
const players = ['ann', 'bob', 'cy'].map(n => new Player(n));
for (const p of players) for (let i = 0; i < 3; i++) p.inventory.push(new Item('sword-' + i, p));
const seen = new WeakMap();
players.forEach(p => seen.set(p, { since: Date.now() }));
global.app = { players, byName: new Map(players.map(p => [p.name, p])), seen,
	last: new WeakRef(players[0]), onTick: () => players.length };

const dir = path.join(__dirname, '..', 'testdata', 'v8');
const raw = path.join(dir, 'node-small.heapsnapshot');
v8.writeHeapSnapshot(raw);
const snap = JSON.parse(fs.readFileSync(raw, 'utf8'));
cp.execFileSync('zstd', ['-19', '-q', '-f', '--rm', raw, '-o', raw + '.zst']);

const meta = snap.snapshot.meta, nf = meta.node_fields.length, ef = meta.edge_fields.length;
const nodes = snap.nodes, edges = snap.edges, strings = snap.strings;
const nodeTypes = meta.node_types[0], edgeTypes = meta.edge_types[0];
const fType = meta.node_fields.indexOf('type'), fName = meta.node_fields.indexOf('name');
const fSize = meta.node_fields.indexOf('self_size'), fCount = meta.node_fields.indexOf('edge_count');
const fId = meta.node_fields.indexOf('id');
const eType = meta.edge_fields.indexOf('type'), eTo = meta.edge_fields.indexOf('to_node');
const n = nodes.length / nf, m = edges.length / ef;

// DevTools' className()
const classOf = i => {
	const t = nodeTypes[nodes[i * nf + fType]];
	return t === 'hidden' ? '(system)' : t === 'object' || t === 'native' ? strings[nodes[i * nf + fName]]
		: t === 'code' ? '(compiled code)' : '(' + t + ')';
};
const classes = new Set();
let bytes = 0, ids = 0;
for (let i = 0; i < n; i++) { classes.add(classOf(i)); bytes += nodes[i * nf + fSize]; }
// the node ids in node order, an order-sensitive checksum (DevTools' @ID)
for (let i = 0; i < n; i++) ids = (ids + nodes[i * nf + fId] * (i % 1000 + 1)) % 4294967296;

// edges: kinds as the mapping gives them, an order-sensitive checksum of
// the targets, and the graph DevTools calls essential (not weak, shortcut
// only from the root)
const first = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) first[i + 1] = first[i] + nodes[i * nf + fCount];
let strong = 0, weak = 0, soft = 0, check = 0;
for (let k = 0; k < m; k++) {
	const t = edgeTypes[edges[k * ef + eType]], to = edges[k * ef + eTo] / nf;
	if (t === 'weak') weak++;
	else if (t === 'shortcut' && k >= first[1]) soft++;
	else strong++;
	check = (check + to * (k % 1000 + 1)) % 4294967296;
}
const reached = new Uint8Array(n), stack = [0];
reached[0] = 1;
let reachable = 0, reachableBytes = 0;
while (stack.length) {
	const i = stack.pop();
	reachable++;
	reachableBytes += nodes[i * nf + fSize];
	for (let k = first[i]; k < first[i + 1]; k++) {
		const t = edgeTypes[edges[k * ef + eType]], to = edges[k * ef + eTo] / nf;
		if (t === 'weak' || (t === 'shortcut' && i !== 0) || reached[to]) continue;
		reached[to] = 1;
		stack.push(to);
	}
}
const lines = [
	['nodes', n], ['edges', m], ['bytes', bytes], ['classes', classes.size],
	['strong', strong], ['weak', weak], ['soft', soft], ['target_checksum', check],
	['reachable', reachable], ['reachable_bytes', reachableBytes], ['id_checksum', ids],
];
fs.writeFileSync(path.join(dir, 'node-small.expect'),
	'# figures computed by tools/v8-testdata.js from the snapshot JSON\n' +
	lines.map(([k, v]) => k + ' ' + v).join('\n') + '\n');
console.log(lines.map(([k, v]) => k + '=' + v).join(' '));
