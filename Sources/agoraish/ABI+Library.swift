import AgoraishEngine
import AgoraishWire
import CAgoraishABI
import CAgoraishShim

// The library-wide functions of include/agoraish.h.

private let staticStrings = StaticCStrings(
    [Version.string, "no error", "unknown error"] + AgoraError.allCases.map(\.text)
)

/// agoraish_get_version: the version string (static) and, optionally, the build number.
@_cdecl("agoraish_get_version")
public func abi_get_version(_ build: UnsafeMutablePointer<Int32>?) -> UnsafePointer<CChar>? {
    build?.pointee = Version.build
    return staticStrings[Version.string]
}

/// agoraish_get_error_description: static text for a code, negated or not.
@_cdecl("agoraish_get_error_description")
public func abi_get_error_description(_ code: Int32) -> UnsafePointer<CChar>? {
    staticStrings[AgoraError.describe(code)]
}

/// agoraish_get_last_error: this thread's last handle-returning call's result.
@_cdecl("agoraish_get_last_error")
public func abi_get_last_error() -> Int32 {
    agsh_last_error()
}

/// agoraish_get_last_error_detail: this thread's words on its last failure
/// (a thread-local buffer of the C shim; "" when none).
@_cdecl("agoraish_get_last_error_detail")
public func abi_get_last_error_detail() -> UnsafePointer<CChar>? {
    agsh_error_detail()
}
