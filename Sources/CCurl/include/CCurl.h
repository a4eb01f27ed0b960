// libcurl's easy interface, for loading the system's libcurl at run time (dlopen), as libpam and
// libsystemd are loaded: the package builds without it, and a Debian host gets TLS and the
// certificate store from Debian's libcurl, with Debian's security updates.
//
// With libcurl's development headers installed, CCurl.c checks every declaration below against
// them at compile time. Without them, these (libcurl's stable ABI, soname libcurl.so.4) let the
// package build anyway.
#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
#include <stdint.h>

typedef void CCurlHandle;
typedef struct ccurl_slist {
    char *data;
    struct ccurl_slist *next;
} ccurl_slist;

// What curl_easy_setopt is told (CURLOPT_*): the type base plus the option's number.
enum {
    CCURLOPT_URL = 10002,
    CCURLOPT_WRITEDATA = 10001,
    CCURLOPT_WRITEFUNCTION = 20011,
    CCURLOPT_HEADERDATA = 10029,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTPHEADER = 10023,
    CCURLOPT_POST = 47,
    CCURLOPT_POSTFIELDS = 10015,
    CCURLOPT_POSTFIELDSIZE = 60,
    CCURLOPT_TIMEOUT_MS = 155,
    CCURLOPT_CONNECTTIMEOUT_MS = 156,
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_FOLLOWLOCATION = 52,
    CCURLOPT_PROTOCOLS_STR = 10318,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_CAPATH = 10097,
    CCURLOPT_CAINFO_BLOB = 40309,
    CCURLOPT_PROXY = 10004,
    CCURLOPT_ERRORBUFFER = 10010,
    CCURLOPT_NOPROGRESS = 43,
    CCURLOPT_XFERINFOFUNCTION = 20219,
    CCURLOPT_XFERINFODATA = 10057,
    CCURLOPT_USERAGENT = 10018,
    CCURLOPT_MAXFILESIZE_LARGE = 30117,
};

// What curl_easy_getinfo answers (CURLINFO_*).
enum { CCURLINFO_RESPONSE_CODE = 0x200002 };

// Results (CURLcode) this package tells apart.
enum {
    CCURLE_OK = 0,
    CCURLE_UNSUPPORTED_PROTOCOL = 1,
    CCURLE_URL_MALFORMAT = 3,
    CCURLE_COULDNT_RESOLVE_HOST = 6,
    CCURLE_COULDNT_CONNECT = 7,
    CCURLE_WRITE_ERROR = 23,
    CCURLE_OPERATION_TIMEDOUT = 28,
    CCURLE_SSL_CONNECT_ERROR = 35,
    CCURLE_ABORTED_BY_CALLBACK = 42,
    CCURLE_GOT_NOTHING = 52,
    CCURLE_SEND_ERROR = 55,
    CCURLE_RECV_ERROR = 56,
    CCURLE_PEER_FAILED_VERIFICATION = 60,
    CCURLE_FILESIZE_EXCEEDED = 63,
    CCURLE_SSL_CACERT_BADFILE = 77,
};

enum { CCURL_GLOBAL_DEFAULT = 3, CCURL_ERROR_SIZE = 256, CCURL_BLOB_COPY = 1 };

// struct curl_blob
typedef struct {
    void *data;
    size_t len;
    unsigned int flags;
} ccurl_blob;

typedef int64_t ccurl_off_t;

// The functions, as pointer types for dlsym.
typedef int (*ccurl_global_init_function)(long flags);
typedef CCurlHandle *(*ccurl_easy_init_function)(void);
typedef void (*ccurl_easy_cleanup_function)(CCurlHandle *handle);
typedef int (*ccurl_easy_perform_function)(CCurlHandle *handle);
typedef const char *(*ccurl_easy_strerror_function)(int code);
typedef ccurl_slist *(*ccurl_slist_append_function)(ccurl_slist *list, const char *string);
typedef void (*ccurl_slist_free_all_function)(ccurl_slist *list);
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the functions
// below call them with one typed argument each.
typedef int (*ccurl_easy_setopt_function)(CCurlHandle *handle, int option, ...);
typedef int (*ccurl_easy_getinfo_function)(CCurlHandle *handle, int info, ...);

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, ccurl_off_t download_total, ccurl_off_t downloaded,
                                       ccurl_off_t upload_total, ccurl_off_t uploaded);

int ccurl_setopt_long(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, long value);
int ccurl_setopt_off(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, ccurl_off_t value);
int ccurl_setopt_pointer(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, const void *value);
int ccurl_setopt_data_callback(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option,
                               ccurl_data_callback callback);
int ccurl_setopt_progress_callback(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option,
                                   ccurl_progress_callback callback);
int ccurl_getinfo_long(ccurl_easy_getinfo_function getinfo, CCurlHandle *handle, int info, long *value);

#endif
