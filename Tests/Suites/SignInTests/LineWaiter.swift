import Foundation
import Synchronization

/// Lines of a child's output, read on a thread of their own; a waiter gets the first line it
/// accepts that no earlier waiter took, or fails at ``BrokerDouble/deadline``.
final class LineWaiter: Sendable {
    private struct State {
        var lines: [String] = []
        var taken: Set<Int> = []
        var waiters: [UInt64: (accepts: @Sendable (String) -> Bool, continuation: CheckedContinuation<String, any Error>)] = [:]
        var nextWaiter: UInt64 = 0
        var ended = false
    }
    private let state = Mutex(State())

    var seen: [String] { state.withLock { $0.lines } }

    func read(_ handle: FileHandle?) {
        guard let handle else { return }
        Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    add(line)
                }
            }
            end()
        }.start()
    }

    func next(_ accepts: @escaping @Sendable (String) -> Bool) async throws -> String {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task {
            try? await Task.sleep(for: BrokerDouble.deadline)
            fail(id, "no matching line from the broker double within \(BrokerDouble.deadline)")
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let found = state.withLock { state -> Result<String, any Error>? in
                if let index = state.lines.indices.first(where: { !state.taken.contains($0) && accepts(state.lines[$0]) }) {
                    state.taken.insert(index)
                    return .success(state.lines[index])
                }
                if state.ended { return .failure(BrokerDoubleError("the broker double ended; it said: \(state.lines)")) }
                state.waiters[id] = (accepts, continuation)
                return nil
            }
            if let found { continuation.resume(with: found) }
        }
    }

    private func add(_ line: String) {
        let woken = state.withLock { state -> (CheckedContinuation<String, any Error>, String)? in
            state.lines.append(line)
            guard let (id, waiter) = state.waiters.sorted(by: { $0.key < $1.key }).first(where: { $0.value.accepts(line) }) else {
                return nil
            }
            state.waiters[id] = nil
            state.taken.insert(state.lines.count - 1)
            return (waiter.continuation, line)
        }
        if let (continuation, line) = woken { continuation.resume(returning: line) }
    }

    private func end() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: BrokerDoubleError("the broker double ended")) }
    }

    private func fail(_ id: UInt64, _ message: String) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: BrokerDoubleError(message))
    }
}
