import Foundation

/// What a scenario observed, as JSON values, for the test that launched it to assert on.
public struct ScenarioReport: Codable, Sendable {
    public enum Value: Codable, Sendable, Equatable {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case strings([String])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Int.self) { self = .int(value) }
            else if let value = try? container.decode(Double.self) { self = .double(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else { self = .strings(try container.decode([String].self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .strings(let value): try container.encode(value)
            }
        }
    }

    public var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public subscript(key: String) -> Value? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public func string(_ key: String) -> String? {
        if case .string(let value) = values[key] { return value }
        return nil
    }
    public func int(_ key: String) -> Int? {
        if case .int(let value) = values[key] { return value }
        return nil
    }
    public func double(_ key: String) -> Double? {
        switch values[key] {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }
    public func bool(_ key: String) -> Bool? {
        if case .bool(let value) = values[key] { return value }
        return nil
    }
    public func strings(_ key: String) -> [String]? {
        if case .strings(let value) = values[key] { return value }
        return nil
    }
    /// The error the scenario reported instead of a result, if any.
    public var error: String? { string("error") }
}
