/* The floor: a bare GTK 3 window with a WebKitWebView that loads the sign-in page and
 * intercepts the redirect, with nothing of WebviewHost in it. Built with -DWEBKITGTK_6 against
 * webkitgtk-6.0, the same with GTK 4 (floor-gtk4). The benchmark starts it as a
 * child and reads what it prints (CLOCK_MONOTONIC nanoseconds, comparable across processes):
 *
 *   loaded <t>      the first page finished loading
 *   navigated <t>   the redirect navigation reached the UI process (emission hook, before any handler)
 *   resumed <t>     the redirect was intercepted, the window destroyed: where a caller would go on
 *   hwm <kB>        the process's peak resident set size
 *
 * usage: floor <page URL> <redirect URI prefix>
 */
#include <gtk/gtk.h>
#ifdef WEBKITGTK_6
#include <webkit/webkit.h>
#else
#include <webkit2/webkit2.h>
#endif
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *redirect_prefix;
static GtkWidget *window;
#ifdef WEBKITGTK_6
static GMainLoop *loop;
#endif
static gboolean loaded_once;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void print_hwm(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmHWM:", 6) == 0) printf("hwm %lld\n", atoll(line + 6));
    }
    if (status) fclose(status);
}

static gboolean navigation_hook(GSignalInvocationHint *hint, guint n, const GValue *values, gpointer data) {
    (void)hint; (void)n; (void)data;
    if (g_value_get_enum(&values[2]) != WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION) return TRUE;
    WebKitNavigationPolicyDecision *decision = WEBKIT_NAVIGATION_POLICY_DECISION(g_value_get_object(&values[1]));
    WebKitURIRequest *request = webkit_navigation_action_get_request(webkit_navigation_policy_decision_get_navigation_action(decision));
    if (g_str_has_prefix(webkit_uri_request_get_uri(request), redirect_prefix)) printf("navigated %lld\n", now_ns());
    return TRUE;
}

static gboolean quit_soon(gpointer data) {
    (void)data;
#ifdef WEBKITGTK_6
    g_main_loop_quit(loop);
#else
    gtk_main_quit();
#endif
    return G_SOURCE_REMOVE;
}

static gboolean decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type, gpointer data) {
    (void)view; (void)data;
    if (type != WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION) return FALSE;
    WebKitURIRequest *request = webkit_navigation_action_get_request(
        webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision)));
    if (!g_str_has_prefix(webkit_uri_request_get_uri(request), redirect_prefix)) return FALSE;
    webkit_policy_decision_ignore(decision);
#ifdef WEBKITGTK_6
    gtk_window_destroy(GTK_WINDOW(window));
#else
    gtk_widget_destroy(window);
#endif
    printf("resumed %lld\n", now_ns());
    print_hwm();
    fflush(stdout);
    g_idle_add(quit_soon, NULL);
    return TRUE;
}

static void load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)view; (void)data;
    if (event != WEBKIT_LOAD_FINISHED || loaded_once) return;
    loaded_once = TRUE;
    printf("loaded %lld\n", now_ns());
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <page URL> <redirect URI prefix>\n", argv[0]);
        return 2;
    }
    redirect_prefix = argv[2];
#ifdef WEBKITGTK_6
    gtk_init();
    window = gtk_window_new();
#else
    gtk_init(&argc, &argv);
    window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
#endif
    gtk_window_set_default_size(GTK_WINDOW(window), 480, 640);
    GtkWidget *view = webkit_web_view_new();
#ifdef WEBKITGTK_6
    gtk_window_set_child(GTK_WINDOW(window), view);
#else
    gtk_container_add(GTK_CONTAINER(window), view);
#endif
    g_signal_add_emission_hook(g_signal_lookup("decide-policy", WEBKIT_TYPE_WEB_VIEW), 0, navigation_hook, NULL, NULL);
    g_signal_connect(view, "decide-policy", G_CALLBACK(decide_policy), NULL);
    g_signal_connect(view, "load-changed", G_CALLBACK(load_changed), NULL);
    webkit_web_view_load_uri(WEBKIT_WEB_VIEW(view), argv[1]);
#ifdef WEBKITGTK_6
    gtk_window_present(GTK_WINDOW(window));
    loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
#else
    gtk_widget_show_all(window);
    gtk_main();
#endif
    return 0;
}
