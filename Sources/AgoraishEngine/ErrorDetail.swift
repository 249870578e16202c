import CAgoraishShim

/// This thread's error detail: why the call being made fails, in words (which
/// argument, which limit, which key), reported by the C ABI with the code
/// (`agoraish_get_last_error_detail`). Thread-local: each caller thread sees
/// the detail of its own last call.
public enum ErrorDetail {
    /// Says why the current call fails. The last one set before the call
    /// returns its error is the one reported.
    public static func set(_ text: String) { agsh_set_error_detail(text) }

    /// Forgets the detail (every call starts with none).
    public static func clear() { agsh_set_error_detail(nil) }

    /// The detail set on this thread ("" when none).
    public static var current: String { String(cString: agsh_error_detail()) }
}
