/* The loopback floor: a bare libsoup 3 server on 127.0.0.1 receiving the redirect, with nothing
 * of WebviewHost in it. For each of N sessions it binds a new server, a thread sends the
 * callback request, and the main loop returns once the handler answered: that is where a
 * caller would go on. It prints, per session (CLOCK_MONOTONIC nanoseconds):
 *
 *   callback <sent> <resumed>
 *
 * usage: soup-floor <sessions>
 */
#include <libsoup/soup.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int connect_to(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { close(fd); return -1; }
    return fd;
}

struct sender { int port; long long sent; };

static gpointer send_callback(gpointer data) {
    struct sender *sender = data;
    g_usleep(20000);
    char request[256];
    snprintf(request, sizeof request, "GET /callback?code=the-code&state=s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", sender->port);
    int fd = connect_to(sender->port);
    sender->sent = now_ns();
    if (fd >= 0) {
        if (write(fd, request, strlen(request)) < 0) perror("write");
        char buffer[4096];
        while (read(fd, buffer, sizeof buffer) > 0) {}
        close(fd);
    }
    return NULL;
}

static void handle(SoupServer *server, SoupServerMessage *message, const char *path, GHashTable *query, gpointer loop) {
    (void)server; (void)query;
    if (strcmp(path, "/callback") != 0) { soup_server_message_set_status(message, 404, NULL); return; }
    static const char page[] = "<!doctype html><title>Signed in</title>You can close this tab.";
    soup_server_message_set_status(message, 200, NULL);
    soup_server_message_set_response(message, "text/html", SOUP_MEMORY_STATIC, page, sizeof page - 1);
    g_main_loop_quit(loop);
}

int main(int argc, char **argv) {
    int sessions = argc > 1 ? atoi(argv[1]) : 10;
    for (int i = 0; i < sessions; i++) {
        GMainLoop *loop = g_main_loop_new(NULL, FALSE);
        SoupServer *server = soup_server_new(NULL, NULL);
        soup_server_add_handler(server, NULL, handle, loop, NULL);
        GError *error = NULL;
        if (!soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error)) {
            fprintf(stderr, "listen: %s\n", error->message);
            return 1;
        }
        GSList *uris = soup_server_get_uris(server);
        int port = g_uri_get_port(uris->data);
        g_slist_free_full(uris, (GDestroyNotify)g_uri_unref);
        struct sender sender = { .port = port };
        GThread *thread = g_thread_new("sender", send_callback, &sender);
        g_main_loop_run(loop);
        long long resumed = now_ns();
        g_thread_join(thread);
        printf("callback %lld %lld\n", sender.sent, resumed);
        fflush(stdout);
        soup_server_disconnect(server);
        g_object_unref(server);
        g_main_loop_unref(loop);
    }
    return 0;
}
