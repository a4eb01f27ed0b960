// capctl's flag service helper for development and tests; the Debian package installs it as a name
// of capctl's binary, which runs the same (Docs/Performance.md, "One binary").
import FlagSourceHelper

await FlagSourceHelper.main()
