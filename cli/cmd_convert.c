/* cmd_convert.c — `ugc-analyze convert IN OUT`: snapshot format conversion. */
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "snapshot.h"

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	int force = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--force") == 0)
			force = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("convert", "unknown option '%s'", argv[i]);
		else if (!in)
			in = argv[i];
		else if (!out)
			out = argv[i];
		else
			return usage_error("convert", "too many arguments");
	}
	if (!in || !out)
		return usage_error("convert", "needs IN and OUT");
	if (!snapshot_format_known(out))
		return usage_error("convert", "cannot tell the format of '%s' (name it .ugcs, .ugct or .ugct.zst)", out);
	if (check_output(out, force))
		return 1;
	heap h;
	if (load_or_die(in, &h))
		return 1;
	char err[SNAP_ERR_MAX];
	progress_begin_file("write", out);
	int rc = snapshot_save(out, &h, force, err, sizeof err);
	heap_free(&h);
	if (rc)
		return die("%s", err);
	return 0;
}
