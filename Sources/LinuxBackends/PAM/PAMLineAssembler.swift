/// Joins a PAM service file's physical lines into the logical lines libpam parses, as Linux-PAM
/// 1.5's `_pam_assemble_line` does with its 1024-byte buffer, so the module check reads the same
/// lines libpam will, and refuses what libpam cannot read the way a person does.
///
/// libpam reads with `fgets` into the rest of its buffer: a physical line longer than that is
/// split into two logical lines, and once a line continued with `\` has filled the buffer,
/// `fgets` reads nothing, forever (the process spins). Both are refused here. Otherwise: text
/// from the first `#` on is dropped and ends the logical line; a line ending in `\` (trailing
/// blanks allowed) continues on the next; blank and comment-only lines do not end a continuation;
/// a file ending inside a continuation is an error to libpam.
enum PAMLineAssembler {
    /// libpam's line buffer, in bytes, including the terminating NUL.
    static let bufferSize = 1024

    /// A logical line and the physical line it starts on.
    struct Line: Equatable {
        let number: Int
        let text: String
    }

    /// Why libpam cannot read a file as written.
    struct Refusal: Error, Equatable {
        let line: Int
        let reason: String
    }

    static func lines(of bytes: [UInt8]) throws(Refusal) -> [Line] {
        if let nul = bytes.firstIndex(of: 0) {
            throw Refusal(
                line: bytes[..<nul].count(where: { $0 == UInt8(ascii: "\n") }) + 1,
                reason: "holds a NUL byte, which libpam reads as the end of the line")
        }
        var lines: [Line] = []
        var cursor = 0
        var physical = 1
        while cursor < bytes.count {
            // One logical line: `kept` is what libpam's buffer holds so far.
            var kept: [UInt8] = []
            let start = physical
            var continued = false
            while true {
                let room = bufferSize - kept.count - 1
                guard cursor < bytes.count else {
                    if continued {
                        throw Refusal(line: start, reason: "ends inside a line continued with \\, which libpam refuses")
                    }
                    break
                }
                guard room > 0 else {
                    throw Refusal(
                        line: start,
                        reason: "continues a line past libpam's \(bufferSize)-byte buffer, where libpam never"
                            + " finishes reading it")
                }
                let newline = bytes[cursor...].firstIndex(of: UInt8(ascii: "\n"))
                let end = newline.map { $0 + 1 } ?? bytes.count
                // A newline left over for the next read is a blank line, which changes nothing.
                guard (newline ?? end) - cursor <= room else {
                    throw Refusal(
                        line: physical,
                        reason:
                            "is longer than libpam's \(bufferSize)-byte buffer, so libpam would read it as two lines")
                }
                let chunk = Array(bytes[cursor..<end])
                cursor = end
                physical += 1
                let blank: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n")]
                guard let first = chunk.firstIndex(where: { !blank.contains($0) }), chunk[first] != UInt8(ascii: "#")
                else {
                    // Nothing on this line; a continuation goes on past it.
                    if continued { continue }
                    break
                }
                if let hash = chunk[first...].firstIndex(of: UInt8(ascii: "#")) {
                    kept += chunk[..<hash]
                    continued = false
                    break
                }
                guard let last = chunk.lastIndex(where: { !blank.contains($0) }), chunk[last] == UInt8(ascii: "\\")
                else {
                    kept += chunk
                    continued = false
                    break
                }
                kept += chunk[..<last]
                kept.append(UInt8(ascii: " "))
                continued = true
            }
            let text = String(decoding: kept, as: UTF8.self)
            if text.contains(where: { !$0.isWhitespace }) { lines.append(Line(number: start, text: text)) }
        }
        return lines
    }
}
