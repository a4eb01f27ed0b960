import CapctlDaemon
import Dispatch
import FlagSourceHelper
import Glibc

// One binary, three programs: the Debian package installs capctld and the flag service helper as
// links to capctl, so that the Swift runtime and every shared module are on disk once
// (Docs/Performance.md, "One binary"). The name it was started by decides.
//
// No `await` at the top level: with one, the whole of this file becomes an async main, and every
// start, `capctl check`'s too, would first set up the main task and its executor (22 page faults,
// 0.07-0.1 ms a start; Docs/Performance.md, "Eighth session"). The programs run as that main
// would have run them: on the main actor, the main queue drained by this thread, exit 0 at the end.
func runAsMain(_ body: @escaping @MainActor @Sendable () async -> Void) -> Never {
    Task { @MainActor in
        await body()
        exit(0)
    }
    dispatchMain()
}

switch CommandLine.arguments.first?.split(separator: "/").last {
case "capctld": runAsMain { await CapctlDaemon.main() }
case "capctl-flag-source": runAsMain { await FlagSourceHelper.main() }
default:
    Capctl.runFastCheckOnThisThread()
    runAsMain { await Capctl.runMain() }
}
