import CAgoraishShim

/// Secret random bytes from the kernel (getrandom(2)): keys, passwords, tokens.
@Sendable public func secureRandomBytes(_ n: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: n)
    let rc = out.withUnsafeMutableBytes { agsh_random_bytes($0.baseAddress, n) }
    precondition(rc == 0, "getrandom cannot fail for small requests once the kernel pool is initialised")
    return out
}
