import Foundation
import Glibc
import TestSupport

/// What a shell script or a systemd `ExecCondition=` line pays on every call: `capctl check` of a
/// three-requirement gate, started as a new process, beside `/bin/true` (the floor) and
/// polkit's `pkcheck` against a polkitd of its own on a private bus.
enum StartupWorkloads {
    /// The gate: a group, a directory's access and a Linux capability, decided without asking.
    static let policy = """
        capabilities:
          operator: { kind: group, group: root }
          spool: { kind: file, path: /var/tmp, access: [read, write], type: directory }
          net-bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }
        gates:
          maintenance:
            description: Run maintenance
            require: { all-of: [operator, spool, net-bind] }
        """

    /// Starts `arguments` with `environment` and waits for it: the wall time, and its exit status.
    static func spawn(_ arguments: [String], environment: [String: String]) -> (seconds: Double, status: Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The output is not what is measured: it goes nowhere.
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid = pid_t()
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else { return (.infinity, -1) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (seconds, (status >> 8) & 0xFF)
    }

    /// The capctl measured: `CAPCTL`, else the released build (Scripts/build-release-capctl, run
    /// from the package's directory as core-bench is); nil when there is none. A capctl built
    /// otherwise is not the one measured: its modules lack the release build's compiler flags.
    static func capctlPath() -> String? {
        let capctl = ProcessInfo.processInfo.environment["CAPCTL"] ?? released
        return FileManager.default.isExecutableFile(atPath: capctl) ? capctl : nil
    }

    /// The released layout's capctl (its front, which loads `../lib/capctl/libcapctl.so`).
    static let released = ".build/release-capctl/layout/bin/capctl"

    static let buildHint =
        "no released capctl (Scripts/build-release-capctl builds it, as Scripts/build-deb does; or set CAPCTL)"

    /// A copy of the executable at `path`, written into `directory`/bin as an installation writes
    /// it (dpkg: write(2)), for starting. Not the file the linker wrote through a memory mapping,
    /// whose page cache this kernel keeps in small pages: starting that file costs 10-13 % more
    /// (Docs/Performance.md, "Sixth session"), which no installed capctl pays. Fresh copies also
    /// keep an older binary whose cache the host paged out from faulting more than one just linked.
    /// A released layout's front comes with the library it loads, `../lib/capctl/libcapctl.so`.
    static func installedCopy(of path: String, as name: String, in directory: String) -> String {
        func copy(_ source: String, to destination: String) {
            let folder = String(destination[..<destination.lastIndex(of: "/")!])
            try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let bytes = try! Data(contentsOf: URL(fileURLWithPath: source))
            precondition(
                FileManager.default.createFile(
                    atPath: destination, contents: bytes, attributes: [.posixPermissions: 0o755]),
                "cannot copy \(source) to \(destination)")
        }
        copy(path, to: directory + "/bin/" + name)
        let library = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
            "../lib/capctl/libcapctl.so"
        )
        .standardizedFileURL.path
        if FileManager.default.fileExists(atPath: library) {
            copy(library, to: directory + "/lib/capctl/libcapctl.so")
        }
        return directory + "/bin/" + name
    }

    /// The least a Swift program starts in here: one that prints a line and exits, compiled by the
    /// toolchain's `swiftc` into `directory`, linked as `swift build` links capctl (the Swift
    /// runtime's libraries loaded at start) or, with `staticStdlib`, as the released capctl is
    /// (Scripts/build-release-capctl). The copy to start, or why there is none.
    static func swiftFloor(in directory: String, staticStdlib: Bool) -> Result<String, FloorUnavailable> {
        let source = directory + "/floor.swift"
        let binary = directory + (staticStdlib ? "/floor-static" : "/floor-dynamic")
        guard FileManager.default.createFile(atPath: source, contents: Data("print(\"operators: holds\")\n".utf8))
        else { return .failure(FloorUnavailable(reason: "cannot write \(source)")) }
        let arguments = ["swiftc", "-O", source, "-o", binary] + (staticStdlib ? ["-static-stdlib"] : [])
        guard let compiled = try? runProcess("/usr/bin/env", arguments) else {
            return .failure(FloorUnavailable(reason: "swiftc could not be started"))
        }
        guard compiled.status == 0 else {
            return .failure(FloorUnavailable(reason: "swiftc failed: \(compiled.standardError.prefix(200))"))
        }
        return .success(installedCopy(of: binary, as: staticStdlib ? "floor-static" : "floor-dynamic", in: directory))
    }

