// capctld for development and tests; the Debian package installs capctld as a name of capctl's
// binary, which runs the same (Docs/Performance.md, "One binary").
import CapctlDaemon

await CapctlDaemon.main()
