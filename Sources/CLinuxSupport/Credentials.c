// Credentials: per-thread file credentials for a check as another user, becoming a user, and
// leaving root for good.
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CLinuxSupport.h"

struct credential_run {
    unsigned uid, gid;
    const unsigned *groups;
    int count;
    void (*body)(void *);
    void *context;
    int result;
    /// Posted by the worker as its last touch of this run, which lives on the caller's stack.
    sem_t done;
};

/// Takes the run's credentials on the calling thread (a credential worker) and runs its body.
static void run_with_credentials(struct credential_run *run) {
    // Raw system calls: glibc's setgroups, setfsuid and setfsgid would be fine for the two fs
    // ids (per thread), but setgroups is broadcast to every thread by glibc; the kernel's is not.
    // Set on every run, never assumed from the last: glibc's broadcast of another setgroups or
    // setuid in this process would have changed them since.
    if (syscall(SYS_setgroups, (size_t)run->count, run->groups) != 0) {
        run->result = errno;
        return;
    }
    syscall(SYS_setfsgid, run->gid);
    syscall(SYS_setfsuid, run->uid);
    // setfsuid and setfsgid report the previous value and never fail: ask again to see they took.
    if ((unsigned)syscall(SYS_setfsgid, (gid_t)-1) != run->gid || (unsigned)syscall(SYS_setfsuid, (uid_t)-1) != run->uid) {
        run->result = EPERM;
        return;
    }
    run->body(run->context);
    run->result = 0;
}

/// A thread that runs nothing but credential runs: it never runs a signal handler (every signal
/// blocked) or anyone else's code with a client's credentials.
struct credential_worker {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct credential_run *run;
};

/// Idle workers kept for the next runs: a service checking files as its clients starts no thread
/// per check (that was most of such a check's time). More runs at once than this start workers
/// that end after their run, so a check stuck on a file system that does not answer (NFS) holds
/// one thread and never delays another client's.
enum { kept_workers = 4 };
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct credential_worker *idle_workers[kept_workers];
static int idle_count;

static void *credential_worker_main(void *argument) {
    struct credential_worker *worker = argument;
    pthread_mutex_lock(&worker->lock);
    while (1) {
        while (worker->run == NULL) pthread_cond_wait(&worker->wake, &worker->lock);
        struct credential_run *run = worker->run;
        pthread_mutex_unlock(&worker->lock);
        run_with_credentials(run);
        pthread_mutex_lock(&worker->lock);
        worker->run = NULL;
        pthread_mutex_unlock(&worker->lock);
        // Idle before the caller hears its run is done: its next run finds this worker.
        pthread_mutex_lock(&idle_lock);
        int kept = idle_count < kept_workers;
        if (kept) idle_workers[idle_count++] = worker;
        pthread_mutex_unlock(&idle_lock);
        sem_post(&run->done);
        if (!kept) break;
        pthread_mutex_lock(&worker->lock);
    }
    pthread_mutex_destroy(&worker->lock);
    pthread_cond_destroy(&worker->wake);
    free(worker);
    return NULL;
}

/// A new worker, started with `run` as its first: 0 or an errno.
static int start_credential_worker(struct credential_run *run) {
    struct credential_worker *worker = calloc(1, sizeof *worker);
    if (worker == NULL) return ENOMEM;
    pthread_mutex_init(&worker->lock, NULL);
    pthread_cond_init(&worker->wake, NULL);
    worker->run = run;
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int error = pthread_create(&thread, &attributes, credential_worker_main, worker);
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (error != 0) {
        pthread_mutex_destroy(&worker->lock);
        pthread_cond_destroy(&worker->wake);
        free(worker);
    }
    return error;
}

int clinux_run_with_file_credentials(unsigned uid, unsigned gid, const unsigned *groups, int count,
                                     void (*body)(void *), void *context) {
    struct credential_run run = {uid, gid, groups, count, body, context, 0};
    sem_init(&run.done, 0, 0);
    pthread_mutex_lock(&idle_lock);
    struct credential_worker *worker = idle_count > 0 ? idle_workers[--idle_count] : NULL;
    pthread_mutex_unlock(&idle_lock);
    if (worker != NULL) {
        pthread_mutex_lock(&worker->lock);
        worker->run = &run;
        pthread_cond_signal(&worker->wake);
        pthread_mutex_unlock(&worker->lock);
    } else {
        int error = start_credential_worker(&run);
        if (error != 0) {
            sem_destroy(&run.done);
            return error;
        }
    }
    while (sem_wait(&run.done) != 0 && errno == EINTR) {}
    sem_destroy(&run.done);
    return run.result;
}

/// Sets `gid` then `uid` as real, effective and saved ids, and checks they took: 0, or an errno.
static int set_ids_checked(unsigned uid, unsigned gid) {
    if (setresgid(gid, gid, gid) != 0) return errno;
    if (setresuid(uid, uid, uid) != 0) return errno;
    uid_t real, effective, saved;
    gid_t real_group, effective_group, saved_group;
    if (getresuid(&real, &effective, &saved) != 0 || getresgid(&real_group, &effective_group, &saved_group) != 0) {
        return errno;
    }
    if (real != uid || effective != uid || saved != uid || real_group != gid || effective_group != gid ||
        saved_group != gid) {
        return EPERM;
    }
    return 0;
}

int clinux_become_user(const char *name, unsigned uid, unsigned gid) {
    if (initgroups(name, gid) != 0) return errno;
    return set_ids_checked(uid, gid);
}

int clinux_forbid_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
}

int clinux_drop_privileges(unsigned uid, unsigned gid) {
    if (setgroups(0, NULL) != 0) return errno;
    int code = set_ids_checked(uid, gid);
    if (code != 0) return code;
    if (getgroups(0, NULL) != 0) return EPERM;
    // No way back: regaining root must fail.
    if (uid != 0 && setuid(0) == 0) return EPERM;
    return 0;
}
