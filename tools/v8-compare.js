// v8-compare.js — how many nodes memlab and ugc-analyze agree on, for
// tools/v8-bench.sh.  MEMLAB is tools/v8-memlab.js's dump ("ID DOMINATOR_ID
// RETAINED" per node, in node order); UGC is "IDX,IDOM,RETAINED" CSV rows of
// the V8 nodes in index order (idx = first-gc-index + ordinal; IDOM and
// RETAINED empty when the node is unreachable).  Prints one line:
//   idom A, retained B, both C of R reachable; U unreachable
// where A, B and C count reachable nodes that agree, and U the nodes
// ugc-analyze finds unreachable (memlab hangs those under the root).
// Usage: node tools/v8-compare.js MEMLAB UGC FIRST_GC_INDEX
'use strict';
const fs = require('fs');
const [mfile, ufile, fgiArg] = process.argv.slice(2);
const fgi = Number(fgiArg);
const lines = t => t.split('\n').filter(l => l.length);
const m = lines(fs.readFileSync(mfile, 'utf8')).map(l => l.split(' '));
const u = lines(fs.readFileSync(ufile, 'utf8')).map(l => l.split(','));
if (m.length !== u.length) {
	console.log('node counts differ: memlab ' + m.length + ', ugc-analyze ' + u.length);
	process.exit(1);
}
let reachable = 0, idom = 0, retained = 0, both = 0, unreachable = 0;
const shown = [];
for (let i = 0; i < m.length; i++) {
	const [id, mdom, mret] = m[i], [, udom, uret] = u[i];
	if (uret === '') {
		unreachable++;
		continue;
	}
	reachable++;
	// ugc: idom empty = the super-root (node 0 only); memlab: the root is its own dominator
	const udomId = udom === '' ? id : m[Number(udom) - fgi][0];
	const okDom = udomId === mdom, okRet = Number(uret) === Number(mret);
	idom += okDom;
	retained += okRet;
	both += okDom && okRet;
	if ((!okDom || !okRet) && shown.length < 5)
		shown.push('@' + id + ': memlab idom @' + mdom + ' retained ' + mret + ', ugc-analyze idom @' + udomId +
			' retained ' + uret);
}
console.log('idom ' + idom + ', retained ' + retained + ', both ' + both + ' of ' + reachable + ' reachable; ' +
	unreachable + ' unreachable');
for (const s of shown)
	console.error('  differs: ' + s);
