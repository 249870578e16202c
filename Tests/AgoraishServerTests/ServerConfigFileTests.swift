@testable import AgoraishServer
import AgoraishTesting
import Glibc
import Testing

/// `ServerConfig.apply(file:)`: the file is read whole (FileIO, read(2)),
/// must be UTF-8, and its JSON is applied as `apply(json:)` does.
@Suite struct ServerConfigFileTests {
    static func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = makeTemporaryDirectory("config") + "/" + name
        let f = fopen(path, "w")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        return path
    }

    @Test func aConfigFileIsReadAndApplied() throws {
        let path = Self.write(Array(#"{"listen": {"signaling_port": 7999}, "limits": {"max_channels": 12}}"#.utf8), "ok.json")
        var config = ServerConfig()
        try config.apply(file: path)
        #expect(config.signalingPort == 7999)
        #expect(config.maxChannels == 12)
    }

    @Test func aMissingFileIsAConfigError() {
        var config = ServerConfig()
        #expect(throws: ServerError.config("cannot read /nonexistent/agoraish.json")) {
            try config.apply(file: "/nonexistent/agoraish.json")
        }
    }

    @Test func aDirectoryOrAFileThatIsNotUTF8CannotBeRead() {
        var config = ServerConfig()
        let dir = makeTemporaryDirectory("config-dir")
        #expect(throws: ServerError.config("cannot read \(dir)")) { try config.apply(file: dir) }
        let latin1 = Self.write([0x7B, 0x22, 0xE9, 0x22, 0x3A, 0x31, 0x7D], "latin1.json")
        #expect(throws: ServerError.config("cannot read \(latin1)")) { try config.apply(file: latin1) }
    }

    @Test func aFileThatIsNotAJSONObjectIsRefused() {
        var config = ServerConfig()
        for (i, text) in ["[1]", "{", #"{"listen": {},}"#, ""].enumerated() {
            let path = Self.write(Array(text.utf8), "bad\(i).json")
            #expect(throws: ServerError.config("not a JSON object")) { try config.apply(file: path) }
        }
    }
}
