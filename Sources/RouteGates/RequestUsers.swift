import Capabilities
import LinuxBackends

/// The host's user a request names, as a subject: the user and group databases' answer, with
/// a user the databases do not know told apart from databases that did not answer (a directory
/// down), which must leave a gate undecided rather than failed.
enum RequestUsers {
    enum Lookup {
        case found(Subject)
        case unknown(String)
        case failed(String)
    }

    static func subject(named name: String) -> Lookup {
        // A number would name a uid to `Subject.user(named:)`: a request's user is a name.
        guard !name.isEmpty, !name.utf8.contains(0), UInt32(name) == nil else {
            return .unknown("\"\(name)\" is not a user name")
        }
        switch AccountDatabase.userEntry(named: name) {
        case .found(let entry):
            do {
                return .found(try Subject.user(entry))
            } catch {
                return .failed(error.description)
            }
        case .notFound: return .unknown("no user \"\(name)\" on this host")
        case .failed(let reason): return .failed(reason)
        }
    }
}