    /// Why a Swift floor was not measured.
    struct FloorUnavailable: Error {
        let reason: String
    }

    /// The median wall time of `count` starts, taken in turns with the others by the caller.
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted[sorted.count / 2]
    }
}

extension CoreBench {
    /// `capctl check` of a three-requirement gate against `/bin/true` and `pkcheck`, as new processes.
    static func startup(_ report: inout Report, starts: Int) async {
        guard let built = StartupWorkloads.capctlPath() else {
            print("core-bench --startup: \(StartupWorkloads.buildHint)")
            exit(2)
        }
        let directory = try! TemporaryDirectory(prefix: "core-bench-startup")
        try! directory.write(StartupWorkloads.policy, to: "root/policy.yaml")
        var environment = ["PATH": "/usr/bin:/bin", "CAPCTL_POLICY_ROOTS": directory.path + "/root"]
        // Other builds of capctl (older commits', say; paths separated by ":"), started in the
        // same turns: an A/B on this noisy machine compares builds only when they share the
        // minutes they ran in.
        let baselinePaths = (ProcessInfo.processInfo.environment["CAPCTL_BASELINE"] ?? "").split(separator: ":")
            .map(String.init)
        func installed(_ path: String, as name: String) -> String {
            StartupWorkloads.installedCopy(of: path, as: name, in: directory.path)
        }
        let capctl = installed(built, as: "capctl")
        let check = [capctl, "check", "maintenance", "--no-prompt"]
        // As a person types it: prompting allowed, though the gate needs nobody asked.
        let prompting = [capctl, "check", "maintenance"]
        let baselines = baselinePaths.enumerated().map { index, path in
            [installed(path, as: "baseline-\(index)"), "check", "maintenance", "--no-prompt"]
        }
        for command in [check, prompting] + baselines {
            precondition(
                StartupWorkloads.spawn(command, environment: environment).status == 0,
                "the gate does not hold for \(command[0])")
        }

        var pkcheck: [String]?
        var polkitEnvironment: [String: String] = [:]
        var polkit: PolkitFixture?
        if PolkitFixture.isAvailable, FileManager.default.isExecutableFile(atPath: "/usr/bin/pkcheck") {
            polkit = try? await PolkitFixture(
                actions: ["org.example.bench.maintenance": "Run maintenance"],
                rules: """
                    polkit.addRule(function(action, subject) {
                        if (action.id == "org.example.bench.maintenance") { return polkit.Result.YES; }
                    });
                    """)
            if let polkit {
                polkitEnvironment = ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": polkit.busAddress]
                let command = [
                    "/usr/bin/pkcheck", "--action-id", "org.example.bench.maintenance", "--process", "\(getpid())",
                ]
                if StartupWorkloads.spawn(command, environment: polkitEnvironment).status == 0 { pkcheck = command }
            }
        }

        var trueTimes: [Double] = []
        var capctlTimes: [Double] = []
        var promptingTimes: [Double] = []
        var versionTimes: [Double] = []
        var pkcheckTimes: [Double] = []
        var baselineTimes = [[Double]](repeating: [], count: baselines.count)
        environment["NO_COLOR"] = "1"
        for _ in 0..<starts {
            trueTimes.append(StartupWorkloads.spawn(["/bin/true"], environment: environment).seconds)
            capctlTimes.append(StartupWorkloads.spawn(check, environment: environment).seconds)
            promptingTimes.append(StartupWorkloads.spawn(prompting, environment: environment).seconds)
            for (index, baseline) in baselines.enumerated() {
                baselineTimes[index].append(StartupWorkloads.spawn(baseline, environment: environment).seconds)
            }
            versionTimes.append(StartupWorkloads.spawn([capctl, "--version"], environment: environment).seconds)
            if let pkcheck {
                pkcheckTimes.append(StartupWorkloads.spawn(pkcheck, environment: polkitEnvironment).seconds)
            }
        }
        withExtendedLifetime(polkit) {}
        let median = StartupWorkloads.median
        report.section(
            "a new process per decision: capctl check of a three-requirement gate (median of \(starts) starts)")
        report.line("/bin/true", String(format: "%6.2f ms", median(trueTimes) * 1e3))
        report.line("capctl --version", String(format: "%6.2f ms", median(versionTimes) * 1e3))
        if !pkcheckTimes.isEmpty {
            report.line("pkcheck (polkitd on a private bus)", String(format: "%6.2f ms", median(pkcheckTimes) * 1e3))
        } else {
            report.line("pkcheck", "not measured (needs root, polkitd, dbus-daemon and pkcheck)")
        }
        // The target is 2.5 ms on a host where /bin/true started in 0.7 ms. This VM's
        // starts slow down and speed up by a third from one minute to the next, /bin/true's with
        // them, so the target is judged as that ratio, side by side: 2.5 / 0.7 = 3.57x.
        let checkMilliseconds = median(capctlTimes) * 1e3
        let trueMilliseconds = median(trueTimes) * 1e3
        report.line(
            "capctl check",
            String(
                format: "%6.2f ms (2.5 ms at /bin/true's 0.7 ms is %.2f ms at its %.2f ms here)", checkMilliseconds,
                2.5 * trueMilliseconds / 0.7, trueMilliseconds))
        report.ratio(
            "capctl check / /bin/true", checkMilliseconds / trueMilliseconds, target: 2.5 / 0.7, atLeast: false,
            row: "capctl check / /bin/true (2.5 ms at true's 0.7 ms)")
        // Allowing a prompt nobody needs must not cost a queue and its threads (ninth session).
        report.line("capctl check, prompting allowed", String(format: "%6.2f ms", median(promptingTimes) * 1e3))
        report.ratio(
            "prompting allowed / --no-prompt", median(promptingTimes) / median(capctlTimes), target: 1.1,
            atLeast: false, row: "capctl check allowing a prompt nobody needs / --no-prompt")
        for (path, times) in zip(baselinePaths, baselineTimes) {
            report.line("check by \(path)", String(format: "%6.2f ms", median(times) * 1e3))
            report.ratio(
                "capctl check / that one's", median(capctlTimes) / median(times), target: nil, atLeast: false)
        }
        if !pkcheckTimes.isEmpty {
            report.ratio(
                "capctl check / pkcheck", median(capctlTimes) / median(pkcheckTimes), target: nil, atLeast: false)
        }
    }
}

extension CoreBench {
    /// The installed size of the Debian package Scripts/build-deb made (`CAPCTL_DEB`, else the
    /// newest in .build/deb), as dpkg records it.
    static func packageSize(_ report: inout Report) {
        report.section("the Debian package, installed")
        let directory = ".build/deb"
        let newest = (try? FileManager.default.contentsOfDirectory(atPath: directory))?
            .filter { $0.hasSuffix(".deb") }
            .map { directory + "/" + $0 }
            .max { modified($0) < modified($1) }
        guard let package = ProcessInfo.processInfo.environment["CAPCTL_DEB"] ?? newest,
            let field = try? runProcess("/usr/bin/dpkg-deb", ["-f", package, "Installed-Size"]),
            let kibibytes = Double(field.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            report.line("installed size", "not measured: no package (Scripts/build-deb makes one, or set CAPCTL_DEB)")
            return
        }
        report.line("package", package)
        report.bound(
            "installed size, MB", kibibytes * 1024 / 1e6, target: 20, row: "the .deb installed, MB")
    }

    private static func modified(_ path: String) -> Double {
        var status = stat()
        return stat(path, &status) == 0 ? Double(status.st_mtim.tv_sec) : 0
    }
}
