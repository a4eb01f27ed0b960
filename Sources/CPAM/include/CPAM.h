// Linux-PAM's application interface, for loading libpam at run time (dlopen).
//
// With the libpam0g-dev header installed, its own declarations are used and CPAM.c checks
// every declaration below against them at compile time. Without it, the declarations here
// (Linux-PAM's ABI) let the package build anyway; libpam itself is optional at run time.
#ifndef CPAM_H
#define CPAM_H

#if __has_include(<security/pam_appl.h>)
#include <security/pam_appl.h>
#define CPAM_HAS_SYSTEM_HEADER 1
#else
#define CPAM_HAS_SYSTEM_HEADER 0
typedef struct pam_handle pam_handle_t;
struct pam_message {
    int msg_style;
    const char *msg;
};
struct pam_response {
    char *resp;
    int resp_retcode;
};
struct pam_conv {
    int (*conv)(int num_msg, const struct pam_message **msg, struct pam_response **resp, void *appdata_ptr);
    void *appdata_ptr;
};
#endif

// The constants this package uses, under names of its own so they exist with or without the header.
enum {
    CPAM_SUCCESS = 0,
    CPAM_OPEN_ERR = 1,
    CPAM_SYMBOL_ERR = 2,
    CPAM_SERVICE_ERR = 3,
    CPAM_SYSTEM_ERR = 4,
    CPAM_BUF_ERR = 5,
    CPAM_PERM_DENIED = 6,
    CPAM_AUTH_ERR = 7,
    CPAM_CRED_INSUFFICIENT = 8,
    CPAM_AUTHINFO_UNAVAIL = 9,
    CPAM_USER_UNKNOWN = 10,
    CPAM_MAXTRIES = 11,
    CPAM_NEW_AUTHTOK_REQD = 12,
    CPAM_ACCT_EXPIRED = 13,
    CPAM_SESSION_ERR = 14,
    CPAM_CRED_UNAVAIL = 15,
    CPAM_CRED_EXPIRED = 16,
    CPAM_CRED_ERR = 17,
    CPAM_CONV_ERR = 19,
    CPAM_AUTHTOK_ERR = 20,
    CPAM_TRY_AGAIN = 24,
    CPAM_IGNORE = 25,
    CPAM_ABORT = 26,
    CPAM_AUTHTOK_EXPIRED = 27,
    CPAM_MODULE_UNKNOWN = 28,
    CPAM_CONV_AGAIN = 30,
    CPAM_INCOMPLETE = 31,

    CPAM_ESTABLISH_CRED = 0x0002,
    CPAM_DELETE_CRED = 0x0004,

    CPAM_USER = 2,

    CPAM_PROMPT_ECHO_OFF = 1,
    CPAM_PROMPT_ECHO_ON = 2,
    CPAM_ERROR_MSG = 3,
    CPAM_TEXT_INFO = 4,
};

// The functions, as pointer types for dlsym.
typedef int (*cpam_start_function)(const char *service_name, const char *user, const struct pam_conv *pam_conversation,
                                   pam_handle_t **pamh);
typedef int (*cpam_start_confdir_function)(const char *service_name, const char *user,
                                           const struct pam_conv *pam_conversation, const char *confdir,
                                           pam_handle_t **pamh);
typedef int (*cpam_end_function)(pam_handle_t *pamh, int pam_status);
typedef int (*cpam_flags_function)(pam_handle_t *pamh, int flags);
typedef const char *(*cpam_strerror_function)(pam_handle_t *pamh, int errnum);
typedef int (*cpam_get_item_function)(const pam_handle_t *pamh, int item_type, const void **item);

#endif
