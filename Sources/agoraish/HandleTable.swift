import AgoraishIO
import Synchronization

/// The kinds of object a C handle can name. The raw value is the handle's type tag.
enum HandleKind: UInt8 {
    case engine = 0x01
    case server = 0x02
}

/// Why a handle did not resolve, mapped to the C ABI's documented codes.
enum HandleError: Error {
    /// NULL (-7).
    case null
    /// A handle of another kind, or not a handle at all (-2).
    case wrongKind
    /// Released, or never issued (-7).
    case stale

    var code: Int32 {
        switch self {
        case .null, .stale: -7
        case .wrongKind: -2
        }
    }

    /// What the error detail says of a handle of `kind` that failed this way.
    func detail(_ kind: String) -> String {
        switch self {
        case .null: "the \(kind) handle is NULL"
        case .wrongKind: "this is no \(kind) handle (another object's, or no handle at all)"
        case .stale: "the \(kind) handle was released (or never issued)"
        }
    }
}

/// The one table behind every opaque handle of the C ABI (behind a pthread
/// mutex, which ThreadSanitizer understands).
///
/// A handle is a 64-bit token, never a pointer the library dereferences:
///
///     bits 63..56  type tag (`HandleKind`)
///     bits 55..32  generation of the slot (1...2^24-1, bumped when a slot is freed)
///     bits 31..0   slot index + 1
///
/// So NULL, a handle of another kind, a stale handle after release, or random
/// bits all resolve to an error instead of a crash. Slots are reused; the
/// generation tells an old handle from the new occupant.
final class HandleTable: Sendable {
    private struct Slot {
        var generation: UInt32 = 1
        var kind: HandleKind? = nil
        var object: AnyObject? = nil
    }

    private struct Storage {
        var slots: [Slot] = []
        var free: [Int] = []
    }

    private let storage = Locked(Storage())

    private static let generationMask: UInt64 = 0xFF_FFFF

    /// Stores `object` and returns its new handle.
    func insert(_ object: AnyObject & Sendable, kind: HandleKind) -> UInt64 {
        storage.withLock { s in
            let index: Int
            if let reused = s.free.popLast() {
                index = reused
            } else {
                s.slots.append(Slot())
                index = s.slots.count - 1
            }
            s.slots[index].kind = kind
            s.slots[index].object = object
            return Self.encode(kind: kind, generation: s.slots[index].generation, index: index)
        }
    }

    /// The object behind `handle`, if it is a live handle of `kind`.
    func lookup<T: AnyObject>(_ handle: UInt64, as kind: HandleKind, _ type: T.Type) -> Result<T, HandleError> {
        guard handle != 0 else { return .failure(.null) }
        guard let (tag, generation, index) = Self.decode(handle), tag == kind.rawValue else {
            return .failure(.wrongKind)
        }
        return storage.withLock { s in
            guard index < s.slots.count, s.slots[index].generation == generation,
                  s.slots[index].kind == kind, let object = s.slots[index].object as? T
            else { return .failure(.stale) }
            return .success(object)
        }
    }

    /// Removes the object behind `handle` and returns it; the handle becomes stale.
    func remove<T: AnyObject>(_ handle: UInt64, as kind: HandleKind, _ type: T.Type) -> Result<T, HandleError> {
        guard handle != 0 else { return .failure(.null) }
        guard let (tag, generation, index) = Self.decode(handle), tag == kind.rawValue else {
            return .failure(.wrongKind)
        }
        return storage.withLock { s in
            guard index < s.slots.count, s.slots[index].generation == generation,
                  s.slots[index].kind == kind, let object = s.slots[index].object as? T
            else { return .failure(.stale) }
            s.slots[index].object = nil
            s.slots[index].kind = nil
            var next = (generation + 1) & UInt32(Self.generationMask)
            if next == 0 { next = 1 }
            s.slots[index].generation = next
            s.free.append(index)
            return .success(object)
        }
    }

    /// The number of live handles (for tests and diagnostics).
    var count: Int { storage.withLock { $0.slots.count - $0.free.count } }

    static func encode(kind: HandleKind, generation: UInt32, index: Int) -> UInt64 {
        UInt64(kind.rawValue) << 56 | (UInt64(generation) & generationMask) << 32 | UInt64(index + 1)
    }

    static func decode(_ handle: UInt64) -> (tag: UInt8, generation: UInt32, index: Int)? {
        let tag = UInt8(truncatingIfNeeded: handle >> 56)
        let generation = UInt32(truncatingIfNeeded: (handle >> 32) & generationMask)
        let slot = UInt32(truncatingIfNeeded: handle)
        guard HandleKind(rawValue: tag) != nil, generation != 0, slot != 0 else { return nil }
        return (tag, generation, Int(slot - 1))
    }
}

/// The handle table of this library instance.
let handles = HandleTable()
