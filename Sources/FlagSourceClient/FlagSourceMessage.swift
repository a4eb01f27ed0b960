package import ConfigurationFiles
package import FeatureFlags

/// What a program asks of its flag source helper, one line each on the helper's standard input:
/// the one encoder (``line``) the program uses and the one decoder (``init(line:)``) the helper uses.
package enum FlagSourceCommand: Equatable, Sendable {
    /// Start fetching; with `follow`, keep fetching at the source's interval.
    case start(follow: Bool)
    /// Fetch now; with `onlyIfDue`, only when the last good copy is older than the interval.
    case refresh(onlyIfDue: Bool)

    package var line: String {
        switch self {
        case .start(let follow): follow ? "start follow" : "start"
        case .refresh(let onlyIfDue): onlyIfDue ? "refresh if-due" : "refresh"
        }
    }

    /// The command a line holds; nil for anything else.
    package init?(line: String) {
        switch line {
        case "start": self = .start(follow: false)
        case "start follow": self = .start(follow: true)
        case "refresh": self = .refresh(onlyIfDue: false)
        case "refresh if-due": self = .refresh(onlyIfDue: true)
        default: return nil
        }
    }
}

/// The messages between a program and a helper process that follows a flag service for it
/// (capctl, capctld and `capctl-flag-source`): the source's settings as the helper's one argument,
/// then, from the helper, one line of JSON per event, each with the source's whole status and its
/// last good document. The program parses the document itself, so a helper can only hand over
/// flags that load there too.
package enum RemoteFlagSourceMessage {
    /// What happened, as one line from the helper names it.
    package enum Event: String, Sendable {
        /// The helper runs; the status holds the last good copy read from disk.
        case started
        /// New flags came.
        case loaded
        /// The service said the flags are unchanged.
        case confirmed
        /// A fetch failed (``Update/error``).
        case failed
        /// The flags are past max-staleness (``Update/reason``).
        case expired
        /// A refresh asked for has ended.
        case refreshed
    }

    /// What one line from the helper says.
    package struct Update: Sendable {
        package var event: Event
        /// The status, without flags: ``document`` holds them.
        package var status: RemoteFlagSourceStatus
        package var document: (text: String, format: FlagFileFormat)?
        /// The problem of a `failed` event.
        package var error: ConfigurationError?
        /// The reason of an `expired` event.
        package var reason: String?

        package init(
            event: Event, status: RemoteFlagSourceStatus, document: (text: String, format: FlagFileFormat)?,
            error: ConfigurationError? = nil, reason: String? = nil
        ) {
            self.event = event
            self.status = status
            self.document = document
            self.error = error
            self.reason = reason
        }
    }

    // MARK: Settings

    package static func encode(_ settings: HTTPFlagSourceSettings) -> String {
        var members: [String: FlagValue] = [
            "url": .string(settings.url), "interval": .number(seconds(settings.interval)),
            "jitter": .number(settings.jitter), "timeout": .number(seconds(settings.timeout)),
            "maxStaleness": .number(seconds(settings.maxStaleness)),
        ]
        members["authorizationFile"] = settings.authorizationFile.map(FlagValue.string)
        members["certificateAuthorityFile"] = settings.certificateAuthorityFile.map(FlagValue.string)
        members["cacheFile"] = settings.cacheFile.map(FlagValue.string)
        members["location"] = settings.location.map(encode)
        return FlagValue.structure(members).description
    }

    package static func settings(from text: String) throws(ConfigurationError) -> HTTPFlagSourceSettings {
        let message = try read(text)
        guard case .string(let url) = message["url"], let interval = message["interval"]?.numberValue,
            let jitter = message["jitter"]?.numberValue, let timeout = message["timeout"]?.numberValue,
            let maxStaleness = message["maxStaleness"]?.numberValue
        else { throw ConfigurationError("not the settings of a flag source", file: "<settings>") }
        return HTTPFlagSourceSettings(
            url: url, authorizationFile: message["authorizationFile"]?.stringValue,
            certificateAuthorityFile: message["certificateAuthorityFile"]?.stringValue,
            interval: .seconds(interval), jitter: jitter, timeout: .seconds(timeout),
            maxStaleness: .seconds(maxStaleness),
            cacheFile: message["cacheFile"]?.stringValue, location: message["location"].flatMap(location))
    }

    // MARK: Updates

    package static func encode(_ update: Update) -> String {
        let status = update.status
        var members: [String: FlagValue] = ["condition": .string(status.condition.rawValue)]
        members["lastSuccess"] = status.lastSuccess.map(FlagValue.number)
        members["entityTag"] = status.entityTag.map(FlagValue.string)
        members["problem"] = status.problem.map(encode)
        members["note"] = status.note.map(FlagValue.string)
        if let document = update.document {
            members["document"] = .string(document.text)
            members["format"] = .string(document.format.rawValue)
        }
        var message: [String: FlagValue] = ["event": .string(update.event.rawValue), "status": .structure(members)]
        message["error"] = update.error.map(encode)
        message["reason"] = update.reason.map(FlagValue.string)
        return FlagValue.structure(message).description
    }

    package static func update(from line: String, location: String) throws(ConfigurationError) -> Update {
        let message = try read(line)
        guard case .string(let word) = message["event"], let event = Event(rawValue: word),
            case .structure(let status) = message["status"],
            let condition = status["condition"]?.stringValue.flatMap(RemoteFlagSourceStatus.Condition.init)
        else { throw ConfigurationError("not a message of the flag source helper", file: location) }
        var document: (text: String, format: FlagFileFormat)?
        if let text = status["document"]?.stringValue {
            guard let format = status["format"]?.stringValue.flatMap(FlagFileFormat.init(rawValue:)) else {
                throw ConfigurationError("not a message of the flag source helper", file: location)
            }
            document = (text, format)
        }
        return Update(
            event: event,
            status: RemoteFlagSourceStatus(
                location: location, condition: condition, lastSuccess: status["lastSuccess"]?.numberValue,
                entityTag: status["entityTag"]?.stringValue, problem: status["problem"].flatMap(error),
                note: status["note"]?.stringValue),
            document: document, error: message["error"].flatMap(error), reason: message["reason"]?.stringValue)
    }

    // MARK: Parts

    private static func read(_ text: String) throws(ConfigurationError) -> [String: FlagValue] {
        guard case .structure(let members) = try JSONDocumentReader.read(text, file: "<message>").value else {
            throw ConfigurationError("not a message of the flag source helper", file: "<message>")
        }
        return members
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static func encode(_ location: FileLocation) -> FlagValue {
        .structure([
            "file": .string(location.file), "line": .number(Double(location.line)),
            "column": .number(Double(location.column)),
        ])
    }

    private static func location(_ value: FlagValue) -> FileLocation? {
        guard case .structure(let members) = value, let file = members["file"]?.stringValue,
            let line = members["line"]?.integerValue, let column = members["column"]?.integerValue
        else { return nil }
        return FileLocation(file: file, line: line, column: column)
    }

    private static func encode(_ error: ConfigurationError) -> FlagValue {
        var members: [String: FlagValue] = ["message": .string(error.message), "file": .string(error.file)]
        members["location"] = error.location.map(encode)
        return .structure(members)
    }

    private static func error(_ value: FlagValue) -> ConfigurationError? {
        guard case .structure(let members) = value, let message = members["message"]?.stringValue else { return nil }
        if let location = members["location"].flatMap(location) { return ConfigurationError(message, at: location) }
        return ConfigurationError(message, file: members["file"]?.stringValue ?? "")
    }
}
