#include "CSystemdBus.h"

#if CSYSTEMDBUS_HAS_SYSTEM_HEADER
// The declarations in CSystemdBus.h must match sd-bus's own; the build fails where they do not.
#define CSDBUS_SAME_TYPE(function, type) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&function), type), #function " differs from its declaration in CSystemdBus.h")
CSDBUS_SAME_TYPE(sd_bus_open_system, csdbus_open_function);
CSDBUS_SAME_TYPE(sd_bus_flush_close_unref, csdbus_close_function);
CSDBUS_SAME_TYPE(sd_bus_close_unref, csdbus_close_function);
CSDBUS_SAME_TYPE(sd_bus_message_new_method_call, csdbus_new_method_call_function);
CSDBUS_SAME_TYPE(sd_bus_message_append_basic, csdbus_append_basic_function);
CSDBUS_SAME_TYPE(sd_bus_message_open_container, csdbus_open_container_function);
CSDBUS_SAME_TYPE(sd_bus_message_close_container, csdbus_message_function);
CSDBUS_SAME_TYPE(sd_bus_message_exit_container, csdbus_message_function);
CSDBUS_SAME_TYPE(sd_bus_message_unref, csdbus_message_unref_function);
CSDBUS_SAME_TYPE(sd_bus_message_ref, csdbus_message_unref_function);
CSDBUS_SAME_TYPE(sd_bus_call, csdbus_call_function);
CSDBUS_SAME_TYPE(sd_bus_call_async, csdbus_call_async_function);
CSDBUS_SAME_TYPE(sd_bus_send, csdbus_send_function);
CSDBUS_SAME_TYPE(sd_bus_message_read_basic, csdbus_read_basic_function);
CSDBUS_SAME_TYPE(sd_bus_message_enter_container, csdbus_enter_container_function);
CSDBUS_SAME_TYPE(sd_bus_message_peek_type, csdbus_peek_type_function);
CSDBUS_SAME_TYPE(sd_bus_message_get_error, csdbus_get_error_function);
CSDBUS_SAME_TYPE(sd_bus_message_get_member, csdbus_message_string_function);
CSDBUS_SAME_TYPE(sd_bus_message_get_sender, csdbus_message_string_function);
CSDBUS_SAME_TYPE(sd_bus_message_new_method_return, csdbus_new_method_return_function);
CSDBUS_SAME_TYPE(sd_bus_message_new_method_error, csdbus_new_method_error_function);
CSDBUS_SAME_TYPE(sd_bus_add_object, csdbus_add_object_function);
CSDBUS_SAME_TYPE(sd_bus_slot_unref, csdbus_slot_unref_function);
CSDBUS_SAME_TYPE(sd_bus_process, csdbus_process_function);
CSDBUS_SAME_TYPE(sd_bus_get_fd, csdbus_get_fd_function);
CSDBUS_SAME_TYPE(sd_bus_get_events, csdbus_get_events_function);
CSDBUS_SAME_TYPE(sd_bus_get_timeout, csdbus_get_timeout_function);
CSDBUS_SAME_TYPE(sd_bus_error_free, csdbus_error_free_function);
CSDBUS_SAME_TYPE(sd_bus_new, csdbus_open_function);
CSDBUS_SAME_TYPE(sd_bus_set_address, csdbus_set_address_function);
CSDBUS_SAME_TYPE(sd_bus_set_bus_client, csdbus_set_boolean_function);
CSDBUS_SAME_TYPE(sd_bus_start, csdbus_start_function);
#endif
