import CGLib
import GLibSupport
import Testing

/// In-process, on real GObjects: references taken and dropped, weak references after finalize.
@Suite("Typed GObject handles")
@MainActor
struct GObjectHandleTests {
    private static func referenceCount(_ pointer: some GObjectPointer) -> UInt32 {
        pointer.gObject.pointee.ref_count
    }

    @Test("GObjectRef(retaining:) takes one reference and gives it back once when it goes")
    func retainingReleasesOnce() throws {
        let cancellable = try #require(g_cancellable_new())
        #expect(Self.referenceCount(cancellable) == 1)
        do {
            let reference = GObjectRef(retaining: cancellable)
            #expect(reference.pointer == cancellable)
            #expect(Self.referenceCount(cancellable) == 2)
            let copy = reference  // the same Swift object: no new GObject reference
            #expect(Self.referenceCount(copy.pointer) == 2)
        }
        #expect(Self.referenceCount(cancellable) == 1)
        g_object_unref(cancellable)
    }

    @Test("GObjectRef(adopting:) takes no reference; the object is finalized when it goes")
    func adoptingFinalizes() throws {
        let weak: GObjectWeakRef<UnsafeMutablePointer<GCancellable>>
        do {
            let reference = GObjectRef(adopting: try #require(g_cancellable_new()))
            #expect(Self.referenceCount(reference.pointer) == 1)
            weak = GObjectWeakRef(reference.pointer)
            #expect(Self.referenceCount(reference.pointer) == 1, "a weak reference keeps nothing alive")
            #expect(weak.get()?.pointer == reference.pointer)
            #expect(Self.referenceCount(reference.pointer) == 1, "the strong reference get() gave is dropped again")
        }
        #expect(weak.get() == nil)
        #expect(!weak.isAlive)
    }

    @Test("An opaque C type (GDesktopAppInfo-style OpaquePointer) keeps its type through the handle")
    func opaquePointer() throws {
        let raw = try #require(g_cancellable_new())
        let reference = GObjectRef(adopting: OpaquePointer(raw))
        let weak = GObjectWeakRef(reference.pointer)
        #expect(weak.get()?.pointer == OpaquePointer(raw))
        #expect(Self.referenceCount(reference.pointer) == 1)
    }

    @Test("GObjectRef(sinking:) sinks a floating reference instead of adding one")
    func sinkingFloating() throws {
        let object = try #require(g_cancellable_new())
        g_object_force_floating(object.gObject)
        #expect(g_object_is_floating(object.gObject) != 0)
        let weak = GObjectWeakRef(object)
        do {
            let reference = GObjectRef(sinking: object)
            #expect(g_object_is_floating(reference.gObject) == 0)
            #expect(Self.referenceCount(object) == 1)
        }
        #expect(weak.get() == nil, "the one reference was the sunk one")
    }

    @Test("passRetained() hands out a reference the receiver releases")
    func passRetained() throws {
        let reference = GObjectRef(adopting: try #require(g_cancellable_new()))
        let given = reference.passRetained()
        #expect(Self.referenceCount(reference.pointer) == 2)
        g_object_unref(given)
        #expect(Self.referenceCount(reference.pointer) == 1)
    }
}
