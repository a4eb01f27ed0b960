package import Dispatch
package import Plumbing

extension ReloadingValue {
    /// Reads again whenever one of `files`, or anything in `directories`, changes, until
    /// ``ReloadingValue/stopWatching()``.
    package func watch(files: [String], directories: [String], queue: DispatchQueue) throws(ConfigurationError) {
        let watcher = try DirectoryWatcher(files: files, directories: directories, queue: queue) { [weak self] _ in
            self?.reload()
        }
        keepWatching { watcher.stop() }
    }
}
