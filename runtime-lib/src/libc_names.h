/* Binds the runtime's calls of libc to libc, whatever names the design defines.
 *
 * The runtime is a static archive linked into the design, so an undefined reference of
 * the runtime to `send` resolves to the design's own `send` when the design defines one
 * (a global variable `int send;` in a message-passing benchmark): the fork server then
 * "called" an int and died of SIGSEGV, and every run of the search fell back to exec. A
 * reference to the versioned name `send@GLIBC_2.2.5` can only bind to libc's definition,
 * so every file of the runtime is compiled with this header forced in (build.rs) and each
 * libc function the runtime calls, and does not itself interpose, is pinned to its libc
 * version. Functions the runtime defines (sched_yield, time, sleep, free, …) and the
 * compiler's own memory and string builtins are left alone; `atexit` is not a libc.so
 * symbol at all (libc_nonshared.a). Other architectures keep plain references. */
#ifndef SYNCMUT_LIBC_NAMES_H
#define SYNCMUT_LIBC_NAMES_H

/* The runtime needs glibc anyway (it calls __libc_free and dlvsym); no libc header may
 * come first here, since the including file's _GNU_SOURCE must precede them all. */
#ifdef __linux__
#if defined(__x86_64__)
#define SYNCMUT_LIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SYNCMUT_LIBC_BASE "GLIBC_2.17"
#endif
#endif

#ifdef SYNCMUT_LIBC_BASE
#define SYNCMUT_LIBC_AT(name, version) __asm__(".symver " #name ", " #name "@" version);
#define SYNCMUT_LIBC(name) SYNCMUT_LIBC_AT(name, SYNCMUT_LIBC_BASE)
/* Process, descriptors and the fork server's socket. */
SYNCMUT_LIBC(send)
SYNCMUT_LIBC(recvmsg)
SYNCMUT_LIBC(write)
SYNCMUT_LIBC(open)
SYNCMUT_LIBC(close)
SYNCMUT_LIBC(dup2)
SYNCMUT_LIBC(chdir)
SYNCMUT_LIBC(getcwd)
SYNCMUT_LIBC(fork)
SYNCMUT_LIBC(waitpid)
SYNCMUT_LIBC(getpid)
SYNCMUT_LIBC(getppid)
SYNCMUT_LIBC(setpgid)
SYNCMUT_LIBC(setrlimit)
SYNCMUT_LIBC(prctl)
SYNCMUT_LIBC(syscall)
SYNCMUT_LIBC(mmap)
SYNCMUT_LIBC(madvise)
SYNCMUT_LIBC(raise)
SYNCMUT_LIBC(abort)
SYNCMUT_LIBC(exit)
SYNCMUT_LIBC(_exit)
/* Signals. */
SYNCMUT_LIBC(sigaction)
SYNCMUT_LIBC(sigaltstack)
SYNCMUT_LIBC(sigemptyset)
SYNCMUT_LIBC(sigfillset)
SYNCMUT_LIBC(sigprocmask)
/* Environment, files and messages. */
SYNCMUT_LIBC(getenv)
SYNCMUT_LIBC(putenv)
SYNCMUT_LIBC(unsetenv)
SYNCMUT_LIBC(fopen)
SYNCMUT_LIBC(fgets)
SYNCMUT_LIBC(fclose)
SYNCMUT_LIBC(fflush)
SYNCMUT_LIBC(fwrite)
SYNCMUT_LIBC(fprintf)
SYNCMUT_LIBC(dprintf)
SYNCMUT_LIBC(snprintf)
SYNCMUT_LIBC(vsnprintf)
SYNCMUT_LIBC(strerror)
SYNCMUT_LIBC(strtol)
SYNCMUT_LIBC(strtoll)
SYNCMUT_LIBC(strtoull)
SYNCMUT_LIBC_AT(gettid, "GLIBC_2.30")
#endif

#endif
