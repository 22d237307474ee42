/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sleep_trace.c — cxsim-sleep-trace: a static client's sleeps become model time.
 *
 *   CXSIM_CLOCK=DIR/cxsim/clock cxsim-sleep-trace PROGRAM [ARGS...]
 *
 * What cxsim-sleep.so does for a dynamically linked client (mstflint), for one
 * that cannot take a preload: cxflash is static. PROGRAM runs under ptrace with
 * a seccomp filter that stops it at nanosleep and clock_nanosleep only (every
 * other system call runs untraced, at full speed). At each relative sleep the
 * tracer writes "advance <ns>\n" to $CXSIM_CLOCK and skips the call, which
 * returns 0 at once: a polling loop waits exactly as long in the model as it
 * asked for and takes no wall time. An absolute clock_nanosleep runs for real,
 * as under the shim. Without $CXSIM_CLOCK the program runs untraced.
 *
 * Exit status: PROGRAM's, or 128 + the signal that killed it; 125 when it
 * cannot be started or traced. x86-64 only (the system call ABI and registers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "cxsim-sleep-trace reads x86-64 registers"
#endif

#define EXIT_TRACE 125                 /* cannot start or trace PROGRAM */
#define SECCOMP_STOP (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))
#define EXEC_STOP (SIGTRAP | (PTRACE_EVENT_EXEC << 8))

static void die(const char *what)
{
	fprintf(stderr, "cxsim-sleep-trace: %s: %s\n", what, strerror(errno));
	exit(EXIT_TRACE);
}

/* Stop at the two sleeping calls (SECCOMP_RET_TRACE), allow everything else;
 * another architecture's calls (x32, i386 through int 0x80) are allowed untraced. */
static void install_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_nanosleep, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_nanosleep, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		die("seccomp filter");
}

/* The child: be traced, wait for the tracer's options, filter, exec. */
static void run_child(char **argv)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		die("PTRACE_TRACEME");
	raise(SIGSTOP);
	install_filter();
	execvp(argv[0], argv);
	die(argv[0]);
}

static int read_timespec(pid_t pid, uint64_t addr, struct timespec *ts)
{
	struct iovec local = {ts, sizeof(*ts)}, remote = {(void *)(uintptr_t)addr, sizeof(*ts)};

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof(*ts) ? 0 : -1;
}

/* At a seccomp stop: a relative sleep becomes "advance NS" and is skipped
 * (orig_rax -1: the kernel runs no call and returns rax, set to 0). An absolute
 * one, an unreadable or invalid timespec, or a failed write: the call runs. */
static void on_sleep(pid_t pid, int clock_fd)
{
	struct user_regs_struct r;
	struct timespec ts;
	uint64_t req;
	char line[40];
	int n;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
		return;
	if (r.orig_rax == SYS_clock_nanosleep) {
		if (r.rsi & TIMER_ABSTIME)
			return;
		req = r.rdx;
	} else {
		req = r.rdi;
	}
	if (read_timespec(pid, req, &ts) || ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return;
	n = snprintf(line, sizeof(line), "advance %llu\n",
		     (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
	if (write(clock_fd, line, (size_t)n) != n)
		return;
	r.orig_rax = (unsigned long long)-1;
	r.rax = 0;
	ptrace(PTRACE_SETREGS, pid, NULL, &r);
}

/* Follow the child to its end; its exit status as the shell gives it. A signal
 * the child stops for is delivered to it, but the SIGSTOP it raised for us. */
static int trace(pid_t pid, int clock_fd)
{
	int status, sig = 0;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die("waiting for the child");
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)))
		die("PTRACE_SETOPTIONS");
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			die("PTRACE_CONT");
		while (waitpid(pid, &status, 0) != pid)
			if (errno != EINTR)
				die("waitpid");
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		sig = 0;
		if (status >> 8 == SECCOMP_STOP)
			on_sleep(pid, clock_fd);
		else if (status >> 8 != EXEC_STOP && WSTOPSIG(status) != SIGSTOP)
			sig = WSTOPSIG(status);
	}
}

static pid_t child;

/* Ctrl-C, a hangup or a kill of the tracer goes to the child (cxflash defers
 * Ctrl-C until the flash is idle); the tracer ends when the child does. */
static void relay(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	const char *path = getenv("CXSIM_CLOCK");
	int clock_fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: CXSIM_CLOCK=DIR/cxsim/clock %s PROGRAM [ARGS...]\n", argv[0]);
		return 2;
	}
	if (!path || !*path) {
		execvp(argv[1], argv + 1);
		die(argv[1]);
	}
	if ((clock_fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		die(path);
	signal(SIGINT, relay);
	signal(SIGTERM, relay);
	signal(SIGHUP, relay);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0)
		run_child(argv + 1);
	child = pid;
	return trace(pid, clock_fd);
}
