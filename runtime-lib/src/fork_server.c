/* The fork server: one process of the design serves many runs.
 *
 * Starting a run by exec costs the kernel's exec, the dynamic linking of libc, libm and
 * libstdc++ and their initialisation: most of a small program's run. When syncmut starts
 * the design with SYNCMUT_FORK_SERVER=<fd> (a SOCK_SEQPACKET socket; "<fd> LD_BIND_NOW"
 * when syncmut also set LD_BIND_NOW=1 for the server alone), the first runtime
 * constructor, before anything reads its per-run settings, calls
 * syncmut_fork_server_serve(), which never returns in the server: it says hello, then,
 * per request, forks a child that takes the request's settings and returns here to go
 * on with the remaining constructors and main, as an exec'd run would.
 *
 * Protocol (syncmut's side is runtime-lib/runner/src/fork_server.rs), one message each:
 *   server -> syncmut  "SMFS" once in the loop (a design that ends before sends nothing)
 *   syncmut -> server  "<cwd>\0<address-space limit or ->\0<NAME=value>\0…" carrying
 *                      stdin, stdout and stderr as SCM_RIGHTS descriptors
 *   server -> syncmut  the child's pid (int32; negative: -errno of a failed fork)
 *   server -> syncmut  its wait status (int32) once it ended
 * The server ends when syncmut closes the socket. */
#define _GNU_SOURCE
#include "fork_server.h"
#include "syncmut_protocol.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A request: environment values of a run are short (paths, seeds, a few input values). */
static char request[1 << 17];
static sigset_t saved_mask; /* the design's signal mask, for its runs */

static void send_int(int fd, int32_t value)
{
    while (send(fd, &value, sizeof value, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

static void child_fail(const char *what)
{
    dprintf(2, "syncmut runtime: fork server: %s: %s\n", what, strerror(errno));
    _exit(127);
}

/* In the child: become the run exec would have started. */
static void become_run(int server_fd, pid_t server, const int fds[3], size_t length)
{
    /* Its own process group, as every run has (syncmut kills the group on timeout);
     * dies with the server as an exec'd design dies with its supervisor. */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != server)
        _exit(127);
    close(server_fd);
    for (int i = 0; i < 3; i++) {
        if (dup2(fds[i], i) < 0)
            child_fail("dup2");
        if (fds[i] > 2)
            close(fds[i]);
    }
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    const char *cwd = request;
    const char *memory = cwd + strlen(cwd) + 1;
    if (*cwd != '\0' && chdir(cwd) != 0)
        child_fail(cwd);
    if (strcmp(memory, "-") != 0) {
        rlim_t bytes = strtoull(memory, NULL, 10);
        struct rlimit limit = { bytes, bytes };
        if (setrlimit(RLIMIT_AS, &limit) != 0)
            child_fail("setrlimit");
    }
    for (char *var = (char *)memory + strlen(memory) + 1; var < request + length; var += strlen(var) + 1)
        if (*var != '\0' && putenv(var) != 0)
            child_fail("putenv");
}

void syncmut_fork_server_serve(void)
{
    const char *value = getenv(SYNCMUT_ENV_FORK_SERVER);
    if (value == NULL || *value == '\0')
        return;
    int fd = atoi(value);
    /* "<fd> LD_BIND_NOW": syncmut set LD_BIND_NOW so that the dynamic linker resolved
     * every symbol in the server, once, instead of in each run after its fork; the runs
     * get the environment an exec'd run would have. */
    if (strstr(value, " LD_BIND_NOW") != NULL)
        unsetenv("LD_BIND_NOW");
    /* Neither the runs nor what they start are servers. */
    unsetenv(SYNCMUT_ENV_FORK_SERVER);
    pid_t server = getpid();
    /* The server blocks every signal it can, so a run that signals its parent (getppid)
     * hits the server and nothing happens, as with the exec path's supervisor, which
     * ignores them. Blocked rather than ignored: a run gets the design's mask back in
     * one call (restoring 64 dispositions was half of a run's system calls), and a
     * signal sent to a run's group before that call (a timeout's SIGTERM) waits for it
     * instead of being lost; a fork does not inherit the server's pending signals.
     * SIGCHLD's disposition is untouched, so waitpid sees every child. */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &saved_mask);
    if (send(fd, "SMFS", 4, MSG_NOSIGNAL) != 4) {
        dprintf(2, "syncmut runtime: %s=%d is not the socket of a running syncmut (%s)\n", SYNCMUT_ENV_FORK_SERVER, fd, strerror(errno));
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    for (;;) {
        int fds[3] = { -1, -1, -1 };
        char control[CMSG_SPACE(sizeof fds)];
        struct iovec iov = { request, sizeof request - 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
        ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(0); /* syncmut closed the socket: the search is over */
        request[n] = '\0';
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        if (cmsg != NULL && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
            memcpy(fds, CMSG_DATA(cmsg), sizeof fds);
        if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || fds[0] < 0 || fds[1] < 0 || fds[2] < 0 || memchr(request, '\0', (size_t)n) == NULL) {
            for (int i = 0; i < 3; i++)
                if (fds[i] >= 0)
                    close(fds[i]);
            send_int(fd, -EINVAL);
            continue;
        }
        pid_t child = fork();
        if (child == 0) {
            /* The descriptors arrived close-on-exec; dup2 onto 0..2 clears that. */
            become_run(fd, server, fds, (size_t)n);
            return;
        }
        int error = errno;
        for (int i = 0; i < 3; i++)
            close(fds[i]);
        if (child < 0) {
            send_int(fd, -error);
            continue;
        }
        /* Both sides set the group, so it exists whichever runs first (as shells do):
         * syncmut may kill it as soon as it has the pid. */
        setpgid(child, child);
        send_int(fd, child);
        int status = 0;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        send_int(fd, status);
    }
}
