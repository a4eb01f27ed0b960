import SystemPackage
import Varlink

/// The rest of a `capctl check` that capctl's front (Sources/capctl-front) began: `descriptor` is
/// its connection to capctld, capctl's from now on, on which it sent the `Check` its command line
/// asks for (`call` 1), sent it and waited a whole timeout for the reply (2), or could not send it
/// (0). capctl reads the reply and tells it as it tells any check, then exits. The released
/// layout's library (Scripts/build-release-capctl) exports this and `capctl_main`, nothing else.
@_cdecl("capctl_check_sent")
public func capctlCheckSent(_ descriptor: Int32, _ call: Int32) -> Int32 {
    let started: VarlinkClient.StartedCall =
        switch call {
        case 0: .notSent
        case 2: .waited
        default: .sent
        }
    Capctl.runStartedCheck(StartedCheck(connection: FileDescriptor(rawValue: descriptor), call: started))
}
