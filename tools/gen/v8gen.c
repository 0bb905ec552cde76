/* v8gen.c — `gen --format v8`: a synthetic V8 heap snapshot of any size,
 * shaped like the ones Node 20 writes (the shape measured by
 * tools/v8-shape.js on real snapshots: BENCHMARKS.md, "Synthetic V8
 * snapshots"), written through snapshot/v8_write.c as a stream.
 *
 * Layout of the nodes, by index:
 *   0            the synthetic root ""  (element 1 -> (GC roots), shortcut
 *                "2" -> the global object, elements 3..5 -> C++ roots, C++
 *                cross-thread roots, Node / Environment), as Node writes it
 *   1            (GC roots): element k -> node k + 1, k = 1..28
 *   2..29        the 28 sub-roots, named as V8 names them; (Read-only roots)
 *                holds the map hubs, the others tree children, as many as in
 *                the 1M-node app snapshot scaled by N / 1M
 *   30, 31, 32   C++ roots, C++ cross-thread roots, Node / Environment
 *   33           the global object "global": tree children by property
 *                names, and the heads of the special shapes
 *   34..34+M-1   M map hubs, hidden "system / Map ..." nodes: every heap
 *                object's internal "map" edge goes to one of them
 *   body         [B0, BE): nodes whose types are drawn from the app mix, each
 *                with the edges V8 gives its type (a map, __proto__,
 *                properties named by identifiers, arrays' slots named by
 *                decimal numbers, a closure's shared/context/code, ...)
 *   specials     [BE, N): the --chain list, the --wide array and its
 *                items, the --distinct-names object (its dictionary, key
 *                strings and values), in that order
 * Reachability: the body is a breadth-first tree: the roots and then each
 * body node in order take the next unreached nodes as the targets of some
 * of their strong edges (probability TREE_P an edge, and one forced when the
 * frontier would otherwise empty), so every node is reachable from node 0;
 * the other edges go near their source or to popular early nodes.
 *
 * Streaming in bounded memory: nothing is stored per node, edge or string.
 * Every node is generated from one sequential random stream, so the same
 * stream replayed gives the same node, and the generation runs four times:
 * once to count (edges, strings, locations: the header comes first), then
 * once each for "nodes", "edges" and "locations".  Strings are regions of
 * the table: a fixed list (root names, V8's system names, edge names),
 * identifiers, texts, decimal numbers and the --distinct-names "pK"; string
 * K of a region is a function of K alone (identifiers and texts encode K in
 * syllables, so they are all distinct), so the table is written at the end
 * without having been kept, and a node or edge refers to a region's string
 * by a counter (a new one) or a skewed draw among those already used (a
 * reuse).  Memory is the writer's buffer; time is linear in nodes + edges. */
#include "tools/gen/gen.h"
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* node types, as meta.node_types lists them */
enum { T_HIDDEN, T_ARRAY, T_STRING, T_OBJECT, T_CODE, T_CLOSURE, T_REGEXP, T_NUMBER, T_NATIVE, T_SYNTHETIC,
       T_CONS, T_SLICED, T_SYMBOL, T_BIGINT, T_SHAPE, T_NTYPES = 16 };
/* edge types, as meta.edge_types lists them */
enum { E_CONTEXT, E_ELEMENT, E_PROPERTY, E_INTERNAL, E_HIDDEN, E_SHORTCUT, E_WEAK };

