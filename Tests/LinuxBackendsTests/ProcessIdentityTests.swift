import FeatureFlags
import Foundation
import LinuxPolicy
import TestSupport
import Testing

@testable import LinuxBackends

@Suite struct ProcessIdentityTests {
    /// Runs `id` with the given flag: the system's own answer to compare with.
    func id(_ flag: String) throws -> String {
        try runProcess("/usr/bin/id", [flag]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the identity agrees with id(1)")
    func agreesWithId() throws {
        let identity = ProcessIdentity.current()
        #expect(String(identity.effectiveUser.id) == (try id("-u")))
        #expect(identity.effectiveUser.name == (try id("-un")))
        #expect(String(identity.effectiveGroup.id) == (try id("-g")))
        let groups = Set(try id("-G").split(separator: " ").compactMap { UInt32($0) })
        let ours = Set(identity.supplementaryGroups.map(\.id) + [identity.effectiveGroup.id])
        #expect(ours == groups)
    }

    @Test("the host context describes this process")
    func hostContext() throws {
        let host = FlagEvaluationContext.host
        #expect(host.attributes["uid"]?.integerValue == Int(getuid()))
        #expect(host.attributes["hostname"]?.stringValue?.isEmpty == false)
        #expect(host.targetingKey == host.attributes["hostname"]?.stringValue)
        if case .list(let groups)? = host.attributes["groups"] {
            #expect(!groups.isEmpty)
        } else {
            Issue.record("no groups")
        }
        #expect(host.attributes["user"] != nil)
    }
}
