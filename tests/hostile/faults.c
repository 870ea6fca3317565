/* Faults of the operating system, injected into pgn-audit with LD_PRELOAD
   by tests/hostile/faults.rs:
   - SHIM_FAIL_CALL=close|fsync and SHIM_FAIL_NAME=TEXT: that call on a
     file whose path holds TEXT fails with EIO, as NFS and disk quotas
     report a write-back that failed (close still closes the file);
   - SHIM_THREADS=N: pthread_create fails with EAGAIN after N threads, as
     a limit on threads or processes (RLIMIT_NPROC, a pids cgroup) does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failing(int fd, const char *call) {
    const char *want = getenv("SHIM_FAIL_CALL");
    const char *name = getenv("SHIM_FAIL_NAME");
    if (!want || !name || strcmp(want, call) != 0)
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0)
        return 0;
    path[n] = 0;
    return strstr(path, name) != NULL;
}

int close(int fd) {
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int fail = failing(fd, "close");
    int r = real(fd);
    if (fail && r == 0) {
        errno = EIO;
        return -1;
    }
    return r;
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (failing(fd, "fsync")) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

static atomic_int started;

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*run)(void *), void *arg) {
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real)
        real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
            RTLD_NEXT, "pthread_create");
    const char *limit = getenv("SHIM_THREADS");
    if (limit && atomic_fetch_add(&started, 1) >= atoi(limit))
        return EAGAIN;
    return real(thread, attr, run, arg);
}