/* The fixed strings: index = position in the table. */
#define FIXED(X)                                                                                                  \
	X(DUMMY, "<dummy>") X(EMPTY, "") X(GC_ROOTS, "(GC roots)") X(R_INTERNALIZED, "(Internalized strings)")      \
	X(R_EXTERNAL, "(External strings)") X(R_READONLY, "(Read-only roots)") X(R_STRONG, "(Strong roots)")       \
	X(R_SMI, "(Smi roots)") X(R_BOOT, "(Bootstrapper)") X(R_STACK, "(Stack roots)")                            \
	X(R_RELOC, "(Relocatable)") X(R_DEBUGGER, "(Debugger)") X(R_CCACHE, "(Compilation cache)")                 \
	X(R_HANDLES, "(Handle scope)") X(R_BUILTINS, "(Builtins)") X(R_GLOBAL, "(Global handles)")                 \
	X(R_TRACED, "(Traced handles)") X(R_ETERNAL, "(Eternal handles)") X(R_THREAD, "(Thread manager)")         \
	X(R_EXT, "(Extensions)") X(R_FLUSHER, "(Code flusher)") X(R_STARTUP, "(Startup object cache)")             \
	X(R_ROCACHE, "(Read-only object cache)") X(R_SHARED, "(Shareable object cache)")                          \
	X(R_WEAKC, "(Weak collections)") X(R_WRAPPER, "(Wrapper tracing)") X(R_BARRIER, "(Write barrier)")         \
	X(R_RETAIN, "(Retain maps)") X(R_CLIENT, "(Client heap)") X(R_UNKNOWN, "(Unknown)")                        \
	X(CPP_ROOTS, "C++ roots") X(CPP_XROOTS, "C++ cross-thread roots") X(NODE_ENV, "Node / Environment")         \
	X(GLOBAL, "global") X(MAP, "system / Map") X(MAP_ONEBYTE, "system / Map (OneByteString)")                  \
	X(MAP_INTERNALIZED, "system / Map (OneByteInternalizedString)") X(MAP_STRING, "system / Map (String)")     \
	X(MAP_CONS, "system / Map (ConsOneByteString)") X(MAP_SLICED, "system / Map (SlicedOneByteString)")        \
	X(MAP_THIN, "system / Map (ThinString)") X(ODDBALL, "system / Oddball") X(CONTEXT, "system / Context")     \
	X(NATIVE_CONTEXT, "system / NativeContext") X(SCOPE_INFO, "system / ScopeInfo")                            \
	X(FEEDBACK_CELL, "system / FeedbackCell") X(FEEDBACK_VECTOR, "system / FeedbackVector")                    \
	X(DESCRIPTORS, "system / DescriptorArray") X(ACCESSOR_PAIR, "system / AccessorPair")                       \
	X(ACCESSOR_INFO, "system / AccessorInfo") X(FOREIGN, "system / Foreign") X(CELL, "system / Cell")          \
	X(PROPERTY_CELL, "system / PropertyCell") X(WEAK_ARRAY_LIST, "system / WeakArrayList")                     \
	X(ENUM_CACHE, "system / EnumCache") X(CLASS_POSITIONS, "system / ClassPositions")                          \
	X(UNCOMPILED, "system / UncompiledDataWithoutPreparseData") X(BYTECODE, "system / BytecodeArray")          \
	X(SFI, "(shared function info)") X(COMPILE_LAZY, "(CompileLazy builtin handle)")                          \
	X(INTERPRETER, "(InterpreterEntryTrampoline builtin handle)") X(OBJ_PROPERTIES, "(object properties)")     \
	X(OBJ_ELEMENTS, "(object elements)") X(HEAP_NUMBER, "heap number") X(SYMBOL, "symbol") X(BIGINT, "bigint") \
	X(CONS_NAME, "(concatenated string)") X(SLICED_NAME, "(sliced string)") X(N_ASYNC, "Node / AsyncHooks")     \
	X(N_BINDING, "Node / BindingData") X(N_STRING, "Node / std::basic_string")                                \
	X(N_BUFFER, "system / JSArrayBufferData") X(N_ALIASED, "Node / AliasedUint32Array")                        \
	X(C_OBJECT, "Object") X(C_ARRAY, "Array") X(C_FUNCTION, "Function") X(C_MAP, "Map") X(C_SET, "Set")        \
	X(C_PROMISE, "Promise") X(C_ERROR, "Error") X(C_BUFFER, "Buffer") X(C_U8, "Uint8Array")                    \
	X(C_ARRAYBUFFER, "ArrayBuffer") X(C_DATE, "Date") X(C_REGEXP, "RegExp") X(C_WEAKMAP, "WeakMap")            \
	X(C_MODULE, "Module") X(C_EMITTER, "EventEmitter") X(C_NODE, "Node") X(C_EDGE, "Edge")                     \
	X(C_LINK, "Link") X(C_INVENTORY, "Inventory") X(C_URL, "URL") X(I_MAP, "map") X(I_PROPERTIES, "properties") \
	X(I_ELEMENTS, "elements") X(I_PROTO, "__proto__") X(I_FEEDBACK, "feedback_cell") X(I_SHARED, "shared")     \
	X(I_CONTEXT, "context") X(I_CODE, "code") X(I_PROTOTYPE, "prototype") X(I_CONSTRUCTOR, "constructor")      \
	X(I_DESCRIPTORS, "descriptors") X(I_DEPENDENT, "dependent_code") X(I_TRANSITION, "transition")            \
	X(I_BACK, "back_pointer") X(I_FIRST, "first") X(I_SECOND, "second") X(I_PARENT, "parent")                  \
	X(I_NAME, "name") X(I_SCOPE, "scope_info") X(I_PREVIOUS, "previous") X(I_NOS, "name_or_scope_info")        \
	X(I_SCRIPT, "script_or_debug_info") X(I_FDATA, "function_data") X(I_TABLE, "table")                        \
	X(I_ENUM, "enum_cache") X(I_GETTER, "getter") X(I_SETTER, "setter") X(I_VALUE, "value")                    \
	X(I_TARGET, "target") X(I_NEXT, "next") X(I_HEAD, "head") X(I_WIDE, "wide") X(I_PROPS, "props")

#define FX_ENUM(id, s) F_##id,
#define FX_STR(id, s) s,
enum { FIXED(FX_ENUM) F_COUNT };
static const char *const fixed_str[] = {FIXED(FX_STR)};

/* string regions, in table order */
enum { R_FIXED, R_IDENT, R_TEXT, R_DEC, R_PNAME, R_COUNT };

/* The 28 sub-roots of (GC roots) in Node 20's order (the name (Strong roots)
 * twice), and their edge counts in the 1M-node app snapshot (app1m, BENCHMARKS.md). */
