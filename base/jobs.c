/* jobs.c — work on other threads, run here when none starts (see jobs.h). */
#include "base/jobs.h"

#include <unistd.h>

#include "base/assert.h"

void job_start(job *j, void *(*fn)(void *), void *arg)
{
	j->fn = fn;
	j->arg = arg;
	j->beside = pthread_create(&j->th, NULL, fn, arg) == 0;
}

void job_wait(job *j)
{
	if (j->beside)
		pthread_join(j->th, NULL);
	else
		j->fn(j->arg);
	j->beside = 0;
	j->fn = NULL;
}

void jobs_two(void *(*fn)(void *), void *a, void *b, int parallel)
{
	job j = {.fn = fn, .arg = b};
	if (parallel)
		job_start(&j, fn, b);
	fn(a);
	job_wait(&j);
}

#define POOL_MAX 64

void jobs_pool(void *(*fn)(void *), void *args, size_t stride, int n)
{
	job th[POOL_MAX];
	assert(n <= POOL_MAX); /* every caller stays within it */
	if (n > POOL_MAX)
		n = POOL_MAX;
	for (int k = 1; k < n; k++)
		job_start(&th[k], fn, (char *)args + (size_t)k * stride);
	if (n > 0)
		fn(args);
	for (int k = 1; k < n; k++)
		job_wait(&th[k]);
}

int cpu_cores(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
}
