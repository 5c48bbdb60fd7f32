// GTK 3 and WebKitGTK (webkit2gtk-4.1): the toolkit part. GLib, GIO and libsoup, with their
// helpers, are the CGLib module (import both; never in a process that loads GTK 4).
//
// Swift cannot import C macros that cast or call. Each helper below stands for one macro
// (named in its comment), so Swift code never casts GObject pointers by hand.
#ifndef WEBVIEWHOST_CWEBKITGTK_SHIM_H
#define WEBVIEWHOST_CWEBKITGTK_SHIM_H

#include <gtk/gtk.h>
#include <gdk/gdkkeysyms.h>
#include <webkit2/webkit2.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

// MARK: Casts (GTK_WIDGET, GTK_WINDOW, GTK_CONTAINER, WEBKIT_WEB_VIEW ...)
static inline GtkWidget *wvh_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *wvh_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkContainer *wvh_container(gpointer p) { return GTK_CONTAINER(p); }
static inline GtkBox *wvh_box(gpointer p) { return GTK_BOX(p); }
static inline GtkOverlay *wvh_overlay(gpointer p) { return GTK_OVERLAY(p); }
static inline GtkSpinner *wvh_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline GtkLabel *wvh_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkHeaderBar *wvh_header_bar(gpointer p) { return GTK_HEADER_BAR(p); }
static inline GtkDialog *wvh_dialog(gpointer p) { return GTK_DIALOG(p); }
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
// GdkEventKey's keyval, from the `GdkEvent *` a key-press-event handler receives.
static inline guint wvh_event_key_keyval(gpointer event) { return ((GdkEventKey *)event)->keyval; }
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

// MARK: WebKit
// webkit_website_data_manager_new is varargs: a persistent manager under two directories.
static inline WebKitWebsiteDataManager *wvh_website_data_manager_new(const char *data_dir, const char *cache_dir) {
    return webkit_website_data_manager_new("base-data-directory", data_dir, "base-cache-directory", cache_dir, NULL);
}

// MARK: The foreign-scheme question
// gtk_message_dialog_new is variadic: a question with no buttons yet, modal over `parent`,
// whose primary text is `text` taken literally (never as a format).
static inline GtkWidget *wvh_question_dialog_new(GtkWindow *parent, const char *text) {
    return gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
                                  GTK_BUTTONS_NONE, "%s", text);
}
// gtk_message_dialog_format_secondary_text is variadic: `text` taken literally.
static inline void wvh_message_dialog_set_secondary_text(GtkWidget *dialog, const char *text) {
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", text);
}

#endif
