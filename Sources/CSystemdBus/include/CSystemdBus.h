// sd-bus, systemd's D-Bus client library, for loading libsystemd at run time (dlopen).
//
// With libsystemd-dev installed, its own declarations are used and CSystemdBus.c checks every
// declaration below against them at compile time. Without it, the declarations here (sd-bus's
// stable ABI) let the package build anyway; libsystemd itself is optional at run time.
#ifndef CSYSTEMDBUS_H
#define CSYSTEMDBUS_H

#include <stdint.h>

#if __has_include(<systemd/sd-bus.h>)
#include <systemd/sd-bus.h>
#define CSYSTEMDBUS_HAS_SYSTEM_HEADER 1
#else
#define CSYSTEMDBUS_HAS_SYSTEM_HEADER 0
typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;
typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;
typedef int (*sd_bus_message_handler_t)(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
#endif

// The functions, as pointer types for dlsym. Only non-variadic ones: Swift cannot call C variadics.
typedef int (*csdbus_open_function)(sd_bus **ret);
typedef sd_bus *(*csdbus_close_function)(sd_bus *bus);
typedef int (*csdbus_new_method_call_function)(sd_bus *bus, sd_bus_message **m, const char *destination,
                                               const char *path, const char *interface, const char *member);
typedef int (*csdbus_append_basic_function)(sd_bus_message *m, char type, const void *p);
typedef int (*csdbus_open_container_function)(sd_bus_message *m, char type, const char *contents);
typedef int (*csdbus_message_function)(sd_bus_message *m);
typedef sd_bus_message *(*csdbus_message_unref_function)(sd_bus_message *m);
typedef int (*csdbus_call_function)(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error,
                                    sd_bus_message **reply);
typedef int (*csdbus_call_async_function)(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m,
                                          sd_bus_message_handler_t callback, void *userdata, uint64_t usec);
typedef int (*csdbus_send_function)(sd_bus *bus, sd_bus_message *m, uint64_t *cookie);
typedef int (*csdbus_read_basic_function)(sd_bus_message *m, char type, void *p);
typedef int (*csdbus_enter_container_function)(sd_bus_message *m, char type, const char *contents);
typedef int (*csdbus_peek_type_function)(sd_bus_message *m, char *type, const char **contents);
typedef const sd_bus_error *(*csdbus_get_error_function)(sd_bus_message *m);
typedef const char *(*csdbus_message_string_function)(sd_bus_message *m);
typedef int (*csdbus_new_method_return_function)(sd_bus_message *call, sd_bus_message **m);
typedef int (*csdbus_new_method_error_function)(sd_bus_message *call, sd_bus_message **m, const sd_bus_error *e);
typedef int (*csdbus_add_object_function)(sd_bus *bus, sd_bus_slot **slot, const char *path,
                                          sd_bus_message_handler_t callback, void *userdata);
typedef sd_bus_slot *(*csdbus_slot_unref_function)(sd_bus_slot *slot);
typedef int (*csdbus_process_function)(sd_bus *bus, sd_bus_message **r);
typedef int (*csdbus_get_fd_function)(sd_bus *bus);
typedef int (*csdbus_get_events_function)(sd_bus *bus);
typedef int (*csdbus_get_timeout_function)(sd_bus *bus, uint64_t *timeout_usec);
typedef void (*csdbus_error_free_function)(sd_bus_error *e);
typedef int (*csdbus_set_address_function)(sd_bus *bus, const char *address);
typedef int (*csdbus_set_boolean_function)(sd_bus *bus, int b);
typedef int (*csdbus_start_function)(sd_bus *bus);

#endif