static const uint8_t subroot_name[28] = {
	F_R_INTERNALIZED, F_R_EXTERNAL, F_R_READONLY, F_R_STRONG, F_R_SMI, F_R_BOOT, F_R_STACK, F_R_RELOC,
	F_R_DEBUGGER, F_R_CCACHE, F_R_HANDLES, F_R_BUILTINS, F_R_GLOBAL, F_R_TRACED, F_R_ETERNAL, F_R_THREAD,
	F_R_STRONG, F_R_EXT, F_R_FLUSHER, F_R_STARTUP, F_R_ROCACHE, F_R_SHARED, F_R_WEAKC, F_R_WRAPPER,
	F_R_BARRIER, F_R_RETAIN, F_R_CLIENT, F_R_UNKNOWN};
static const uint32_t subroot_edges_1m[28] = {18237, 182, 739, 85, 0, 0, 49, 5, 0, 5, 34, 2189, 107, 0,
					      496, 0, 0, 1, 0, 5790, 0, 5594, 0, 0, 0, 0, 0, 0};
#define READONLY_SUBROOT 2 /* (Read-only roots): its edges go to the map hubs */
#define APP_NODES 1024612.0

#define N_HEADER 34 /* nodes 0..33 */
#define N_MAPS 64   /* map hubs */
#define GLOBAL_NODE 33
#define ENV_NODE 32
#define GLOBAL_KIDS 220
#define ENV_KIDS 11

/* The body's node type mix: the shares in the 1M-node app snapshot (app1m,
 * measured by tools/v8-shape.js), in parts per million. */
static const uint32_t body_mix[T_NTYPES] = {
	[T_HIDDEN] = 23240, [T_ARRAY] = 284300, [T_STRING] = 130510, [T_OBJECT] = 420900, [T_CODE] = 41270,
	[T_CLOSURE] = 13430, [T_REGEXP] = 250, [T_NUMBER] = 160, [T_NATIVE] = 220, [T_CONS] = 27370,
	[T_SLICED] = 44880, [T_SYMBOL] = 780, [T_BIGINT] = 10, [T_SHAPE] = 12660,
};

#define TREE_P 0.40      /* an eligible edge's chance of taking the next unreached node */
#define POPULAR_P 0.15   /* a non-tree edge's chance of going to a popular node */
#define LOCAL_MEAN 300.0 /* a local edge's mean distance */
#define FRESH_IDENT 0.008 /* an identifier draw's chance of a new identifier */
#define FRESH_TEXT 0.20   /* a text draw's chance of a new text */

enum { PASS_COUNT, PASS_NODES, PASS_EDGES, PASS_LOCATIONS };

typedef struct gv8 {
	const gen_v8_options *opt;
	v8w *w;
	int pass;
	uint64_t rng;
	/* layout */
	uint64_t n, b0, be, chain0, wide0, props0, popular;
	uint32_t subroot_kids[28];
	uint32_t mix_cum[T_NTYPES]; /* cumulative body_mix */
	/* replayed state, reset each pass */
	uint64_t next_child, id, nident, ntext, ndec, edges_here, edges, locations;
	uint64_t base[R_COUNT], size[R_COUNT];
	char sbuf[8192];
} gv8;

