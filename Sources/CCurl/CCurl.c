#include "CCurl.h"

int ccurl_setopt_long(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, long value) {
    return setopt(handle, option, value);
}

int ccurl_setopt_off(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, ccurl_off_t value) {
    return setopt(handle, option, value);
}

int ccurl_setopt_pointer(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option, const void *value) {
    return setopt(handle, option, value);
}

int ccurl_setopt_data_callback(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option,
                               ccurl_data_callback callback) {
    return setopt(handle, option, callback);
}

int ccurl_setopt_progress_callback(ccurl_easy_setopt_function setopt, CCurlHandle *handle, int option,
                                   ccurl_progress_callback callback) {
    return setopt(handle, option, callback);
}

int ccurl_getinfo_long(ccurl_easy_getinfo_function getinfo, CCurlHandle *handle, int info, long *value) {
    return getinfo(handle, info, value);
}

// With libcurl's headers, every number and type above is checked against libcurl's own.
#if __has_include(<curl/curl.h>)
#include <curl/curl.h>
_Static_assert(CCURLOPT_URL == CURLOPT_URL, "CURLOPT_URL");
_Static_assert(CCURLOPT_WRITEDATA == CURLOPT_WRITEDATA, "CURLOPT_WRITEDATA");
_Static_assert(CCURLOPT_WRITEFUNCTION == CURLOPT_WRITEFUNCTION, "CURLOPT_WRITEFUNCTION");
_Static_assert(CCURLOPT_HEADERDATA == CURLOPT_HEADERDATA, "CURLOPT_HEADERDATA");
_Static_assert(CCURLOPT_HEADERFUNCTION == CURLOPT_HEADERFUNCTION, "CURLOPT_HEADERFUNCTION");
_Static_assert(CCURLOPT_HTTPHEADER == CURLOPT_HTTPHEADER, "CURLOPT_HTTPHEADER");
_Static_assert(CCURLOPT_POST == CURLOPT_POST, "CURLOPT_POST");
_Static_assert(CCURLOPT_POSTFIELDS == CURLOPT_POSTFIELDS, "CURLOPT_POSTFIELDS");
_Static_assert(CCURLOPT_POSTFIELDSIZE == CURLOPT_POSTFIELDSIZE, "CURLOPT_POSTFIELDSIZE");
_Static_assert(CCURLOPT_TIMEOUT_MS == CURLOPT_TIMEOUT_MS, "CURLOPT_TIMEOUT_MS");
_Static_assert(CCURLOPT_CONNECTTIMEOUT_MS == CURLOPT_CONNECTTIMEOUT_MS, "CURLOPT_CONNECTTIMEOUT_MS");
_Static_assert(CCURLOPT_NOSIGNAL == CURLOPT_NOSIGNAL, "CURLOPT_NOSIGNAL");
_Static_assert(CCURLOPT_FOLLOWLOCATION == CURLOPT_FOLLOWLOCATION, "CURLOPT_FOLLOWLOCATION");
_Static_assert(CCURLOPT_PROTOCOLS_STR == CURLOPT_PROTOCOLS_STR, "CURLOPT_PROTOCOLS_STR");
_Static_assert(CCURLOPT_CAINFO == CURLOPT_CAINFO, "CURLOPT_CAINFO");
_Static_assert(CCURLOPT_CAPATH == CURLOPT_CAPATH, "CURLOPT_CAPATH");
_Static_assert(CCURLOPT_CAINFO_BLOB == CURLOPT_CAINFO_BLOB, "CURLOPT_CAINFO_BLOB");
_Static_assert(CCURLOPT_PROXY == CURLOPT_PROXY, "CURLOPT_PROXY");
_Static_assert(CCURLOPT_ERRORBUFFER == CURLOPT_ERRORBUFFER, "CURLOPT_ERRORBUFFER");
_Static_assert(CCURLOPT_NOPROGRESS == CURLOPT_NOPROGRESS, "CURLOPT_NOPROGRESS");
_Static_assert(CCURLOPT_XFERINFOFUNCTION == CURLOPT_XFERINFOFUNCTION, "CURLOPT_XFERINFOFUNCTION");
_Static_assert(CCURLOPT_XFERINFODATA == CURLOPT_XFERINFODATA, "CURLOPT_XFERINFODATA");
_Static_assert(CCURLOPT_USERAGENT == CURLOPT_USERAGENT, "CURLOPT_USERAGENT");
_Static_assert(CCURLOPT_MAXFILESIZE_LARGE == CURLOPT_MAXFILESIZE_LARGE, "CURLOPT_MAXFILESIZE_LARGE");
_Static_assert(CCURLINFO_RESPONSE_CODE == CURLINFO_RESPONSE_CODE, "CURLINFO_RESPONSE_CODE");
_Static_assert(CCURLE_OK == CURLE_OK, "CURLE_OK");
_Static_assert(CCURLE_UNSUPPORTED_PROTOCOL == CURLE_UNSUPPORTED_PROTOCOL, "CURLE_UNSUPPORTED_PROTOCOL");
_Static_assert(CCURLE_URL_MALFORMAT == CURLE_URL_MALFORMAT, "CURLE_URL_MALFORMAT");
_Static_assert(CCURLE_COULDNT_RESOLVE_HOST == CURLE_COULDNT_RESOLVE_HOST, "CURLE_COULDNT_RESOLVE_HOST");
_Static_assert(CCURLE_COULDNT_CONNECT == CURLE_COULDNT_CONNECT, "CURLE_COULDNT_CONNECT");
_Static_assert(CCURLE_WRITE_ERROR == CURLE_WRITE_ERROR, "CURLE_WRITE_ERROR");
_Static_assert(CCURLE_OPERATION_TIMEDOUT == CURLE_OPERATION_TIMEDOUT, "CURLE_OPERATION_TIMEDOUT");
_Static_assert(CCURLE_SSL_CONNECT_ERROR == CURLE_SSL_CONNECT_ERROR, "CURLE_SSL_CONNECT_ERROR");
_Static_assert(CCURLE_ABORTED_BY_CALLBACK == CURLE_ABORTED_BY_CALLBACK, "CURLE_ABORTED_BY_CALLBACK");
_Static_assert(CCURLE_GOT_NOTHING == CURLE_GOT_NOTHING, "CURLE_GOT_NOTHING");
_Static_assert(CCURLE_SEND_ERROR == CURLE_SEND_ERROR, "CURLE_SEND_ERROR");
_Static_assert(CCURLE_RECV_ERROR == CURLE_RECV_ERROR, "CURLE_RECV_ERROR");
_Static_assert(CCURLE_PEER_FAILED_VERIFICATION == CURLE_PEER_FAILED_VERIFICATION, "CURLE_PEER_FAILED_VERIFICATION");
_Static_assert(CCURLE_FILESIZE_EXCEEDED == CURLE_FILESIZE_EXCEEDED, "CURLE_FILESIZE_EXCEEDED");
_Static_assert(CCURLE_SSL_CACERT_BADFILE == CURLE_SSL_CACERT_BADFILE, "CURLE_SSL_CACERT_BADFILE");
_Static_assert(CCURL_GLOBAL_DEFAULT == CURL_GLOBAL_DEFAULT, "CURL_GLOBAL_DEFAULT");
_Static_assert(CCURL_ERROR_SIZE == CURL_ERROR_SIZE, "CURL_ERROR_SIZE");
_Static_assert(CCURL_BLOB_COPY == CURL_BLOB_COPY, "CURL_BLOB_COPY");
_Static_assert(sizeof(ccurl_blob) == sizeof(struct curl_blob), "struct curl_blob");
_Static_assert(sizeof(ccurl_off_t) == sizeof(curl_off_t), "curl_off_t");
_Static_assert(sizeof(ccurl_slist) == sizeof(struct curl_slist), "struct curl_slist");
#endif
