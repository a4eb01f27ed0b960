import CCapctlFront

/// The released `capctl`'s first program (Docs/Performance.md, "Tenth session"): built without
/// the Swift runtime (Embedded Swift, linked to the C library alone), it answers
/// `capctl check GATE` in its plainest form through capctld, and hands every other command line
/// to capctl itself, a library it loads (``CommandLibrary``).
///
/// A check through capctld is a connection, a call and a line of output; starting the Swift
/// runtime for it cost more than the call (a Swift program that prints a line starts in more time
/// than the front's whole check). What the front says is what capctl says: it answers only replies
/// it reads completely (``CheckReply``), and gives capctl the connection with the reply unread
/// for anything else; the release layout's tests hold the two outputs equal.
@main
struct CapctlFront {
    static func main() {
        let arguments = CommandArguments()
        if let check = FrontCheck(arguments) { check.run(arguments) }
        CommandLibrary.runMain(arguments)
    }
}