static inline uint64_t rnd(gv8 *g)
{
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static inline double unif(gv8 *g) { return (double)(rnd(g) >> 11) * (1.0 / 9007199254740992.0); }
static inline uint64_t below(gv8 *g, uint64_t n) { return (uint64_t)(unif(g) * (double)n); }
/* floor of an exponential draw of mean M */
static inline uint64_t geo(gv8 *g, double m) { return (uint64_t)(-log(1.0 - unif(g)) * m); }

static inline uint64_t S(const gv8 *g, int region, uint64_t k) { return g->base[region] + k; }
static uint64_t fixed(int f) { return (uint64_t)f; }

/* --- strings: string K of a region, as a function of K --- */

static const char CONS[] = "bcdfghklmnprstvz", VOW[] = "aeio";

/* identifier K: syllables of K in base 64 (at least two), the second on
 * capitalized ("baKoTi"), the first too for one K in five (a class name);
 * two to four syllables at least, by K */
static size_t ident_text(uint64_t k, char *out)
{
	size_t n = 0;
	uint64_t h = (k * 0x9E3779B97F4A7C15ull) >> 56;
	int cap_first = h % 5 == 0, least = 2 + (h % 3 == 0) + (h % 7 == 0);
	uint64_t v = k;
	for (int s = 0; s < least || v > 0; s++) {
		unsigned d = (unsigned)(v & 63);
		v >>= 6;
		char c = CONS[d >> 2];
		out[n++] = (char)((s > 0 || cap_first) ? c - 'a' + 'A' : c);
		out[n++] = VOW[d & 3];
	}
	return n;
}

/* text K: at least two lowercase words, which encode K in base 4096, and
 * more for some K (the app snapshot's lengths: median 9, 1% near 800
 * bytes), joined as a sentence, a path, a kebab-case name or a URL */
static size_t text_text(uint64_t k, char *out)
{
	uint64_t h = (k + 1) * 0xD1B54A32D192ED03ull;
	h ^= h >> 29;
	h *= 0x9E3779B97F4A7C15ull;
	unsigned style = (unsigned)(h >> 62), r = (unsigned)((h >> 40) & 1023);
	unsigned words = 0;
	for (uint64_t v = k; v > 0; v >>= 12)
		words++;
	unsigned extra = r < 520 ? 0 : r < 800 ? 1 + r % 3 : r < 900 ? 4 + r % 8 : r < 995 ? 10 + r % 20 : 150 + r % 40;
	words = (words < 2 ? 2 : words) + extra;
	static const char *const sep[] = {" ", "/", "-", "/"};
	size_t n = 0;
	if (style == 1)
		out[n++] = '/';
	if (style == 3) {
		memcpy(out, "https://", 8);
		n = 8;
	}
	uint64_t v = k;
	for (unsigned w = 0; w < words; w++) {
		unsigned d = (unsigned)(v & 4095);
		v >>= 12;
		if (w)
			out[n++] = sep[style][0];
		out[n++] = CONS[(d >> 2) & 15];
		out[n++] = VOW[d & 3];
		out[n++] = CONS[(d >> 8) & 15];
		out[n++] = VOW[(d >> 6) & 3];
	}
	if (style == 1)
		memcpy(out + n, ".js", 3), n += 3;
	return n;
}

static size_t string_text(const gv8 *g, int region, uint64_t k, char *out)
{
	(void)g;
	switch (region) {
	case R_FIXED:
		memcpy(out, fixed_str[k], strlen(fixed_str[k]));
		return strlen(fixed_str[k]);
	case R_IDENT:
		return ident_text(k, out);
	case R_TEXT:
		return text_text(k, out);
	case R_DEC:
		return (size_t)snprintf(out, 24, "%llu", (unsigned long long)k);
	default:
		return (size_t)snprintf(out, 24, "p%llu", (unsigned long long)k);
	}
}

/* A string of REGION for a name that is used (USE; the draws are made
 * either way, so that the stream does not depend on it): a new one (chance
 * FRESH_P), else one already used, the early (popular) ones likelier. */
static uint64_t pick(gv8 *g, uint64_t *count, double fresh_p, int region, int use)
{
	double u = unif(g), v = unif(g);
	if (!use)
		return 0;
	uint64_t k = (u < fresh_p || *count == 0) ? (*count)++ : (uint64_t)((double)*count * v * v * v);
	return S(g, region, k);
}
static uint64_t ident_if(gv8 *g, int use) { return pick(g, &g->nident, FRESH_IDENT, R_IDENT, use); }
static uint64_t text_if(gv8 *g, int use) { return pick(g, &g->ntext, FRESH_TEXT, R_TEXT, use); }
static uint64_t ident(gv8 *g) { return ident_if(g, 1); }
static uint64_t text(gv8 *g) { return text_if(g, 1); }
/* a class name: one of the first identifiers (the constructors an app
 * defines are few), else Object */
static uint64_t class_name(gv8 *g)
{
	double v = unif(g);
	uint64_t n = g->nident < 200 ? g->nident : 200;
	return n ? S(g, R_IDENT, (uint64_t)((double)n * v * v)) : fixed(F_C_OBJECT);
}
static uint64_t dec(gv8 *g, uint64_t k)
{
	if (k + 1 > g->ndec)
		g->ndec = k + 1;
	return S(g, R_DEC, k);
}

/* --- edges --- */

static void edge(gv8 *g, int type, uint64_t name, uint64_t to)
{
	g->edges_here++;
	g->edges++;
	if (g->pass == PASS_EDGES) {
		uint64_t rec[3] = {(uint64_t)type, name, to * 7};
		v8w_record(g->w, rec, 3);
	}
}

static uint64_t map_hub(gv8 *g, int type)
{
	return N_HEADER + ((uint64_t)type * 4 + below(g, 4)) % N_MAPS;
}

/* A target that is not a tree child: a popular early body node, or one
 * near I. */
static uint64_t other_target(gv8 *g, uint64_t i)
{
	double u = unif(g), v = unif(g), w = unif(g);
	uint64_t body = g->be - g->b0;
	if (u < POPULAR_P)
		return g->b0 + (uint64_t)((double)g->popular * v * v * v * v);
	uint64_t d = 1 + (uint64_t)(-log(1.0 - v) * LOCAL_MEAN);
	if (d >= body)
		d = body - 1;
	uint64_t t = w < 0.5 ? (i >= g->b0 + d ? i - d : i + d) : (i + d < g->be ? i + d : i - d);
	return t < g->b0 ? g->b0 : t >= g->be ? g->be - 1 : t;
}

/* A strong edge's target: the next unreached node (chance TREE_P), else
 * another. */
static uint64_t target(gv8 *g, uint64_t i)
{
	double u = unif(g);
	uint64_t t = other_target(g, i);
	if (u < TREE_P && g->next_child < g->be)
		return g->next_child++;
	return t;
}

/* --- nodes --- */

static void node(gv8 *g, int type, uint64_t name, uint64_t size)
{
	if (g->pass == PASS_NODES) {
		uint64_t rec[7] = {(uint64_t)type, name, g->id, size, g->edges_here, 0, 0};
		v8w_record(g->w, rec, 7);
	}
	g->edges_here = 0;
}

static void next_id(gv8 *g, uint64_t i)
{
	if (i < g->b0) {
		g->id = 1 + 2 * i;
		return;
	}
	double u = unif(g);
	uint64_t gap = below(g, 1000);
	g->id += 2 * (1 + (u < 0.05 ? gap : 0));
}

static void location(gv8 *g, uint64_t i)
{
	double u = unif(g);
	uint64_t script = 1 + (uint64_t)(600.0 * u * u), line = below(g, 2000), col = below(g, 80);
	g->locations++;
	if (g->pass == PASS_LOCATIONS) {
		uint64_t rec[4] = {i * 7, script, line, col};
		v8w_record(g->w, rec, 4);
	}
}

static uint64_t align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }

