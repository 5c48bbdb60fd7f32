// Swift cannot import C macros that cast or call. Each helper below stands for one macro
// (named in its comment), so Swift code never casts GObject pointers by hand.
#ifndef WEBVIEWHOST_CWEBKITGTK_SHIM_H
#define WEBVIEWHOST_CWEBKITGTK_SHIM_H

#include <gtk/gtk.h>
#include <gdk/gdkkeysyms.h>
#include <webkit2/webkit2.h>
#include <libsoup/soup.h>
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <glib-unix.h>
#include <sys/eventfd.h>

// MARK: Casts (G_OBJECT, GTK_WIDGET, GTK_WINDOW, GTK_CONTAINER, WEBKIT_WEB_VIEW ...)
static inline GObject *wvh_object(gpointer p) { return G_OBJECT(p); }
static inline GtkWidget *wvh_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *wvh_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkContainer *wvh_container(gpointer p) { return GTK_CONTAINER(p); }
static inline GtkBox *wvh_box(gpointer p) { return GTK_BOX(p); }
static inline GtkOverlay *wvh_overlay(gpointer p) { return GTK_OVERLAY(p); }
static inline GtkSpinner *wvh_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline GtkLabel *wvh_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkHeaderBar *wvh_header_bar(gpointer p) { return GTK_HEADER_BAR(p); }
static inline WebKitWebView *wvh_web_view(gpointer p) { return WEBKIT_WEB_VIEW(p); }
static inline WebKitNavigationPolicyDecision *wvh_navigation_policy_decision(gpointer p) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(p);
}
static inline WebKitPolicyDecision *wvh_policy_decision(gpointer p) { return WEBKIT_POLICY_DECISION(p); }
static inline GAppLaunchContext *wvh_app_launch_context(gpointer p) { return G_APP_LAUNCH_CONTEXT(p); }

// MARK: Type checks (GTK_IS_WINDOW, WEBKIT_IS_WEB_VIEW, G_IS_OBJECT)
static inline gboolean wvh_is_object(gpointer p) { return p != NULL && G_IS_OBJECT(p); }
static inline gboolean wvh_is_window(gpointer p) { return p != NULL && GTK_IS_WINDOW(p); }
static inline gboolean wvh_is_web_view(gpointer p) { return p != NULL && WEBKIT_IS_WEB_VIEW(p); }

// MARK: GType of an instance (G_OBJECT_TYPE, G_TYPE_FROM_INSTANCE)
static inline GType wvh_object_type(gpointer p) { return G_OBJECT_TYPE(p); }

// MARK: Dispatch main queue, as CoreFoundation drives it (private libdispatch entry points).
// The handle is an eventfd on Linux; the callback drains the main queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

// MARK: SystemBrowserProvider
// soup_server_new is variadic (does not import): a server with default properties.
static inline SoupServer *wvh_soup_server_new(void) {
    return SOUP_SERVER(g_object_new(SOUP_TYPE_SERVER, NULL));
}
// GDK_CURRENT_TIME
static inline guint32 wvh_gdk_current_time(void) { return GDK_CURRENT_TIME; }
// G_APPLICATION, G_APP_INFO casts
static inline GApplication *wvh_application(gpointer p) { return G_APPLICATION(p); }
static inline GAppInfo *wvh_app_info(gpointer p) { return G_APP_INFO(p); }

// MARK: EmbeddedWebviewProvider
// webkit_website_data_manager_new is varargs: a persistent manager under two directories.
static inline WebKitWebsiteDataManager *wvh_website_data_manager_new(const char *data_dir, const char *cache_dir) {
    return webkit_website_data_manager_new("base-data-directory", data_dir, "base-cache-directory", cache_dir, NULL);
}
// GdkEventKey's keyval, from the `GdkEvent *` a key-press-event handler receives.
static inline guint wvh_event_key_keyval(gpointer event) { return ((GdkEventKey *)event)->keyval; }
// WEBKIT_NAVIGATION_ACTION from the `create` signal's argument (a boxed WebKitNavigationAction *).
static inline WebKitNavigationAction *wvh_navigation_action(gpointer p) { return (WebKitNavigationAction *)p; }
// soup_server_new is varargs: a server, with a TLS certificate when one is given (tests).
static inline SoupServer *wvh_soup_server_new_with_certificate(GTlsCertificate *certificate) {
    return certificate ? soup_server_new("tls-certificate", certificate, NULL) : soup_server_new(NULL, NULL);
}

// MARK: SystemBrowserProvider (custom scheme)
// G_IS_APPLICATION
static inline gboolean wvh_is_application(gpointer p) { return p != NULL && G_IS_APPLICATION(p); }

// MARK: SystemBrowserProvider (loopback listener, browser launch: issue 8)
#include <sys/wait.h>
static inline GIOStream *wvh_io_stream(gpointer p) { return G_IO_STREAM(p); }
static inline GSocketListener *wvh_socket_listener(gpointer p) { return G_SOCKET_LISTENER(p); }
static inline GInetSocketAddress *wvh_inet_socket_address(gpointer p) { return G_INET_SOCKET_ADDRESS(p); }
static inline gboolean wvh_is_inet_socket_address(gpointer p) { return p != NULL && G_IS_INET_SOCKET_ADDRESS(p); }
static inline gboolean wvh_is_desktop_app_info(gpointer p) { return p != NULL && G_IS_DESKTOP_APP_INFO(p); }
static inline GDesktopAppInfo *wvh_desktop_app_info(gpointer p) { return G_DESKTOP_APP_INFO(p); }
// WIFEXITED / WEXITSTATUS / WIFSIGNALED / WTERMSIG on a wait status from a GLib child watch.
static inline gboolean wvh_wait_exited(gint status) { return WIFEXITED(status); }
static inline gint wvh_wait_exit_status(gint status) { return WEXITSTATUS(status); }
static inline gboolean wvh_wait_signaled(gint status) { return WIFSIGNALED(status); }
static inline gint wvh_wait_term_signal(gint status) { return WTERMSIG(status); }

// MARK: EmbeddedWebviewProvider (issue 8: foreign-scheme question)
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
// GTK_DIALOG
static inline GtkDialog *wvh_dialog(gpointer p) { return GTK_DIALOG(p); }
// WEBKIT_RESPONSE_POLICY_DECISION
static inline WebKitResponsePolicyDecision *wvh_response_policy_decision(gpointer p) {
    return WEBKIT_RESPONSE_POLICY_DECISION(p);
}

#endif
