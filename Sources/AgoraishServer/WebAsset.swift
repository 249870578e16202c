/// A file of the web client compiled into the server (Sources/AgoraishServer/Web, docs/web.md).
struct WebAsset {
    let bytes: [UInt8]
    let contentType: String

    static let script = "text/javascript; charset=utf-8"
    static let html = "text/html; charset=utf-8"

    /// Public, beside the WebSocket: the web client and the call page.
    static let signalingPort: [String: WebAsset] = [
        "/sdk/agoraish.js": WebAsset(bytes: PackageResources.agoraish_js, contentType: script),
        "/call": WebAsset(bytes: PackageResources.call_html, contentType: html),
    ]
    /// Beside /status: the status page (public: it shows only what /status gives the token it is given), and the client.
    static let httpPort: [String: WebAsset] = [
        "/status.html": WebAsset(bytes: PackageResources.status_html, contentType: html),
        "/sdk/agoraish.js": WebAsset(bytes: PackageResources.agoraish_js, contentType: script),
    ]
}
