import Foundation

/// The Python `varlink` package the tests drive varlink services with, and run as a service: a
/// client and a server nobody here wrote. Scripts/test makes its venv (Scripts/make-capctld-client-venv)
/// and names its interpreter in CAPCTLD_CLIENT_PYTHON.
public enum VarlinkPython {
    /// The venv's interpreter: CAPCTLD_CLIENT_PYTHON, or the venv found next to the build.
    public static var interpreter: String? {
        if let named = ProcessInfo.processInfo.environment["CAPCTLD_CLIENT_PYTHON"], !named.isEmpty { return named }
        // The build folder: the nearest directory above the test binary that holds the venv.
        var directory = URL(fileURLWithPath: builtProduct("x")).deletingLastPathComponent()
        while directory.path != "/" {
            let venv = directory.appendingPathComponent("capctld-client-venv/bin/python").path
            if FileManager.default.isExecutableFile(atPath: venv) { return venv }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
