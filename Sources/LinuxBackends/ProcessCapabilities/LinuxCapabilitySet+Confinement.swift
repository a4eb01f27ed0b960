import CLinuxSupport
import ConfigurationFiles
import Glibc

extension LinuxCapabilitySet {
    /// Why a process could not be confined to a set.
    public struct ConfinementError: Error, Equatable, CustomStringConvertible {
        /// The errno.
        public let code: Int32
        /// What went wrong, for people.
        public let description: String
    }

    /// The set named by `names` (`CAP_NET_BIND_SERVICE`, `net_bind_service`), or an error naming
    /// the first unknown name.
    public init(names: [String]) throws(CapabilityNameError) {
        var mask: UInt64 = 0
        for name in names {
            guard let number = Self.number(of: name) else { throw CapabilityNameError(name: name) }
            mask |= 1 << UInt64(number)
        }
        self.init(mask: mask)
    }

    /// A name that is not a Linux capability.
    public struct CapabilityNameError: Error, Equatable, CustomStringConvertible {
        /// The name given.
        public let name: String
        public var description: String {
            let upper = name.asciiUppercased
            let full = upper.hasPrefix("CAP_") ? upper : "CAP_" + upper
            let text =
                "\"\(name)\" is not a Linux capability (capabilities(7) names them, such as CAP_NET_BIND_SERVICE)"
            guard let nearest = NameSuggestion.closest(to: full, among: LinuxCapabilitySet.names) else { return text }
            return text + "; did you mean \(nearest)?"
        }
    }

    /// Limits this process, and every program it executes from now on, to exactly this set, as
    /// systemd's `CapabilityBoundingSet=` with `AmbientCapabilities=` does: all other capabilities
    /// leave the bounding set (for good), and these become inheritable and ambient, so the next
    /// program holds them whether or not it runs as root. Meant for just before exec.
    ///
    /// Fails, changing nothing it could not undo, when this process does not hold a capability of
    /// the set or lacks CAP_SETPCAP to change its bounding set.
    public func confineProcess() throws(ConfinementError) {
        let code = clinux_confine_capabilities(mask)
        guard code != 0 else { return }
        let held = (try? LinuxCapabilitySet.effective()) ?? LinuxCapabilitySet(mask: 0)
        let missing = LinuxCapabilitySet(mask: mask & ~held.mask)
        if code == EPERM, missing.mask != 0 {
            throw ConfinementError(
                code: code, description: "this process does not hold \(missing), so cannot pass it on")
        }
        if code == EPERM {
            throw ConfinementError(
                code: code,
                description: "changing the capability bounding set needs CAP_SETPCAP, which this process lacks")
        }
        throw ConfinementError(
            code: code, description: "cannot limit this process's capabilities: \(String(cString: strerror(code)))")
    }
}
