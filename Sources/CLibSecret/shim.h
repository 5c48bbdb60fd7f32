// libsecret for SignIn's Secret Service token cache store. Building a `SecretSchema` and the
// attribute tables takes GHashTables and varargs that Swift cannot call comfortably, so each
// helper below wraps one `secret_password_*v_sync` call (named in its comment) for a schema made
// of string attributes only. All of them block the calling thread: SignIn calls them on its own
// worker queue, never on the GTK main thread.
#ifndef WEBVIEWHOST_CLIBSECRET_SHIM_H
#define WEBVIEWHOST_CLIBSECRET_SHIM_H

#include <libsecret/secret.h>
#include <gio/gio.h>

/// A schema named `name` whose attributes `keys[0..<count]` are all strings (`secret_schema_newv`).
static inline SecretSchema *wvh_secret_schema_new(const char *name, const char *const *keys, int count) {
    GHashTable *types = g_hash_table_new(g_str_hash, g_str_equal);
    for (int i = 0; i < count; i++) {
        g_hash_table_insert(types, (gpointer)keys[i], GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING));
    }
    SecretSchema *schema = secret_schema_newv(name, SECRET_SCHEMA_NONE, types);
    g_hash_table_unref(types);
    return schema;
}

static inline GHashTable *wvh_secret_attributes(const char *const *keys, const char *const *values, int count) {
    GHashTable *attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (int i = 0; i < count; i++) {
        g_hash_table_insert(attributes, g_strdup(keys[i]), g_strdup(values[i]));
    }
    return attributes;
}

/// `secret_password_storev_sync` into the default collection; TRUE when stored.
static inline gboolean wvh_secret_store(
    const char *schema_name, const char *const *keys, const char *const *values, int count,
    const char *label, const char *secret, GCancellable *cancellable, GError **error) {
    SecretSchema *schema = wvh_secret_schema_new(schema_name, keys, count);
    GHashTable *attributes = wvh_secret_attributes(keys, values, count);
    gboolean stored = secret_password_storev_sync(
        schema, attributes, SECRET_COLLECTION_DEFAULT, label, secret, cancellable, error);
    g_hash_table_unref(attributes);
    secret_schema_unref(schema);
    return stored;
}

/// `secret_password_lookupv_sync`: the secret (free it with `wvh_secret_free`), or NULL when
/// there is none or on error (then `*error` is set).
static inline gchar *wvh_secret_lookup(
    const char *schema_name, const char *const *keys, const char *const *values, int count,
    GCancellable *cancellable, GError **error) {
    SecretSchema *schema = wvh_secret_schema_new(schema_name, keys, count);
    GHashTable *attributes = wvh_secret_attributes(keys, values, count);
    gchar *secret = secret_password_lookupv_sync(schema, attributes, cancellable, error);
    g_hash_table_unref(attributes);
    secret_schema_unref(schema);
    return secret;
}

/// `secret_password_clearv_sync`: TRUE when an item was removed.
static inline gboolean wvh_secret_clear(
    const char *schema_name, const char *const *keys, const char *const *values, int count,
    GCancellable *cancellable, GError **error) {
    SecretSchema *schema = wvh_secret_schema_new(schema_name, keys, count);
    GHashTable *attributes = wvh_secret_attributes(keys, values, count);
    gboolean cleared = secret_password_clearv_sync(schema, attributes, cancellable, error);
    g_hash_table_unref(attributes);
    secret_schema_unref(schema);
    return cleared;
}

/// `secret_password_searchv_sync` without unlocking or loading secrets: whether an item with
/// these attributes exists (locked or not). Tells "nothing stored" from "stored but locked"
/// after a lookup that returned nothing.
static inline gboolean wvh_secret_exists(
    const char *schema_name, const char *const *keys, const char *const *values, int count,
    GCancellable *cancellable, GError **error) {
    SecretSchema *schema = wvh_secret_schema_new(schema_name, keys, count);
    GHashTable *attributes = wvh_secret_attributes(keys, values, count);
    GList *items = secret_password_searchv_sync(schema, attributes, SECRET_SEARCH_ALL, cancellable, error);
    gboolean found = items != NULL;
    g_list_free_full(items, g_object_unref);
    g_hash_table_unref(attributes);
    secret_schema_unref(schema);
    return found;
}

/// `secret_password_free`: wipes the secret's memory before freeing it.
static inline void wvh_secret_free(gchar *secret) { secret_password_free(secret); }

/// Whether `error` is `SECRET_ERROR_IS_LOCKED` (a collection the person did not unlock).
static inline gboolean wvh_secret_error_is_locked(const GError *error) {
    return error != NULL && error->domain == SECRET_ERROR && error->code == SECRET_ERROR_IS_LOCKED;
}

/// Whether `error` is `G_IO_ERROR_CANCELLED` (our time limit ran out).
static inline gboolean wvh_error_is_cancelled(const GError *error) {
    return error != NULL && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}
