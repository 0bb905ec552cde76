/* strpool.c — interned strings with stable addresses (see strpool.h),
 * indexed by hashindex.h. */
#include "base/strpool.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/vec.h"

#define CHUNK (64 * 1024)

static uint64_t hash(const char *s, size_t n)
{
	return fnv1a(s, n);
}

/* Room for N bytes in the arena. */
static char *arena(strpool *p, size_t n)
{
	if (p->nchunks == 0 || p->used + n > CHUNK) {
		size_t size = n > CHUNK ? n : CHUNK;
		if (grow_array((void **)&p->chunks, &p->cap_chunks, p->nchunks, sizeof *p->chunks))
			return NULL;
		char *c = malloc(size);
		if (!c)
			return NULL;
		/* an oversized string gets a chunk of its own, kept before the last */
		if (n > CHUNK && p->nchunks) {
			p->chunks[p->nchunks] = p->chunks[p->nchunks - 1];
			p->chunks[p->nchunks++ - 1] = c;
			return c;
		}
		p->chunks[p->nchunks++] = c;
		p->used = 0;
		if (n > CHUNK)
			p->used = CHUNK;
	}
	char *at = p->chunks[p->nchunks - 1] + p->used;
	p->used += n;
	return at;
}

/* the index's view of the strings (hashindex.h) */
struct key {
	const char *s;
	size_t len;
};

static uint64_t hash_of(const void *p, uint32_t k)
{
	const char *s = ((const strpool *)p)->str[k];
	return hash(s, strlen(s));
}

static int same(const void *p, uint32_t k, const void *key)
{
	const char *s = ((const strpool *)p)->str[k];
	const struct key *x = key;
	return strncmp(s, x->s, x->len) == 0 && s[x->len] == '\0';
}

const char *strpool_intern(strpool *p, const char *s, size_t len)
{
	if (!p->index && !(p->index = hashindex_build(0, hash_of, p)))
		return NULL;
	struct key key = {s, len};
	uint64_t h = hash(s, len);
	uint32_t at = hashindex_find(p->index, h, same, p, &key);
	uint32_t k = hashindex_item(p->index, at);
	if (k != UINT32_MAX)
		return p->str[k];
	if (p->count >= UINT32_MAX - 1 || grow_array((void **)&p->str, &p->cap, p->count, sizeof *p->str))
		return NULL;
	char *copy = arena(p, len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->str[p->count++] = copy;
	if (hashindex_add(&p->index, at, h)) {
		p->count--; /* its bytes stay unused in the arena */
		return NULL;
	}
	return copy;
}

void strpool_free(strpool *p)
{
	for (size_t k = 0; k < p->nchunks; k++)
		free(p->chunks[k]);
	free(p->chunks);
	free(p->str);
	free(p->index);
	memset(p, 0, sizeof *p);
}