static int body_type(gv8 *g)
{
	uint32_t r = (uint32_t)below(g, g->mix_cum[T_NTYPES - 1]);
	int t = 0;
	while (t < T_NTYPES - 1 && r >= g->mix_cum[t])
		t++;
	return t;
}

/* a string node's size: its content's length, as V8's sequential strings */
static uint64_t string_size(gv8 *g, uint64_t name)
{
	if (g->pass != PASS_NODES)
		return 0;
	for (int r = R_COUNT - 1; r >= 0; r--)
		if (name >= g->base[r])
			return align8(16 + string_text(g, r, name - g->base[r], g->sbuf));
	return 16;
}

static const uint8_t ctor_names[] = {F_C_ARRAY, F_C_FUNCTION, F_C_MAP, F_C_SET, F_C_PROMISE, F_C_ERROR,
				     F_C_BUFFER, F_C_U8, F_C_ARRAYBUFFER, F_C_DATE, F_C_REGEXP, F_C_WEAKMAP,
				     F_C_MODULE, F_C_EMITTER, F_C_NODE, F_C_EDGE, F_C_LINK, F_C_INVENTORY, F_C_URL};
static const uint8_t hidden_names[] = {F_ODDBALL, F_FEEDBACK_VECTOR, F_ACCESSOR_PAIR, F_ACCESSOR_INFO, F_FOREIGN,
				       F_CELL, F_PROPERTY_CELL, F_WEAK_ARRAY_LIST, F_ENUM_CACHE,
				       F_CLASS_POSITIONS, F_FEEDBACK_CELL};
static const uint8_t code_names[] = {F_SCOPE_INFO, F_SFI, F_COMPILE_LAZY, F_INTERPRETER, F_UNCOMPILED,
				     F_BYTECODE, F_FEEDBACK_CELL, F_WEAK_ARRAY_LIST};
static const uint8_t code_edges[] = {F_I_NOS, F_I_SCRIPT, F_I_FDATA, F_I_SCOPE, F_I_TABLE};
static const uint8_t native_names[] = {F_N_ASYNC, F_N_BINDING, F_N_STRING, F_N_BUFFER, F_N_ALIASED};

#define PICK(g, list) ((uint64_t)(list)[below(g, sizeof(list))])

/* an array's number of slots: mostly a few, a long tail (the app
 * snapshot's out-degrees: median 3, 99th percentile 37) */
static uint64_t slots(gv8 *g)
{
	double u = unif(g);
	uint64_t a = geo(g, 1.9), b = below(g, 60), c = below(g, 1500);
	return u < 0.965 ? a : u < 0.9985 ? 8 + b : 100 + c;
}

