/* chain_print.c — retention chains (query.h) as path and why print them:
 * the engine's reference-chain layout, JSON, CSV and Graphviz DOT. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"

/* The deepest indentation of a chain line, as the engine's log has it. */
#define MAX_INDENT 255

void object_tags(const obj_info *o, char *buf, size_t cap)
{
	/* the engine's GetObjectFlags, plus (refcounted) */
	size_t n = 0;
	buf[0] = '\0';
#define TAG(cond, text) if (cond) n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s", text)
	TAG(o->iflags & IF_RootSet, "(root) ");
	TAG(o->iflags & IF_RefCounted, "(refcounted) ");
	TAG(o->iflags & IF_Native, "(native) ");
	TAG(o->garbage, "(Garbage) ");
	TAG(o->oflags & RF_Standalone, "(standalone) ");
	TAG(o->iflags & IF_Async, "(async) ");
	TAG(o->iflags & IF_AsyncLoading, "(asyncloading) ");
	TAG(o->root_kind == RK_DISREGARD, "(NeverGCed) ");
	TAG(o->cluster == o->idx, "(ClusterRoot) ");
	TAG(o->cluster != OBJ_NONE && o->cluster != o->idx, "(Clustered) ");
#undef TAG
}

/* "<tags> <Class> <path>" as the engine writes an object. */
static void object_line(view *v, FILE *fp, obj_t i)
{
	obj_info o;
	if (v->ops->object(v, i, &o)) {
		fprintf(fp, " #%d", i);
		return;
	}
	char tags[256];
	object_tags(&o, tags, sizeof tags);
	fprintf(fp, v->v8 ? "%s%s" : "%s %s", tags, object_text(v, &o)); /* (the engine's layout has the space) */
	obj_info_free(&o);
}

/* How a reference held by an object of class CLS is named in a chain line:
 * "UObject* Class::Property", "UObject* UObject::Outer" or
 * "Class::AddReferencedObjects". */
static void edge_name(view *v, FILE *fp, const char *cls, const edge *e)
{
	if (v->v8) { /* a V8 edge as DevTools names it: its name, or [N] for an element */
		fprintf(fp, "%s%s", e->prop[0] ? e->prop : "(unnamed)",
			e->kind == REF_WEAK ? " (weak)" : e->kind == REF_SOFT ? " (shortcut)" : "");
		return;
	}
	if (e->type == EDGE_CLASS || e->type == EDGE_OUTER)
		fprintf(fp, "UObject* UObject::%s", e->prop);
	else if (e->kind == REF_ARO)
		fprintf(fp, "%s::AddReferencedObjects", cls);
	else
		fprintf(fp, "UObject* %s::%s", cls, e->prop[0] ? e->prop : "(unnamed)");
}

void print_chain_text(view *v, FILE *fp, const chain *c)
{
	int indent = 1;
	if (c->gc_root) {
		fprintf(fp, "%*s(root)  GCObjectReferencer /Engine/Transient.GCObjectReferencer\n", indent, "");
		fprintf(fp, "%*s-> %s::AddReferencedObjects(", indent, "", c->gc_edge.referencer);
		object_line(v, fp, c->nodes[0]);
		fprintf(fp, ")\n");
	} else {
		fprintf(fp, "%*s", indent, "");
		object_line(v, fp, c->nodes[0]);
		fprintf(fp, "\n");
		indent = 0;
	}
	for (size_t k = 0; k + 1 < c->n; k++) {
		if (indent < MAX_INDENT) /* the engine's TCStringSpcHelper::MAX_SPACES */
			indent++;
		size_t n;
		const edge *e = chain_hop(c, k, &n);
		obj_info src;
		int have = v->ops->object(v, e->src, &src) == 0;
		const char *cls = have ? src.class_name : "UObject";
		fprintf(fp, "%*s-> ", indent, "");
		if (e->type == EDGE_REF && e->kind == REF_ARO && !v->v8) {
			fprintf(fp, "%s::AddReferencedObjects(", cls);
			object_line(v, fp, c->nodes[k + 1]);
			fprintf(fp, ")\n");
		} else {
			edge_name(v, fp, cls, e);
			fprintf(fp, " = ");
			object_line(v, fp, c->nodes[k + 1]);
			fprintf(fp, "\n");
		}
		/* parallel references between the same two objects: one line under the hop */
		for (size_t j = 1; j < n; j++) {
			fprintf(fp, j == 1 ? "%*s   (also " : ", ", indent, "");
			edge_name(v, fp, cls, &e[j]);
		}
		if (n > 1)
			fprintf(fp, ")\n");
		if (have)
			obj_info_free(&src);
	}
	fputs(v->v8 ? "\n" : "  \n", fp); /* the engine's log ends a chain with two spaces */
}

