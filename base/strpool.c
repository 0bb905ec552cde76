/* strpool.c — interned strings with stable addresses (see strpool.h). */
#include "base/strpool.h"

#include <stdlib.h>
#include <string.h>

#include "base/vec.h"

#define CHUNK (64 * 1024)

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
	return h;
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

static int rehash(strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 256;
	const char **slot = calloc(n, sizeof *slot);
	if (!slot)
		return -1;
	for (size_t k = 0; k < p->nslots; k++)
		if (p->slot[k]) {
			size_t at = hash(p->slot[k], strlen(p->slot[k])) & (n - 1);
			while (slot[at])
				at = (at + 1) & (n - 1);
			slot[at] = p->slot[k];
		}
	free(p->slot);
	p->slot = slot;
	p->nslots = n;
	return 0;
}

const char *strpool_intern(strpool *p, const char *s, size_t len)
{
	if ((p->count + 1) * 2 > p->nslots && rehash(p))
		return NULL;
	size_t at = hash(s, len) & (p->nslots - 1);
	for (; p->slot[at]; at = (at + 1) & (p->nslots - 1))
		if (strncmp(p->slot[at], s, len) == 0 && p->slot[at][len] == '\0')
			return p->slot[at];
	char *copy = arena(p, len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->count++;
	return p->slot[at] = copy;
}

void strpool_free(strpool *p)
{
	for (size_t k = 0; k < p->nchunks; k++)
		free(p->chunks[k]);
	free(p->chunks);
	free(p->slot);
	memset(p, 0, sizeof *p);
}
