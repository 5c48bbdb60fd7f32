import Foundation

/// What a scenario observed, as JSON values, for the test that launched it to assert on.
///
/// The scenario program writes and the test reads through the same typed ``ReportKey``s:
/// `report[.outcome] = "success"` there, `report[.outcome] == "success"` here.
public struct ScenarioReport: Codable, Sendable {
    /// One value as it travels in the JSON line.
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

    /// The values by name, as in the JSON line.
    private var values: [String: Value]

    /// An empty report, filled through ``subscript(_:)``.
    public init() { values = [:] }

    private init(_ values: [String: Value]) { self.values = values }

    /// A report of no result: the test that launched the scenario fails with `message`.
    public init(error message: String) {
        self.init()
        self[.error] = message
    }

    /// The value under `key`, or `nil` when the scenario wrote none (or one of another type);
    /// setting `nil` removes it.
    public subscript<Wrapped>(_ key: ReportKey<Wrapped>) -> Wrapped? {
        get { values[key.name].flatMap(Wrapped.init(reportValue:)) }
        set { values[key.name] = newValue?.reportValue }
    }

    /// This report with `other`'s values added; where both have a key, `other`'s wins.
    public func merging(_ other: ScenarioReport) -> ScenarioReport {
        ScenarioReport(values.merging(other.values) { $1 })
    }

    /// Adds `other`'s values; where both have a key, `other`'s wins.
    public mutating func merge(_ other: ScenarioReport) {
        values.merge(other.values) { $1 }
    }

    /// This report with every name under `prefix`, read back through
    /// ``ReportKey/prefixed(by:)``: for one report holding several runs side by side.
    public func prefixed(by prefix: String) -> ScenarioReport {
        ScenarioReport(Dictionary(uniqueKeysWithValues: values.map { (prefix + $0.key, $0.value) }))
    }

    /// The error the scenario reported instead of a result, if any.
    public var error: String? { self[.error] }
}

/// A type a ``ScenarioReport`` can hold, with its JSON form.
public protocol ReportValue: Sendable {
    /// `nil` when `reportValue` holds another type.
    init?(reportValue: ScenarioReport.Value)
    var reportValue: ScenarioReport.Value { get }
}

extension String: ReportValue {
    public init?(reportValue: ScenarioReport.Value) {
        guard case .string(let value) = reportValue else { return nil }
        self = value
    }
    public var reportValue: ScenarioReport.Value { .string(self) }
}

extension Int: ReportValue {
    public init?(reportValue: ScenarioReport.Value) {
        guard case .int(let value) = reportValue else { return nil }
        self = value
    }
    public var reportValue: ScenarioReport.Value { .int(self) }
}

extension Double: ReportValue {
    /// A whole number comes back as JSON's integer, so an `.int` reads as a `Double` too.
    public init?(reportValue: ScenarioReport.Value) {
        switch reportValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        default: return nil
        }
    }
    public var reportValue: ScenarioReport.Value { .double(self) }
}

extension Bool: ReportValue {
    public init?(reportValue: ScenarioReport.Value) {
        guard case .bool(let value) = reportValue else { return nil }
        self = value
    }
    public var reportValue: ScenarioReport.Value { .bool(self) }
}

extension Array: ReportValue where Element == String {
    public init?(reportValue: ScenarioReport.Value) {
        guard case .strings(let value) = reportValue else { return nil }
        self = value
    }
    public var reportValue: ScenarioReport.Value { .strings(self) }
}