static void json_object(view *v, FILE *fp, obj_t i)
{
	obj_info o;
	if (v->ops->object(v, i, &o)) {
		fprintf(fp, "{\"idx\":%d}", i);
		return;
	}
	fprintf(fp, "{\"idx\":%d,\"class\":", i);
	json_str(fp, o.class_name);
	fprintf(fp, ",\"path\":");
	json_str(fp, o.path);
	json_node_id(fp, &o);
	fprintf(fp, ",\"flags\":");
	json_str(fp, o.flags);
	fprintf(fp, ",\"root_kind\":");
	if (o.root_kind == RK_NONE)
		fprintf(fp, "null");
	else
		json_str(fp, root_kind_names[o.root_kind]);
	fprintf(fp, "}");
	obj_info_free(&o);
}

static void json_edge(FILE *fp, const edge *e)
{
	fprintf(fp, "\"kind\":\"%s\",\"property\":", edge_kind_name(e));
	json_str(fp, e->prop);
}

void print_chain_json(view *v, FILE *fp, const chain *c)
{
	fprintf(fp, "{\"length\":%zu,\"gcobject\":", c->n - 1);
	if (c->gc_root) {
		fprintf(fp, "{\"referencer\":");
		json_str(fp, c->gc_edge.referencer);
		fprintf(fp, ",\"property\":");
		json_str(fp, c->gc_edge.prop);
		fprintf(fp, "}");
	} else {
		fprintf(fp, "null");
	}
	fprintf(fp, ",\"root\":");
	json_object(v, fp, c->nodes[0]);
	fprintf(fp, ",\"hops\":[");
	for (size_t k = 0; k + 1 < c->n; k++) {
		size_t n;
		const edge *e = chain_hop(c, k, &n);
		fprintf(fp, "%s{", k ? "," : "");
		json_edge(fp, e);
		fprintf(fp, ",\"also\":[");
		for (size_t j = 1; j < n; j++) {
			fprintf(fp, "%s{", j > 1 ? "," : "");
			json_edge(fp, &e[j]);
			fprintf(fp, "}");
		}
		fprintf(fp, "],\"to\":");
		json_object(v, fp, c->nodes[k + 1]);
		fprintf(fp, "}");
	}
	fprintf(fp, "]}");
}

void print_chains_csv(view *v, FILE *fp, const chains *cs)
{
	for (size_t c = 0; c < cs->n; c++) {
		const chain *ch = &cs->v[c];
		if (ch->gc_root) {
			fprintf(fp, "%zu,0,,gcobject,", c + 1);
			csv_str(fp, ch->gc_edge.prop);
			fprintf(fp, ",%d,", ch->nodes[0]);
			csv_str(fp, ch->gc_edge.referencer);
			fputc('\n', fp);
		}
		for (size_t k = 0; k + 1 < ch->n; k++) {
			obj_info o;
			int have = v->ops->object(v, ch->nodes[k + 1], &o) == 0;
			size_t n;
			const edge *e = chain_hop(ch, k, &n);
			for (size_t j = 0; j < n; j++) { /* one row a reference; parallel ones share the hop number */
				fprintf(fp, "%zu,%zu,%d,%s,", c + 1, k + 1, ch->nodes[k], edge_kind_name(&e[j]));
				csv_str(fp, e[j].prop);
				fprintf(fp, ",%d,", ch->nodes[k + 1]);
				if (have)
					csv_str(fp, o.path);
				fputc('\n', fp);
			}
			if (have)
				obj_info_free(&o);
		}
	}
}

