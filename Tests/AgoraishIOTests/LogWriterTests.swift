import AgoraishIO
import Glibc
import AgoraishTesting
import Testing

@Suite struct LogWriterTests {
    @Test func rotationKeepsFiveFilesOfBoundedSize() throws {
        let dir = makeTemporaryDirectory("rotate")
        let path = dir + "/engine.log"
        let log = try LogWriter(path: path, filter: 0x0f, maxBytes: 4096, fileCount: 5)
        for i in 0..<2000 { log.log(.info, "line \(i) " + String(repeating: "x", count: 60)) }
        for i in 1...4 {
            let rotated = dir + "/engine_\(i).log"
            #expect(fileSize(rotated) != nil, "missing \(rotated)")
            #expect(fileSize(rotated)! <= 4096)
        }
        #expect(fileSize(dir + "/engine_5.log") == nil)
        #expect(fileSize(path)! <= 4096)
        // The newest line is in the current file, older ones move outward.
        #expect(readTextFile(path).contains("line 1999 "))
        #expect(!readTextFile(dir + "/engine_4.log").contains("line 1999 "))
    }

    @Test func filterDropsLessSevereLines() throws {
        let dir = makeTemporaryDirectory("filter")
        let log = try LogWriter(path: dir + "/f.log", filter: 0x0c, maxBytes: 1 << 20)
        log.log(.info, "info-line")
        log.log(.warning, "warn-line")
        log.log(.error, "error-line")
        log.log(.critical, "critical-line")
        let text = readTextFile(dir + "/f.log")
        #expect(!text.contains("info-line"))
        #expect(!text.contains("warn-line"))
        #expect(text.contains("[ERROR]") && text.contains("error-line"))
        #expect(text.contains("[CRITICAL]") && text.contains("critical-line"))
    }

    @Test func reopenFailureKeepsTheOldFile() throws {
        let dir = makeTemporaryDirectory("reopen")
        let log = try LogWriter(path: dir + "/a.log", filter: 0x0f, maxBytes: 1 << 20)
        #expect(throws: LogWriterError.self) { try log.reopen(path: dir + "/missing/dir/b.log") }
        log.log(.info, "still-here")
        #expect(log.currentPath == dir + "/a.log")
        #expect(readTextFile(dir + "/a.log").contains("still-here"))
    }

    @Test func rotatedNamesFollowTheBaseName() {
        #expect(LogWriter.rotatedPath("/x/agorasdk.log", index: 1) == "/x/agorasdk_1.log")
        #expect(LogWriter.rotatedPath("/x.d/log", index: 2) == "/x.d/log_2")
        #expect(LogWriter.rotatedPath("rel.txt", index: 4) == "rel_4.txt")
    }
}