/// Makes the default collection usable before anything is stored in it, the way a store would:
/// `secret_service_get_sync`, `secret_collection_for_alias_sync("default")`, and when it is locked
/// `secret_service_unlock_sync` (the desktop's own unlock prompt), or when there is none
/// `secret_collection_create_sync` with the `default` alias (the desktop's "new keyring" prompt).
/// Returns 1 when the default collection exists and is unlocked, 0 when the person did not unlock
/// (or create) it, -1 on error (then `*error` is set).
static inline int wvh_secret_open_default_collection(GCancellable *cancellable, GError **error) {
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, cancellable, error);
    if (service == NULL) return -1;
    SecretCollection *collection = secret_collection_for_alias_sync(
        service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, cancellable, error);
    if (collection == NULL && *error != NULL) { g_object_unref(service); return -1; }
    if (collection == NULL) {
        collection = secret_collection_create_sync(
            service, "Login", SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_CREATE_NONE, cancellable, error);
        g_object_unref(service);
        if (collection == NULL) return *error != NULL ? -1 : 0;
        int usable = secret_collection_get_locked(collection) ? 0 : 1;
        g_object_unref(collection);
        return usable;
    }
    int usable = 1;
    if (secret_collection_get_locked(collection)) {
        GList *objects = g_list_append(NULL, collection);
        GList *unlocked = NULL;
        gint count = secret_service_unlock_sync(service, objects, cancellable, &unlocked, error);
        usable = count > 0 ? 1 : (*error != NULL ? -1 : 0);
        g_list_free_full(unlocked, g_object_unref);
        g_list_free(objects);
    }
    g_object_unref(collection);
    g_object_unref(service);
    return usable;
}

/// What the process's session bus connection saw of the Secret portal (`RetrieveSecret`, the
/// call libsecret's file backend makes inside a Flatpak sandbox for the app's key): how many of
/// those requests the portal answered with their `Response` signal. Filled by
/// `wvh_secret_portal_filter` on GDBus's worker thread, read under `lock`.
///
/// Why: libsecret before 0.21.4 (Debian 12's 0.20.5, older Flatpak runtimes) subscribes to the
/// request's `Response` only once the call's reply has been handled on the calling thread; when
/// the portal answers first (a busy machine), the signal is dropped and the call never returns
/// (libsecret issue 58). Seeing the answer here tells that case from a portal still waiting for
/// the person (an unlock prompt).
typedef struct {
    GMutex lock;
    guint32 retrieve_serial;  // the last RetrieveSecret call sent (0: none)
    gchar *request_path;      // its request object, from the call's reply
    gint answers;             // Responses to RetrieveSecret requests so far
} WvhSecretPortalWatch;

static inline GDBusMessage *wvh_secret_portal_filter(
    GDBusConnection *connection, GDBusMessage *message, gboolean incoming, gpointer data) {
    (void)connection;
    WvhSecretPortalWatch *watch = data;
    GDBusMessageType type = g_dbus_message_get_message_type(message);
    if (!incoming) {
        if (type == G_DBUS_MESSAGE_TYPE_METHOD_CALL
            && g_strcmp0(g_dbus_message_get_interface(message), "org.freedesktop.portal.Secret") == 0
            && g_strcmp0(g_dbus_message_get_member(message), "RetrieveSecret") == 0) {
            g_mutex_lock(&watch->lock);
            watch->retrieve_serial = g_dbus_message_get_serial(message);
            g_mutex_unlock(&watch->lock);
        }
        return message;
    }
    if (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN) {
        g_mutex_lock(&watch->lock);
        GVariant *body = g_dbus_message_get_body(message);
        if (watch->retrieve_serial != 0 && g_dbus_message_get_reply_serial(message) == watch->retrieve_serial
            && body != NULL && g_variant_is_of_type(body, G_VARIANT_TYPE("(o)"))) {
            g_free(watch->request_path);
            g_variant_get(body, "(o)", &watch->request_path);
            watch->retrieve_serial = 0;
        }
        g_mutex_unlock(&watch->lock);
    } else if (type == G_DBUS_MESSAGE_TYPE_SIGNAL
               && g_strcmp0(g_dbus_message_get_interface(message), "org.freedesktop.portal.Request") == 0
               && g_strcmp0(g_dbus_message_get_member(message), "Response") == 0) {
        g_mutex_lock(&watch->lock);
        if (watch->request_path != NULL && g_strcmp0(g_dbus_message_get_path(message), watch->request_path) == 0) {
            watch->answers++;
            g_clear_pointer(&watch->request_path, g_free);
        }
        g_mutex_unlock(&watch->lock);
    }
    return message;
}

/// Starts watching the session bus connection libsecret uses (`g_bus_get_sync`, the process's
/// shared one) for Secret portal answers; NULL without a session bus. Lives as long as the process.
static inline WvhSecretPortalWatch *wvh_secret_portal_watch_start(void) {
    GDBusConnection *connection = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (connection == NULL) return NULL;
    WvhSecretPortalWatch *watch = g_new0(WvhSecretPortalWatch, 1);
    g_mutex_init(&watch->lock);
    g_dbus_connection_add_filter(connection, wvh_secret_portal_filter, watch, NULL);
    return watch;  // the connection's reference is kept: the filter lives with it
}

/// How many RetrieveSecret requests the portal has answered so far.
static inline gint wvh_secret_portal_watch_answers(WvhSecretPortalWatch *watch) {
    g_mutex_lock(&watch->lock);
    gint answers = watch->answers;
    g_mutex_unlock(&watch->lock);
    return answers;
}
#endif