static void body_node(gv8 *g, uint64_t i)
{
	int type = body_type(g);
	uint64_t name = fixed(F_EMPTY), size = 0;
	switch (type) {
	case T_OBJECT: {
		double u = unif(g), c = unif(g);
		uint64_t ctor = PICK(g, ctor_names), cls = class_name(g);
		name = u < 0.70 ? fixed(F_C_OBJECT) : u < 0.95 ? ctor : cls;
		int is_context = c < 0.012;
		if (is_context)
			name = fixed(F_CONTEXT);
		uint64_t k = geo(g, 2.8), tail = below(g, 120);
		if (unif(g) < 0.01)
			k += tail;
		for (uint64_t p = 0; p < k; p++) {
			uint64_t pname = ident(g);
			edge(g, is_context ? E_CONTEXT : E_PROPERTY, pname, target(g, i));
		}
		if (!is_context)
			edge(g, E_PROPERTY, fixed(F_I_PROTO), other_target(g, i));
		else
			edge(g, E_INTERNAL, fixed(F_I_SCOPE), other_target(g, i)),
			edge(g, E_INTERNAL, fixed(F_I_PREVIOUS), other_target(g, i));
		double pe = unif(g), we = unif(g);
		if (pe < 0.22)
			edge(g, E_INTERNAL, fixed(F_I_PROPERTIES), target(g, i));
		else if (pe < 0.27)
			edge(g, E_INTERNAL, fixed(F_I_ELEMENTS), target(g, i));
		if (we < 0.006)
			edge(g, E_WEAK, fixed(F_I_TARGET), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 24 + 8 * k;
		if (unif(g) < 0.25)
			location(g, i);
		break;
	}
	case T_ARRAY: {
		double u = unif(g);
		uint64_t n = slots(g), first = below(g, 4), slack = geo(g, 14);
		name = u < 0.55 ? fixed(F_EMPTY) : u < 0.975 ? fixed(F_OBJ_PROPERTIES) : fixed(F_OBJ_ELEMENTS);
		if (u >= 0.975) {
			for (uint64_t k = 0; k < n; k++)
				edge(g, E_ELEMENT, k, target(g, i));
		} else if (u >= 0.945) {
			for (uint64_t k = 0; k < n; k++)
				edge(g, E_HIDDEN, first + k, target(g, i));
		} else {
			for (uint64_t k = 0; k < n; k++)
				edge(g, E_INTERNAL, dec(g, first + k), target(g, i));
		}
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 16 + 8 * (n + slack);
		break;
	}
	case T_STRING: {
		double u = unif(g);
		uint64_t id = ident_if(g, u < 0.45), tx = text_if(g, u >= 0.45);
		name = u < 0.45 ? id : tx;
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = string_size(g, name);
		break;
	}
	case T_SLICED:
		name = fixed(F_SLICED_NAME);
		edge(g, E_INTERNAL, fixed(F_I_PARENT), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 32;
		break;
	case T_CONS:
		name = fixed(F_CONS_NAME);
		edge(g, E_INTERNAL, fixed(F_I_FIRST), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_SECOND), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 32;
		break;
	case T_CODE: {
		double u = unif(g);
		uint64_t fn = ident_if(g, u < 0.35), script = text_if(g, u >= 0.85), sys = PICK(g, code_names);
		name = u < 0.35 ? fn : u < 0.85 ? sys : script;
		uint64_t ni = below(g, 4), nh = geo(g, 0.8), wk = below(g, 100);
		for (uint64_t k = 0; k < ni; k++)
			edge(g, E_INTERNAL, fixed(code_edges[k]), target(g, i));
		for (uint64_t k = 0; k < nh; k++)
			edge(g, E_HIDDEN, k, target(g, i));
		if (wk < 12)
			edge(g, E_WEAK, fixed(F_I_DEPENDENT), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 32 + 8 * below(g, 16);
		break;
	}
	case T_HIDDEN: {
		name = PICK(g, hidden_names);
		uint64_t nh = geo(g, 1.2), wk = below(g, 100);
		for (uint64_t k = 0; k < nh; k++)
			edge(g, E_HIDDEN, k, target(g, i));
		if (wk < 20)
			edge(g, E_WEAK, fixed(F_I_VALUE), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 16 + 8 * below(g, 6);
		break;
	}
	case T_CLOSURE: {
		double u = unif(g);
		uint64_t fn = ident_if(g, u < 0.7);
		name = u < 0.7 ? fn : fixed(F_EMPTY);
		edge(g, E_PROPERTY, fixed(F_I_PROTO), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_FEEDBACK), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_SHARED), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_CONTEXT), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_CODE), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = u < 0.5 ? 56 : 64;
		location(g, i);
		break;
	}
	case T_SHAPE: {
		double u = unif(g), tr = unif(g);
		name = u < 0.8 ? fixed(F_MAP) : fixed(F_DESCRIPTORS);
		if (tr < 0.5)
			edge(g, E_WEAK, fixed(F_I_TRANSITION), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_DESCRIPTORS), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_PROTOTYPE), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_CONSTRUCTOR), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_DEPENDENT), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		edge(g, E_HIDDEN, 0, other_target(g, i));
		size = u < 0.8 ? 72 : 144;
		break;
	}
	case T_SYMBOL:
		name = fixed(F_SYMBOL);
		edge(g, E_INTERNAL, fixed(F_I_NAME), target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = 24;
		break;
	case T_REGEXP:
		name = text(g);
		edge(g, E_PROPERTY, fixed(F_I_PROTO), other_target(g, i));
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		edge(g, E_HIDDEN, 2, target(g, i));
		edge(g, E_HIDDEN, 3, target(g, i));
		size = 56;
		break;
	case T_NATIVE: {
		name = PICK(g, native_names);
		uint64_t ni = below(g, 5);
		for (uint64_t k = 0; k < ni; k++) {
			uint64_t ename = ident(g); /* before the target: one order whatever the compiler */
			edge(g, E_INTERNAL, ename, target(g, i));
		}
		size = 24 + 8 * below(g, 90);
		break;
	}
	default: /* number, bigint */
		name = type == T_NUMBER ? fixed(F_HEAP_NUMBER) : fixed(F_BIGINT);
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, type));
		size = type == T_NUMBER ? 16 : 24;
		break;
	}
	/* the frontier would empty after this node: take the next one */
	if (g->next_child <= i + 1 && i + 1 < g->be)
		edge(g, E_INTERNAL, dec(g, 0), g->next_child++);
	next_id(g, i);
	node(g, type, name, size);
}

