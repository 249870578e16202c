/// Why bytes or text from outside could not be read. Bad input never traps:
/// every parser in this module throws one of these instead.
public enum WireError: Error, Equatable, Sendable {
    /// The input ends before a complete value.
    case truncated
    /// The input is not a value of the expected format; the text says which rule failed.
    case malformed(String)
    /// The input is well formed but uses a version or feature this build does not know.
    case unsupported(String)
}
