/*
 * The harness's supervisor, compiled: what SUPERVISOR_SCRIPT in supervisor.ts does, in one process that execs
 * nothing but the harness (see supervisor.ts for what it promises; compiled-supervisor.ts builds it).
 *
 *   the-loop-supervisor EXIT_FILE CGROUP_DIR|'' NAMESPACE_FD|'' COMMAND [ARG...]
 *
 * What it does differently, and why:
 * - The harness is born in the run's cgroup (clone3 with CLONE_INTO_CGROUP) instead of the supervisor moving itself
 *   there by cgroup.procs: a move takes the kernel's cgroup_threadgroup_rwsem for writing, which waits for an RCU
 *   grace period whenever no other move came just before it, 13-16 ms on a turn's critical path. The supervisor
 *   itself stays outside the cgroup; it leads the run's process group, which is signalled with it. Where clone3 is
 *   refused (a seccomp filter, an old kernel), it joins the cgroup by cgroup.procs as the script does, and where
 *   that fails too, removes the cgroup (still empty) and starts the harness anyway.
 * - The mount namespace (NAMESPACE_FD, namespaces.ts) is entered, and the capabilities that could undo it are
 *   dropped, in the harness's process before its exec, instead of through nsenter and setpriv.
 * A harness that exits 128+N (N a signal) is recorded as ended by signal N, as the script's shell sees it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_FILE_RESERVED_BYTES 256

static volatile sig_atomic_t caught = 0;

static void note(int sig) { caught = sig; }

static const char *const NAMES[32] = {
    NULL,   "HUP",  "INT",    "QUIT", "ILL",    "TRAP", "ABRT",  "BUS",  "FPE",  "KILL", "USR1",
    "SEGV", "USR2", "PIPE",   "ALRM", "TERM",   "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN",
    "TTOU", "URG",  "XCPU",   "XFSZ", "VTALRM", "PROF", "WINCH", "IO",   "PWR",  "SYS",
};

/* The capabilities that could undo the namespace (namespaces.ts DROPPED_CAPS): bounding and inheritable sets. */
static const int DROPPED[] = {CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH};

static void die(const char *what, const char *name) {
  dprintf(2, "the-loop-supervisor: %s %s: %s\n", what, name, strerror(errno));
  _exit(errno == ENOENT ? 127 : 126);
}

/* In the harness's process, before its exec: the namespace, the working directory again inside it, the caps. */
static void enter(int nsfd, const char *cwd) {
  if (nsfd >= 0) {
    if (setns(nsfd, CLONE_NEWNS) != 0) die("cannot enter the mount namespace of", "the launcher");
    close(nsfd);
    if (cwd == NULL || chdir(cwd) != 0) die("cannot change directory to", cwd ? cwd : "?");
    for (size_t i = 0; i < sizeof DROPPED / sizeof DROPPED[0]; i++) {
      if (prctl(PR_CAPBSET_DROP, DROPPED[i], 0, 0, 0) != 0) die("cannot drop a capability for", "the harness");
    }
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) die("cannot read the capabilities of", "the harness");
    for (size_t i = 0; i < sizeof DROPPED / sizeof DROPPED[0]; i++) {
      data[DROPPED[i] / 32].inheritable &= ~(1u << (DROPPED[i] % 32));
    }
    if (syscall(SYS_capset, &header, data) != 0) die("cannot set the capabilities of", "the harness");
  }
}

/* A child born in the cgroup (0 in the child, its pid in the parent, -1 when clone3 cannot place it there). */
static pid_t clone_into(int cgroup_fd) {
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = (uint64_t)cgroup_fd;
  return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

/* The script's fallback: the supervisor joins the cgroup (so its child is born there), or removes it. */
static void join_or_remove(const char *cgroup) {
  char procs[4096];
  snprintf(procs, sizeof procs, "%s/cgroup.procs", cgroup);
  int fd = open(procs, O_WRONLY | O_CLOEXEC);
  char pid[32];
  int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  if (fd < 0 || write(fd, pid, (size_t)n) != n) rmdir(cgroup);
  if (fd >= 0) close(fd);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    dprintf(2, "usage: the-loop-supervisor EXIT_FILE CGROUP_DIR NAMESPACE_FD COMMAND [ARG...]\n");
    return 2;
  }
  const char *exit_file = argv[1];
  const char *cgroup = argv[2];
  int nsfd = argv[3][0] ? atoi(argv[3]) : -1;
  char **command = argv + 4;

  sigset_t stops, none;
  sigemptyset(&stops);
  sigemptyset(&none);
  sigaddset(&stops, SIGHUP);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = note; // no SA_RESTART: a stop interrupts a join that blocks
  sigaction(SIGHUP, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);

  int exit_fd = open(exit_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (exit_fd >= 0) {
    char blanks[EXIT_FILE_RESERVED_BYTES];
    memset(blanks, ' ', sizeof blanks);
    blanks[sizeof blanks - 1] = '\n';
    if (write(exit_fd, blanks, sizeof blanks) < 0) {
      // a full disk already: the verdict's write looks for space at the end, as before
    }
  }
  char *cwd = nsfd >= 0 ? getcwd(NULL, 0) : NULL;

  // From here to the harness's start a stop is held, then looked at: one that came first means no harness at all.
  sigprocmask(SIG_BLOCK, &stops, NULL);
  pid_t child = -1;
  if (cgroup[0] && !caught) {
    int cgroup_fd = open(cgroup, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cgroup_fd >= 0) child = clone_into(cgroup_fd);
    if (cgroup_fd >= 0) close(cgroup_fd);
    if (child < 0) {
      sigprocmask(SIG_UNBLOCK, &stops, NULL);
      join_or_remove(cgroup);
      sigprocmask(SIG_BLOCK, &stops, NULL);
    }
  }
  if (child < 0 && !caught) child = fork();
  if (child == 0) {
    signal(SIGHUP, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    enter(nsfd, cwd);
    execvp(command[0], command);
    die("cannot run", command[0]);
  }

  int code;
  if (child < 0) {
    code = caught ? 128 + caught : 126;
  } else {
    // A stop sent to the group while the harness was being started missed it: it is passed on.
    sigset_t pending;
    sigpending(&pending);
    for (int sig = 1; sig < 32; sig++) {
      if (sigismember(&stops, sig) && sigismember(&pending, sig)) kill(child, sig);
    }
    sigprocmask(SIG_UNBLOCK, &stops, NULL);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  }

  int sig = code > 128 && code < 160 ? code - 128 : 0;
  const char *name = sig > 0 && sig < 32 ? NAMES[sig] : NULL;
  char record[EXIT_FILE_RESERVED_BYTES];
  int length = name ? snprintf(record, sizeof record, "{\"schema_version\":2,\"code\":null,\"signal\":\"SIG%s\"}", name)
                    : snprintf(record, sizeof record, "{\"schema_version\":2,\"code\":%d,\"signal\":null}", code);
  if (exit_fd < 0) exit_fd = open(exit_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (exit_fd >= 0 && pwrite(exit_fd, record, (size_t)length, 0) != length) {
    // nothing to tell it to: a verdict that cannot be written is a run that left none
  }
  if (name) {
    signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    raise(sig);
  }
  return code;
}
