// GTK 4 and WebKitGTK 6.0: the toolkit part. GLib, GIO and libsoup, with their helpers, are
// the CGLib module (import both; never in a process that loads GTK 3). The helpers both
// toolkits share are in ../CWebKitGTKShared/gtk_webkit_common.h; GTK 4's own are below.
#ifndef WEBVIEWHOST_CWEBKITGTK6_SHIM_H
#define WEBVIEWHOST_CWEBKITGTK6_SHIM_H

#include <gtk/gtk.h>
#include <webkit/webkit.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif
#include "../CWebKitGTKShared/gtk_webkit_common.h"

// MARK: Casts (GTK_FRAME, GTK_APPLICATION, GTK_EVENT_CONTROLLER)
static inline GtkFrame *wvh_frame(gpointer p) { return GTK_FRAME(p); }
static inline GtkApplication *wvh_gtk_application(gpointer p) { return GTK_APPLICATION(p); }
static inline GtkEventController *wvh_event_controller(gpointer p) { return GTK_EVENT_CONTROLLER(p); }

// MARK: Accessibility
// gtk_accessible_update_property is variadic: the accessible label of `widget` (what a screen
// reader says for it instead of its text).
static inline void wvh_set_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
// A button's name for a screen reader: its label's text, mnemonic dropped. GTK 4.8 reads a button
// labelled "_Cancel" as "_Cancel Cancel" (gtk_button_set_label copies the label, underscore
// included, into the accessible label, and the name adds the label child's text); without that
// property the name is the child's text alone. `name` is for GTK 3's helper of the same name.
static inline void wvh_set_button_accessible_name(GtkWidget *button, const char *name) {
    (void)name;
    gtk_accessible_reset_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL);
}
// What a screen reader adds after the name (the sign-in window: the page's host).
static inline void wvh_set_accessible_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}
// A toplevel a screen reader announces as a dialog (the accessible role is set at construction).
static inline GtkWidget *wvh_dialog_window_new(void) {
    return GTK_WIDGET(g_object_new(GTK_TYPE_WINDOW, "accessible-role", GTK_ACCESSIBLE_ROLE_DIALOG, NULL));
}

// MARK: Text direction
// Sets `direction` on `widget` and every widget under it (the titlebar included), so that a
// window mirrors whatever the default direction is.
static inline void wvh_set_direction_recursive(GtkWidget *widget, GtkTextDirection direction) {
    gtk_widget_set_direction(widget, direction);
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child != NULL; child = gtk_widget_get_next_sibling(child)) {
        wvh_set_direction_recursive(child, direction);
    }
}

// WebKitGTK 6.0 keeps a GtkTextView inside the web view (its key-binding translator, which reads
// editing shortcuts off it) where GTK's focus chain reaches it: Tab from the page's last element
// lands in that invisible widget and every later Tab stays there. Takes it out of the chain, so
// Tab goes on to the window's other widgets (the translator forwards key events to it without
// the focus).
static inline void wvh_web_view_keep_tab_out_of_internal_widgets(GtkWidget *view) {
    for (GtkWidget *child = gtk_widget_get_first_child(view); child != NULL; child = gtk_widget_get_next_sibling(child)) {
        if (GTK_IS_TEXT_VIEW(child)) gtk_widget_set_focusable(child, FALSE);
    }
}

// MARK: GDK
// The portal's parent-window identifier of a realized toplevel: "x11:<XID in hex>", or NULL
// when the window is not on X11 (on Wayland the handle is exported asynchronously).
static inline char *wvh_parent_window_identifier(GtkWindow *window) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface != NULL && GDK_IS_X11_SURFACE(surface)) {
        return g_strdup_printf("x11:%lx", (unsigned long)gdk_x11_surface_get_xid(surface));
    }
#endif
    return NULL;
}

// The portal's parent-window identifier of a realized toplevel on Wayland: the handle exported
// with xdg-foreign (gdk_wayland_toplevel_export_handle), asynchronously. `exported` gets the
// handle (without "wayland:") on the main thread; returns FALSE (and `exported` is never called)
// when the window is not a realized Wayland toplevel or the compositor has no xdg-foreign.
typedef void (*wvh_parent_window_exported)(const char *handle, gpointer user_data);
typedef struct { wvh_parent_window_exported callback; gpointer user_data; GDestroyNotify destroy; } wvh_export_request;
static inline void wvh_export_request_free(gpointer data) {
    wvh_export_request *request = data;
    if (request->destroy) request->destroy(request->user_data);
    g_free(request);
}
#ifdef GDK_WINDOWING_WAYLAND
static inline void wvh_export_request_done(GdkToplevel *toplevel, const char *handle, gpointer data) {
    (void)toplevel;
    wvh_export_request *request = data;
    request->callback(handle, request->user_data);
}
#endif
static inline gboolean wvh_export_parent_window(
    GtkWindow *window, wvh_parent_window_exported exported, gpointer user_data, GDestroyNotify destroy) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface != NULL && GDK_IS_WAYLAND_TOPLEVEL(surface)) {
        wvh_export_request *request = g_new0(wvh_export_request, 1);
        *request = (wvh_export_request){ exported, user_data, destroy };
        if (gdk_wayland_toplevel_export_handle(GDK_TOPLEVEL(surface), wvh_export_request_done, request, wvh_export_request_free)) return TRUE;
        wvh_export_request_free(request);  // refused (no xdg-foreign, already exported): GDK kept nothing
        return FALSE;
    }
#endif
    if (destroy) destroy(user_data);
    return FALSE;
}
// Drops the handle wvh_export_parent_window exported (gdk_wayland_toplevel_unexport_handle).
static inline void wvh_unexport_parent_window(GtkWindow *window) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface != NULL && GDK_IS_WAYLAND_TOPLEVEL(surface)) gdk_wayland_toplevel_unexport_handle(GDK_TOPLEVEL(surface));
#endif
}

// MARK: WebKit
// A view in a network session (WebKitGTK 6.0 builds views with properties: g_object_new is variadic).
static inline GtkWidget *wvh_web_view_new_in_session(WebKitNetworkSession *session) {
    return GTK_WIDGET(g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, NULL));
}

// MARK: For tests (the scenarios drive GTK 4 widgets the way GTK 3's gtk_main_do_event and
// gtk_button_clicked did; GTK 4 has no public way to inject an event)
// Emits `key-pressed` (keyval, no hardware keycode, no modifiers) on every GtkEventControllerKey
// of `widget`, as GTK does when the window has a key press; TRUE when one handled it.
static inline gboolean wvh_emit_key_pressed(GtkWidget *widget, guint keyval) {
    GListModel *controllers = gtk_widget_observe_controllers(widget);
    gboolean handled = FALSE;
    for (guint i = 0; i < g_list_model_get_n_items(controllers) && !handled; i++) {
        GObject *controller = g_list_model_get_item(controllers, i);
        if (GTK_IS_EVENT_CONTROLLER_KEY(controller)) {
            g_signal_emit_by_name(controller, "key-pressed", keyval, 0u, (GdkModifierType)0, &handled);
        }
        g_object_unref(controller);
    }
    g_object_unref(controllers);
    return handled;
}
// g_signal_emit_by_name is variadic: a button's `clicked`, as a person's click.
static inline void wvh_button_clicked(GtkWidget *button) { g_signal_emit_by_name(button, "clicked"); }

#endif
