import AgoraishIO
import AgoraishMedia

/// takeSnapshot: the next picture of a user written to a file.
extension VideoPipeline {
    /// Most snapshots waiting per user.
    static let maxPendingSnapshots = 8

    /// Queues a snapshot of `uid` (0: the local picture) to `path`. The next
    /// picture captured (local) or rendered (remote) is written as JPEG or PNG,
    /// on the video thread, and onSnapshotTaken reports it.
    func requestSnapshot(uid: UInt32, path: String) -> Bool {
        snapshots.withLock { map in
            guard (map[uid]?.count ?? 0) < Self.maxPendingSnapshots else { return false }
            map[uid, default: []].append(path)
            return true
        }
    }

    /// Writes the snapshots waiting for `uid` from this picture.
    func takeSnapshots(of uid: UInt32, _ frame: I420Frame, _ timeMs: Int64) {
        guard let paths = snapshots.withLock({ $0.removeValue(forKey: uid) }) else { return }
        let write = { [self] in
            for path in paths {
                var code: Int32 = 0
                do {
                    try ImageFile.write(frame, to: path)
                } catch {
                    code = (error as? ImageFileError) == .unsupportedFormat ? -2 : -1
                }
                emit(.snapshotTaken(uid: uid, path: path, width: Int32(frame.width), height: Int32(frame.height),
                                    error: code))
            }
        }
        if loop.inLoop { write() } else if !loop.post(write) { failed(uid, paths) }
    }

    /// Snapshots that can no longer be taken (the user left, the call ended) fail with -1.
    func failSnapshots(of uid: UInt32) {
        guard let paths = snapshots.withLock({ $0.removeValue(forKey: uid) }) else { return }
        failed(uid, paths)
    }

    /// All snapshots fail except those of `keep`.
    func failSnapshots(except keep: Set<UInt32>) {
        let gone = snapshots.withLock { map -> [UInt32: [String]] in
            let g = map.filter { !keep.contains($0.key) }
            for k in g.keys { map[k] = nil }
            return g
        }
        for (uid, paths) in gone { failed(uid, paths) }
    }

    private func failed(_ uid: UInt32, _ paths: [String]) {
        for p in paths { emit(.snapshotTaken(uid: uid, path: p, width: 0, height: 0, error: -1)) }
    }
}
