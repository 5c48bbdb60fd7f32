public import Foundation
public import WebviewHost

/// What an installed provider's descriptor (`<id>.provider`) says: who it is, what to run, and
/// how the host should treat it. The format is the GKeyFile / desktop-entry syntax:
///
/// ```ini
/// [WebviewHost Provider]
/// Id=kiosk
/// Name=Kiosk browser
/// Exec=/usr/libexec/kiosk-signin --profile signin
/// Priority=20
/// Kind=other
/// RequiresDisplay=true
/// BrokerSchemes=
/// ProtocolVersion=1
/// ```
///
/// See `ExternalProviders.md` for every key.
public struct ProviderDescriptor: Sendable, Hashable {
    /// The group every descriptor must have.
    public static let group = "WebviewHost Provider"
    /// The protocol versions this host speaks.
    public static let supportedProtocolVersions: ClosedRange<Int> = 1...1

    public var id: WebviewProviderID
    public var name: String
    /// The program and its arguments (`Exec`, split like a desktop entry's, no field codes).
    public var arguments: [String]
    public var priority: Int
    public var kind: WebviewProviderKind
    public var requiresDisplay: Bool
    public var brokerSchemes: Set<String>
    public var protocolVersion: Int
    /// `Timeout` in seconds, if given: how long a session may run when the app sets none.
    public var timeout: Duration?
    /// The file it was read from (`nil` when made in code).
    public var file: URL?

    public init(
        id: WebviewProviderID, name: String, arguments: [String], priority: Int = 0, kind: WebviewProviderKind = .other,
        requiresDisplay: Bool = true, brokerSchemes: Set<String> = [], protocolVersion: Int = 1, timeout: Duration? = nil,
        file: URL? = nil
    ) {
        self.id = id
        self.name = name
        self.arguments = arguments
        self.priority = priority
        self.kind = kind
        self.requiresDisplay = requiresDisplay
        self.brokerSchemes = brokerSchemes
        self.protocolVersion = protocolVersion
        self.timeout = timeout
        self.file = file
    }

