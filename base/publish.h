/* publish.h — putting finished output files in place, nothing lost.
 *
 * An output is written to a temporary file beside it (fileio.h, outfile)
 * and published only when complete: the temporary file is fsynced, renamed
 * to its name, and its directory fsynced, so a crash leaves the old state
 * or the new one.  Without FORCE the rename never replaces a file: one that
 * appeared since the command checked (another run writing the same output)
 * makes this one fail instead of silently losing either result
 * (renameat2 RENAME_NOREPLACE; link + unlink where the filesystem lacks it).
 * Several outputs of one command are published together or not at all. */
#ifndef UGC_PUBLISH_H
#define UGC_PUBLISH_H

#include <stddef.h>

#include "base/fileio.h"

/* Publish TMP as PATH (see above).  0, or -1 with ERR (TMP is left). */
int publish_file(const char *tmp, const char *path, int force, char *err, size_t errsize);
/* Publish N reserved or opened outfiles, all or none: when one cannot be
 * published, those published before it are removed again (without FORCE
 * they were new files) and every temporary file is removed.  0, or -1 with
 * ERR. */
int outfile_commit_all(outfile *o, size_t n, char *err, size_t errsize);

#endif
