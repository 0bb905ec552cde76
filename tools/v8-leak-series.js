// v8-leak-series.js — writes the V8 leak series the tests read:
// testdata/v8/leak-0/1/2.heapsnapshot.zst (baseline, target, final) and
// testdata/v8/leak.plan (what was planted, counted by this script).
// A small server-like program with two planted leaks:
//   listener leak: every request adds a 'config-reload' listener to a
//     long-lived EventEmitter bus; the listener is a closure over the
//     request's context, which holds a 4 KiB payload;
//   memo leak: an unbounded memo Map, one entry a request (an integer key,
//     so the key is no heap object; the value an object with a result array).
// Each request also makes garbage that is gone by the next snapshot.
// Run by hand (needs node and the zstd command):
//   node --expose-gc tools/v8-leak-series.js [OUTDIR]
// The tests never run node.  Node ids and sizes differ from run to run (the
// tests read the bundled files and the plan's counts, which do not); the
// bundled series was written by node 20.20.2.
'use strict';
const fs = require('fs'), path = require('path'), v8 = require('v8'), cp = require('child_process');
const EventEmitter = require('events');

if (typeof gc !== 'function') throw new Error('run with node --expose-gc');

class RequestContext {
	constructor(id) { this.id = id; this.payload = new Uint8Array(4096); this.headers = { path: '/api/' + id }; }
}
class MemoEntry {
	constructor(n) { this.n = n; this.result = new Array(32).fill(n); }
}

const bus = new EventEmitter();
bus.setMaxListeners(0);
const memo = new Map();
let served = 0;

function handle(id) {
	const ctx = new RequestContext(id);
	bus.on('config-reload', function onReload() { return ctx.payload.length; }); // the listener leak
	if (!memo.has(id)) memo.set(id, new MemoEntry(id));                       // the memo leak
	const scratch = [];
	for (let i = 0; i < 8; i++) scratch.push({ i, text: 'tmp-' + id + '-' + i }); // garbage
	served += scratch.length > 0;
}

const out = process.argv[2] || path.join(__dirname, '..', 'testdata', 'v8');
const WARM = 50, LEAKED = 300, AFTER = 100;
function snapshot(k) {
	gc(); gc();
	const file = path.join(out, 'leak-' + k + '.heapsnapshot');
	v8.writeHeapSnapshot(file);
	cp.execFileSync('zstd', ['-19', '-q', '-f', '--rm', file, '-o', file + '.zst']);
}

let id = 0;
for (let i = 0; i < WARM; i++) handle(id++);   // warm up: code compiled, tables grown
snapshot(0);
for (let i = 0; i < LEAKED; i++) handle(id++); // these requests' listeners and memo entries leak
snapshot(1);
for (let i = 0; i < AFTER; i++) handle(id++);  // more requests: new in C, not candidates
snapshot(2);

fs.writeFileSync(path.join(out, 'leak.plan'),
	'# tools/v8-leak-series.js: requests served before each snapshot\n' +
	`baseline ${WARM}\ntarget ${WARM + LEAKED}\nfinal ${WARM + LEAKED + AFTER}\n` +
	'# the planted leaks: "leak NAME REQUESTS CLASS...": each request served\n' +
	'# between baseline and target leaves one object of each CLASS alive in\n' +
	'# final, held by NAME (listener: the bus\'s config-reload listeners;\n' +
	'# memo: the memo Map); each listener is a closure of its own, the leak\n' +
	'# root that holds the rest (one a request)\n' +
	`leak listener ${LEAKED} RequestContext Uint8Array\n` +
	`leak memo ${LEAKED} MemoEntry\n` +
	`# at the end: ${bus.listenerCount('config-reload')} listeners, ${memo.size} memo entries, ${served} requests\n`);
