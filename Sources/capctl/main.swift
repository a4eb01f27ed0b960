import CapctlDaemon
import FlagSourceHelper

// One binary, three programs: the Debian package installs capctld and the flag service helper as
// links to capctl, so that the Swift runtime and every shared module are on disk once
// (Docs/Performance.md, "One binary"). The name it was started by decides.
switch CommandLine.arguments.first?.split(separator: "/").last {
case "capctld": await CapctlDaemon.main()
case "capctl-flag-source": await FlagSourceHelper.main()
default:
    Capctl.runFastCheckOnThisThread()
    await Capctl.runMain()
}
