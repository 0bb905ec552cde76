// v8-memlab.js — memlab's answer for one .heapsnapshot, for tools/v8-bench.sh:
// getFullHeapFromFile (parse, shortest paths, dominators, retained sizes),
// then one line per node in node order: "ID DOMINATOR_ID RETAINED".  Prints
// the seconds getFullHeapFromFile took on stderr.
// Usage: node tools/v8-memlab.js MEMLAB_NODE_MODULES SNAPSHOT OUT
'use strict';
const path = require('path'), fs = require('fs');
const [mods, file, out] = process.argv.slice(2);
const { getFullHeapFromFile } = require(path.join(mods, '@memlab', 'heap-analysis'));
(async () => {
	const t0 = process.hrtime.bigint();
	const heap = await getFullHeapFromFile(file);
	const secs = Number(process.hrtime.bigint() - t0) / 1e9;
	const fd = fs.openSync(out, 'w');
	let buf = [];
	heap.nodes.forEach(node => {
		const dom = node.dominatorNode;
		buf.push(node.id + ' ' + (dom ? dom.id : -1) + ' ' + node.retainedSize + '\n');
		if (buf.length === 65536) {
			fs.writeSync(fd, buf.join(''));
			buf = [];
		}
	});
	fs.writeSync(fd, buf.join(''));
	fs.closeSync(fd);
	process.stderr.write('memlab getFullHeapFromFile: ' + secs.toFixed(2) + ' s\n');
})();
