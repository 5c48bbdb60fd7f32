/* One start of a C GTK 3 app for Tests/Benchmarks/gobject-startup.sh: GTK initialised; then,
 * built without -DBASELINE, a WvhPublicClientApplication made (memory token cache) and its
 * accounts read. Prints the resident memory (VmRSS, kB) and the time (ms) that part added, as JSON. */
#include <gtk/gtk.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifndef BASELINE
#include <webviewhost.h>
#endif

static long resident (void)
{
  char line[256];
  long kb = 0;
  FILE *status = fopen ("/proc/self/status", "r");
  while (status && fgets (line, sizeof line, status))
    if (strncmp (line, "VmRSS:", 6) == 0)
      kb = strtol (line + 6, NULL, 10);
  if (status)
    fclose (status);
  return kb;
}

static double now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

#ifndef BASELINE
static void accounts_read (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) accounts = wvh_public_client_application_get_accounts_finish (WVH_PUBLIC_CLIENT_APPLICATION (source), result, &error);
  if (error)
    g_printerr ("get_accounts: %s\n", error->message);
  g_main_loop_quit (data);
}
#endif

int main (void)
{
  gtk_init (NULL, NULL);
  long before = resident ();
  double started = now_ms ();
#ifndef BASELINE
  g_autoptr (GError) error = NULL;
  WvhPublicClientApplication *app = g_initable_new (WVH_TYPE_PUBLIC_CLIENT_APPLICATION, NULL, &error,
      "client-id", "startup", "authority", "https://127.0.0.1:9/", "redirect-uri", "http://127.0.0.1:23685/cb",
      "token-cache", "memory", NULL);
  if (!app) {
    g_printerr ("construct: %s\n", error->message);
    return 1;
  }
  GMainLoop *loop = g_main_loop_new (NULL, FALSE);
  wvh_public_client_application_get_accounts_async (app, NULL, accounts_read, loop);
  g_main_loop_run (loop);
#endif
  printf ("{\"kB\": %ld, \"ms\": %.3f, \"rss\": %ld}\n", resident () - before, now_ms () - started, resident ());
  return 0;
}
