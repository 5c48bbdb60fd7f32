public import CGLib

/// A `NULL`-terminated array of C strings (`gchar **`, `const char *const *`) copied into Swift.
public enum StringArray {
    /// The strings of `array`, in order; `[]` for `NULL`. The array stays the caller's.
    public static func copy(_ array: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let array else { return [] }
        var result: [String] = []
        var index = 0
        while let item = array[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }

    /// The strings of an array GLib gave with its ownership ("transfer full"), which is then
    /// freed (`g_strfreev`).
    public static func take(_ array: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let array else { return [] }
        defer { g_strfreev(array) }
        return copy(UnsafeRawPointer(array).assumingMemoryBound(to: UnsafePointer<CChar>?.self))
    }
}
