// webview-host-bench-gtk4: the GTK 4 children of webview-host-bench (GTK 3 and GTK 4 cannot share
// a process), which starts this binary for the `-gtk4` variants. See Tests/Benchmarks/README.md.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
MainActor.assumeIsolated { ChildCommand.run(arguments) }
FileHandle.standardError.write(Data("usage: webview-host-bench-gtk4 child|sequential ... (started by webview-host-bench)\n".utf8))
exit(2)
