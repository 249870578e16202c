import Synchronization

/// A single-producer, single-consumer ring of datagrams: the media receive
/// thread pushes, one worker pops. No locks: the head and tail indices are
/// atomics, each written by one side only (release on write, acquire on read).
final class PacketRing: @unchecked Sendable {
    /// Bytes one slot holds (a datagram plus room for an SRTP trailer).
    static let slotSize = 2048
    let capacity: Int
    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let sessions: UnsafeMutablePointer<UInt64>
    private let head = Atomic<Int>(0)  // next slot to pop, written by the consumer
    private let tail = Atomic<Int>(0)  // next slot to fill, written by the producer

    init(capacity: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "the capacity is a power of two")
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotSize, alignment: 16)
        lengths = .allocate(capacity: capacity)
        sessions = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        sessions.deallocate()
    }

    /// Consumer: whether nothing is queued. Sequentially consistent with
    /// `push`, so a datagram is either seen here or its producer sees the
    /// consumer caught up and wakes it (no lost wake-up).
    var isEmpty: Bool { tail.load(ordering: .sequentiallyConsistent) == head.load(ordering: .sequentiallyConsistent) }

    /// Producer: copies a datagram in. Returns nil when the ring is full, else
    /// whether the consumer had caught up (it may be asleep: wake it).
    func push(_ bytes: UnsafeRawPointer, length: Int, session: UInt64) -> Bool? {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        guard t - h < capacity, length <= Self.slotSize else { return nil }
        let i = t & (capacity - 1)
        (storage + i * Self.slotSize).copyMemory(from: bytes, byteCount: length)
        lengths[i] = length
        sessions[i] = session
        tail.store(t + 1, ordering: .sequentiallyConsistent)
        // Read after publishing: if the consumer had consumed everything before
        // this datagram, it may have checked `isEmpty` already and be sleeping.
        return head.load(ordering: .sequentiallyConsistent) == t
    }

    /// Consumer: hands each queued datagram to `body` (in place, with room to
    /// grow to `slotSize`), then frees the slots.
    func drain(_ body: (UnsafeMutableRawPointer, Int, UInt64) -> Void) {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        var i = h
        while i < t {
            let slot = i & (capacity - 1)
            body(storage + slot * Self.slotSize, lengths[slot], sessions[slot])
            i += 1
        }
        head.store(t, ordering: .sequentiallyConsistent)
    }
}