    /// Why a descriptor was refused, in words an administrator can act on.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads the descriptor at `file`.
    /// - Throws: ``Problem`` for an unreadable file, a syntax error, a missing or invalid key.
    public init(contentsOf file: URL) throws(Problem) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw Problem("it cannot be read (\(error.localizedDescription))")
        }
        guard data.count <= 64 * 1024 else { throw Problem("it is larger than 64 KiB, which no descriptor needs") }
        guard let text = String(data: data, encoding: .utf8) else { throw Problem("it is not UTF-8 text") }
        try self.init(parsing: text, file: file)
    }

    /// Reads a descriptor from its text.
    public init(parsing text: String, file: URL? = nil) throws(Problem) {
        let keyFile: KeyFile
        do {
            keyFile = try KeyFile(parsing: text)
        } catch {
            throw Problem("\(error)")
        }
        guard keyFile.has(Self.group) else {
            throw Problem("it has no [\(Self.group)] group")
        }
        /// `key`'s value, its key-file escapes applied and trimmed; `nil` when it is not there.
        func value(_ key: String) throws(Problem) -> String? {
            do {
                return try keyFile.string(key, in: Self.group)?.trimmingCharacters(in: .whitespaces)
            } catch {
                throw Problem("the value of \(key) cannot be read: \(error)")
            }
        }
        func required(_ key: String) throws(Problem) -> String {
            guard let value = try value(key), !value.isEmpty else {
                throw Problem("the key \(key) is missing or empty")
            }
            return value
        }
        func integer(_ key: String, default number: Int?) throws(Problem) -> Int? {
            guard let text = try value(key), !text.isEmpty else { return number }
            guard let number = Int(text) else { throw Problem("\(key)=\(text) is not a whole number") }
            return number
        }

        let id = try required("Id")
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }),
            id != "help"
        else {
            throw Problem("Id=\(id) must be at most 64 characters of A-Z, a-z, 0-9, '-', '_' and '.' (and not \"help\")")
        }
        self.id = WebviewProviderID(id)
        name = try required("Name")
        let exec = try required("Exec")
        arguments = try Self.splitExec(exec)
        guard let program = arguments.first, program.hasPrefix("/") || !program.contains("/") else {
            throw Problem("Exec=\(exec) must name an absolute path or a program on PATH")
        }
        priority = try integer("Priority", default: 0) ?? 0
        switch try value("Kind") ?? "other" {
        case "system-browser": kind = .systemBrowser
        case "embedded": kind = .embeddedView
        case "other", "": kind = .other
        case let other: throw Problem("Kind=\(other) is not one of system-browser, embedded, other")
        }
        switch try value("RequiresDisplay") ?? "true" {
        case "true", "": requiresDisplay = true
        case "false": requiresDisplay = false
        case let other: throw Problem("RequiresDisplay=\(other) is not true or false")
        }
        var schemes = Set<String>()
        let listed: [String]
        do {
            listed = try keyFile.list("BrokerSchemes", in: Self.group)
        } catch {
            throw Problem("the value of BrokerSchemes cannot be read: \(error)")
        }
        for scheme in listed {
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else { throw Problem("BrokerSchemes holds \"\(scheme)\", which is not a URI scheme") }
            guard !["http", "https", "file", "about", "data", "javascript"].contains(scheme.lowercased()) else {
                throw Problem("BrokerSchemes holds \"\(scheme)\"; a broker cannot claim a web scheme")
            }
            schemes.insert(scheme.lowercased())
        }
        brokerSchemes = schemes
        guard let version = try integer("ProtocolVersion", default: nil) else {
            throw Problem("the key ProtocolVersion is missing (this host speaks version 1)")
        }
        guard Self.supportedProtocolVersions.contains(version) else {
            throw Problem(
                "ProtocolVersion=\(version) is not spoken by this host, which speaks "
                    + "\(Self.supportedProtocolVersions.lowerBound)...\(Self.supportedProtocolVersions.upperBound)")
        }
        protocolVersion = version
        if let seconds = try integer("Timeout", default: nil) {
            guard seconds > 0 else { throw Problem("Timeout=\(seconds) must be a positive number of seconds") }
            timeout = .seconds(seconds)
        } else {
            timeout = nil
        }
        self.file = file
    }

    /// Splits `Exec` into arguments as the Desktop Entry Specification (1.5, "The Exec key") says.
    ///
    /// `exec` is the value after the key file's own escapes (`\s \n \t \r \\`) were applied
    /// (by `GKeyFile`), as the specification orders. Then: spaces and tabs separate arguments; double quotes
    /// group one; inside them `\"`, `` \` ``, `\$` and `\\` stand for the character and any
    /// other backslash is refused; `%%` is a literal `%`, and a field code (`%u`, `%f`...) is
    /// refused, since a provider gets no files or URLs on its command line. So in the file a
    /// quoted `"` is written `\\"` and a quoted backslash `\\\\`.
    static func splitExec(_ exec: String) throws(Problem) -> [String] {
        var arguments: [String] = []
        var current = ""
        var hasCurrent = false
        var quoted = false
        var iterator = exec.makeIterator()
        while let character = iterator.next() {
            if character == "%" {
                switch iterator.next() {
                case "%": current.append("%")
                case let code?:
                    throw Problem(
                        "Exec holds the field code %\(code), which a provider cannot use (it gets no files or URLs); "
                            + "write %% for a literal %")
                case nil: throw Problem("Exec ends with a lone %; write %% for a literal %")
                }
                hasCurrent = true
            } else if quoted {
                if character == "\"" {
                    quoted = false
                } else if character == "\\" {
                    guard let next = iterator.next() else { throw Problem("Exec ends inside a backslash escape") }
                    guard "\"`$\\".contains(next) else {
                        throw Problem(
                            "Exec holds \\\(next) inside double quotes; only \\\", \\`, \\$ and \\\\ are escapes there "
                                + "(written \\\\\", \\\\`, \\\\$ and \\\\\\\\ in the file)")
                    }
                    current.append(next)
                } else {
                    current.append(character)
                }
            } else if character == " " || character == "\t" || character == "\n" {
                if hasCurrent { arguments.append(current) }
                current = ""
                hasCurrent = false
            } else if character == "\"" {
                quoted = true
                hasCurrent = true
            } else if character == "\\" {
                throw Problem("Exec holds a backslash outside double quotes; put the argument in double quotes and escape it there")
            } else {
                current.append(character)
                hasCurrent = true
            }
        }
        if quoted { throw Problem("Exec has an unclosed double quote") }
        if hasCurrent { arguments.append(current) }
        guard !arguments.isEmpty else { throw Problem("Exec is empty") }
        return arguments
    }
}
