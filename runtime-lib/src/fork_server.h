/* The fork server (fork_server.c). */
#ifndef SYNCMUT_FORK_SERVER_H
#define SYNCMUT_FORK_SERVER_H

/* With SYNCMUT_FORK_SERVER set: serves runs, returning only in each forked run, with
 * the run's settings in place. Without it: returns at once. Called first by the runtime's
 * first constructor, before any per-run setting is read. */
void syncmut_fork_server_serve(void);

#endif
