// A busy machine, made certain: libsecret subscribes to the Secret portal's Response late.
//
// Preloaded into a test program inside the Flatpak sandbox (LD_PRELOAD). When libsecret (and
// only libsecret) subscribes to a portal request's Response signal, this waits first, as a
// thread that is not scheduled for a while would. libsecret 0.20 subscribes only after the
// RetrieveSecret call's reply was handled, so the portal's Response has already arrived and been
// dropped by then: the race of libsecret issue 58, every time instead of one run in ten.
//
//   WVH_LATE_PORTAL_SUBSCRIBE=MS:COUNT   wait MS milliseconds for the first COUNT such
//                                        subscriptions (COUNT -1: every one)
//
// Built by the Flatpak tests with the Swift toolchain's clang: clang -shared -fPIC -o X.so X.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef guint (*subscribe_fn)(GDBusConnection *, const gchar *, const gchar *, const gchar *, const gchar *,
                              const gchar *, GDBusSignalFlags, GDBusSignalCallback, gpointer, GDestroyNotify);

static int delayed = 0;

static gboolean called_from_libsecret(void *address) {
    Dl_info info;
    return dladdr(address, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, "libsecret-1.so") != NULL;
}

guint g_dbus_connection_signal_subscribe(
    GDBusConnection *connection, const gchar *sender, const gchar *interface_name, const gchar *member,
    const gchar *object_path, const gchar *arg0, GDBusSignalFlags flags, GDBusSignalCallback callback,
    gpointer user_data, GDestroyNotify user_data_free_func) {
    static subscribe_fn real = NULL;
    if (real == NULL) real = (subscribe_fn)dlsym(RTLD_NEXT, "g_dbus_connection_signal_subscribe");
    const char *setting = getenv("WVH_LATE_PORTAL_SUBSCRIBE");
    if (setting != NULL && g_strcmp0(interface_name, "org.freedesktop.portal.Request") == 0
        && called_from_libsecret(__builtin_return_address(0))) {
        long milliseconds = strtol(setting, NULL, 10);
        const char *colon = strchr(setting, ':');
        long count = colon != NULL ? strtol(colon + 1, NULL, 10) : 1;
        if (count < 0 || __atomic_fetch_add(&delayed, 1, __ATOMIC_SEQ_CST) < count) {
            g_usleep((gulong)milliseconds * 1000);
        }
    }
    return real(connection, sender, interface_name, member, object_path, arg0, flags, callback, user_data, user_data_free_func);
}
