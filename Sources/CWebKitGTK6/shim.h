// GTK 4 and WebKitGTK 6.0: the toolkit part. GLib, GIO and libsoup, with their helpers, are
// the CGLib module (import both; never in a process that loads GTK 3).
//
// Swift cannot import C macros that cast or call. Each helper below stands for one macro
// (named in its comment), so Swift code never casts GObject pointers by hand. The names are
// those of the GTK 3 module where the meaning is the same.
#ifndef WEBVIEWHOST_CWEBKITGTK6_SHIM_H
#define WEBVIEWHOST_CWEBKITGTK6_SHIM_H

#include <gtk/gtk.h>
#include <webkit/webkit.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

// MARK: Casts (GTK_WIDGET, GTK_WINDOW, WEBKIT_WEB_VIEW ...)
static inline GtkWidget *wvh_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *wvh_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkBox *wvh_box(gpointer p) { return GTK_BOX(p); }
static inline GtkOverlay *wvh_overlay(gpointer p) { return GTK_OVERLAY(p); }
static inline GtkFrame *wvh_frame(gpointer p) { return GTK_FRAME(p); }
static inline GtkSpinner *wvh_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline GtkLabel *wvh_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkHeaderBar *wvh_header_bar(gpointer p) { return GTK_HEADER_BAR(p); }
static inline GtkDialog *wvh_dialog(gpointer p) { return GTK_DIALOG(p); }
static inline GtkApplication *wvh_gtk_application(gpointer p) { return GTK_APPLICATION(p); }
static inline GtkEventController *wvh_event_controller(gpointer p) { return GTK_EVENT_CONTROLLER(p); }
static inline WebKitWebView *wvh_web_view(gpointer p) { return WEBKIT_WEB_VIEW(p); }
static inline WebKitNavigationPolicyDecision *wvh_navigation_policy_decision(gpointer p) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(p);
}
static inline WebKitPolicyDecision *wvh_policy_decision(gpointer p) { return WEBKIT_POLICY_DECISION(p); }
static inline WebKitResponsePolicyDecision *wvh_response_policy_decision(gpointer p) {
    return WEBKIT_RESPONSE_POLICY_DECISION(p);
}
// The `create` signal's argument (a boxed WebKitNavigationAction *).
static inline WebKitNavigationAction *wvh_navigation_action(gpointer p) { return (WebKitNavigationAction *)p; }

// MARK: Type checks (GTK_IS_WINDOW, WEBKIT_IS_WEB_VIEW)
static inline gboolean wvh_is_window(gpointer p) { return p != NULL && GTK_IS_WINDOW(p); }
static inline gboolean wvh_is_web_view(gpointer p) { return p != NULL && WEBKIT_IS_WEB_VIEW(p); }

// MARK: GDK
// GDK_CURRENT_TIME
static inline guint32 wvh_gdk_current_time(void) { return GDK_CURRENT_TIME; }
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

// MARK: WebKit
// A view in a network session (WebKitGTK 6.0 builds views with properties: g_object_new is variadic).
static inline GtkWidget *wvh_web_view_new_in_session(WebKitNetworkSession *session) {
    return GTK_WIDGET(g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, NULL));
}

// MARK: The foreign-scheme question
// gtk_message_dialog_new is variadic: a question with no buttons yet, modal over `parent`,
// whose primary text is `text` taken literally (never as a format).
static inline GtkWidget *wvh_question_dialog_new(GtkWindow *parent, const char *text) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    return gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
                                  GTK_BUTTONS_NONE, "%s", text);
    G_GNUC_END_IGNORE_DEPRECATIONS
}
// gtk_message_dialog_format_secondary_text is variadic: `text` taken literally.
static inline void wvh_message_dialog_set_secondary_text(GtkWidget *dialog, const char *text) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", text);
    G_GNUC_END_IGNORE_DEPRECATIONS
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
