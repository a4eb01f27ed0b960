import Foundation
import Glibc

/// A real directory as a fleet host meets it: OpenLDAP's slapd (Debian's package) serving users and
/// groups on 127.0.0.1, and sssd (sssd-ldap) as the host's identity source for NSS and PAM.
///
/// Both run in namespaces of their own, so nothing on the machine changes: a network namespace
/// (its own loopback, so slapd listens on 127.0.0.1:389 without meeting anything else), a PID
/// namespace (killing its first process ends both daemons, whatever happens to the test), and a
/// mount namespace where /etc/nsswitch.conf reads `files sss`, /etc/sssd is the fixture's, and
/// /var/lib/sss (sssd's cache and sockets) and /run are fresh tmpfs mounts. Commands run in the
/// mount namespace with ``inside(_:)``: there, the directory's users exist for NSS and PAM.
///
/// sssd reaches slapd with StartTLS, checking a certificate the fixture makes for 127.0.0.1 (sssd
/// sends passwords only over TLS). The directory holds:
/// - `dirstaff` (uid 70001, password `dirstaff-password`, employeeType staff),
/// - `dirguest` (70002, `dirguest-password`, employeeType guest: the access rule refuses it),
/// - `dircold` (70003, `dircold-password`, staff);
/// - groups `dirusers` (70000, everyone's primary group), `dirbig` (70010: dirstaff and 8,000
///   others, about 96 KB as an entry, over 64 KiB), `dirlate` (70020: dirstaff; for tests that
///   must be the first to look it up).
///
/// sssd's access rule is `ldap_access_filter = (employeeType=staff)`, checked in PAM's account stage,
/// and it caches credentials (`cache_credentials = true`), so a user who logged in once can log in
/// with the directory stopped.
public final class DirectoryFixture: Sendable {
    public static let slapd = "/usr/sbin/slapd"
    public static let slapadd = "/usr/sbin/slapadd"
    public static let sssd = "/usr/sbin/sssd"

