// agoraish-fuzz: fuzz entries for every parser of untrusted input.
//
//   swift build --product agoraish-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING
//   AGORAISH_FUZZ_TARGET=stun agoraish-fuzz Tests/Fuzz/corpus/stun -max_total_time=60
//
// Built without -DFUZZING it replays files instead: `agoraish-fuzz TARGET FILE|DIR...`
// runs each input once (the regression mode `make test` uses on the seed corpus).
import Glibc

#if FUZZING
/// The fuzz target chosen by AGORAISH_FUZZ_TARGET, read once.
let selectedTarget: FuzzTarget = {
    guard let name = getenv("AGORAISH_FUZZ_TARGET").map({ String(cString: $0) }),
          let t = FuzzTarget(rawValue: name) else {
        print("set AGORAISH_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(2)
    }
    return t
}()

/// libFuzzer's entry: called once per input by libFuzzer's own main.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget.run(size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
#else
func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return out
}

func files(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [path] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(path + "/" + name) }
    }
    return names.sorted()
}

@main
enum FuzzMain {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: agoraish-fuzz TARGET FILE|DIR...  (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")))")
            exit(2)
        }
        var count = 0
        for path in args.dropFirst() {
            for file in files(path) {
                guard let data = readFile(file) else { continue }
                target.run(data)
                count += 1
            }
        }
        print("agoraish-fuzz \(name): \(count) inputs replayed, no failure")
    }
}
#endif
