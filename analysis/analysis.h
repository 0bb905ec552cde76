/* analysis.h — the analysis layer's public header: the GC replayed offline
 * and everything computed from its result.
 *
 * pipeline.h (load once, compute each part once: how every command gets
 * the rest), gc.h (the engine's GC), findings.h (what the GC reports),
 * dominators.h (retention graphs, dominators, retained sizes), view.h and
 * query.h (the query interface the commands answer through, over a heap in
 * memory or a database), whatif.h and after.h (the GC rerun with changes,
 * the heap after a purge), suspects.h (leak suspects), diff.h and
 * diff_report.h (two heaps compared, and the rows diff prints),
 * leak_paths.h (leak mode's paths from program state on a V8 heap),
 * cluster_causes.h (why a cluster was dissolved), cut.h (the fewest
 * references whose removal frees some objects), class_hist.h (objects
 * counted by class).  The sql and cli layers include this header, never
 * the ones it names (tools/check-layers.sh). */
#ifndef UGC_ANALYSIS_H
#define UGC_ANALYSIS_H

#include "analysis/after.h"
#include "analysis/class_hist.h"
#include "analysis/cluster_causes.h"
#include "analysis/cut.h"
#include "analysis/diff.h"
#include "analysis/diff_report.h"
#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "analysis/pipeline.h"
#include "analysis/gc.h"
#include "analysis/leak_paths.h"
#include "analysis/query.h"
#include "analysis/suspects.h"
#include "analysis/view.h"
#include "analysis/gccost.h"
#include "analysis/whatif.h"
#include "analysis/worlds.h"

#endif
