/// The configuration of a private D-Bus session bus for a test (`dbus-daemon --config-file`, or
/// `dbus-run-session --config-file`): anyone may own and call any name, and only the services
/// in `serviceDirectories` can be started on it.
public enum PrivateBusConfiguration {
    /// `listen`: a D-Bus address to listen on (`unix:path=...`, `unix:tmpdir=/tmp`).
    public static func text(listen: String, serviceDirectories: [String]) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(listen)</listen>
          <auth>EXTERNAL</auth>
        \(serviceDirectories.map { "  <servicedir>\($0)</servicedir>\n" }.joined())  <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }
}
