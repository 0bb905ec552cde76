/* jobs.h — work on a second thread (or several), with one rule for when a
 * thread cannot start: the work then runs on the calling thread, so a
 * caller never needs a fallback of its own and every job is done when the
 * call that waits for it returns.  The machine's cores, for how many. */
#ifndef UGC_JOBS_H
#define UGC_JOBS_H

#include <pthread.h>
#include <stddef.h>

/* One job beside the calling thread.  BESIDE says whether it got a thread
 * of its own (job_start) or runs here when waited for (job_wait). */
typedef struct job {
	void *(*fn)(void *);
	void *arg;
	pthread_t th;
	int beside;
} job;

/* Start FN(ARG) on a thread of its own; if none can start, FN(ARG) runs in
 * job_wait instead. */
void job_start(job *j, void *(*fn)(void *), void *arg);
/* FN(ARG) is done on return: its thread joined, or the job run here now. */
void job_wait(job *j);

/* FN(A) here and FN(B) beside it on a second thread when PARALLEL (else,
 * or when no thread starts, after FN(A)); both done on return. */
void jobs_two(void *(*fn)(void *), void *a, void *b, int parallel);

/* FN on each of N arguments (ARGS, STRIDE bytes apart; STRIDE 0: ARGS for
 * all, workers sharing one queue): the first here, the others each on a
 * thread of its own, or here after the first when no thread starts; all
 * done on return.  A worker that runs late finds a shared queue empty.
 * N is at most 64. */
void jobs_pool(void *(*fn)(void *), void *args, size_t stride, int n);

/* The cores online: 1 when unknown, 64 at most. */
int cpu_cores(void);

#endif
