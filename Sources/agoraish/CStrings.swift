import AgoraishEngine
import Glibc

/// NUL-terminated strings that live as long as the library: the answers of
/// `agoraish_get_version` and `agoraish_get_error_description`.
struct StaticCStrings: @unchecked Sendable {
    private let table: [String: UnsafeMutablePointer<CChar>]

    init(_ strings: [String]) {
        var table: [String: UnsafeMutablePointer<CChar>] = [:]
        for s in strings where table[s] == nil { table[s] = strdup(s) }
        self.table = table
    }

    /// The static copy of `s`; `s` must be one of the strings given at init.
    subscript(_ s: String) -> UnsafePointer<CChar> {
        guard let p = table[s] else { preconditionFailure("\(s) is not a static C string") }
        return UnsafePointer(p)
    }
}

/// Reads a C string argument: nil for NULL, or for bytes that are not UTF-8.
func readCString(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    return String(validatingCString: p)
}

/// Writes `value` into a caller buffer described by (`buf`, `len`), following
/// the header's convention: `*len` in is the capacity, out the size needed
/// with the NUL; -6 when the buffer is too small (nothing written).
func writeCString(_ value: String, _ buf: UnsafeMutablePointer<CChar>?, _ len: UnsafeMutablePointer<Int>) -> Int32 {
    let bytes = Array(value.utf8)
    let needed = bytes.count + 1
    // size_t arrives as Int: capacities above Int.max read as negative.
    let capacity = len.pointee < 0 ? Int.max : len.pointee
    if buf == nil && capacity > 0 { return -2 }
    len.pointee = needed
    guard let buf, capacity >= needed else { return -6 }
    buf.withMemoryRebound(to: UInt8.self, capacity: needed) { dst in
        for (i, byte) in bytes.enumerated() { dst[i] = byte }
        dst[bytes.count] = 0
    }
    return 0
}

/// Reads a `struct_size`-first struct from C: nil when the pointer is NULL or
/// `struct_size` is not one of `knownSizes`, the sizes the struct had in the
/// ABI minors that had it (`StructSizes`, generated from the header's history).
/// Fields past `struct_size` (a host built against an older minor) read as zero.
func readVersioned<T>(_ p: UnsafePointer<T>?, knownSizes: [Int]) -> T? {
    guard let p else {
        ErrorDetail.set("the \(T.self) pointer is NULL")
        return nil
    }
    let declared = Int(UnsafeRawPointer(p).load(as: UInt32.self))
    guard knownSizes.contains(declared) else {
        ErrorDetail.set("struct_size \(declared) is no size \(T.self) had in an ABI minor "
                        + "(\(knownSizes.map(String.init).joined(separator: ", ")))")
        return nil
    }
    let size = MemoryLayout<T>.size
    let copy = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<T>.alignment)
    defer { copy.deallocate() }
    copy.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    copy.copyMemory(from: UnsafeRawPointer(p), byteCount: min(declared, size))
    return copy.load(as: T.self)
}

/// Sets this thread's error detail as `<C function>: <why>` (the C name is
/// made from the Swift one: abi_engine_join_channel(_:_:) is
/// agoraish_engine_join_channel); with no `why`, just the function.
func explain(_ function: String, _ why: String) {
    let swiftName = function.prefix { $0 != "(" }
    let cName = swiftName.hasPrefix("abi_") ? "agoraish_" + swiftName.dropFirst(4) : String(swiftName)
    ErrorDetail.set(why.isEmpty || why.hasPrefix(cName) ? (why.isEmpty ? cName : why) : "\(cName): \(why)")
}