/* the header nodes 0..B0-1 */
static void header_node(gv8 *g, uint64_t i)
{
	next_id(g, i);
	if (i == 0) {
		edge(g, E_ELEMENT, 1, 1);
		edge(g, E_SHORTCUT, dec(g, 2), GLOBAL_NODE);
		edge(g, E_ELEMENT, 3, 30);
		edge(g, E_ELEMENT, 4, 31);
		edge(g, E_ELEMENT, 5, ENV_NODE);
		node(g, T_SYNTHETIC, fixed(F_EMPTY), 0);
	} else if (i == 1) {
		for (uint64_t k = 1; k <= 28; k++)
			edge(g, E_ELEMENT, k, k + 1);
		node(g, T_SYNTHETIC, fixed(F_GC_ROOTS), 0);
	} else if (i < 30) {
		unsigned r = (unsigned)(i - 2);
		if (r == READONLY_SUBROOT)
			for (uint64_t k = 0; k < N_MAPS; k++)
				edge(g, E_INTERNAL, dec(g, k), N_HEADER + k);
		else
			for (uint32_t k = 0; k < g->subroot_kids[r]; k++)
				edge(g, E_INTERNAL, dec(g, k + 1), g->next_child++);
		node(g, T_SYNTHETIC, fixed(subroot_name[r]), 0);
	} else if (i == 30 || i == 31) {
		node(g, T_SYNTHETIC, fixed(i == 30 ? F_CPP_ROOTS : F_CPP_XROOTS), 0);
	} else if (i == ENV_NODE) {
		for (uint64_t k = 0; k < ENV_KIDS; k++)
			edge(g, E_INTERNAL, ident(g), g->next_child++);
		node(g, T_SYNTHETIC, fixed(F_NODE_ENV), 0);
	} else if (i == GLOBAL_NODE) {
		for (uint64_t k = 0; k < GLOBAL_KIDS; k++)
			edge(g, E_PROPERTY, ident(g), g->next_child++);
		if (g->opt->chain)
			edge(g, E_PROPERTY, fixed(F_I_HEAD), g->chain0);
		if (g->opt->wide)
			edge(g, E_PROPERTY, fixed(F_I_WIDE), g->wide0);
		if (g->opt->distinct_names)
			edge(g, E_PROPERTY, fixed(F_I_PROPS), g->props0);
		edge(g, E_PROPERTY, fixed(F_I_PROTO), g->b0);
		edge(g, E_INTERNAL, fixed(F_I_MAP), map_hub(g, T_OBJECT));
		node(g, T_OBJECT, fixed(F_GLOBAL), 48);
	} else { /* a map hub */
		edge(g, E_INTERNAL, fixed(F_I_MAP), N_HEADER);
		uint64_t k = i - N_HEADER;
		node(g, T_HIDDEN, fixed(k < 7 ? F_MAP_ONEBYTE + (int)k : F_MAP), 80);
	}
}

/* the special shapes after the body */
static void special_node(gv8 *g, uint64_t i)
{
	const gen_v8_options *o = g->opt;
	next_id(g, i);
	uint64_t proto = g->b0, omap = N_HEADER + T_OBJECT * 4 % N_MAPS;
	if (i < g->chain0 + o->chain) { /* { next, __proto__ } */
		if (i + 1 < g->chain0 + o->chain)
			edge(g, E_PROPERTY, fixed(F_I_NEXT), i + 1);
		edge(g, E_PROPERTY, fixed(F_I_PROTO), proto);
		edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
		node(g, T_OBJECT, fixed(F_C_OBJECT), 40);
	} else if (o->wide && i < g->wide0 + 2 + o->wide) {
		if (i == g->wide0) { /* the Array, its elements store, the items */
			edge(g, E_INTERNAL, fixed(F_I_ELEMENTS), i + 1);
			edge(g, E_PROPERTY, fixed(F_I_PROTO), proto);
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_OBJECT, fixed(F_C_ARRAY), 32);
		} else if (i == g->wide0 + 1) {
			for (uint64_t k = 0; k < o->wide; k++)
				edge(g, E_ELEMENT, k, g->wide0 + 2 + k);
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_ARRAY, fixed(F_OBJ_ELEMENTS), 16 + 8 * o->wide);
		} else {
			edge(g, E_PROPERTY, fixed(F_I_PROTO), proto);
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_OBJECT, fixed(F_C_OBJECT), 32);
		}
	} else { /* the object of D distinct names, its dictionary, keys, values */
		uint64_t d = o->distinct_names, keys = g->props0 + 2, vals = keys + d;
		if (i == g->props0) {
			for (uint64_t k = 0; k < d; k++)
				edge(g, E_PROPERTY, S(g, R_PNAME, k), vals + k);
			edge(g, E_INTERNAL, fixed(F_I_PROPERTIES), i + 1);
			edge(g, E_PROPERTY, fixed(F_I_PROTO), proto);
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_OBJECT, fixed(F_C_OBJECT), 24);
		} else if (i == g->props0 + 1) {
			for (uint64_t k = 0; k < d; k++) {
				edge(g, E_INTERNAL, dec(g, 3 + 2 * k), keys + k);
				edge(g, E_INTERNAL, dec(g, 4 + 2 * k), vals + k);
			}
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_ARRAY, fixed(F_OBJ_PROPERTIES), 16 + 24 * d);
		} else if (i < vals) {
			edge(g, E_INTERNAL, fixed(F_I_MAP), N_HEADER + T_STRING * 4 % N_MAPS);
			uint64_t k = i - keys;
			node(g, T_STRING, S(g, R_PNAME, k), g->pass == PASS_NODES
				? align8(16 + string_text(g, R_PNAME, k, g->sbuf)) : 0);
		} else {
			edge(g, E_PROPERTY, fixed(F_I_PROTO), proto);
			edge(g, E_INTERNAL, fixed(F_I_MAP), omap);
			node(g, T_OBJECT, fixed(F_C_OBJECT), 32);
		}
	}
}