    /// pam_sss.so, as a PAM service file names it.
    public static var pamModule: String? {
        ["/usr/lib/x86_64-linux-gnu/security", "/usr/lib/aarch64-linux-gnu/security", "/lib/security"]
            .map { $0 + "/pam_sss.so" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    public static var isAvailable: Bool {
        [slapd, slapadd, sssd, "/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/ip"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        } && pamModule != nil && getuid() == 0
    }

    /// The base of every entry.
    public static let suffix = "dc=example,dc=test"

    private let directory: TemporaryDirectory
    private let daemon: DaemonProcess

    /// Loads the directory, starts slapd and sssd, and returns once sssd says it is ready.
    public init() throws {
        directory = try TemporaryDirectory(prefix: "directory")
        let root = directory.path
        try directory.directory("db")
        try directory.directory("sssd")
        try directory.directory("sssd/conf.d")
        try directory.write(Self.entries(), to: "entries.ldif")
        try directory.write("passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\n", to: "nsswitch.conf")
        let certificate = try SelfSignedCertificate(in: directory, name: "slapd")
        try directory.write(
            Self.slapdConfiguration(root: root, certificate: certificate), to: "slapd.conf")
        try directory.write(Self.sssdConfiguration(certificate: certificate), to: "sssd/sssd.conf", mode: 0o600)
        let load = try runProcess(Self.slapadd, ["-q", "-f", root + "/slapd.conf", "-l", root + "/entries.ldif"])
        guard load.status == 0 else { throw FixtureError("slapadd: \(load.standardError)") }

        let notify = try NotifySocket(path: root + "/notify")
        // slapd returns once it listens (it detaches after binding); sssd tells the notify socket.
        // The first process then only holds the namespaces.
        let setup = """
            set -e
            ip link set lo up
            mount -t tmpfs -o mode=0755 tmpfs /var/lib/sss
            mkdir -p /var/lib/sss/db /var/lib/sss/pipes/private /var/lib/sss/mc /var/lib/sss/pubconf \
                /var/lib/sss/gpo_cache /var/lib/sss/secrets /var/lib/sss/deskprofile
            chmod 0700 /var/lib/sss/db /var/lib/sss/pipes/private
            mount -t tmpfs -o mode=0755 tmpfs /run
            mount --bind \(root)/nsswitch.conf /etc/nsswitch.conf
            mount --bind \(root)/sssd /etc/sssd
            \(Self.slapd) -f \(root)/slapd.conf -h ldap://127.0.0.1/
            \(Self.sssd) -i --logger=stderr 2>>\(root)/sssd.log &
            exec sleep infinity
            """
        daemon = try DaemonProcess(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "--net", "--pid", "--fork", "--kill-child",
                "/bin/sh", "-c", setup,
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        do {
            try notify.waitForReady("sssd (log: \(root)/sssd.log)")
        } catch {
            daemon.stop()
            throw error
        }
    }

    deinit { daemon.stopNamespace() }

    /// The first process of the namespaces (it holds them; slapd and sssd are its children).
    private var holder: Int32? { DaemonProcess.children(of: daemon.pid).first }

    /// `command` run in the fixture's mount namespace, where NSS and PAM reach this directory.
    public func inside(_ command: [String]) -> [String] {
        ["/usr/bin/nsenter", "--target", String(holder ?? daemon.pid), "--mount", "--"] + command
    }

    /// What sssd logged (errors only, at its default level), for failure messages.
    public var sssdLog: String {
        (try? String(contentsOfFile: directory.path + "/sssd.log", encoding: .utf8)) ?? ""
    }

    /// Stops slapd: the directory becomes unreachable, and sssd goes offline (answering from its cache).
    public func stopDirectory() throws { try stop("slapd") }

    /// Stops sssd: NSS calls for entries not in its memory cache fail, and pam_sss cannot reach it.
    public func stopSSSD() throws { try stop("sssd") }

    private func stop(_ name: String) throws {
        guard let holder,
            let pid = DaemonProcess.children(of: holder).first(where: { DaemonProcess.command(of: $0) == name })
        else {
            throw FixtureError("\(name) is not running")
        }
        kill(pid, SIGKILL)
        // The holder reaps it; gone from its children means gone.
        while DaemonProcess.children(of: holder).contains(pid) && DaemonProcess.command(of: pid) == name {
            sched_yield()
        }
    }

    private static func slapdConfiguration(root: String, certificate: SelfSignedCertificate) -> String {
        """
        include /etc/ldap/schema/core.schema
        include /etc/ldap/schema/cosine.schema
        include /etc/ldap/schema/nis.schema
        include /etc/ldap/schema/inetorgperson.schema
        modulepath /usr/lib/ldap
        moduleload back_mdb
        pidfile \(root)/slapd.pid
        TLSCertificateFile \(certificate.certificatePath)
        TLSCertificateKeyFile \(certificate.keyPath)
        database mdb
        maxsize 104857600
        suffix "\(suffix)"
        rootdn "cn=admin,\(suffix)"
        directory \(root)/db
        access to attrs=userPassword by anonymous auth by * none
        access to * by * read

        """
    }

    private static func sssdConfiguration(certificate: SelfSignedCertificate) -> String {
        """
        [sssd]
        services = nss, pam
        domains = example

        [domain/example]
        id_provider = ldap
        auth_provider = ldap
        access_provider = ldap
        ldap_access_order = filter
        ldap_access_filter = (employeeType=staff)
        ldap_uri = ldap://127.0.0.1
        ldap_search_base = \(suffix)
        ldap_schema = rfc2307
        ldap_id_use_start_tls = true
        ldap_tls_reqcert = demand
        ldap_tls_cacert = \(certificate.certificatePath)
        cache_credentials = true

        """
    }

    private static func entries() -> String {
        var lines = [
            "dn: \(suffix)", "objectClass: dcObject", "objectClass: organization", "o: example", "dc: example", "",
            "dn: ou=people,\(suffix)", "objectClass: organizationalUnit", "ou: people", "",
            "dn: ou=groups,\(suffix)", "objectClass: organizationalUnit", "ou: groups", "",
        ]
        for (name, uid, type) in [
            ("dirstaff", 70001, "staff"), ("dirguest", 70002, "guest"), ("dircold", 70003, "staff"),
        ] {
            lines += [
                "dn: uid=\(name),ou=people,\(suffix)", "objectClass: inetOrgPerson", "objectClass: posixAccount",
                "uid: \(name)", "cn: \(name)", "sn: \(name)", "uidNumber: \(uid)", "gidNumber: 70000",
                "homeDirectory: /home/\(name)", "loginShell: /bin/sh", "userPassword: \(name)-password",
                "employeeType: \(type)", "",
            ]
        }
        func group(_ name: String, _ gid: Int, _ members: [String]) -> [String] {
            ["dn: cn=\(name),ou=groups,\(suffix)", "objectClass: posixGroup", "cn: \(name)", "gidNumber: \(gid)"]
                + members.map { "memberUid: \($0)" } + [""]
        }
        lines += group("dirusers", 70000, ["dirstaff", "dirguest", "dircold"])
        lines += group("dirbig", 70010, ["dirstaff"] + (0..<8_000).map { "member\($0)" })
        lines += group("dirlate", 70020, ["dirstaff"])
        return lines.joined(separator: "\n") + "\n"
    }
}
