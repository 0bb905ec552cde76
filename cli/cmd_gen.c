/* cmd_gen.c — `ugc-analyze gen`: write a generated heap (see snapshot/gen.h). */
#include <string.h>

#include "cli.h"
#include "gen.h"
#include "snapshot.h"

int cmd_gen(int argc, char **argv)
{
	gen_options opt = {0, 1, MODE_GAME, 0};
	const char *out = NULL;
	int force = 0;
	long long v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (strcmp(a, "--objects") == 0 && more) {
			if ((v = parse_count(argv[++i], GEN_MAX_OBJECTS)) < 0)
				return usage_error("gen", "--objects takes a number up to %d", GEN_MAX_OBJECTS);
			opt.objects = (uint64_t)v;
		} else if (strcmp(a, "--seed") == 0 && more) {
			if ((v = parse_count(argv[++i], (1LL << 62))) < 0)
				return usage_error("gen", "--seed takes a non-negative number");
			opt.seed = (uint64_t)v;
		} else if (strcmp(a, "--mode") == 0 && more) {
			const char *m = argv[++i];
			if (strcmp(m, "game") && strcmp(m, "editor"))
				return usage_error("gen", "--mode is game or editor");
			opt.mode = strcmp(m, "editor") == 0 ? MODE_EDITOR : MODE_GAME;
		} else if (strcmp(a, "--broken-clusters") == 0 && more) {
			if ((v = parse_count(argv[++i], 100)) < 0)
				return usage_error("gen", "--broken-clusters takes a percentage from 0 to 100");
			opt.broken_pct = (int)v;
		} else if (strcmp(a, "-o") == 0 && more) {
			out = argv[++i];
		} else if (strcmp(a, "--force") == 0) {
			force = 1;
		} else {
			return usage_error("gen", "unexpected argument '%s'", a);
		}
	}
	if (!opt.objects)
		return usage_error("gen", "needs --objects N");
	if (!out)
		return usage_error("gen", "needs -o FILE");
	if (!snapshot_format_known(out))
		return usage_error("gen", "cannot tell the format of '%s' (name it .ugcs, .ugct or .ugct.zst)", out);
	heap h;
	char err[SNAP_ERR_MAX];
	if (gen_heap(&opt, &h, err, sizeof err)) {
		heap_free(&h);
		return die("%s", err);
	}
	int rc = snapshot_save(out, &h, force, err, sizeof err);
	heap_free(&h);
	return rc ? die("%s", err) : 0;
}
