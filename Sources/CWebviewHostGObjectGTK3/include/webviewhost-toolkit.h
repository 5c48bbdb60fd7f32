/* The toolkit of libwebviewhost-gtk3: GTK 3 and WebKitGTK 4.1. */
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
