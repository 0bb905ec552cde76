/* analysis_options.c — analyze's analysis options, checked and handed to
 * the pipeline (see analysis_options.h). */
#include "cli/analysis_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"

int analysis_options_given(const analysis_options *o)
{
	return o->mode >= 0 || o->keep || o->threads > 0 || o->policy >= 0;
}

int analysis_options_check(const char *cmd, analysis_options *o)
{
	char bad[64];
	o->keep_flags = 0;
	if (o->keep && strcmp(o->keep, "-") && flags_parse_object(o->keep, &o->keep_flags, bad, sizeof bad))
		return usage_error(cmd, "--keep-flags: '%s' is not an RF_ object flag", bad);
	if (o->threads <= 0)
		o->threads = cpu_cores();
	if (o->policy < 0)
		o->policy = POLICY_GC;
	return 0;
}

pipeline_options analysis_pipeline_options(const analysis_options *o)
{
	pipeline_options p = PIPELINE_OPTIONS_INIT;
	p.mode = o->mode;
	p.keep_given = o->keep != NULL;
	p.keep_flags = o->keep_flags;
	p.threads = (int)o->threads;
	p.policy = o->policy;
	return p;
}
