/* util.c — helpers shared by the commands: errors, help, formats, loading. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

int cli_quiet; /* --quiet (main.c sets it; here so the unit tests link the commands) */
int cli_bytes;  /* --bytes (likewise) */

/* The next of sixteen buffers for the text helpers below. */
static char *text_buf(void)
{
	static char bufs[16][HUMAN_MAX + 1];
	static unsigned next;
	return bufs[next++ % 16];
}

/* N into BUF as a size (SIZE) or a count, as people read it, or under
 * --bytes the plain integer (a size keeps its unit: "5950 B"). */
static void number_into(char *buf, unsigned long long n, int size)
{
	if (cli_bytes)
		snprintf(buf, HUMAN_MAX, size ? "%llu B" : "%llu", n);
	else if (size)
		human_bytes(buf, n);
	else
		human_count(buf, n);
}

const char *size_text(unsigned long long bytes)
{
	char *buf = text_buf();
	number_into(buf, bytes, 1);
	return buf;
}

const char *count_text(unsigned long long n)
{
	char *buf = text_buf();
	number_into(buf, n, 0);
	return buf;
}

/* "+" or "-" and the magnitude of N, as a size or as a count. */
static const char *signed_text(long long n, int size)
{
	char *buf = text_buf();
	buf[0] = n < 0 ? '-' : '+';
	number_into(buf + 1, n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n, size);
	return buf;
}

const char *size_diff_text(long long bytes) { return signed_text(bytes, 1); }
const char *count_diff_text(long long n) { return signed_text(n, 0); }

int error(const char *fmt, ...)
{
	/* the message may quote names from hostile input: shown in display
	 * form, so it stays one line and cannot drive the terminal */
	va_list ap;
	char small[1024], *msg = small;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	progress_phase(NULL); /* the message starts a clean line */
	fputs("ugc-analyze: ", stderr);
	display_put(stderr, msg ? msg : small);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
	return 1;
}

void json_str(FILE *fp, const char *s)
{
	/* valid UTF-8 out whatever comes in: controls as \\u escapes, a byte
	 * that is not part of valid UTF-8 as the text \\xHH (escape.h) */
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	fputc('"', fp);
	for (size_t k = 0; k < len;) {
		size_t c = utf8_char(p + k, len - k);
		if (p[k] == '"' || p[k] == '\\')
			fprintf(fp, "\\%c", p[k]);
		else if (c)
			fwrite(p + k, 1, c, fp);
		else if (p[k] < 0x20 || p[k] == 0x7f)
			fprintf(fp, "\\u%04x", p[k]);
		else if (p[k] == 0xc2 && k + 1 < len && p[k + 1] >= 0x80 && p[k + 1] < 0xa0) {
			fprintf(fp, "\\u%04x", p[k + 1]); /* a C1 control */
			k++;
		} else
			fprintf(fp, "\\\\x%02x", p[k]);
		k += c ? c : 1;
	}
	fputc('"', fp);
}

void json_node_id(FILE *fp, const obj_info *o)
{
	if (!o || !o->v8)
		return;
	if (o->node_id < 0)
		fprintf(fp, ",\"node_id\":null");
	else
		fprintf(fp, ",\"node_id\":%lld", (long long)o->node_id);
}

