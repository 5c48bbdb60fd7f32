// GTK 3 and WebKitGTK (webkit2gtk-4.1): the toolkit part. GLib, GIO and libsoup, with their
// helpers, are the CGLib module (import both; never in a process that loads GTK 4). The helpers
// both toolkits share are in ../CWebKitGTKShared/gtk_webkit_common.h; GTK 3's own are below.
#ifndef WEBVIEWHOST_CWEBKITGTK_SHIM_H
#define WEBVIEWHOST_CWEBKITGTK_SHIM_H

#include <gtk/gtk.h>
#include <gdk/gdkkeysyms.h>
#include <webkit2/webkit2.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/gdkwayland.h>
#endif
#include "../CWebKitGTKShared/gtk_webkit_common.h"

// MARK: Casts (GTK_CONTAINER)
static inline GtkContainer *wvh_container(gpointer p) { return GTK_CONTAINER(p); }

// MARK: Accessibility
// The accessible name of `widget` (what a screen reader says for it instead of its text), through
// its ATK object, as GTK 4's wvh_set_accessible_label does with GTK_ACCESSIBLE_PROPERTY_LABEL.
static inline void wvh_set_accessible_label(GtkWidget *widget, const char *label) {
    atk_object_set_name(gtk_widget_get_accessible(widget), label);
}
// A button's name for a screen reader, `name` alone (GTK 4's helper of the same name works
// around a GTK 4.8 bug; GTK 3 names a button after its label, mnemonic dropped, already).
static inline void wvh_set_button_accessible_name(GtkWidget *button, const char *name) {
    atk_object_set_name(gtk_widget_get_accessible(button), name);
}
// What a screen reader adds after the name (the sign-in window: the page's host).
static inline void wvh_set_accessible_description(GtkWidget *widget, const char *description) {
    atk_object_set_description(gtk_widget_get_accessible(widget), description);
}
// A toplevel a screen reader announces as a dialog (GTK 3 gives a GtkWindow the role "frame").
static inline GtkWidget *wvh_dialog_window_new(void) {
    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    atk_object_set_role(gtk_widget_get_accessible(window), ATK_ROLE_DIALOG);
    return window;
}

// MARK: Text direction
// Sets `direction` on `widget` and everything in it (internal children and the titlebar
// included): in GTK 3 a widget without a direction of its own takes the default, not its parent's.
static inline void wvh_set_direction_recursive_cb(GtkWidget *widget, gpointer direction);
static inline void wvh_set_direction_recursive(GtkWidget *widget, GtkTextDirection direction) {
    gtk_widget_set_direction(widget, direction);
    if (GTK_IS_WINDOW(widget) && gtk_window_get_titlebar(GTK_WINDOW(widget)) != NULL) {
        wvh_set_direction_recursive(gtk_window_get_titlebar(GTK_WINDOW(widget)), direction);
    }
    if (GTK_IS_CONTAINER(widget)) {
        gtk_container_forall(GTK_CONTAINER(widget), (GtkCallback)wvh_set_direction_recursive_cb, GINT_TO_POINTER(direction));
    }
}
static inline void wvh_set_direction_recursive_cb(GtkWidget *widget, gpointer direction) {
    wvh_set_direction_recursive(widget, (GtkTextDirection)GPOINTER_TO_INT(direction));
}

// MARK: GDK
// GdkEventKey's keyval, from the `GdkEvent *` a key-press-event handler receives.
static inline guint wvh_event_key_keyval(gpointer event) { return ((GdkEventKey *)event)->keyval; }
static inline guint wvh_event_key_state(gpointer event) { return ((GdkEventKey *)event)->state; }
// The portal's parent-window identifier of a realized toplevel: "x11:<XID in hex>", or NULL
// when the window is not on X11 (on Wayland the handle is exported asynchronously).
static inline char *wvh_parent_window_identifier(GtkWindow *window) {
#ifdef GDK_WINDOWING_X11
    GdkWindow *surface = gtk_widget_get_window(GTK_WIDGET(window));
    if (surface != NULL && GDK_IS_X11_WINDOW(surface)) {
        return g_strdup_printf("x11:%lx", (unsigned long)gdk_x11_window_get_xid(surface));
    }
#endif
    return NULL;
}

// The portal's parent-window identifier of a realized toplevel on Wayland: the handle exported
// with xdg-foreign (gdk_wayland_window_export_handle), asynchronously. `exported` gets the
// handle (without "wayland:") on the main thread; returns FALSE (and `exported` is never called)
// when the window is not a realized Wayland window or the compositor has no xdg-foreign.
typedef void (*wvh_parent_window_exported)(const char *handle, gpointer user_data);
typedef struct { wvh_parent_window_exported callback; gpointer user_data; GDestroyNotify destroy; } wvh_export_request;
static inline void wvh_export_request_free(gpointer data) {
    wvh_export_request *request = data;
    if (request->destroy) request->destroy(request->user_data);
    g_free(request);
}
#ifdef GDK_WINDOWING_WAYLAND
static inline void wvh_export_request_done(GdkWindow *window, const char *handle, gpointer data) {
    (void)window;
    wvh_export_request *request = data;
    request->callback(handle, request->user_data);
}
#endif
static inline gboolean wvh_export_parent_window(
    GtkWindow *window, wvh_parent_window_exported exported, gpointer user_data, GDestroyNotify destroy) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkWindow *surface = gtk_widget_get_window(GTK_WIDGET(window));
    if (surface != NULL && GDK_IS_WAYLAND_WINDOW(surface)) {
        wvh_export_request *request = g_new0(wvh_export_request, 1);
        *request = (wvh_export_request){ exported, user_data, destroy };
        if (gdk_wayland_window_export_handle(surface, wvh_export_request_done, request, wvh_export_request_free)) return TRUE;
        wvh_export_request_free(request);  // refused (no xdg-foreign, already exported): GDK kept nothing
        return FALSE;
    }
#endif
    if (destroy) destroy(user_data);
    return FALSE;
}
// Drops the handle wvh_export_parent_window exported (gdk_wayland_window_unexport_handle).
static inline void wvh_unexport_parent_window(GtkWindow *window) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkWindow *surface = gtk_widget_get_window(GTK_WIDGET(window));
    if (surface != NULL && GDK_IS_WAYLAND_WINDOW(surface)) gdk_wayland_window_unexport_handle(surface);
#endif
}

// MARK: WebKit
// webkit_website_data_manager_new is varargs: a persistent manager under two directories.
static inline WebKitWebsiteDataManager *wvh_website_data_manager_new(const char *data_dir, const char *cache_dir) {
    return webkit_website_data_manager_new("base-data-directory", data_dir, "base-cache-directory", cache_dir, NULL);
}

#endif
