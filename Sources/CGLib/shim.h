// GLib, GObject, GIO and libsoup 3: everything below the toolkit, and no toolkit. Modules that
// must load in GTK 3 and GTK 4 apps alike (GLibSupport, SystemBrowserProvider) import only this.
//
// Swift cannot import C macros that cast or call. Each helper below stands for one macro
// (named in its comment), so Swift code never casts GObject pointers by hand.
#ifndef WEBVIEWHOST_CGLIB_SHIM_H
#define WEBVIEWHOST_CGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <libsoup/soup.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
// GDesktopAppInfo is in gio-unix-2.0, whose include folder libsoup's pkg-config does not name.
#if __has_include(<gio/gdesktopappinfo.h>)
#include <gio/gdesktopappinfo.h>
#else
#include <gio-unix-2.0/gio/gdesktopappinfo.h>
#endif

// MARK: Casts (G_OBJECT, G_APPLICATION, G_APP_INFO, G_APP_LAUNCH_CONTEXT, ...)
static inline GObject *wvh_object(gpointer p) { return G_OBJECT(p); }
static inline GApplication *wvh_application(gpointer p) { return G_APPLICATION(p); }
static inline GAppInfo *wvh_app_info(gpointer p) { return G_APP_INFO(p); }
static inline GAppLaunchContext *wvh_app_launch_context(gpointer p) { return G_APP_LAUNCH_CONTEXT(p); }
static inline GIOStream *wvh_io_stream(gpointer p) { return G_IO_STREAM(p); }
static inline GSocketListener *wvh_socket_listener(gpointer p) { return G_SOCKET_LISTENER(p); }
static inline GInetSocketAddress *wvh_inet_socket_address(gpointer p) { return G_INET_SOCKET_ADDRESS(p); }
static inline GDesktopAppInfo *wvh_desktop_app_info(gpointer p) { return G_DESKTOP_APP_INFO(p); }

// MARK: Type checks (G_IS_OBJECT, G_IS_APPLICATION, ...)
static inline gboolean wvh_is_object(gpointer p) { return p != NULL && G_IS_OBJECT(p); }
static inline gboolean wvh_is_application(gpointer p) { return p != NULL && G_IS_APPLICATION(p); }
static inline gboolean wvh_is_inet_socket_address(gpointer p) { return p != NULL && G_IS_INET_SOCKET_ADDRESS(p); }
static inline gboolean wvh_is_desktop_app_info(gpointer p) { return p != NULL && G_IS_DESKTOP_APP_INFO(p); }

// MARK: GType of an instance (G_OBJECT_TYPE)
static inline GType wvh_object_type(gpointer p) { return G_OBJECT_TYPE(p); }

// MARK: Dispatch main queue, as CoreFoundation drives it (private libdispatch entry points).
// The handle is an eventfd on Linux; the callback drains the main queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

// MARK: GDBus flags
// No flags for g_dbus_connection_call. A module that also imports CLibSecret (libsecret's headers
// include GIO too) may find GIO's enums owned by CLibSecret, and then neither
// G_DBUS_CALL_FLAGS_NONE nor GDBusCallFlags(rawValue:) is in scope without importing it.
static inline GDBusCallFlags wvh_dbus_call_flags_none(void) { return G_DBUS_CALL_FLAGS_NONE; }

// MARK: libsoup
// soup_server_new is variadic (does not import): a server with default properties.
static inline SoupServer *wvh_soup_server_new(void) {
    return SOUP_SERVER(g_object_new(SOUP_TYPE_SERVER, NULL));
}
// The same, with a TLS certificate when one is given (tests).
static inline SoupServer *wvh_soup_server_new_with_certificate(GTlsCertificate *certificate) {
    return certificate ? soup_server_new("tls-certificate", certificate, NULL) : soup_server_new(NULL, NULL);
}

// MARK: Wait status from a GLib child watch (WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG)
static inline gboolean wvh_wait_exited(gint status) { return WIFEXITED(status); }
static inline gint wvh_wait_exit_status(gint status) { return WEXITSTATUS(status); }
static inline gboolean wvh_wait_signaled(gint status) { return WIFSIGNALED(status); }
static inline gint wvh_wait_term_signal(gint status) { return WTERMSIG(status); }

#endif
