/* cmd_convert.c — `ugc-analyze convert IN OUT`: snapshot format conversion. */
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

struct convert_opts {
	int force;
};

static const option convert_options[] = {
	OPT_FLAG(0, "force", struct convert_opts, force, "overwrite OUT if it exists"),
	OPT_END(),
};

const command command_convert = {
	"convert", cmd_convert, "convert between text (.ugct, .ugct.zst) and binary (.ugcs) snapshots",
	"usage: ugc-analyze convert IN OUT [--force]\n",
	"Reads IN in any format (detected from its content; a V8 .heapsnapshot too) and\n"
	"writes OUT in the format its name asks for: .ugcs binary, .ugct text, .ugct.zst\n"
	"zstd-compressed text.\n"
	"The text written is canonical; text -> binary -> text is lossless.\n",
	convert_options, 2, NULL,
};

int cmd_convert(int argc, char **argv)
{
	struct convert_opts opts = {0};
	const char *files[2] = {NULL, NULL};
	int parsed = parse_options(&command_convert, argc, argv, &opts, files);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *in = files[0], *out = files[1];
	int force = opts.force;
	if (!in || !out)
		return usage_error("convert", "needs IN and OUT");
	if (!snapshot_format_known(out))
		return usage_error("convert", "cannot tell the format of '%s' (name it .ugcs, .ugct or .ugct.zst)", out);
	char err[SNAP_ERR_MAX];
	if (check_output(out, force))
		return 1;
	if (outfile_check_input(out, in, err, sizeof err)) /* --force never overwrites IN */
		return error("%s", err);
	heap h;
	if (load_or_die(in, &h))
		return 1;
	progress_begin_file("write", out);
	int rc = snapshot_save(out, &h, force, err, sizeof err);
	uint32_t objects = h.objects, refs = h.nrefs;
	heap_free(&h);
	if (rc)
		return error("%s", err);
	struct stat st;
	if (!cli_quiet && stat(out, &st) == 0)
		printf("wrote %s: %s object%s, %s reference%s, %s\n", disp(out), count_text(objects), plural_s(objects),
		       count_text(refs), plural_s(refs), size_text((uint64_t)st.st_size));
	return 0;
}
