import CSystemdBus
import Capabilities
import Glibc
import Locking
import Plumbing

/// sd-bus, loaded from libsystemd at run time with dlopen, as libpam is: the package builds and
/// runs without it, and D-Bus backends (polkit) are then unavailable with the reason.
package final class SystemdBusLibrary: @unchecked Sendable {
    // The function pointers never change after loading; the library is never closed.
    let newBus: csdbus_open_function
    let setAddress: csdbus_set_address_function
    let setBusClient: csdbus_set_boolean_function
    let start: csdbus_start_function
    let close: csdbus_close_function
    let closeWithoutFlush: csdbus_close_function
    let newMethodCall: csdbus_new_method_call_function
    let appendBasic: csdbus_append_basic_function
    let openContainer: csdbus_open_container_function
    let closeContainer: csdbus_message_function
    let exitContainer: csdbus_message_function
    let retainMessage: csdbus_message_unref_function
    let releaseMessage: csdbus_message_unref_function
    let call: csdbus_call_function
    let callAsync: csdbus_call_async_function
    let send: csdbus_send_function
    let readBasic: csdbus_read_basic_function
    let enterContainer: csdbus_enter_container_function
    let peekType: csdbus_peek_type_function
    let messageError: csdbus_get_error_function
    let messageMember: csdbus_message_string_function
    let messageSender: csdbus_message_string_function
    let newMethodReturn: csdbus_new_method_return_function
    let newMethodError: csdbus_new_method_error_function
    let addObject: csdbus_add_object_function
    let releaseSlot: csdbus_slot_unref_function
    let process: csdbus_process_function
    let descriptor: csdbus_get_fd_function
    let events: csdbus_get_events_function
    let timeout: csdbus_get_timeout_function
    let freeError: csdbus_error_free_function

    /// The soname loaded by default.
    package static let defaultPath = "libsystemd.so.0"

    private static let loaded = Lock<[String: Result<SystemdBusLibrary, DBusError>]>([:])

    /// The library at `path`, loaded once per process.
    static func load(_ path: String = defaultPath) -> Result<SystemdBusLibrary, DBusError> {
        loaded.withLock { cache in
            if let known = cache[path] { return known }
            let result = open(path)
            cache[path] = result
            return result
        }
    }

    /// Available when sd-bus loads from `path`; otherwise unavailable with the reason.
    static func availability(at path: String) -> CapabilityAvailability {
        switch load(path) {
        case .success: .available
        case .failure(let error): .unavailable(reason: error.description)
        }
    }

    /// The library, or nil when it does not load (``missing(_:)`` says why).
    static func loaded(_ path: String) -> SystemdBusLibrary? {
        if case .success(let library) = load(path) { return library }
        return nil
    }

    /// The status of a capability that needs sd-bus from `path`, which does not load.
    static func missing(_ path: String) -> CapabilityStatus {
        guard case .failure(let error) = load(path) else {
            return .unavailable("sd-bus is missing", cause: .backendMissing)
        }
        return .unavailable(error.description, cause: .backendMissing)
    }

    private static func open(_ path: String) -> Result<SystemdBusLibrary, DBusError> {
        let library: DynamicLibrary
        switch DynamicLibrary.open(path) {
        case .success(let opened): library = opened
        case .failure(let error): return .failure(DBusError(DBusError.noLibrary, error.description))
        }
        do throws(DBusError) {
            return .success(try SystemdBusLibrary(library: library, path: path))
        } catch {
            return .failure(error)
        }
    }

    private init(library: DynamicLibrary, path: String) throws(DBusError) {
        func symbol<T>(_ name: String, as type: T.Type) throws(DBusError) -> T {
            guard let function = library.symbol(name, as: type) else {
                throw DBusError(
                    DBusError.noLibrary, "\(path) has no \(name) (sd-bus from systemd 221 or later is needed)")
            }
            return function
        }
        newBus = try symbol("sd_bus_new", as: csdbus_open_function.self)
        setAddress = try symbol("sd_bus_set_address", as: csdbus_set_address_function.self)
        setBusClient = try symbol("sd_bus_set_bus_client", as: csdbus_set_boolean_function.self)
        start = try symbol("sd_bus_start", as: csdbus_start_function.self)
        close = try symbol("sd_bus_flush_close_unref", as: csdbus_close_function.self)
        closeWithoutFlush = try symbol("sd_bus_close_unref", as: csdbus_close_function.self)
        newMethodCall = try symbol("sd_bus_message_new_method_call", as: csdbus_new_method_call_function.self)
        appendBasic = try symbol("sd_bus_message_append_basic", as: csdbus_append_basic_function.self)
        openContainer = try symbol("sd_bus_message_open_container", as: csdbus_open_container_function.self)
        closeContainer = try symbol("sd_bus_message_close_container", as: csdbus_message_function.self)
        exitContainer = try symbol("sd_bus_message_exit_container", as: csdbus_message_function.self)
        retainMessage = try symbol("sd_bus_message_ref", as: csdbus_message_unref_function.self)
        releaseMessage = try symbol("sd_bus_message_unref", as: csdbus_message_unref_function.self)
        call = try symbol("sd_bus_call", as: csdbus_call_function.self)
        callAsync = try symbol("sd_bus_call_async", as: csdbus_call_async_function.self)
        send = try symbol("sd_bus_send", as: csdbus_send_function.self)
        readBasic = try symbol("sd_bus_message_read_basic", as: csdbus_read_basic_function.self)
        enterContainer = try symbol("sd_bus_message_enter_container", as: csdbus_enter_container_function.self)
        peekType = try symbol("sd_bus_message_peek_type", as: csdbus_peek_type_function.self)
        messageError = try symbol("sd_bus_message_get_error", as: csdbus_get_error_function.self)
        messageMember = try symbol("sd_bus_message_get_member", as: csdbus_message_string_function.self)
        messageSender = try symbol("sd_bus_message_get_sender", as: csdbus_message_string_function.self)
        newMethodReturn = try symbol("sd_bus_message_new_method_return", as: csdbus_new_method_return_function.self)
        newMethodError = try symbol("sd_bus_message_new_method_error", as: csdbus_new_method_error_function.self)
        addObject = try symbol("sd_bus_add_object", as: csdbus_add_object_function.self)
        releaseSlot = try symbol("sd_bus_slot_unref", as: csdbus_slot_unref_function.self)
        process = try symbol("sd_bus_process", as: csdbus_process_function.self)
        descriptor = try symbol("sd_bus_get_fd", as: csdbus_get_fd_function.self)
        events = try symbol("sd_bus_get_events", as: csdbus_get_events_function.self)
        timeout = try symbol("sd_bus_get_timeout", as: csdbus_get_timeout_function.self)
        freeError = try symbol("sd_bus_error_free", as: csdbus_error_free_function.self)
    }
}
