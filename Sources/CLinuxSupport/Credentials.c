// Credentials: per-thread file credentials for a check as another user, becoming a user, and
// leaving root for good.
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
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
};

static void *run_with_credentials(void *argument) {
    struct credential_run *run = argument;
    // Raw system calls: glibc's setgroups, setfsuid and setfsgid would be fine for the two fs
    // ids (per thread), but setgroups is broadcast to every thread by glibc; the kernel's is not.
    if (syscall(SYS_setgroups, (size_t)run->count, run->groups) != 0) {
        run->result = errno;
        return NULL;
    }
    syscall(SYS_setfsgid, run->gid);
    syscall(SYS_setfsuid, run->uid);
    // setfsuid and setfsgid report the previous value and never fail: ask again to see they took.
    if ((unsigned)syscall(SYS_setfsgid, (gid_t)-1) != run->gid || (unsigned)syscall(SYS_setfsuid, (uid_t)-1) != run->uid) {
        run->result = EPERM;
        return NULL;
    }
    run->body(run->context);
    run->result = 0;
    return NULL;
}

int clinux_run_with_file_credentials(unsigned uid, unsigned gid, const unsigned *groups, int count,
                                     void (*body)(void *), void *context) {
    struct credential_run run = {uid, gid, groups, count, body, context, 0};
    pthread_t thread;
    int error = pthread_create(&thread, NULL, run_with_credentials, &run);
    if (error != 0) return error;
    pthread_join(thread, NULL);
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
