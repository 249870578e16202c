import AgoraishIO
import AgoraishMedia

/// Picture files for takeSnapshot and addVideoWatermark: the media layer's
/// in-memory JPEG and PNG coding (`ImageFile`) joined to whole-file reads
/// and all-or-nothing writes (`FileIO`), so a file at `path` is either
/// absent or complete.
extension ImageFile {
    /// Writes `frame` as JPEG or PNG, chosen by the extension of `path`
    /// (.jpg or .jpeg, .png, in any case); JPEG at quality 90.
    public static func write(_ frame: I420Frame, to path: String) throws(ImageFileError) {
        guard let format = Format(path: path) else { throw .unsupportedFormat }
        try store(try encode(frame, as: format), at: path)
    }

    /// Writes `frame` as a baseline 4:2:0 JPEG at `quality` (1-100).
    public static func writeJPEG(_ frame: I420Frame, to path: String, quality: Int = 90) throws(ImageFileError) {
        try store(try jpegData(frame, quality: quality), at: path)
    }

    /// Writes `frame` as an 8-bit RGB PNG.
    public static func writePNG(_ frame: I420Frame, to path: String) throws(ImageFileError) {
        try store(try pngData(frame), at: path)
    }

    /// Reads a PNG file of any colour type and bit depth (at most
    /// `maxFileBytes`) as 8-bit RGBA.
    public static func readPNG(path: String) throws(ImageFileError) -> RGBAImage {
        let bytes: [UInt8]
        do { bytes = try FileIO.readAll(path, limit: maxFileBytes) } catch { throw ImageFileError(error) }
        return try decodePNG(bytes)
    }

    private static func store(_ bytes: [UInt8], at path: String) throws(ImageFileError) {
        do { try FileIO.writeAtomically(bytes, to: path) } catch { throw ImageFileError(error) }
    }
}

extension ImageFileError {
    /// The picture error for a failed file read or write.
    init(_ error: FileIOError) {
        switch error {
        case .system(let code): self = .io(code)
        case .tooLarge: self = .tooLarge
        }
    }
}
