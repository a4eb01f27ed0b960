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

    @Test("the auxiliary vector's AT_SECURE: this test started without privileges; 32-bit vectors read, others refused")
    func auxiliaryVector() throws {
        func ownVector() throws -> ProcessFiles.AuxiliaryVector {
            ProcessFiles.AuxiliaryVector(bytes: try FileContents.bytes(of: "/proc/self/auxv"))
        }
        let own = try ownVector()
        #expect(own.startedWithPrivileges == false)
        #expect(try ownVector() == own, "the same program reads the same")
        func vector(_ words: [UInt32]) -> ProcessFiles.AuxiliaryVector {
            ProcessFiles.AuxiliaryVector(
                bytes: words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } })
        }
        // A 32-bit program's: AT_PAGESZ (6), AT_SECURE (23), AT_NULL, each two 4-byte words.
        #expect(vector([6, 4096, 23, 1, 0, 0]).startedWithPrivileges == true)
        #expect(vector([6, 4096, 23, 0, 0, 0]).startedWithPrivileges == false)
        // The same as 64-bit words: entries of two 8-byte words.
        #expect(vector([6, 0, 4096, 0, 23, 0, 1, 0, 0, 0, 0, 0]).startedWithPrivileges == true)
        // A program being started: its vector reads as zeros, then fills in entry by entry, and its
        // new credentials are in force already. Without AT_SECURE nothing can be told.
        #expect(vector([0, 0, 0, 0]).startedWithPrivileges == nil)
        #expect(vector([6, 0, 4096, 0, 0, 0, 0, 0]).startedWithPrivileges == nil)
        #expect(vector([6, 4096, 0, 0]).startedWithPrivileges == nil)
        // No terminating entry, a type no kernel writes, nothing: not a vector.
        #expect(vector([6, 4096, 23, 1]).startedWithPrivileges == nil)
        #expect(vector([0xFFFF, 1, 0, 0]).startedWithPrivileges == nil)
        #expect(vector([]).startedWithPrivileges == nil)
    }

    @Test("the status file: effective ids, groups, the effective set and a zombie; a malformed value reads as none")
    func statusFields() throws {
        func status(_ text: String) -> ProcessFiles.Status { ProcessFiles.Status(parsing: Array(text.utf8)) }
        let read = status(
            "Name:\tsleep\nState:\tS (sleeping)\nUid:\t1000\t4242\t4242\t4242\nGid:\t100 4343 4343 4343\n"
                + "Groups:\t4343 5000 27 \nCapInh:\t0000000000000000\nCapEff:\t000001ffFFffffff\nUidMap:\t1\n")
        #expect(read.effectiveUser == 4242 && read.effectiveGroup == 4343)
        #expect(read.groups == [4343, 5000, 27])
        #expect(read.effectiveCapabilities == 0x1ff_ffff_ffff)
        #expect(!read.isZombie)
        let zombie = status("State:\tZ (zombie)\nGroups:\t\n")
        #expect(zombie.isZombie && zombie.groups == [])
        let malformed = status("Uid:\t0 x1 0 0\nGid:\t0\nCapEff:\t0g\nGroups:\t1 99999999999\n")
        #expect(malformed.effectiveUser == nil && malformed.effectiveGroup == nil)
        #expect(malformed.effectiveCapabilities == nil && malformed.groups == nil)
        // This process's own, as the kernel writes it: the ids and groups getresuid and getgroups give.
        let own = status(String(decoding: try FileContents.bytes(of: "/proc/self/status"), as: UTF8.self))
        #expect(own.effectiveUser == geteuid() && own.effectiveGroup == getegid())
        var groups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(groups.count), &groups)
        #expect(Set(own.groups ?? [4_000_000_000]) == Set(groups.prefix(Int(count))))
    }
}
