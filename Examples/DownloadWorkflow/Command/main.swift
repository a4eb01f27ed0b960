// download-workflow: the seeds' download workflow as a gated command.
//
//     download-workflow --server http://127.0.0.1:8080 --into /var/lib/app/catalog.sqlite \
//         [--flags flags.json] [--pam-service S --pam-user U [--pam-directory D]] [--password-stdin]
//
// Exits 0 when the database is installed, 1 when a step or gate refused, 130 on Ctrl-C (nothing
// partial is left behind), 2 for bad arguments.
import Capabilities
import DownloadWorkflowKit
import FeatureFlags
import Foundation
import LinuxBackends
import ProcedureCore

func value(_ option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("download-workflow: \(message)\n".utf8))
    exit(status)
}

guard let serverText = value("--server"), let server = URL(string: serverText), let destination = value("--into") else {
    fail("usage: download-workflow --server URL --into PATH [--flags FILE] [--pam-service S --pam-user U]", status: 2)
}
let flags = FlagStore(files: value("--flags").map { [$0] } ?? [], watch: false)
var administrator: (any CapabilityType)?
if let service = value("--pam-service") {
    let conversation: any PAMConversation =
        CommandLine.arguments.contains("--password-stdin")
        ? ProgrammaticPAMConversation(secret: { readLine(strippingNewline: true).map(PAMSecret.init) })
        : TerminalPAMConversation()
    do {
        administrator = try PAMLogin(
            service: service, user: value("--pam-user"), serviceDirectory: value("--pam-directory"),
            conversation: conversation
        ).keepingAuthorization(for: .seconds(300))
    } catch {
        fail("\(error)", status: 2)
    }
}

let workflow: DownloadWorkflow
do {
    workflow = try DownloadWorkflow(
        server: server, destination: destination, flags: flags, administrator: administrator,
        report: { print($0) })
} catch {
    fail("\(error)", status: 2)
}

// Ctrl-C cancels the whole group; its observer removes what was staged.
signal(SIGINT, SIG_IGN)
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
let interrupted = NSLock()
nonisolated(unsafe) var wasInterrupted = false
interrupt.setEventHandler {
    interrupted.withLock { wasInterrupted = true }
    print("interrupted: cancelling")
    workflow.cancel()
}
interrupt.resume()

let queue = ProcedureQueue(name: "download-workflow")
queue.addProcedure(workflow)
await workflow.waitUntilFinished()
if interrupted.withLock({ wasInterrupted }) { exit(130) }
if let error = workflow.error {
    if let explanation = workflow.conditionExplanation, workflow.isCancelled { print(explanation) }
    fail("\(error)", status: 1)
}
print("ok: \(workflow.installedPath ?? destination)")