void csv_str(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

const char *disp(const char *s)
{
	static char *ring[4];
	static int at;
	at = (at + 1) % 4;
	free(ring[at]);
	ring[at] = s ? display_escape_dup(s) : NULL;
	return ring[at] ? ring[at] : "?";
}

long long parse_count(const char *s, long long max)
{
	if (!s || !*s)
		return -1;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*end || v < 0 || v > max || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	return v;
}

size_t listing_limit(long long limit, enum out_format fmt, size_t text_default)
{
	if (limit == LIMIT_UNSET)
		return fmt == FMT_TEXT ? text_default : SIZE_MAX;
	return limit == 0 ? SIZE_MAX : (size_t)limit;
}

const char *fate_name(int reachable, int garbage)
{
	return !reachable ? "purged" : garbage ? "garbage" : "survives";
}

void print_shown(size_t shown, size_t total, const char *what)
{
	if (shown < total)
		printf("showing %s of %s %s (--limit 0 shows all)\n", count_text(shown), count_text(total), what);
}

/* A ring of growable buffers for object_text(): each result stays valid
 * for seven more calls. */
static char *text_ring[8];
static size_t text_ring_cap[8];
static unsigned text_ring_next;

static char *ring_buf(size_t need)
{
	unsigned k = text_ring_next++ % 8;
	if (text_ring_cap[k] < need) {
		char *b = realloc(text_ring[k], need);
		if (!b)
			return NULL;
		text_ring[k] = b;
		text_ring_cap[k] = need;
	}
	return text_ring[k];
}

#define V8_NAME_SHOWN 100 /* the bytes of a V8 node's name text shows, "..." included */

size_t v8_name_shown(const char *name, size_t len)
{
	if (len <= V8_NAME_SHOWN)
		return len;
	size_t cut = V8_NAME_SHOWN - 3;
	while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
		cut--;
	return cut;
}

const char *object_text(const view *v, const obj_info *o)
{
	size_t cl = strlen(o->class_name), pl = strlen(o->path), nl = strlen(o->name);
	char *b = ring_buf(cl + pl + nl + 4);
	if (!b)
		return o->path;
	if (!v->v8) {
		snprintf(b, cl + pl + 2, "%s %s", o->class_name, o->path);
		return b;
	}
	/* NAME@ID: the node's name, then its id (obj_info.node_id, heap_node_id) */
	char id[24];
	size_t il = o->node_id >= 0 ? (size_t)snprintf(id, sizeof id, "@%lld", (long long)o->node_id) : 0;
	if (!il || il > nl || memcmp(o->name + nl - il, id, il) != 0) { /* no id: the pool's objects */
		snprintf(b, cl + nl + 2, "%s %s", o->class_name, o->name);
		return b;
	}
	size_t base = nl - il;
	if (base == 0 || (base == cl && memcmp(o->name, o->class_name, cl) == 0)) {
		snprintf(b, cl + il + 2, "%s %s", o->class_name, id);
	} else if (v8_name_shown(o->name, base) < base) { /* a long string's text: cut */
		snprintf(b, cl + nl + 4, "%s %.*s... %s", o->class_name, (int)v8_name_shown(o->name, base), o->name, id);
	} else {
		snprintf(b, cl + nl + 3, "%s %.*s %s", o->class_name, (int)base, o->name, id);
	}
	return b;
}

void json_begin(const char *command)
{
	printf("{\"format_version\":%d,\"command\":\"%s\"", JSON_FORMAT_VERSION, command);
}

void json_key(const char *name)
{
	putchar('"');
	for (const char *c = name; *c; c++)
		putchar(*c == '-' || *c == ' ' ? '_' : *c);
	printf("\":");
}

void json_end(void)
{
	printf("}\n");
}

void json_list_begin(const char *key, size_t total, size_t shown)
{
	printf(",\"%s\":{\"total\":%zu,\"shown\":%zu,\"items\":[", key, total, shown < total ? shown : total);
}

int load_or_die(const char *path, heap *h)
{
	char err[SNAP_ERR_MAX];
	progress_begin_file("load", path);
	if (snapshot_load(path, h, err, sizeof err))
		return error("%s", err);
	return 0;
}

static void note_removed(void *ctx, const char *removed, long pid)
{
	(void)ctx;
	progress_phase(NULL);
	fputs("ugc-analyze: removed ", stderr);
	display_put(stderr, removed);
	fprintf(stderr, ", left by an interrupted run (process %ld is gone)\n", pid);
}

int check_output(const char *path, int force)
{
	char err[SNAP_ERR_MAX];
	if (outfile_check(path, force, note_removed, NULL, err, sizeof err))
		return error("%s", err);
	return 0;
}
