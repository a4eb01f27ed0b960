public import Capabilities

extension CapabilityStatus.Cause {
    /// The name does not resolve: the name servers answered that it has no address.
    public static let hostNotFound = Self("hostNotFound")
    /// No route to the host or its network, or a firewall refused the connection.
    public static let noRoute = Self("noRoute")
    /// The host answered, but nothing listens on the port: the host is up, the service is down.
    public static let connectionRefused = Self("connectionRefused")
    /// The host did not answer within the time allowed.
    public static let timedOut = Self("timedOut")
}
