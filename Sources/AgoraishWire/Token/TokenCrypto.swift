import COpenSSL
import CZlib

/// The primitives both token formats use: HMAC-SHA256 (libcrypto), CRC-32 and
/// zlib streams (libz), strict Base64 (RFC 4648 §4, standard alphabet, padded).
public enum TokenCrypto {
    /// HMAC-SHA256(key, message) (RFC 2104), 32 bytes. Wraps libcrypto's `HMAC()`.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var outLength: UInt32 = 32
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    HMAC(EVP_sha256(), k.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(k.count),
                         m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count, o.baseAddress, &outLength)
                }
            }
        }
        precondition(ok != nil && outLength == 32, "HMAC-SHA256 cannot fail for in-memory inputs")
        return out
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }

    /// IEEE CRC-32 (zlib's `crc32`); 0 for no bytes.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { p in
            UInt32(CZlib.crc32(0, p.baseAddress, UInt32(p.count)))
        }
    }

    /// An RFC 1950 zlib stream of `bytes` at zlib's default level (what the
    /// official Python builders produce).
    public static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var bound = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let rc = bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                compress2(dst.baseAddress, &bound, src.baseAddress, uLong(src.count), Z_DEFAULT_COMPRESSION)
            }
        }
        precondition(rc == Z_OK, "compress2 into compressBound bytes cannot fail")
        return Array(out[0..<Int(bound)])
    }

    /// Inflates one complete zlib stream. Throws `.malformed` for a bad header,
    /// corrupt data, a bad Adler-32, an incomplete stream, bytes after the end
    /// of the stream, or output beyond `limit` bytes.
    public static func inflate(_ bytes: [UInt8], limit: Int = 65536) throws(WireError) -> [UInt8] {
        guard !bytes.isEmpty else { throw .malformed("empty zlib stream") }
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .malformed("zlib init")
        }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: limit + 1)
        let rc: Int32 = input.withUnsafeMutableBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw .malformed("zlib stream incomplete or corrupt") }
        guard stream.avail_in == 0 else { throw .malformed("bytes after the zlib stream") }
        let produced = Int(stream.total_out)
        guard produced <= limit else { throw .malformed("inflated size over the limit") }
        return Array(output[0..<produced])
    }

    /// Standard Base64 with padding (RFC 4648 §4). Wraps libcrypto's `EVP_EncodeBlock`.
    public static func base64Encode(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        precondition(bytes.count <= Int(Int32.max) / 4 * 3, "Base64 input over 1.5 GiB is never built in memory")
        let length = 4 * ((bytes.count + 2) / 3)
        // EVP_EncodeBlock writes the text and a NUL; the String keeps the text.
        return String(unsafeUninitializedCapacity: length + 1) { out in
            bytes.withUnsafeBufferPointer { src in
                Int(EVP_EncodeBlock(out.baseAddress, src.baseAddress, Int32(src.count)))
            }
        }
    }

    /// Strict standard Base64: alphabet `A-Z a-z 0-9 + /`, `=` padding only at
    /// the end, length a multiple of 4, no whitespace. Bits after the last
    /// byte need not be zero (`QR==` is `A`). The checks are made here;
    /// libcrypto's `EVP_DecodeBlock` (which would skip whitespace) decodes.
    public static func base64Decode(_ text: Substring) throws(WireError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count % 4 == 0, utf8.count <= Int(Int32.max) else { throw .malformed("base64 length") }
        let padding = utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { throw .malformed("base64 padding") }
        for byte in utf8.dropLast(padding) {
            let ok = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2F
            guard ok else { throw .malformed("base64 alphabet") }
        }
        // EVP_DecodeBlock decodes each `=` as zero bits: 3 bytes per 4 characters,
        // the padding's bytes included, which are dropped after.
        var out = [UInt8](repeating: 0, count: utf8.count / 4 * 3)
        let n = utf8.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                EVP_DecodeBlock(dst.baseAddress, src.baseAddress, Int32(src.count))
            }
        }
        guard Int(n) == out.count else { throw .malformed("base64") }
        out.removeLast(padding)
        return out
    }
}
