/// A failure of the broker double (it did not start, said nothing in time, or ended).
struct BrokerDoubleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