/* A DOT string: quoted, with '"' and '\' escaped, and a real line break
 * (DOT's \n) wherever S has a newline. */
void dot_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", fp);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* A reference in a DOT label: its property, or its kind when it has none. */
static const char *dot_edge_name(const edge *e)
{
	return e->prop[0] ? e->prop : edge_kind_name(e);
}

/* Graphviz: each object once, each pair of objects once (its references
 * one label, a line each), each FGCObject holding once. */
void print_chains_dot(view *v, FILE *fp, const chains *cs, obj_t target)
{
	idmap nodes = {0}, pairs = {0}, holders = {0};
	fprintf(fp, "digraph retention {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
	for (size_t c = 0; c < cs->n; c++) {
		const chain *ch = &cs->v[c];
		for (size_t k = 0; k < ch->n; k++) {
			obj_info o;
			if (idmap_add(&nodes, (uint32_t)ch->nodes[k], 0) == 1 || v->ops->object(v, ch->nodes[k], &o))
				continue; /* printed already (out of memory: printed again, harmless) */
			size_t len = strlen(o.class_name) + strlen(o.path) + 2;
			char *label = malloc(len);
			if (label)
				snprintf(label, len, "%s\n%s", o.class_name, o.path);
			fprintf(fp, "  n%d [label=", ch->nodes[k]);
			dot_str(fp, label ? label : o.path);
			fprintf(fp, "%s];\n", ch->nodes[k] == target ? ", style=bold" : RK_IS_ROOT(o.root_kind) ? ", style=filled" : "");
			free(label);
			obj_info_free(&o);
		}
		if (ch->gc_root && idmap_add(&holders, (uint64_t)(uint32_t)ch->nodes[0], 0) == 0) {
			fprintf(fp, "  gc_%d [shape=ellipse, label=", ch->nodes[0]);
			dot_str(fp, ch->gc_edge.referencer);
			fprintf(fp, "];\n  gc_%d -> n%d [label=", ch->nodes[0], ch->nodes[0]);
			dot_str(fp, ch->gc_edge.prop);
			fprintf(fp, "];\n");
		}
		for (size_t k = 0; k + 1 < ch->n; k++) {
			uint64_t key = (uint64_t)(uint32_t)ch->nodes[k] << 32 | (uint32_t)ch->nodes[k + 1];
			if (idmap_add(&pairs, key, 0) == 1)
				continue;
			size_t n, len = 1;
			const edge *e = chain_hop(ch, k, &n);
			int solid = 0;
			for (size_t j = 0; j < n; j++) {
				len += strlen(dot_edge_name(&e[j])) + 1;
				solid |= e[j].type == EDGE_REF && e[j].kind == REF_STRONG;
			}
			char *label = malloc(len), *p = label;
			for (size_t j = 0; label && j < n; j++)
				p += sprintf(p, "%s%s", j ? "\n" : "", dot_edge_name(&e[j]));
			fprintf(fp, "  n%d -> n%d [label=", ch->nodes[k], ch->nodes[k + 1]);
			dot_str(fp, label ? label : dot_edge_name(e));
			fprintf(fp, "%s];\n", solid ? "" : ", style=dashed");
			free(label);
		}
	}
	fprintf(fp, "}\n");
	idmap_free(&nodes);
	idmap_free(&pairs);
	idmap_free(&holders);
}
