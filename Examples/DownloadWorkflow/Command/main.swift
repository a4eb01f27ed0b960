// download-workflow: the seeds' download workflow as a gated command.
//
//     download-workflow --server http://127.0.0.1:8080 --into /var/lib/app/catalog.sqlite \
//         [--flags flags.json] [--pam-service S --pam-user U [--pam-directory D]] [--password-stdin]
//
// On a terminal, the download draws a progress bar on standard error; elsewhere (a pipe, a log)
// it draws nothing. Exits 0 when the database is installed, 1 when a step or gate refused, 130 on Ctrl-C (nothing
// partial is left behind), 2 for bad arguments.
import Capabilities
import DownloadWorkflowKit
import FeatureFlags
import Foundation
import LinuxBackends
import ProcedureCore
import Synchronization

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
let flags = FlagStore(files: value("--flags").map { [$0] } ?? [], watchesFiles: false)
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

/// Report lines and, on a terminal, the progress bar below them: a line said while the bar is
/// shown goes above it, and the bar is drawn again.
final class Console: Sendable {
    private struct Screen {
        var bar = TerminalProgressBar()
        var shown: String?
    }

    private let screen = Mutex(Screen())

    func say(_ text: String) {
        screen.withLock { screen in
            if screen.shown != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
            if let shown = screen.shown { FileHandle.standardError.write(Data(shown.utf8)) }
        }
    }

    func show(_ progress: ProcedureProgress) {
        screen.withLock { screen in
            guard let line = screen.bar.line(for: progress) else { return }
            screen.shown = line
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Leaves the bar where it is and moves below it.
    func endBar() {
        screen.withLock { screen in
            if screen.shown != nil { FileHandle.standardError.write(Data("\n".utf8)) }
            screen.shown = nil
        }
    }
}
let console = Console()

let workflow: DownloadWorkflow
do {
    workflow = try DownloadWorkflow(
        server: server, destination: destination, flags: flags, administrator: administrator,
        report: { console.say($0) })
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
    console.say("interrupted: cancelling")
    workflow.cancel()
}
interrupt.resume()

// The bar follows the download step's bytes, drawn as each chunk is written, so it is up to date
// before the step reports anything else.
if isatty(STDERR_FILENO) == 1 {
    workflow.downloadStep.addProgressBlockObserver { _, progress in console.show(progress) }
    workflow.downloadStep.addDidFinishBlockObserver { _, _ in console.endBar() }
}

let queue = ProcedureQueue(name: "download-workflow")
queue.addProcedure(workflow)
await workflow.waitUntilFinished()
if interrupted.withLock({ wasInterrupted }) { exit(130) }
if let error = workflow.error {
    if let explanation = workflow.conditionExplanation, workflow.isCancelled { console.say("\(explanation)") }
    fail("\(error)", status: 1)
}
console.say("ok: \(workflow.installedPath ?? destination)")
