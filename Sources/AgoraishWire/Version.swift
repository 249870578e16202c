/// The version of agoraish (Agora's getVersion), shared by the library and the tools.
public enum Version {
    /// "major.minor.patch".
    public static let string = "0.1.0"
    /// A build number that grows with every release.
    public static let build: Int32 = 1
}

