/* The toolkit of libwebviewhost-gtk4: GTK 4 and WebKitGTK 6.0. */
#include <gtk/gtk.h>
#include <webkit/webkit.h>
