/* The floor of the sequential-sessions figure: a bare GTK 3 program that, one after another,
 * makes a window with a WebKitWebView (all in one WebKitWebContext, as the library's windows
 * share theirs), loads the sign-in page, intercepts the redirect, hides the window and destroys
 * it once idle, with nothing of WebviewHost in it. Built with -DWEBKITGTK_6 against
 * webkitgtk-6.0, the same with GTK 4 (sequential-floor-gtk4). Prints, in kB:
 *
 *   rss-after-10 <kB>    VmRSS after the 10th window was destroyed
 *   rss-after-all <kB>   VmRSS half a second after the last
 *
 * usage: sequential-floor <sessions> <page URL> <redirect URI prefix>
 */
#include <gtk/gtk.h>
#ifdef WEBKITGTK_6
#include <webkit/webkit.h>
#else
#include <webkit2/webkit2.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int done_count, total;
static const char *page, *redirect_prefix;
static WebKitWebContext *context;
#ifdef WEBKITGTK_6
static GMainLoop *loop;
#endif

static long rss_kib(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long value = -1;
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmRSS:", 6) == 0) value = atol(line + 6);
    }
    if (status) fclose(status);
    return value;
}

static void start_session(void);

static gboolean quit(gpointer data) {
    (void)data;
#ifdef WEBKITGTK_6
    g_main_loop_quit(loop);
#else
    gtk_main_quit();
#endif
    return G_SOURCE_REMOVE;
}

static gboolean destroy_window(gpointer window) {
#ifdef WEBKITGTK_6
    gtk_window_destroy(GTK_WINDOW(window));
#else
    gtk_widget_destroy(GTK_WIDGET(window));
#endif
    g_object_unref(window);
    done_count++;
    if (done_count == 10) printf("rss-after-10 %ld\n", rss_kib());
    if (done_count == total) {
        g_timeout_add(500, quit, NULL);
    } else {
        start_session();
    }
    return G_SOURCE_REMOVE;
}

static gboolean decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type, gpointer window) {
    (void)view;
    if (type != WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION) return FALSE;
    WebKitURIRequest *request = webkit_navigation_action_get_request(
        webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision)));
    if (!g_str_has_prefix(webkit_uri_request_get_uri(request), redirect_prefix)) return FALSE;
    webkit_policy_decision_ignore(decision);
    gtk_widget_set_visible(GTK_WIDGET(window), FALSE);
    g_idle_add(destroy_window, g_object_ref(window));
    return TRUE;
}

static void start_session(void) {
#ifdef WEBKITGTK_6
    GtkWidget *window = gtk_window_new();
#else
    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
#endif
    gtk_window_set_default_size(GTK_WINDOW(window), 480, 640);
    GtkWidget *view = GTK_WIDGET(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context, NULL));
#ifdef WEBKITGTK_6
    gtk_window_set_child(GTK_WINDOW(window), view);
#else
    gtk_container_add(GTK_CONTAINER(window), view);
#endif
    g_signal_connect(view, "decide-policy", G_CALLBACK(decide_policy), window);
    webkit_web_view_load_uri(WEBKIT_WEB_VIEW(view), page);
#ifdef WEBKITGTK_6
    gtk_window_present(GTK_WINDOW(window));
#else
    gtk_widget_show_all(window);
#endif
}

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[1]) < 10) {
        fprintf(stderr, "usage: %s <sessions, at least 10> <page URL> <redirect URI prefix>\n", argv[0]);
        return 2;
    }
    total = atoi(argv[1]);
    page = argv[2];
    redirect_prefix = argv[3];
#ifdef WEBKITGTK_6
    gtk_init();
    context = webkit_web_context_new();
    start_session();
    loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
#else
    gtk_init(&argc, &argv);
    context = webkit_web_context_new();
    start_session();
    gtk_main();
#endif
    printf("rss-after-all %ld\n", rss_kib());
    return 0;
}