static void run_pass(gv8 *g, int pass)
{
	g->pass = pass;
	g->rng = g->opt->seed * 0x2545F4914F6CDD1Dull + 0x1234567;
	g->next_child = g->b0;
	g->id = 1;
	g->nident = g->ntext = 0;
	g->ndec = 0;
	g->edges_here = 0;
	g->locations = 0;
	g->edges = 0;
	for (uint64_t i = 0; i < g->n; i++) {
		if (i < g->b0)
			header_node(g, i);
		else if (i < g->be)
			body_node(g, i);
		else
			special_node(g, i);
		if ((i & 0xFFFF) == 0)
			progress_at((uint64_t)pass * g->n + i, 4 * g->n);
	}
}

int gen_v8(const gen_v8_options *opt, FILE *fp, int compress, gen_v8_stats *st, char *err, size_t errsize)
{
	gv8 *g = calloc(1, sizeof *g);
	if (!g) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	g->opt = opt;
	g->n = opt->nodes;
	uint64_t special = opt->chain + (opt->wide ? 2 + opt->wide : 0) +
			   (opt->distinct_names ? 2 + 2 * opt->distinct_names : 0);
	g->b0 = N_HEADER + N_MAPS;
	if (g->n < GEN_V8_MIN_NODES || special > g->n - g->b0 - GEN_V8_MIN_NODES / 2) {
		snprintf(err, errsize,
			 "--nodes %llu is too few: the header and map hubs take %llu nodes, the special shapes %llu, "
			 "and the body needs at least %u",
			 (unsigned long long)g->n, (unsigned long long)g->b0, (unsigned long long)special,
			 GEN_V8_MIN_NODES / 2);
		free(g);
		return -1;
	}
	g->be = g->n - special;
	g->chain0 = g->be;
	g->wide0 = g->chain0 + opt->chain;
	g->props0 = g->wide0 + (opt->wide ? 2 + opt->wide : 0);
	uint64_t body = g->be - g->b0;
	g->popular = body < 4096 ? body : 4096;
	/* the sub-roots' tree children: the app snapshot's, scaled; at most a
	 * third of the body in all */
	double scale = (double)g->n / APP_NODES, total = GLOBAL_KIDS + ENV_KIDS;
	for (int r = 0; r < 28; r++)
		if (r != READONLY_SUBROOT && subroot_edges_1m[r])
			total += fmax(1.0, subroot_edges_1m[r] * scale);
	double cut = total > body / 3.0 ? body / 3.0 / total : 1.0;
	for (int r = 0; r < 28; r++)
		g->subroot_kids[r] = r == READONLY_SUBROOT || !subroot_edges_1m[r] ? 0
				     : (uint32_t)fmax(1.0, subroot_edges_1m[r] * scale * cut);
	uint32_t cum = 0;
	for (int t = 0; t < T_NTYPES; t++)
		g->mix_cum[t] = (cum += body_mix[t]);

	/* count */
	run_pass(g, PASS_COUNT);
	g->size[R_FIXED] = F_COUNT;
	g->size[R_IDENT] = g->nident;
	g->size[R_TEXT] = g->ntext;
	g->size[R_DEC] = g->ndec;
	g->size[R_PNAME] = opt->distinct_names;
	uint64_t strings = 0;
	for (int r = 0; r < R_COUNT; r++)
		g->base[r] = strings, strings += g->size[r];
	uint64_t locations = g->locations;

	g->w = v8w_open(fp, compress);
	if (!g->w) {
		snprintf(err, errsize, "out of memory");
		free(g);
		return -1;
	}
	uint64_t edges = g->edges;
	v8w_header(g->w, g->n, edges);
	run_pass(g, PASS_NODES);
	v8w_end_nodes(g->w);
	run_pass(g, PASS_EDGES);
	v8w_end_edges(g->w);
	run_pass(g, PASS_LOCATIONS);
	v8w_end_locations(g->w);
	for (int r = 0; r < R_COUNT; r++)
		for (uint64_t k = 0; k < g->size[r]; k++)
			v8w_string(g->w, g->sbuf, string_text(g, r, k, g->sbuf));
	uint64_t bytes = 0;
	int rc = v8w_finish(g->w, &bytes);
	if (rc)
		snprintf(err, errsize, "write failed");
	if (st) {
		st->nodes = g->n;
		st->edges = edges;
		st->strings = strings;
		st->locations = locations;
		st->bytes = bytes;
	}
	v8w_free(g->w);
	free(g);
	return rc;
}
