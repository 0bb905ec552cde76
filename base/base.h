/* base.h — the base layer's public header: what every other layer may use.
 *
 * The base layer is the bottom of the tool: assertions, containers and
 * hashing, the string interner, escaping of untrusted names, the clock,
 * work on threads, progress and tracing, file input, atomic publication,
 * temporary-file cleanup, name similarity (did-you-mean) and sizes and
 * counts as people read them.  It
 * uses nothing of the tool's other layers (snapshot, analysis, sql, cli);
 * they reach it through this header alone (tools/check-layers.sh). */
#ifndef UGC_BASE_H
#define UGC_BASE_H

#include "base/assert.h"
#include "base/clock.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/hash.h"
#include "base/hashindex.h"
#include "base/human.h"
#include "base/idmap.h"
#include "base/jobs.h"
#include "base/progress.h"
#include "base/publish.h"
#include "base/similar.h"
#include "base/strpool.h"
#include "base/tempfiles.h"
#include "base/topn.h"
#include "base/trace.h"
#include "base/vec.h"

#endif
