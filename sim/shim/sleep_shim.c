/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sleep_shim.c — LD_PRELOAD: a client's sleeps become model time in `cxsim serve`.
 *
 * usleep, nanosleep, clock_nanosleep (relative) and sleep do not sleep; they
 * write "advance <ns>\n" to the file named by $CXSIM_CLOCK (the server's
 * cxsim/clock), so a polling loop in mstflint waits exactly as long in the
 * model as it asked for, and the run takes no wall time. Without $CXSIM_CLOCK,
 * or if the file cannot be opened, the real functions run (found with
 * dlsym(RTLD_NEXT)). Absolute clock_nanosleep always sleeps for real.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FD_UNKNOWN (-2)   /* not opened yet */
#define FD_NONE (-1)      /* no clock: sleep for real */

static int clock_fd = FD_UNKNOWN;

static int the_clock(void)
{
	int fd = __atomic_load_n(&clock_fd, __ATOMIC_ACQUIRE), expected = FD_UNKNOWN;
	const char *path;

	if (fd != FD_UNKNOWN)
		return fd;
	path = getenv("CXSIM_CLOCK");
	fd = FD_NONE;
	if (path && *path) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			/* dprintf, not stdio: this may run inside any library call. */
			dprintf(2, "cxsim-sleep: cannot open CXSIM_CLOCK=%s; sleeping for real\n", path);
			fd = FD_NONE;
		}
	}
	if (!__atomic_compare_exchange_n(&clock_fd, &expected, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (fd >= 0)
			close(fd);   /* another thread won the race */
		return expected;
	}
	return fd;
}

/* Tell the model that ns passed; 0, or -1 if the caller should sleep for real. */
static int advance(uint64_t ns)
{
	int fd = the_clock(), n;
	char line[40];

	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "advance %llu\n", (unsigned long long)ns);
	return write(fd, line, (size_t)n) == n ? 0 : -1;
}

static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static int valid(const struct timespec *t)
{
	return t && t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1000000000L;
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	int (*fn)(const struct timespec *, struct timespec *);

	if (!valid(req)) {
		errno = EINVAL;
		return -1;
	}
	if (!advance(ts_ns(req)))
		return 0;
	fn = (int (*)(const struct timespec *, struct timespec *))real("nanosleep");
	return fn ? fn(req, rem) : (errno = ENOSYS, -1);
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	int (*fn)(clockid_t, int, const struct timespec *, struct timespec *);

	if (!(flags & TIMER_ABSTIME)) {
		if (!valid(req))
			return EINVAL;
		if (!advance(ts_ns(req)))
			return 0;
	}
	fn = (int (*)(clockid_t, int, const struct timespec *, struct timespec *))
		real("clock_nanosleep");
	return fn ? fn(clk, flags, req, rem) : ENOSYS;
}

int usleep(useconds_t us)
{
	int (*fn)(useconds_t);

	if (!advance((uint64_t)us * 1000u))
		return 0;
	fn = (int (*)(useconds_t))real("usleep");
	return fn ? fn(us) : (errno = ENOSYS, -1);
}

unsigned int sleep(unsigned int s)
{
	unsigned int (*fn)(unsigned int);

	if (!advance((uint64_t)s * 1000000000u))
		return 0;
	fn = (unsigned int (*)(unsigned int))real("sleep");
	return fn ? fn(s) : s;
}
